"""A property & casualty insurer's claims warehouse (deterministic SQLite).

Tables: regions, products, adjusters, policyholders, policies, claims, payments.
Policies run 12 months and renew; claims are opened 2023-01-01 .. 2025-12-31 and the
snapshot is taken on 2026-01-01 00:00 (claims still open then have no closed_at).
"""

from __future__ import annotations

import os
import random
import sqlite3
from datetime import date, datetime, timedelta

SEED = 20260115
SNAPSHOT = datetime(2026, 1, 1, 0, 0, 0)

REGIONS = [
    (1, "Northeast", "Boston"),
    (2, "Southeast", "Atlanta"),
    (3, "Midwest", "Chicago"),
    (4, "Southwest", "Phoenix"),
    (5, "Pacific", "Seattle"),
]

# product_id, name, line, base premium, yearly claim probability, mean severity factor
PRODUCTS = [
    (1, "Home Plus 500", "homeowners", 1650.0, 0.17, 1.6),
    (2, "Home Basic 250", "homeowners", 980.0, 0.14, 1.0),
    (3, "Condo 300", "homeowners", 720.0, 0.10, 0.8),
    (4, "Renters 100", "renters", 240.0, 0.07, 0.35),
    (5, "Auto 360", "personal auto", 1480.0, 0.26, 0.9),
    (6, "Auto Lite 120", "personal auto", 890.0, 0.22, 0.6),
    (7, "Fleet 25", "commercial auto", 9200.0, 0.75, 1.5),
    (8, "Business Owner 2000", "commercial property", 4100.0, 0.30, 2.2),
]

ADJUSTERS = [
    ("ADJ-101", "Maria Lopez", 1, "2016-03-14"),
    ("ADJ-102", "Daniel Chen", 1, "2019-07-01"),
    ("ADJ-103", "Aisha Patel", 1, "2021-02-08"),
    ("ADJ-104", "Robert King", 2, "2014-09-22"),
    ("ADJ-105", "Grace Okafor", 2, "2020-05-18"),
    ("ADJ-106", "Tom Brennan", 2, "2022-11-07"),
    ("ADJ-107", "Linda Novak", 3, "2012-01-09"),
    ("ADJ-108", "Samuel Reyes", 3, "2018-04-30"),
    ("ADJ-109", "Hannah Berg", 3, "2023-01-16"),
    ("ADJ-110", "Carlos Mendez", 4, "2015-06-01"),
    ("ADJ-111", "Priya Raman", 4, "2021-09-13"),
    ("ADJ-112", "Ethan Walsh", 5, "2017-10-02"),
    ("ADJ-113", "Yuki Tanaka", 5, "2019-12-09"),
    ("ADJ-114", "Olivia Grant", 5, "2022-03-28"),
]

FIRST = [
    "James", "Mary", "John", "Patricia", "Michael", "Jennifer", "David", "Linda", "William",
    "Elizabeth", "Richard", "Barbara", "Joseph", "Susan", "Thomas", "Jessica", "Charles",
    "Sarah", "Christopher", "Karen", "Daniel", "Nancy", "Matthew", "Lisa", "Anthony", "Betty",
    "Mark", "Sandra", "Steven", "Ashley", "Paul", "Emily", "Andrew", "Donna", "Kevin", "Michelle",
    "Brian", "Carol", "George", "Amanda", "Luis", "Mei", "Arjun", "Fatima", "Ivan", "Sofia",
]
LAST = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
    "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor",
    "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
    "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "Nguyen", "Hill",
    "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell",
]
COMPANIES = [
    "Harbor Freight Lines", "Summit Logistics", "Blue Ridge Couriers", "Northstar Movers",
    "Pioneer Plumbing", "Redwood Landscaping", "Atlas Builders", "Metro Bakery Co",
    "Lakeside Dental", "Ironwood Supply", "Cedar Point Catering", "Granite State Hauling",
    "Evergreen Florists", "Canyon Auto Glass", "Beacon Hardware", "Silverline Transit",
]

CAUSES = {
    "homeowners": [("Water damage", 0.34), ("Wind and hail", 0.22), ("Fire", 0.07),
                   ("Theft", 0.15), ("Liability", 0.09), ("Freeze", 0.13)],
    "renters": [("Theft", 0.55), ("Water damage", 0.30), ("Fire", 0.05), ("Liability", 0.10)],
    "personal auto": [("Collision", 0.52), ("Glass", 0.18), ("Theft", 0.08),
                      ("Wind and hail", 0.10), ("Liability", 0.12)],
    "commercial auto": [("Collision", 0.58), ("Glass", 0.14), ("Liability", 0.20),
                        ("Theft", 0.08)],
    "commercial property": [("Water damage", 0.28), ("Fire", 0.14), ("Wind and hail", 0.20),
                            ("Theft", 0.18), ("Liability", 0.20)],
}

SEVERITY = [("Low", 0.46), ("Medium", 0.33), ("High", 0.16), ("Severe", 0.05)]
# base indemnity (USD) and settlement duration (days) per severity band
SEV_AMOUNT = {"Low": 720.0, "Medium": 2600.0, "High": 8800.0, "Severe": 30500.0}
SEV_DAYS = {"Low": 9.0, "Medium": 24.0, "High": 58.0, "Severe": 121.0}
REGION_PRICE = {1: 1.12, 2: 1.05, 3: 0.92, 4: 0.97, 5: 1.08}
REGION_SPEED = {1: 1.05, 2: 1.18, 3: 0.90, 4: 1.00, 5: 0.95}


def _pick(rng: random.Random, weighted):
    r = rng.random()
    acc = 0.0
    for item, w in weighted:
        acc += w
        if r < acc:
            return item
    return weighted[-1][0]


def _ts(d: datetime) -> str:
    return d.strftime("%Y-%m-%d %H:%M:%S")


def build(path: str) -> None:
    rng = random.Random(SEED)
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        CREATE TABLE regions (
            region_id INTEGER PRIMARY KEY, region_name TEXT NOT NULL, hub_city TEXT NOT NULL);
        CREATE TABLE products (
            product_id INTEGER PRIMARY KEY, product_name TEXT NOT NULL, line_of_business TEXT NOT NULL,
            base_premium REAL NOT NULL);
        CREATE TABLE adjusters (
            adjuster_id TEXT PRIMARY KEY, adjuster_name TEXT NOT NULL, region_id INTEGER NOT NULL,
            hired_on DATE NOT NULL);
        CREATE TABLE policyholders (
            policyholder_id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, holder_type TEXT NOT NULL,
            region_id INTEGER NOT NULL, customer_since DATE NOT NULL);
        CREATE TABLE policies (
            policy_id INTEGER PRIMARY KEY, policy_number TEXT NOT NULL UNIQUE,
            policyholder_id INTEGER NOT NULL, product_id INTEGER NOT NULL,
            start_date DATE NOT NULL, end_date DATE NOT NULL, annual_premium REAL NOT NULL,
            status TEXT NOT NULL);
        CREATE TABLE claims (
            claim_id INTEGER PRIMARY KEY, claim_number TEXT NOT NULL UNIQUE,
            policy_id INTEGER NOT NULL, adjuster_id TEXT NOT NULL, cause TEXT NOT NULL,
            severity_band TEXT NOT NULL, opened_at TIMESTAMP NOT NULL, closed_at TIMESTAMP,
            status TEXT NOT NULL, reopened INTEGER NOT NULL, reopened_at TIMESTAMP,
            initial_reserve REAL NOT NULL);
        CREATE TABLE payments (
            payment_id INTEGER PRIMARY KEY, claim_id INTEGER NOT NULL, payment_type TEXT NOT NULL,
            paid_on DATE NOT NULL, amount REAL NOT NULL);
        """
    )
    cur.executemany("INSERT INTO regions VALUES (?,?,?)", REGIONS)
    cur.executemany(
        "INSERT INTO products VALUES (?,?,?,?)", [p[:4] for p in PRODUCTS]
    )
    cur.executemany("INSERT INTO adjusters VALUES (?,?,?,?)", ADJUSTERS)
    adjusters_by_region: dict[int, list[str]] = {}
    for a in ADJUSTERS:
        adjusters_by_region.setdefault(a[2], []).append(a[0])

    # policyholders
    holders = []
    region_weights = [(1, 0.24), (2, 0.22), (3, 0.2), (4, 0.16), (5, 0.18)]
    n_holders = 3400
    for hid in range(1, n_holders + 1):
        commercial = rng.random() < 0.07
        if commercial:
            name = f"{rng.choice(COMPANIES)} #{rng.randint(2, 60)}"
        else:
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        region = _pick(rng, region_weights)
        since = date(2012, 1, 1) + timedelta(days=rng.randint(0, 365 * 11))
        holders.append((hid, name, "commercial" if commercial else "personal", region,
                        since.isoformat()))
    cur.executemany("INSERT INTO policyholders VALUES (?,?,?,?,?)", holders)

    # policies: each holder holds 1-2 products, each renewed yearly
    personal_products = [(1, 0.20), (2, 0.16), (3, 0.09), (4, 0.10), (5, 0.27), (6, 0.18)]
    commercial_products = [(7, 0.55), (8, 0.45)]
    policies = []
    pid = 0
    for hid, _name, htype, region, _since in holders:
        n_products = 1 if rng.random() < 0.72 else 2
        chosen = set()
        for _ in range(n_products):
            prod = _pick(rng, commercial_products if htype == "commercial" else personal_products)
            if prod in chosen:
                continue
            chosen.add(prod)
            start = date(2022, 1, 1) + timedelta(days=rng.randint(0, 700))
            price = PRODUCTS[prod - 1][3] * REGION_PRICE[region] * rng.uniform(0.8, 1.25)
            while start <= date(2025, 12, 31):
                pid += 1
                end = date(start.year + 1, start.month, min(start.day, 28)) - timedelta(days=1)
                lapsed = rng.random() < 0.11
                status = "expired" if end < date(2026, 1, 1) else "active"
                if lapsed and end < date(2026, 1, 1):
                    status = "lapsed"
                prefix = {1: "HP5", 2: "HB2", 3: "CD3", 4: "RN1", 5: "AU3", 6: "AL1", 7: "FL25",
                          8: "BO2"}[prod]
                policies.append((pid, f"{prefix}-{100000 + pid}", hid, prod, start.isoformat(),
                                 end.isoformat(), round(price, 2), status))
                if lapsed:
                    break
                start = end + timedelta(days=1)
                price *= rng.uniform(1.02, 1.08)
    cur.executemany("INSERT INTO policies VALUES (?,?,?,?,?,?,?,?)", policies)

    region_of_holder = {h[0]: h[3] for h in holders}
    claims = []
    payments = []
    cid = 0
    pay_id = 0
    lo, hi = datetime(2023, 1, 1), datetime(2025, 12, 31, 23, 59, 59)
    for pol in policies:
        pol_id, _num, hid, prod, start_s, end_s, _prem, _st = pol
        start = datetime.fromisoformat(start_s)
        end = datetime.fromisoformat(end_s) + timedelta(hours=23, minutes=59)
        _p = PRODUCTS[prod - 1]
        line, prob, sev_factor = _p[2], _p[4], _p[5]
        n_claims = 0
        while rng.random() < (prob if n_claims == 0 else prob * 0.5):
            n_claims += 1
            if n_claims >= 4:
                break
        region = region_of_holder[hid]
        for _ in range(n_claims):
            span = (end - start).total_seconds()
            opened = start + timedelta(seconds=rng.randint(0, int(span)))
            # business-hours skew
            opened = opened.replace(hour=rng.choice([8, 9, 9, 10, 11, 13, 14, 15, 16, 17, 19]),
                                    minute=rng.randint(0, 59), second=rng.randint(0, 59))
            if opened < lo or opened > hi:
                continue
            cid += 1
            sev = _pick(rng, SEVERITY)
            cause = _pick(rng, CAUSES[line])
            adjuster = rng.choice(adjusters_by_region[region])
            # workload skew: senior adjusters pick up more
            if rng.random() < 0.15:
                adjuster = adjusters_by_region[region][0]
            base = SEV_AMOUNT[sev] * sev_factor * REGION_PRICE[region]
            reserve = round(base * rng.uniform(0.9, 1.5), -1)
            denied = rng.random() < (0.09 if sev in ("Low", "Medium") else 0.05)
            days = SEV_DAYS[sev] * REGION_SPEED[region] * rng.lognormvariate(0, 0.45)
            days *= 1.0 + 0.06 * (opened.year - 2023)  # slower every year
            closed = opened + timedelta(hours=days * 24.0 + rng.uniform(-6, 6))
            if closed <= opened:
                closed = opened + timedelta(hours=rng.randint(2, 20))
            closed = closed.replace(microsecond=0)
            reopened = 0
            reopened_at = None
            if not denied and closed < SNAPSHOT and rng.random() < (0.06 if sev == "Low" else 0.1):
                reopened = 1
                reopened_at = closed + timedelta(days=rng.uniform(5, 60))
                closed = reopened_at + timedelta(days=rng.uniform(4, 40))
                closed = closed.replace(microsecond=0)
                reopened_at = reopened_at.replace(microsecond=0)
                if reopened_at >= SNAPSHOT:
                    reopened, reopened_at = 0, None
            if closed >= SNAPSHOT:
                status, closed_s = "open", None
            else:
                status, closed_s = ("denied" if denied else "closed"), _ts(closed)
            claims.append((cid, f"CLM-{opened.year % 100:02d}-{cid:05d}", pol_id, adjuster,
                           cause, sev, _ts(opened), closed_s, status, reopened,
                           _ts(reopened_at) if reopened_at else None, reserve))
            if denied:
                # investigation expense only
                if rng.random() < 0.6:
                    pay_id += 1
                    payments.append((pay_id, cid, "expense",
                                     (opened + timedelta(days=rng.randint(3, 20))).date().isoformat(),
                                     round(rng.uniform(120, 650), 2)))
                continue
            indemnity = base * rng.lognormvariate(0, 0.5)
            horizon = (closed if closed < SNAPSHOT else SNAPSHOT - timedelta(days=1))
            n_pay = 1 if sev == "Low" else rng.randint(1, 3)
            if status == "open":
                if rng.random() < 0.5:
                    n_pay = 0
                indemnity *= 0.5
            parts = [rng.random() + 0.3 for _ in range(n_pay)]
            for i, part in enumerate(parts):
                pay_id += 1
                when = opened + (horizon - opened) * ((i + 1) / len(parts))
                payments.append((pay_id, cid, "indemnity", when.date().isoformat(),
                                 round(indemnity * part / sum(parts), 2)))
            if sev != "Low" or rng.random() < 0.3:
                pay_id += 1
                payments.append((pay_id, cid, "expense",
                                 (opened + (horizon - opened) / 2).date().isoformat(),
                                 round(indemnity * rng.uniform(0.04, 0.12) + 90, 2)))
    cur.executemany("INSERT INTO claims VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", claims)
    cur.executemany("INSERT INTO payments VALUES (?,?,?,?,?)", payments)
    cur.executescript(
        """
        CREATE INDEX ix_claims_policy ON claims(policy_id);
        CREATE INDEX ix_claims_opened ON claims(opened_at);
        CREATE INDEX ix_payments_claim ON payments(claim_id);
        CREATE INDEX ix_policies_holder ON policies(policyholder_id);
        """
    )
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "insurance.db")
