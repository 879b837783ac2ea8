"""Deterministic SQLite warehouse of a B2B SaaS company: accounts, subscriptions, MRR, billing,
support tickets and product usage, January 2022 to December 2025.

build(path) writes the database with sqlite3 and the standard library only.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import random
import sqlite3

SEED = 20240611
FIRST_MONTH = dt.date(2022, 1, 1)
LAST_MONTH = dt.date(2025, 12, 1)
CUTOFF = dt.date(2025, 12, 31)
USAGE_FROM = dt.date(2024, 1, 1)  # a Monday

PLANS = [
    # plan_id, plan_name, tier, list price per seat per month, monthly churn hazard
    (1, "Starter", 1, 15.0, 0.030),
    (2, "Pro 2", 2, 39.0, 0.016),
    (3, "Business 360", 3, 69.0, 0.010),
    (4, "Enterprise X1", 4, 119.0, 0.005),
]
PLAN_WEIGHTS = [0.34, 0.36, 0.20, 0.10]

INDUSTRIES = [
    "Software", "Healthcare", "Retail", "Manufacturing", "Financial Services",
    "Education", "Media", "Logistics",
]
REGIONS = ["North America", "EMEA", "APAC", "LATAM"]
REGION_WEIGHTS = [0.44, 0.30, 0.16, 0.10]

NAMED = [
    ("Studio 54 Media", "Media"), ("Route 66 Logistics", "Logistics"),
    ("Area 51 Labs", "Software"), ("Pier 39 Foods", "Retail"),
    ("Suite 200 Partners", "Financial Services"), ("Forty2 Analytics", "Software"),
    ("4Front Systems", "Manufacturing"), ("Channel 9 Health", "Healthcare"),
    ("Level 3 Robotics", "Manufacturing"), ("Sector 7 Energy", "Manufacturing"),
    ("Apollo 11 Capital", "Financial Services"), ("Catch 22 Games", "Media"),
    ("Highway 101 Freight", "Logistics"), ("Unit 8 Design", "Media"),
    ("3D Print Works", "Manufacturing"), ("Cloud 9 Learning", "Education"),
    ("Gate 12 Travel", "Retail"), ("Block 5 Clinics", "Healthcare"),
    ("Mile 26 Fitness", "Retail"), ("Dock 3 Supply", "Logistics"),
    ("Floor 8 Ventures", "Financial Services"), ("Room 404 Software", "Software"),
    ("Ocean 88 Seafood", "Retail"), ("Track 19 Rail", "Logistics"),
    ("Zone 6 Schools", "Education"),
]
PREFIX = [
    "Acme", "Bluefin", "Brightwave", "Cedar", "Cobalt", "Crescent", "Driftwood", "Ember",
    "Evergreen", "Falcon", "Fjord", "Granite", "Harbor", "Helix", "Ironclad", "Juniper",
    "Keystone", "Lumen", "Maple", "Meridian", "Nimbus", "Northwind", "Oakridge", "Orchid",
    "Pinnacle", "Quarry", "Redwood", "Sable", "Sierra", "Summit", "Tandem", "Tidal",
    "Trillium", "Vantage", "Verdant", "Willow", "Zenith", "Aurora", "Beacon", "Copper",
]
SUFFIX = {
    "Software": ["Software", "Labs", "Digital", "Systems"],
    "Healthcare": ["Health", "Medical", "Care", "Clinics"],
    "Retail": ["Outfitters", "Market", "Goods", "Stores"],
    "Manufacturing": ["Industries", "Manufacturing", "Works", "Fabrication"],
    "Financial Services": ["Capital", "Financial", "Advisors", "Partners"],
    "Education": ["Academy", "Learning", "Schools", "Education"],
    "Media": ["Media", "Studios", "Publishing", "Creative"],
    "Logistics": ["Logistics", "Freight", "Shipping", "Transport"],
}

TICKET_CATEGORIES = ["Billing", "Bug", "How-to", "Integration", "Access"]
PRIORITIES = [
    # priority, weight, median first response minutes, median resolution hours
    ("low", 0.22, 420.0, 70.0),
    ("normal", 0.46, 150.0, 30.0),
    ("high", 0.22, 55.0, 14.0),
    ("urgent", 0.10, 18.0, 5.0),
]
CHANNELS = ["email", "chat", "phone"]
PAY_METHODS = ["card", "ach", "wire"]
CANCEL_REASONS = ["price", "switched competitor", "low usage", "company closed", "missing feature"]


def _add_months(d: dt.date, n: int) -> dt.date:
    y, m = divmod(d.month - 1 + n, 12)
    return dt.date(d.year + y, m + 1, 1)


def _month_end(d: dt.date) -> dt.date:
    return _add_months(d, 1) - dt.timedelta(days=1)


def _months(first: dt.date, last: dt.date) -> list[dt.date]:
    out, m = [], first
    while m <= last:
        out.append(m)
        m = _add_months(m, 1)
    return out


def _ts(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def _account_names(rng: random.Random, n: int) -> list[tuple[str, str]]:
    names = list(NAMED)
    used = {name for name, _ in names}
    while len(names) < n:
        industry = rng.choice(INDUSTRIES)
        name = f"{rng.choice(PREFIX)} {rng.choice(SUFFIX[industry])}"
        if name not in used:
            used.add(name)
            names.append((name, industry))
    rng.shuffle(names)
    return names


def build(path: str) -> None:
    rng = random.Random(SEED)
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        CREATE TABLE plans (
            plan_id INTEGER PRIMARY KEY,
            plan_name TEXT NOT NULL,
            tier INTEGER NOT NULL,
            list_price_per_seat_usd REAL NOT NULL
        );
        CREATE TABLE accounts (
            account_id INTEGER PRIMARY KEY,
            account_code TEXT NOT NULL UNIQUE,
            company_name TEXT NOT NULL,
            industry TEXT NOT NULL,
            region TEXT NOT NULL,
            employee_band TEXT NOT NULL,
            signup_date TEXT NOT NULL
        );
        CREATE TABLE subscriptions (
            subscription_id INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(account_id),
            plan_id INTEGER NOT NULL REFERENCES plans(plan_id),
            seats INTEGER NOT NULL,
            mrr_usd REAL NOT NULL,
            start_date TEXT NOT NULL,
            cancel_date TEXT,
            cancel_reason TEXT,
            status TEXT NOT NULL
        );
        CREATE TABLE mrr_monthly (
            account_id INTEGER NOT NULL REFERENCES accounts(account_id),
            month_start TEXT NOT NULL,
            plan_id INTEGER NOT NULL REFERENCES plans(plan_id),
            seats INTEGER NOT NULL,
            mrr_usd REAL NOT NULL,
            PRIMARY KEY (account_id, month_start)
        );
        CREATE TABLE mrr_movements (
            movement_id INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(account_id),
            month_start TEXT NOT NULL,
            movement_type TEXT NOT NULL,
            mrr_delta_usd REAL NOT NULL
        );
        CREATE TABLE invoices (
            invoice_id INTEGER PRIMARY KEY,
            invoice_number TEXT NOT NULL UNIQUE,
            account_id INTEGER NOT NULL REFERENCES accounts(account_id),
            issue_date TEXT NOT NULL,
            due_date TEXT NOT NULL,
            amount_usd REAL NOT NULL,
            status TEXT NOT NULL,
            paid_date TEXT,
            paid_amount_usd REAL,
            payment_method TEXT
        );
        CREATE TABLE support_tickets (
            ticket_id INTEGER PRIMARY KEY,
            ticket_number TEXT NOT NULL UNIQUE,
            account_id INTEGER NOT NULL REFERENCES accounts(account_id),
            opened_at TEXT NOT NULL,
            first_response_at TEXT,
            resolved_at TEXT,
            priority TEXT NOT NULL,
            channel TEXT NOT NULL,
            category TEXT NOT NULL,
            csat_score INTEGER
        );
        CREATE TABLE usage_weekly (
            account_id INTEGER NOT NULL REFERENCES accounts(account_id),
            week_start TEXT NOT NULL,
            weekly_active_users INTEGER NOT NULL,
            logins INTEGER NOT NULL,
            reports_created INTEGER NOT NULL,
            PRIMARY KEY (account_id, week_start)
        );
        """
    )
    cur.executemany("INSERT INTO plans VALUES (?,?,?,?)", [p[:4] for p in PLANS])
    price = {p[0]: p[3] for p in PLANS}
    hazard = {p[0]: p[4] for p in PLANS}

    n_accounts = 430
    names = _account_names(rng, n_accounts)
    # signups grow over time: weight each month by a rising trend
    months = _months(FIRST_MONTH, dt.date(2025, 11, 1))
    month_w = [1.0 + 0.045 * i for i in range(len(months))]

    accounts, subs, mrr_rows, moves, invoices, tickets, usage = [], [], [], [], [], [], []
    timeline: dict[int, dict[dt.date, tuple[int, int, float]]] = {}
    sub_id = 0
    move_id = 0
    for i, (name, industry) in enumerate(names):
        account_id = i + 1
        code = f"C-{101 + i}"
        region = rng.choices(REGIONS, REGION_WEIGHTS)[0]
        band = rng.choices(["1-50", "51-200", "201-1000", "1000+"], [0.35, 0.35, 0.2, 0.1])[0]
        m0 = rng.choices(months, month_w)[0]
        signup = m0 + dt.timedelta(days=rng.randrange((_month_end(m0) - m0).days + 1))
        accounts.append((account_id, code, name, industry, region, band, signup.isoformat()))

        plan = rng.choices([1, 2, 3, 4], PLAN_WEIGHTS)[0]
        base_seats = {"1-50": (3, 15), "51-200": (8, 40), "201-1000": (20, 90), "1000+": (40, 160)}
        lo, hi = base_seats[band]
        seats = rng.randint(lo, hi)
        discount = rng.choice([0.0, 0.0, 0.0, 0.1, 0.15, 0.2])
        engagement = rng.uniform(0.35, 0.95)

        def mrr_of(p: int, s: int) -> float:
            return round(s * price[p] * (1 - discount), 2)

        mrr = mrr_of(plan, seats)
        move_id += 1
        moves.append((move_id, account_id, m0.isoformat(), "new", mrr))
        tl: dict[dt.date, tuple[int, int, float]] = {m0: (plan, seats, mrr)}
        cancel = None
        m = m0
        while True:
            m = _add_months(m, 1)
            if m > LAST_MONTH:
                break
            h = hazard[plan] * (1.6 if engagement < 0.5 else 1.0)
            if rng.random() < h:
                cancel = m + dt.timedelta(days=rng.randrange((_month_end(m) - m).days + 1))
                move_id += 1
                moves.append((move_id, account_id, m.isoformat(), "churn", -mrr))
                break
            r = rng.random()
            new_plan, new_seats = plan, seats
            if r < 0.012 and plan < 4:
                new_plan = plan + 1
            elif r < 0.085:
                new_seats = seats + max(1, round(seats * rng.uniform(0.05, 0.3)))
            elif r < 0.115 and seats > 3:
                new_seats = max(2, seats - max(1, round(seats * rng.uniform(0.05, 0.25))))
            if (new_plan, new_seats) != (plan, seats):
                new_mrr = mrr_of(new_plan, new_seats)
                delta = round(new_mrr - mrr, 2)
                if delta != 0:
                    move_id += 1
                    kind = "expansion" if delta > 0 else "contraction"
                    moves.append((move_id, account_id, m.isoformat(), kind, delta))
                plan, seats, mrr = new_plan, new_seats, new_mrr
            tl[m] = (plan, seats, mrr)
        timeline[account_id] = tl
        sub_id += 1
        subs.append(
            (
                sub_id, account_id, plan, seats, mrr, signup.isoformat(),
                cancel.isoformat() if cancel else None,
                rng.choice(CANCEL_REASONS) if cancel else None,
                "cancelled" if cancel else "active",
            )
        )
        for mm, (p, s, v) in sorted(tl.items()):
            mrr_rows.append((account_id, mm.isoformat(), p, s, v))

        # invoices: one per month the account is billed (issued on the 1st, or on signup)
        pay_speed = rng.choice([0.6, 0.8, 1.0, 1.0, 1.3, 1.8])
        for mm, (p, s, v) in sorted(tl.items()):
            issue = max(mm, signup)
            due = issue + dt.timedelta(days=30)
            days = max(0, round(rng.lognormvariate(math.log(19 * pay_speed), 0.45)))
            paid = issue + dt.timedelta(days=days)
            method = rng.choices(PAY_METHODS, [0.55, 0.3, 0.15])[0]
            inv_no = f"INV-{issue.year}-{len(invoices) + 1:05d}"
            if rng.random() < 0.006:
                invoices.append(
                    (len(invoices) + 1, inv_no, account_id, issue.isoformat(), due.isoformat(),
                     v, "void", None, None, None)
                )
            elif paid <= CUTOFF:
                invoices.append(
                    (len(invoices) + 1, inv_no, account_id, issue.isoformat(), due.isoformat(),
                     v, "paid", paid.isoformat(), v, method)
                )
            else:
                status = "overdue" if due < CUTOFF else "open"
                invoices.append(
                    (len(invoices) + 1, inv_no, account_id, issue.isoformat(), due.isoformat(),
                     v, status, None, None, None)
                )

        # support tickets: Poisson-ish per active month
        for mm, (p, s, v) in sorted(tl.items()):
            rate = 0.28 + 0.012 * min(s, 60) + (0.25 if engagement < 0.5 else 0.0)
            n = 0
            while rng.random() < rate / (1 + rate) and n < 6:
                n += 1
            end = min(_month_end(mm), CUTOFF)
            for _ in range(n):
                day = mm + dt.timedelta(days=rng.randrange((end - mm).days + 1))
                if day < signup:
                    day = signup
                opened = dt.datetime(day.year, day.month, day.day, rng.randint(7, 19),
                                     rng.randint(0, 59), rng.randint(0, 59))
                prio, _, fr_med, res_med = rng.choices(PRIORITIES, [x[1] for x in PRIORITIES])[0]
                ent = 1.0 if p < 4 else 0.7
                fr_min = max(1.0, rng.lognormvariate(math.log(fr_med * ent), 0.6))
                res_h = max(0.3, rng.lognormvariate(math.log(res_med * ent), 0.7))
                first = opened + dt.timedelta(minutes=fr_min)
                resolved = opened + dt.timedelta(hours=max(res_h, fr_min / 60 + 0.2))
                first_s = _ts(first) if first.date() <= CUTOFF else None
                res_s = _ts(resolved) if resolved.date() <= CUTOFF else None
                csat = None
                if res_s and rng.random() < 0.58:
                    base = 4.6 - 0.012 * res_h - (0.5 if prio == "urgent" and res_h > 8 else 0)
                    csat = int(min(5, max(1, round(rng.gauss(base, 0.9)))))
                tickets.append(
                    [account_id, _ts(opened), first_s, res_s, prio,
                     rng.choices(CHANNELS, [0.5, 0.35, 0.15])[0],
                     rng.choice(TICKET_CATEGORIES), csat]
                )

        # weekly usage for 2024-2025, weeks whose Monday falls in an active month
        wk = USAGE_FROM
        while wk <= dt.date(2025, 12, 29):
            mm = dt.date(wk.year, wk.month, 1)
            if mm in tl and wk >= signup and (cancel is None or wk < cancel):
                p, s, v = tl[mm]
                season = 0.85 if (wk.month == 12 and wk.day >= 20) or wk.month == 8 else 1.0
                wau = max(1, min(s, round(s * engagement * season * rng.uniform(0.85, 1.1))))
                logins = round(wau * rng.uniform(2.5, 6.5))
                reports = round(wau * rng.uniform(0.2, 1.4) * (1.3 if p >= 3 else 1.0))
                usage.append((account_id, wk.isoformat(), wau, logins, reports))
            wk += dt.timedelta(days=7)

    tickets.sort(key=lambda t: t[1])
    ticket_rows = [
        (i + 1, f"T-{10001 + i}", *t) for i, t in enumerate(tickets)
    ]
    cur.executemany("INSERT INTO accounts VALUES (?,?,?,?,?,?,?)", accounts)
    cur.executemany("INSERT INTO subscriptions VALUES (?,?,?,?,?,?,?,?,?)", subs)
    cur.executemany("INSERT INTO mrr_monthly VALUES (?,?,?,?,?)", mrr_rows)
    cur.executemany("INSERT INTO mrr_movements VALUES (?,?,?,?,?)", moves)
    cur.executemany("INSERT INTO invoices VALUES (?,?,?,?,?,?,?,?,?,?)", invoices)
    cur.executemany("INSERT INTO support_tickets VALUES (?,?,?,?,?,?,?,?,?,?)", ticket_rows)
    cur.executemany("INSERT INTO usage_weekly VALUES (?,?,?,?,?)", usage)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "subscriptions.db")
