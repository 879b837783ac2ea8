"""Telecom warehouse: a mobile network operator's subscribers, usage, tickets, outages and ports.

Deterministic: build(path) always writes the same SQLite file (random.Random(2817), fixed dates).
"""

from __future__ import annotations

import os
import random
import sqlite3
from datetime import date, datetime, timedelta

REGIONS = ["Northeast", "Southeast", "Midwest", "Mountain", "Pacific"]
REGION_WEIGHTS = [0.26, 0.22, 0.20, 0.12, 0.20]
# base dropped-call probability per region (per call)
REGION_DROP = {"Northeast": 0.011, "Southeast": 0.016, "Midwest": 0.013, "Mountain": 0.024, "Pacific": 0.009}

PLANS = [
    # id, name, monthly fee, data cap GB (None = unlimited), type, launched
    (1, "Unlimited 5G", 75.0, None, "postpaid", "2020-03-01"),
    (2, "Unlimited 5G Plus", 90.0, None, "postpaid", "2021-09-01"),
    (3, "Flex 30", 45.0, 30, "postpaid", "2019-05-01"),
    (4, "Flex 10", 30.0, 10, "postpaid", "2019-05-01"),
    (5, "Family 4", 38.0, 40, "postpaid", "2020-11-01"),
    (6, "Prepaid 25", 25.0, 15, "prepaid", "2018-01-01"),
    (7, "Business 100", 110.0, 100, "business", "2022-02-01"),
]
PLAN_WEIGHTS = [0.24, 0.09, 0.18, 0.11, 0.17, 0.14, 0.07]
PLAN_DATA_MEAN = {1: 24.0, 2: 31.0, 3: 17.0, 4: 6.5, 5: 13.0, 6: 7.5, 7: 38.0}
PLAN_CHURN = {1: 0.011, 2: 0.008, 3: 0.014, 4: 0.018, 5: 0.009, 6: 0.032, 7: 0.010}

HANDSETS = ["Galaxy S24", "Galaxy S23", "Galaxy A15", "iPhone 15", "iPhone 15 Pro", "iPhone 13",
            "Pixel 8", "Moto G 5G"]
HANDSET_WEIGHTS = [0.13, 0.10, 0.12, 0.18, 0.10, 0.14, 0.11, 0.12]

CARRIERS = ["Verizon", "AT&T", "T-Mobile", "US Cellular", "Mint Mobile"]

TICKET_CATEGORIES = ["Billing", "Network", "Device", "Porting", "Plan change"]
TICKET_CAT_WEIGHTS = [0.33, 0.24, 0.18, 0.10, 0.15]
TICKET_HANDLE_MEAN = {"Billing": 14, "Network": 26, "Device": 19, "Porting": 31, "Plan change": 9}
TICKET_RESOLVE_HOURS = {"Billing": 10, "Network": 38, "Device": 22, "Porting": 54, "Plan change": 4}
CHANNELS = ["Phone", "Chat", "Store", "App"]
CHANNEL_WEIGHTS = [0.38, 0.30, 0.14, 0.18]

OUTAGE_CAUSES = ["Power", "Fiber cut", "Hardware", "Software", "Weather"]
OUTAGE_CAUSE_WEIGHTS = [0.28, 0.22, 0.20, 0.15, 0.15]
OUTAGE_MEAN_MIN = {"Power": 150, "Fiber cut": 310, "Hardware": 200, "Software": 70, "Weather": 420}

START = date(2023, 1, 1)
END = date(2025, 12, 31)


def _months(a: date, b: date):
    y, m = a.year, a.month
    while (y, m) <= (b.year, b.month):
        yield date(y, m, 1)
        m += 1
        if m == 13:
            y, m = y + 1, 1


def _rand_date(rng: random.Random, a: date, b: date) -> date:
    return a + timedelta(days=rng.randint(0, (b - a).days))


def build(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)
    rng = random.Random(2817)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        CREATE TABLE plans (
            plan_id INTEGER PRIMARY KEY, plan_name TEXT NOT NULL, monthly_fee_usd REAL NOT NULL,
            data_cap_gb INTEGER, plan_type TEXT NOT NULL, launched_on DATE NOT NULL);
        CREATE TABLE cell_sites (
            site_id TEXT PRIMARY KEY, region TEXT NOT NULL, technology TEXT NOT NULL,
            commissioned_on DATE NOT NULL, sectors INTEGER NOT NULL);
        CREATE TABLE subscribers (
            subscriber_id INTEGER PRIMARY KEY, msisdn TEXT NOT NULL, region TEXT NOT NULL,
            plan_id INTEGER NOT NULL REFERENCES plans(plan_id), handset_model TEXT NOT NULL,
            home_site_id TEXT NOT NULL REFERENCES cell_sites(site_id),
            activated_on DATE NOT NULL, status TEXT NOT NULL, churned_on DATE,
            acquisition_channel TEXT NOT NULL);
        CREATE TABLE monthly_usage (
            subscriber_id INTEGER NOT NULL REFERENCES subscribers(subscriber_id),
            usage_month DATE NOT NULL, data_gb REAL NOT NULL, call_minutes INTEGER NOT NULL,
            calls INTEGER NOT NULL, dropped_calls INTEGER NOT NULL, billed_usd REAL NOT NULL,
            PRIMARY KEY (subscriber_id, usage_month));
        CREATE TABLE support_tickets (
            ticket_id INTEGER PRIMARY KEY, subscriber_id INTEGER NOT NULL REFERENCES subscribers(subscriber_id),
            opened_at TIMESTAMP NOT NULL, resolved_at TIMESTAMP, category TEXT NOT NULL,
            channel TEXT NOT NULL, handle_minutes INTEGER NOT NULL, csat_score INTEGER);
        CREATE TABLE outages (
            outage_id INTEGER PRIMARY KEY, site_id TEXT NOT NULL REFERENCES cell_sites(site_id),
            started_at TIMESTAMP NOT NULL, ended_at TIMESTAMP NOT NULL, cause TEXT NOT NULL,
            severity TEXT NOT NULL, subscribers_affected INTEGER NOT NULL);
        CREATE TABLE port_requests (
            request_id INTEGER PRIMARY KEY, subscriber_id INTEGER REFERENCES subscribers(subscriber_id),
            direction TEXT NOT NULL, other_carrier TEXT NOT NULL, requested_on DATE NOT NULL,
            completed_on DATE, status TEXT NOT NULL);
        """
    )
    cur.executemany("INSERT INTO plans VALUES (?,?,?,?,?,?)", PLANS)

    # cell sites
    site_ids = sorted(rng.sample(range(100, 1000), 140))
    sites = []
    for sid in site_ids:
        region = rng.choices(REGIONS, REGION_WEIGHTS)[0]
        tech = rng.choices(["5G", "4G LTE"], [0.55, 0.45])[0]
        comm = _rand_date(rng, date(2012, 1, 1), date(2024, 6, 30))
        sites.append((f"SITE-{sid:04d}", region, tech, comm.isoformat(), rng.choice([3, 3, 3, 4, 6])))
    cur.executemany("INSERT INTO cell_sites VALUES (?,?,?,?,?)", sites)
    sites_by_region = {r: [s for s in sites if s[1] == r] for r in REGIONS}
    site_quality = {s[0]: rng.uniform(0.6, 1.6) for s in sites}

    # subscribers
    subs = []
    usage = []
    ports = []
    port_id = 0
    n_subs = 1850
    for sub_id in range(1, n_subs + 1):
        region = rng.choices(REGIONS, REGION_WEIGHTS)[0]
        plan_id = rng.choices([p[0] for p in PLANS], PLAN_WEIGHTS)[0]
        handset = rng.choices(HANDSETS, HANDSET_WEIGHTS)[0]
        site = rng.choice(sites_by_region[region])[0]
        if rng.random() < 0.45:
            act = _rand_date(rng, date(2020, 1, 1), date(2022, 12, 31))
        else:
            act = _rand_date(rng, date(2023, 1, 1), date(2025, 11, 30))
        channel = rng.choices(["Port-in", "New line", "Store upgrade", "Online"], [0.34, 0.30, 0.16, 0.20])[0]
        # monthly churn hazard
        hazard = PLAN_CHURN[plan_id] * (1.35 if region == "Mountain" else 1.0)
        churned = None
        first_month = max(date(act.year, act.month, 1), START)
        for m in _months(first_month, END):
            if m <= date(act.year, act.month, 1):
                continue
            if rng.random() < hazard:
                churned = _rand_date(rng, m, min(m + timedelta(days=27), END))
                break
        status = "churned" if churned else "active"
        msisdn = f"+1-555-{rng.randint(200, 999):03d}-{rng.randint(0, 9999):04d}"
        subs.append((sub_id, msisdn, region, plan_id, handset, site, act.isoformat(), status,
                     churned.isoformat() if churned else None, channel))
        # usage
        fee = PLANS[plan_id - 1][2]
        cap = PLANS[plan_id - 1][3]
        heavy = rng.uniform(0.5, 1.6)
        talk = rng.uniform(0.4, 1.8)
        last = churned or END
        for m in _months(first_month, last):
            growth = 1 + 0.012 * ((m.year - 2023) * 12 + m.month - 1)
            gb = max(0.1, rng.gauss(PLAN_DATA_MEAN[plan_id] * heavy * growth, 3.0))
            overage = 0.0
            if cap is not None and gb > cap:
                if plan_id == 6:
                    gb = cap - rng.uniform(0, 1.5)
                else:
                    overage = 10.0 if rng.random() < 0.6 else 0.0
            calls = max(1, int(rng.gauss(62 * talk, 12)))
            minutes = max(1, int(calls * rng.uniform(2.2, 4.4)))
            p_drop = REGION_DROP[region] * site_quality[site]
            dropped = sum(1 for _ in range(calls) if rng.random() < p_drop)
            billed = fee + overage + (rng.choice([0, 0, 0, 0, 5.0, 12.5]) if plan_id != 6 else 0)
            if m.year >= 2025 and plan_id in (1, 2):
                billed += 5.0  # 2025 price rise on unlimited plans
            usage.append((sub_id, m.isoformat(), round(gb, 1), minutes, calls, dropped, round(billed, 2)))
        # port-in request
        if channel == "Port-in" and act >= date(2023, 1, 1):
            port_id += 1
            req = act - timedelta(days=rng.randint(0, 3))
            ports.append((port_id, sub_id, "in", rng.choice(CARRIERS), req.isoformat(), act.isoformat(), "completed"))
        if churned and rng.random() < 0.62:
            port_id += 1
            req = churned - timedelta(days=rng.randint(0, 2))
            ports.append((port_id, sub_id, "out", rng.choices(CARRIERS, [0.3, 0.25, 0.3, 0.05, 0.1])[0],
                          req.isoformat(), churned.isoformat(), "completed"))
    # rejected / cancelled port-ins (no subscriber created)
    for _ in range(140):
        port_id += 1
        req = _rand_date(rng, START, END)
        ports.append((port_id, None, "in", rng.choice(CARRIERS), req.isoformat(), None,
                      rng.choice(["rejected", "cancelled"])))
    cur.executemany("INSERT INTO subscribers VALUES (?,?,?,?,?,?,?,?,?,?)", subs)
    cur.executemany("INSERT INTO monthly_usage VALUES (?,?,?,?,?,?,?)", usage)
    ports.sort(key=lambda p: (p[4], p[0]))
    ports = [(i + 1,) + p[1:] for i, p in enumerate(ports)]
    cur.executemany("INSERT INTO port_requests VALUES (?,?,?,?,?,?,?)", ports)

    # support tickets
    tickets = []
    tid = 0
    for s in subs:
        act = date.fromisoformat(s[6])
        lo = max(act, START)
        hi = date.fromisoformat(s[8]) if s[8] else END
        if hi < lo:
            continue
        n = rng.choices([0, 1, 2, 3, 4, 5], [0.22, 0.30, 0.22, 0.13, 0.08, 0.05])[0]
        for _ in range(n):
            tid += 1
            cat = rng.choices(TICKET_CATEGORIES, TICKET_CAT_WEIGHTS)[0]
            ch = rng.choices(CHANNELS, CHANNEL_WEIGHTS)[0]
            d = _rand_date(rng, lo, hi)
            opened = datetime(d.year, d.month, d.day, rng.randint(7, 21), rng.randint(0, 59), rng.randint(0, 59))
            handle = max(2, int(rng.gauss(TICKET_HANDLE_MEAN[cat] * (0.8 if ch == "Chat" else 1.0), 5)))
            res_h = rng.expovariate(1 / TICKET_RESOLVE_HOURS[cat]) + handle / 60
            resolved = opened + timedelta(minutes=int(res_h * 60))
            if resolved > datetime(2025, 12, 31, 23, 59) or rng.random() < 0.02:
                resolved_s = None
            else:
                resolved_s = resolved.strftime("%Y-%m-%d %H:%M:%S")
            csat = rng.choices([1, 2, 3, 4, 5], [0.07, 0.1, 0.2, 0.33, 0.3])[0] if rng.random() < 0.6 else None
            tickets.append((tid, s[0], opened.strftime("%Y-%m-%d %H:%M:%S"), resolved_s, cat, ch, handle, csat))
    tickets.sort(key=lambda t: t[2])
    tickets = [(i + 1,) + t[1:] for i, t in enumerate(tickets)]
    cur.executemany("INSERT INTO support_tickets VALUES (?,?,?,?,?,?,?,?)", tickets)

    # outages
    outages = []
    for _ in range(380):
        site = rng.choice(sites)
        cause = rng.choices(OUTAGE_CAUSES, OUTAGE_CAUSE_WEIGHTS)[0]
        d = _rand_date(rng, START, END)
        st = datetime(d.year, d.month, d.day, rng.randint(0, 23), rng.randint(0, 59))
        dur = max(8, int(rng.expovariate(1 / OUTAGE_MEAN_MIN[cause]) * (1.4 if site[1] == "Mountain" else 1.0)))
        en = st + timedelta(minutes=dur)
        sev = "major" if dur > 240 or rng.random() < 0.1 else "minor"
        outages.append((site[0], st.strftime("%Y-%m-%d %H:%M:%S"), en.strftime("%Y-%m-%d %H:%M:%S"),
                        cause, sev, rng.randint(40, 1900)))
    outages.sort(key=lambda o: o[1])
    cur.executemany("INSERT INTO outages VALUES (?,?,?,?,?,?,?)", [(i + 1,) + o for i, o in enumerate(outages)])
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "telecom.db")
