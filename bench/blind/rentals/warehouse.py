"""Residential property-management warehouse (buildings, units, tenants, leases, rent charges,
maintenance tickets, vacancies), 2023-01-01 .. 2025-09-30. Deterministic: random.Random(2817)."""

import datetime as dt
import random
import sqlite3

SNAPSHOT = dt.date(2025, 9, 30)
START = dt.date(2023, 1, 1)

BUILDINGS = [
    # name, neighborhood, opened_year, floors, n_units, label_style, base_rent, arrears_risk
    ("Tower 2", "Downtown", 2009, 18, 54, "floor", 2450, 0.020),
    ("Block 7", "Eastgate", 1978, 5, 40, "apt", 1380, 0.055),
    ("Riverside 12", "Riverside", 1996, 8, 36, "floor", 1890, 0.030),
    ("Harbor Point 3", "Harborfront", 2015, 12, 42, "floor", 2780, 0.015),
    ("Maple Court", "Northside", 1988, 4, 28, "apt", 1520, 0.040),
    ("Elm Gardens", "Westwood", 2003, 6, 30, "apt", 1690, 0.035),
]

FIRST = ["Ava", "Liam", "Noah", "Emma", "Olivia", "Mason", "Sofia", "Lucas", "Mia", "Ethan",
         "Amara", "Diego", "Priya", "Chen", "Fatima", "Jonah", "Grace", "Omar", "Hana", "Mateo",
         "Zoe", "Isaac", "Leila", "Ryan", "Nora", "Samuel", "Yara", "Felix", "Ines", "Kofi"]
LAST = ["Nguyen", "Patel", "Garcia", "Smith", "Kim", "Okafor", "Rossi", "Müller", "Haddad",
        "Johnson", "Silva", "Cohen", "Tanaka", "Brown", "Lopez", "Walsh", "Ibrahim", "Novak",
        "Reyes", "Schmidt", "Khan", "Dubois", "Larsen", "Moreno", "Adeyemi"]

CATEGORIES = [("plumbing", 0.27), ("electrical", 0.14), ("HVAC", 0.18), ("appliance", 0.19),
              ("pest control", 0.08), ("general repair", 0.14)]
PRIORITIES = [("emergency", 0.07, 6.0), ("high", 0.2, 22.0), ("normal", 0.55, 60.0),
              ("low", 0.18, 130.0)]


def _pick(rng, pairs):
    x = rng.random()
    acc = 0.0
    for item in pairs:
        acc += item[1]
        if x < acc:
            return item
    return pairs[-1]


def _add_months(d, n):
    m = d.month - 1 + n
    y = d.year + m // 12
    m = m % 12 + 1
    return dt.date(y, m, 1)


def build(path: str) -> None:
    rng = random.Random(2817)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        DROP TABLE IF EXISTS buildings; DROP TABLE IF EXISTS units; DROP TABLE IF EXISTS tenants;
        DROP TABLE IF EXISTS leases; DROP TABLE IF EXISTS rent_charges;
        DROP TABLE IF EXISTS maintenance_tickets; DROP TABLE IF EXISTS vacancies;
        CREATE TABLE buildings (building_id INTEGER PRIMARY KEY, name TEXT NOT NULL,
            neighborhood TEXT, opened_year INTEGER, floors INTEGER);
        CREATE TABLE units (unit_id INTEGER PRIMARY KEY, building_id INTEGER NOT NULL,
            unit_label TEXT NOT NULL, bedrooms INTEGER, sqft INTEGER, market_rent NUMERIC);
        CREATE TABLE tenants (tenant_id INTEGER PRIMARY KEY, full_name TEXT, email TEXT,
            created_at TEXT);
        CREATE TABLE leases (lease_id INTEGER PRIMARY KEY, unit_id INTEGER NOT NULL,
            tenant_id INTEGER NOT NULL, start_date TEXT, end_date TEXT, monthly_rent NUMERIC,
            is_renewal INTEGER, status TEXT, move_out_date TEXT);
        CREATE TABLE rent_charges (charge_id INTEGER PRIMARY KEY, lease_id INTEGER NOT NULL,
            due_month TEXT, amount_due NUMERIC, amount_paid NUMERIC, paid_date TEXT);
        CREATE TABLE maintenance_tickets (ticket_id INTEGER PRIMARY KEY, unit_id INTEGER NOT NULL,
            category TEXT, priority TEXT, opened_at TEXT, resolved_at TEXT, status TEXT);
        CREATE TABLE vacancies (vacancy_id INTEGER PRIMARY KEY, unit_id INTEGER NOT NULL,
            vacated_on TEXT, relet_on TEXT, vacancy_days INTEGER);
        """
    )
    tenant_id = 0
    lease_id = 0
    charge_id = 0
    ticket_id = 0
    vacancy_id = 0
    unit_id = 0

    def new_tenant(when):
        nonlocal tenant_id
        tenant_id += 1
        f, l = rng.choice(FIRST), rng.choice(LAST)
        cur.execute("INSERT INTO tenants VALUES (?,?,?,?)",
                    (tenant_id, f"{f} {l}", f"{f.lower()}.{tenant_id}@mail.example",
                     (when - dt.timedelta(days=rng.randint(5, 40))).isoformat() + " 10:00:00"))
        return tenant_id

    for b_id, (bname, hood, opened, floors, n_units, style, base, risk) in enumerate(BUILDINGS, 1):
        cur.execute("INSERT INTO buildings VALUES (?,?,?,?,?)", (b_id, bname, hood, opened, floors))
        letters = "ABCDEF"
        for k in range(n_units):
            unit_id += 1
            if style == "floor":
                per_floor = max(3, n_units // floors + 1)
                label = f"Unit {k // per_floor + 2}{letters[k % per_floor]}"
            else:
                label = f"Apt {k + 1}"
            beds = rng.choice([0, 1, 1, 1, 2, 2, 2, 3])
            sqft = 420 + beds * 260 + rng.randint(-40, 60)
            market = round(base * (0.72 + 0.22 * beds) * rng.uniform(0.95, 1.06) / 5) * 5
            cur.execute("INSERT INTO units VALUES (?,?,?,?,?,?)",
                        (unit_id, b_id, label, beds, sqft, market))

            # lease chain
            if rng.random() < 0.9:
                start = START - dt.timedelta(days=rng.randint(30, 360))
                start = start.replace(day=1)
                vacant_since = None
            else:
                start = START + dt.timedelta(days=rng.randint(5, 80))
                vacant_since = dt.date(2022, 12, rng.randint(1, 28))
            rent = round(market * rng.uniform(0.9, 1.0) / 5) * 5
            tid = new_tenant(start)
            renewal = 0
            while start <= SNAPSHOT:
                if vacant_since is not None:
                    vacancy_id += 1
                    cur.execute("INSERT INTO vacancies VALUES (?,?,?,?,?)",
                                (vacancy_id, unit_id, vacant_since.isoformat(), start.isoformat(),
                                 (start - vacant_since).days))
                    vacant_since = None
                term = rng.choice([12, 12, 12, 12, 6, 18])
                end = _add_months(start.replace(day=1), term) - dt.timedelta(days=1)
                if start.day != 1:
                    end = start + dt.timedelta(days=int(term * 30.4)) - dt.timedelta(days=1)
                lease_id += 1
                this_lease = lease_id
                broken = rng.random() < 0.07
                move_out = None
                if end > SNAPSHOT and not (broken and start + dt.timedelta(days=120) < SNAPSHOT):
                    status = "active"
                    next_start = None
                elif broken:
                    status = "ended"
                    move_out = start + dt.timedelta(days=rng.randint(60, max(61, (end - start).days - 20)))
                    if move_out > SNAPSHOT:
                        status, move_out = "active", None
                    next_start = None
                else:
                    p_renew = 0.56 if start.year < 2024 else 0.5
                    if rng.random() < p_renew:
                        status = "renewed"
                        next_start = end + dt.timedelta(days=1)
                    else:
                        status = "ended"
                        move_out = end
                        next_start = None
                cur.execute("INSERT INTO leases VALUES (?,?,?,?,?,?,?,?,?)",
                            (this_lease, unit_id, tid, start.isoformat(), end.isoformat(), rent,
                             renewal, status, move_out.isoformat() if move_out else None))
                # rent charges within 2023-01 .. 2025-09
                last_day = move_out or min(end, SNAPSHOT)
                m = max(start.replace(day=1), START)
                if start.day != 1 and m < start:
                    m = _add_months(m, 1)
                while m <= last_day and m <= SNAPSHOT:
                    charge_id += 1
                    x = rng.random()
                    if x < risk * 0.45 and m < dt.date(2025, 9, 1):
                        paid, pdate = 0, None
                    elif x < risk:
                        paid = round(rent * rng.choice([0.25, 0.5, 0.5, 0.75]), 2)
                        pdate = (m + dt.timedelta(days=rng.randint(6, 28))).isoformat()
                    elif x < risk + 0.09:
                        paid, pdate = rent, (m + dt.timedelta(days=rng.randint(6, 24))).isoformat()
                    else:
                        paid, pdate = rent, (m + dt.timedelta(days=rng.randint(-3, 4))).isoformat()
                    if m >= dt.date(2025, 9, 1) and x >= risk and pdate and pdate > "2025-09-30":
                        paid, pdate = 0, None
                    cur.execute("INSERT INTO rent_charges VALUES (?,?,?,?,?,?)",
                                (charge_id, this_lease, m.isoformat(), rent, paid, pdate))
                    m = _add_months(m, 1)
                if next_start is not None:
                    start = next_start
                    rent = round(rent * rng.uniform(1.02, 1.055) / 5) * 5
                    renewal = 1
                elif move_out is not None:
                    gap = int(rng.expovariate(1 / 28)) + rng.randint(4, 12)
                    vacant_since = move_out + dt.timedelta(days=1)
                    start = vacant_since + dt.timedelta(days=gap)
                    if start > SNAPSHOT:
                        vacancy_id += 1
                        cur.execute("INSERT INTO vacancies VALUES (?,?,?,?,?)",
                                    (vacancy_id, unit_id, vacant_since.isoformat(), None, None))
                        break
                    market = round(market * rng.uniform(1.01, 1.05) / 5) * 5
                    rent = round(market * rng.uniform(0.93, 1.0) / 5) * 5
                    tid = new_tenant(start)
                    renewal = 0
                else:
                    break

            # maintenance tickets for the unit
            n_tickets = rng.randint(3, 14)
            span_s = int((dt.datetime(2025, 9, 30, 23, 0) - dt.datetime(2023, 1, 1)).total_seconds())
            for _ in range(n_tickets):
                ticket_id += 1
                cat = _pick(rng, CATEGORIES)[0]
                pri, _, mean_h = _pick(rng, PRIORITIES)
                if cat == "HVAC":
                    mean_h *= 1.3
                if bname == "Block 7":
                    mean_h *= 1.35
                opened = dt.datetime(2023, 1, 1) + dt.timedelta(seconds=rng.randint(0, span_s))
                opened = opened.replace(second=0)
                hours = max(0.5, rng.lognormvariate(0, 0.6) * mean_h * 0.85)
                resolved = opened + dt.timedelta(minutes=int(hours * 60))
                if resolved > dt.datetime(2025, 9, 30, 23, 59):
                    res, status = None, "open"
                else:
                    res, status = resolved.isoformat(sep=" "), "resolved"
                cur.execute("INSERT INTO maintenance_tickets VALUES (?,?,?,?,?,?,?)",
                            (ticket_id, unit_id, cat, pri, opened.isoformat(sep=" "), res, status))
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys
    build(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rentals.db")
