"""Electricity and gas retailer warehouse: customers on tariffs, bills and payments, outages,
call-centre contacts and field-engineer jobs. Deterministic (fixed seed, fixed dates)."""

import datetime as dt
import random
import sqlite3

SEED = 2704

REGIONS = [
    (1, "North Grid 400", "North"),
    (2, "East Coast", "East"),
    (3, "South Valley", "South"),
    (4, "West Ridge", "West"),
    (5, "Metro 2", "Metro"),
]

TARIFFS = [
    (1, "Fix 24", "dual", "fixed", 0.52, 0.245),
    (2, "Fix 12", "electricity", "fixed", 0.49, 0.262),
    (3, "Flex Tracker", "dual", "variable", 0.46, 0.231),
    (4, "EV Night 7", "electricity", "time-of-use", 0.55, 0.198),
    (5, "Green 100", "electricity", "fixed", 0.58, 0.279),
    (6, "Standard Variable", "gas", "variable", 0.31, 0.071),
]

FIRST = ["Olivia", "Noah", "Amelia", "George", "Isla", "Arthur", "Ava", "Leo", "Mia", "Oscar",
         "Freya", "Harry", "Lily", "Jack", "Grace", "Theo", "Sophie", "Henry", "Ella", "Alfie",
         "Chloe", "Archie", "Ruby", "Jacob", "Evie", "Thomas", "Poppy", "Charlie", "Zara", "Samir"]
LAST = ["Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies", "Patel",
        "Wright", "Robinson", "Walker", "Thompson", "White", "Hughes", "Edwards", "Green", "Hall",
        "Wood", "Harris", "Clarke", "Khan", "Lewis", "Jackson", "Turner", "Hill", "Moore", "Cooper"]
ENGINEERS = ["Dan Okafor", "Priya Nair", "Tom Hale", "Megan Price", "Luis Ortega", "Sara Lind",
             "Kwame Mensah", "Ben Fuller", "Aisha Rahman", "Joe McCann"]
CAUSES = ["storm", "equipment failure", "planned maintenance", "third-party damage", "overload"]
REASONS = ["billing query", "move home", "meter reading", "outage report", "payment plan",
           "tariff switch", "complaint"]


def _ts(d: dt.datetime) -> str:
    return d.strftime("%Y-%m-%d %H:%M:%S")


def build(path: str) -> None:
    rng = random.Random(SEED)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        DROP TABLE IF EXISTS regions; DROP TABLE IF EXISTS substations; DROP TABLE IF EXISTS tariffs;
        DROP TABLE IF EXISTS customers; DROP TABLE IF EXISTS bills; DROP TABLE IF EXISTS outages;
        DROP TABLE IF EXISTS contacts; DROP TABLE IF EXISTS jobs;
        CREATE TABLE regions (region_id INTEGER PRIMARY KEY, name TEXT NOT NULL, short_name TEXT NOT NULL);
        CREATE TABLE substations (substation_id INTEGER PRIMARY KEY, name TEXT NOT NULL,
            region_id INTEGER NOT NULL REFERENCES regions(region_id), capacity_mva REAL NOT NULL);
        CREATE TABLE tariffs (tariff_id INTEGER PRIMARY KEY, name TEXT NOT NULL, fuel TEXT NOT NULL,
            tariff_type TEXT NOT NULL, standing_charge REAL NOT NULL, unit_rate REAL NOT NULL);
        CREATE TABLE customers (customer_id TEXT PRIMARY KEY, full_name TEXT NOT NULL,
            region_id INTEGER NOT NULL REFERENCES regions(region_id),
            substation_id INTEGER NOT NULL REFERENCES substations(substation_id),
            tariff_id INTEGER NOT NULL REFERENCES tariffs(tariff_id),
            segment TEXT NOT NULL, joined_date TEXT NOT NULL, closed_date TEXT);
        CREATE TABLE bills (bill_id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(customer_id),
            bill_month TEXT NOT NULL, kwh REAL NOT NULL, amount REAL NOT NULL, due_date TEXT NOT NULL,
            paid_amount REAL NOT NULL, paid_date TEXT);
        CREATE TABLE outages (outage_id INTEGER PRIMARY KEY, substation_id INTEGER NOT NULL REFERENCES substations(substation_id),
            started_at TEXT NOT NULL, restored_at TEXT NOT NULL, duration_minutes INTEGER NOT NULL,
            customers_affected INTEGER NOT NULL, cause TEXT NOT NULL);
        CREATE TABLE contacts (contact_id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(customer_id),
            contacted_at TEXT NOT NULL, channel TEXT NOT NULL, reason TEXT NOT NULL,
            handle_seconds INTEGER NOT NULL, resolved_first_contact INTEGER NOT NULL);
        CREATE TABLE jobs (job_id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(customer_id),
            engineer TEXT NOT NULL, job_type TEXT NOT NULL, scheduled_date TEXT NOT NULL,
            completed_date TEXT, status TEXT NOT NULL, travel_minutes INTEGER NOT NULL,
            first_time_fix INTEGER NOT NULL);
        """
    )
    cur.executemany("INSERT INTO regions VALUES (?,?,?)", REGIONS)
    cur.executemany("INSERT INTO tariffs VALUES (?,?,?,?,?,?)", TARIFFS)
    subs = []
    sid = 1
    for region_id, _, _ in REGIONS:
        for _ in range(3):
            number = [7, 12, 19, 3, 21, 14, 8, 30, 5, 11, 26, 2, 17, 9, 40][sid - 1]
            subs.append((sid, f"Substation {number}", region_id, round(rng.uniform(20, 90), 1)))
            sid += 1
    cur.executemany("INSERT INTO substations VALUES (?,?,?,?)", subs)
    subs_by_region = {r: [s[0] for s in subs if s[2] == r] for r, _, _ in REGIONS}

    start = dt.date(2023, 1, 1)
    customers = []
    for i in range(1400):
        cid = f"ACC-{1001 + i}"
        region = rng.choices([1, 2, 3, 4, 5], weights=[22, 18, 20, 15, 25])[0]
        sub = rng.choice(subs_by_region[region])
        tariff = rng.choices([1, 2, 3, 4, 5, 6], weights=[24, 14, 22, 9, 11, 20])[0]
        segment = "business" if rng.random() < 0.14 else "residential"
        joined = start + dt.timedelta(days=rng.randint(0, 1000))
        closed = None
        if rng.random() < 0.16:
            c = joined + dt.timedelta(days=rng.randint(60, 700))
            if c <= dt.date(2025, 12, 31):
                closed = c.isoformat()
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        customers.append((cid, name, region, sub, tariff, segment, joined.isoformat(), closed))
    cur.executemany("INSERT INTO customers VALUES (?,?,?,?,?,?,?,?)", customers)

    tariff_by_id = {t[0]: t for t in TARIFFS}
    bills = []
    bid = 1
    months = [dt.date(2024 + (m // 12), m % 12 + 1, 1) for m in range(24)]
    for cid, _, region, _, tariff, segment, joined, closed in customers:
        t = tariff_by_id[tariff]
        base = rng.uniform(180, 420) * (3.2 if segment == "business" else 1.0)
        late_prone = rng.random() < 0.18
        for m in months:
            if m.isoformat() < joined[:7] + "-01":
                continue
            if closed and m.isoformat() > closed:
                break
            season = 1.25 if m.month in (1, 2, 12) else (0.8 if m.month in (6, 7, 8) else 1.0)
            kwh = round(base * season * rng.uniform(0.85, 1.15), 1)
            amount = round(kwh * t[5] + 30 * t[4], 2)
            nm = dt.date(m.year + (m.month == 12), m.month % 12 + 1, 1)
            due = nm + dt.timedelta(days=14)
            r = rng.random()
            if r < (0.30 if late_prone else 0.05):
                paid_date = (due + dt.timedelta(days=rng.randint(1, 40))).isoformat()
                paid = amount
            elif r < (0.36 if late_prone else 0.065):
                paid_date = None
                paid = round(amount * rng.choice([0, 0, 0.5]), 2)
            else:
                paid_date = (due - dt.timedelta(days=rng.randint(0, 12))).isoformat()
                paid = amount
            if m >= dt.date(2025, 12, 1) and paid_date and paid_date > "2026-01-10":
                paid_date, paid = None, 0.0
            bills.append((bid, cid, m.isoformat(), kwh, amount, due.isoformat(), paid, paid_date))
            bid += 1
    cur.executemany("INSERT INTO bills VALUES (?,?,?,?,?,?,?,?)", bills)

    outages = []
    for oid in range(1, 521):
        sub = rng.choices([s[0] for s in subs], weights=[3 + (s[0] * 7) % 5 for s in subs])[0]
        day = dt.datetime(2024, 1, 1) + dt.timedelta(minutes=rng.randint(0, 731 * 24 * 60 - 1))
        cause = rng.choices(CAUSES, weights=[25, 30, 20, 10, 15])[0]
        dur = int(rng.lognormvariate(4.4, 0.8)) + 5
        if cause == "planned maintenance":
            dur = rng.choice([120, 180, 240, 300])
        restored = day + dt.timedelta(minutes=dur)
        outages.append((oid, sub, _ts(day), _ts(restored), dur, rng.randint(15, 900), cause))
    cur.executemany("INSERT INTO outages VALUES (?,?,?,?,?,?,?)", outages)

    contacts = []
    ids = [c[0] for c in customers]
    for kid in range(1, 9001):
        day = dt.datetime(2024, 1, 1, 8) + dt.timedelta(
            days=rng.randint(0, 730), minutes=rng.randint(0, 11 * 60))
        channel = rng.choices(["phone", "chat", "email"], weights=[55, 30, 15])[0]
        reason = rng.choices(REASONS, weights=[30, 12, 14, 10, 12, 14, 8])[0]
        mean = {"phone": 420, "chat": 610, "email": 300}[channel]
        if day.year == 2025:
            mean *= 0.92
        handle = max(45, int(rng.gauss(mean, mean * 0.35)))
        fcr = 1 if rng.random() < {"phone": 0.74, "chat": 0.68, "email": 0.55}[channel] else 0
        contacts.append((kid, rng.choice(ids), _ts(day), channel, reason, handle, fcr))
    cur.executemany("INSERT INTO contacts VALUES (?,?,?,?,?,?,?)", contacts)

    jobs = []
    for jid in range(1, 3201):
        eng = rng.choices(ENGINEERS, weights=[12, 11, 10, 10, 9, 9, 8, 8, 7, 6])[0]
        jtype = rng.choices(["smart meter install", "meter exchange", "fault repair", "safety check"],
                            weights=[35, 20, 30, 15])[0]
        sched = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 730))
        r = rng.random()
        if r < 0.08:
            status, comp = "cancelled", None
        elif r < 0.11 and sched >= dt.date(2025, 11, 1):
            status, comp = "open", None
        else:
            status = "completed"
            comp = (sched + dt.timedelta(days=rng.choices([0, 1, 2, 3, 5, 8], weights=[40, 25, 14, 10, 7, 4])[0])).isoformat()
        travel = max(5, int(rng.gauss(38, 14)))
        ftf = 1 if (status == "completed" and rng.random() < 0.81) else 0
        jobs.append((jid, rng.choice(ids), eng, jtype, sched.isoformat(), comp, status, travel, ftf))
    cur.executemany("INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?)", jobs)
    con.commit()
    con.close()
