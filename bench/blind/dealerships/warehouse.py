"""Warehouse of a regional group of car dealerships (sales, leads, service, satisfaction).

``build(path)`` writes a SQLite file deterministically: a fixed seed, fixed dates, no wall clock.
Data covers 2023-01-01 .. 2025-12-31 (repair orders still open at the cut-off have no close time).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import sqlite3

SEED = 20260115
START = dt.date(2023, 1, 1)
END = dt.date(2025, 12, 31)
CUTOFF = dt.datetime(2026, 1, 2, 18, 0, 0)

DEALERSHIPS = [
    # id, name, city, region, opened_on, size factor
    (1, "Harbor Point Ford", "Seattle", "Northwest", "2004-05-01", 1.25),
    (2, "Cascade Auto Mall", "Portland", "Northwest", "2011-09-15", 1.00),
    (3, "Route 66 Motors", "Albuquerque", "Southwest", "1998-03-20", 0.80),
    (4, "Desert Sun Toyota", "Phoenix", "Southwest", "2007-06-01", 1.15),
    (5, "Lakeside Mazda", "Chicago", "Midwest", "2014-02-10", 0.90),
    (6, "Prairie Motor Co", "Omaha", "Midwest", "2001-10-05", 0.70),
    (7, "Bayview Auto Plaza", "Oakland", "California", "2009-04-18", 1.10),
    (8, "Pacific Coast Motors", "San Diego", "California", "2016-08-22", 1.05),
]

VEHICLES = [
    # make, model, body, msrp, popularity
    ("Ford", "F-150", "Pickup", 52400, 10),
    ("Ford", "Mustang 2023 GT", "Coupe", 44900, 4),
    ("Ford", "Explorer", "SUV", 41200, 6),
    ("Ford", "Maverick", "Pickup", 26800, 6),
    ("Tesla", "Model 3", "Sedan", 41900, 7),
    ("Tesla", "Model Y", "SUV", 46500, 7),
    ("Mazda", "CX-5", "SUV", 30300, 8),
    ("Mazda", "CX-90", "SUV", 40900, 4),
    ("Mazda", "Mazda3", "Hatchback", 24900, 5),
    ("BMW", "Series 3", "Sedan", 46700, 4),
    ("BMW", "X5", "SUV", 67600, 3),
    ("Toyota", "RAV4", "SUV", 30200, 10),
    ("Toyota", "Camry", "Sedan", 28400, 8),
    ("Toyota", "Tacoma", "Pickup", 33900, 6),
    ("Toyota", "4Runner", "SUV", 42100, 4),
    ("Honda", "CR-V", "SUV", 31600, 8),
    ("Honda", "Civic", "Sedan", 25100, 7),
    ("Chevrolet", "Silverado 1500", "Pickup", 49800, 7),
    ("Ram", "Ram 1500", "Pickup", 47300, 5),
    ("Hyundai", "Ioniq 5", "SUV", 43900, 4),
    ("Kia", "EV6", "SUV", 44200, 3),
    ("Jeep", "Wrangler 4xe", "SUV", 51400, 3),
    ("Audi", "Q5", "SUV", 46300, 3),
    ("Nissan", "Z 400", "Coupe", 43000, 2),
]

FIRST = [
    "James",
    "Maria",
    "Robert",
    "Linda",
    "Michael",
    "Patricia",
    "David",
    "Jennifer",
    "Carlos",
    "Aisha",
    "Daniel",
    "Priya",
    "Kevin",
    "Sofia",
    "Brian",
    "Mei",
    "Marcus",
    "Elena",
    "Tyler",
    "Grace",
    "Andre",
    "Hannah",
    "Luis",
    "Olivia",
    "Ethan",
    "Fatima",
    "Noah",
    "Chloe",
    "Samuel",
    "Ava",
    "Jamal",
    "Rosa",
    "Owen",
    "Keiko",
    "Victor",
    "Lauren",
    "Diego",
    "Nora",
    "Isaac",
    "Tara",
    "Gabriel",
    "Yusuf",
    "Megan",
    "Hector",
    "Zoe",
    "Raj",
    "Claire",
    "Omar",
]
LAST = [
    "Whitaker",
    "Delgado",
    "Okafor",
    "Brennan",
    "Nakamura",
    "Castillo",
    "Morrison",
    "Patel",
    "Lindqvist",
    "Haddad",
    "Sullivan",
    "Reyes",
    "Kowalski",
    "Nguyen",
    "Fitzgerald",
    "Abernathy",
    "Moreau",
    "Santos",
    "Holloway",
    "Chen",
    "Baptiste",
    "Gallagher",
    "Ibarra",
    "Novak",
    "Ramirez",
    "Thornton",
    "Vasquez",
    "Yamamoto",
    "Duarte",
    "Oyelaran",
    "Sheridan",
    "Kim",
    "Lopez",
    "Mbeki",
    "Harrington",
    "Fischer",
    "Quinn",
    "Alvarez",
    "Petrov",
    "Dawson",
    "Ortega",
    "Bishop",
    "Ferreira",
    "Kaplan",
    "Singh",
    "Walsh",
    "Romero",
    "Ellis",
]

SOURCES = [("Website", 38), ("Walk-in", 22), ("Phone", 15), ("Referral", 10), ("Third-party", 15)]
SOURCE_CONV = {
    "Website": 0.19,
    "Walk-in": 0.34,
    "Phone": 0.22,
    "Referral": 0.38,
    "Third-party": 0.12,
}

SERVICE_TYPES = [
    # name, weight, mean labour minutes, mean turnaround hours
    ("Oil change", 30, 35, 3.5),
    ("Brakes", 14, 110, 20.0),
    ("Tires", 12, 55, 8.0),
    ("Diagnostics", 14, 95, 30.0),
    ("Warranty repair", 12, 180, 70.0),
    ("Recall campaign", 8, 75, 26.0),
    ("Collision", 10, 420, 160.0),
]

MONTH_WEIGHT = [0.75, 0.8, 1.05, 1.05, 1.1, 1.1, 1.05, 1.1, 1.0, 0.95, 0.95, 1.15]
YEAR_WEIGHT = {2023: 0.9, 2024: 1.0, 2025: 1.08}


def _days(start: dt.date, end: dt.date):
    d = start
    while d <= end:
        yield d
        d += dt.timedelta(days=1)


def _weighted(rng: random.Random, items, weight_index: int):
    return rng.choices(items, weights=[x[weight_index] for x in items])[0]


def _ts(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


def build(path: str) -> None:
    rng = random.Random(SEED)
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        CREATE TABLE dealerships (
            dealership_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            city TEXT NOT NULL,
            region TEXT NOT NULL,
            opened_on DATE NOT NULL
        );
        CREATE TABLE sales_reps (
            rep_id INTEGER PRIMARY KEY,
            rep_code TEXT NOT NULL,
            full_name TEXT NOT NULL,
            dealership_id INTEGER NOT NULL REFERENCES dealerships(dealership_id),
            hire_date DATE NOT NULL,
            termination_date DATE
        );
        CREATE TABLE vehicles (
            vehicle_id INTEGER PRIMARY KEY,
            make TEXT NOT NULL,
            model TEXT NOT NULL,
            body_type TEXT NOT NULL,
            msrp NUMERIC NOT NULL
        );
        CREATE TABLE sales (
            sale_id INTEGER PRIMARY KEY,
            dealership_id INTEGER NOT NULL REFERENCES dealerships(dealership_id),
            rep_id INTEGER NOT NULL REFERENCES sales_reps(rep_id),
            vehicle_id INTEGER NOT NULL REFERENCES vehicles(vehicle_id),
            sale_date DATE NOT NULL,
            list_price NUMERIC NOT NULL,
            discount NUMERIC NOT NULL,
            sale_price NUMERIC NOT NULL,
            financed INTEGER NOT NULL,
            trade_in_value NUMERIC NOT NULL,
            updated_at TIMESTAMP NOT NULL
        );
        CREATE TABLE leads (
            lead_id INTEGER PRIMARY KEY,
            dealership_id INTEGER NOT NULL REFERENCES dealerships(dealership_id),
            rep_id INTEGER REFERENCES sales_reps(rep_id),
            vehicle_id INTEGER REFERENCES vehicles(vehicle_id),
            source TEXT NOT NULL,
            created_at TIMESTAMP NOT NULL,
            test_drive_at TIMESTAMP,
            converted INTEGER NOT NULL,
            converted_at TIMESTAMP
        );
        CREATE TABLE repair_orders (
            ro_id INTEGER PRIMARY KEY,
            ro_number TEXT NOT NULL,
            dealership_id INTEGER NOT NULL REFERENCES dealerships(dealership_id),
            vehicle_id INTEGER REFERENCES vehicles(vehicle_id),
            service_type TEXT NOT NULL,
            opened_at TIMESTAMP NOT NULL,
            closed_at TIMESTAMP,
            labour_minutes INTEGER NOT NULL,
            labour_cost NUMERIC NOT NULL,
            parts_cost NUMERIC NOT NULL
        );
        CREATE TABLE csat_surveys (
            survey_id INTEGER PRIMARY KEY,
            dealership_id INTEGER NOT NULL REFERENCES dealerships(dealership_id),
            rep_id INTEGER REFERENCES sales_reps(rep_id),
            kind TEXT NOT NULL,
            survey_date DATE NOT NULL,
            score INTEGER NOT NULL
        );
        """
    )

    cur.executemany("INSERT INTO dealerships VALUES (?,?,?,?,?)", [d[:5] for d in DEALERSHIPS])
    size = {d[0]: d[5] for d in DEALERSHIPS}

    for i, v in enumerate(VEHICLES, start=1):
        cur.execute("INSERT INTO vehicles VALUES (?,?,?,?,?)", (i, v[0], v[1], v[2], v[3]))
    vehicle_ids = list(range(1, len(VEHICLES) + 1))
    vehicle_weight = [v[4] for v in VEHICLES]
    msrp = {i: VEHICLES[i - 1][3] for i in vehicle_ids}

    # sales reps: 5-7 per dealership, some hired during the period, a few who left
    names = set()
    reps = []  # (rep_id, dealership_id, hire, termination, skill, discount bias)
    rep_id = 0
    for d_id, *_ in DEALERSHIPS:
        for _k in range(rng.randint(5, 7)):
            while True:
                name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
                if name not in names:
                    names.add(name)
                    break
            rep_id += 1
            if rng.random() < 0.25:
                hire = START + dt.timedelta(days=rng.randint(30, 800))
            else:
                hire = dt.date(rng.randint(2010, 2022), rng.randint(1, 12), rng.randint(1, 28))
            term = None
            if rng.random() < 0.12:
                term = max(hire, START) + dt.timedelta(days=rng.randint(200, 700))
                if term > END:
                    term = None
            skill = rng.uniform(0.6, 1.6)
            bias = rng.uniform(0.6, 1.5)
            reps.append((rep_id, d_id, hire, term, skill, bias))
            cur.execute(
                "INSERT INTO sales_reps VALUES (?,?,?,?,?,?)",
                (
                    rep_id,
                    f"R-{100 + rep_id}",
                    name,
                    d_id,
                    hire.isoformat(),
                    term.isoformat() if term else None,
                ),
            )

    def active_reps(d_id: int, day: dt.date):
        return [r for r in reps if r[1] == d_id and r[2] <= day and (r[3] is None or r[3] >= day)]

    # sales
    sale_id = 0
    sales_rows = []
    for day in _days(START, END):
        base = 0.78 * MONTH_WEIGHT[day.month - 1] * YEAR_WEIGHT[day.year]
        if day.weekday() == 6:
            base *= 0.45
        elif day.weekday() == 5:
            base *= 1.5
        for d_id, *_ in DEALERSHIPS:
            lam = base * size[d_id]
            n = 0
            # poisson draw
            threshold, p = pow(2.718281828, -lam), 1.0
            while True:
                p *= rng.random()
                if p <= threshold:
                    break
                n += 1
            staff = active_reps(d_id, day)
            if not staff:
                continue
            for _ in range(n):
                rep = rng.choices(staff, weights=[r[4] for r in staff])[0]
                v_id = rng.choices(vehicle_ids, weights=vehicle_weight)[0]
                list_price = round(
                    msrp[v_id] * rng.uniform(0.97, 1.12) * (1 + 0.025 * (day.year - 2023)), 2
                )
                pct = max(0.0, rng.gauss(0.045, 0.025) * rep[5])
                if day.month == 12:
                    pct += 0.015
                pct = min(pct, 0.15)
                discount = round(list_price * pct, 2)
                sale_price = round(list_price - discount, 2)
                financed = (
                    1 if rng.random() < (0.58 + 0.03 * (day.year - 2023) + 0.02 * (d_id % 3)) else 0
                )
                trade = 0.0
                if rng.random() < 0.37:
                    trade = round(rng.uniform(2500, 26000), -2)
                sale_id += 1
                upd = dt.datetime.combine(
                    day, dt.time(rng.randint(10, 19), rng.randint(0, 59), rng.randint(0, 59))
                )
                sales_rows.append(
                    (
                        sale_id,
                        d_id,
                        rep[0],
                        v_id,
                        day.isoformat(),
                        list_price,
                        discount,
                        sale_price,
                        financed,
                        trade,
                        _ts(upd),
                    )
                )
    cur.executemany("INSERT INTO sales VALUES (?,?,?,?,?,?,?,?,?,?,?)", sales_rows)

    # leads
    lead_rows = []
    lead_id = 0
    for day in _days(START, END):
        for d_id, *_ in DEALERSHIPS:
            n = rng.randint(0, 4) + (1 if rng.random() < 0.6 * size[d_id] else 0)
            staff = active_reps(d_id, day)
            for _ in range(n):
                lead_id += 1
                src = _weighted(rng, SOURCES, 1)[0]
                created = dt.datetime.combine(
                    day, dt.time(rng.randint(8, 20), rng.randint(0, 59), rng.randint(0, 59))
                )
                rep = rng.choice(staff)[0] if staff and rng.random() < 0.9 else None
                v_id = (
                    rng.choices(vehicle_ids, weights=vehicle_weight)[0]
                    if rng.random() < 0.85
                    else None
                )
                conv_p = SOURCE_CONV[src] * (0.8 + 0.1 * (d_id % 4))
                td = None
                converted = 0
                conv_at = None
                if rng.random() < (0.42 if src != "Walk-in" else 0.7):
                    td_dt = created + dt.timedelta(
                        hours=rng.choice([0.5, 1, 2, 20, 26, 48, 72, 96, 150]) + rng.random()
                    )
                    td = _ts(td_dt)
                    conv_p *= 1.6
                if rng.random() < min(conv_p, 0.9):
                    conv_dt = created + dt.timedelta(
                        days=rng.expovariate(1 / 9.0), hours=rng.randint(0, 8)
                    )
                    if conv_dt < CUTOFF:
                        converted = 1
                        conv_at = _ts(conv_dt)
                lead_rows.append(
                    (lead_id, d_id, rep, v_id, src, _ts(created), td, converted, conv_at)
                )
    cur.executemany("INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?)", lead_rows)

    # repair orders
    ro_rows = []
    ro_id = 0
    for day in _days(START, END):
        if day.weekday() == 6:
            continue
        for d_id, *_ in DEALERSHIPS:
            n = rng.randint(1, 3) + (1 if rng.random() < 0.5 * size[d_id] else 0)
            if day.weekday() == 5:
                n = max(0, n - 2)
            for _ in range(n):
                ro_id += 1
                st = _weighted(rng, SERVICE_TYPES, 1)
                opened = dt.datetime.combine(
                    day, dt.time(rng.randint(7, 16), rng.randint(0, 59), rng.randint(0, 59))
                )
                speed = 0.85 + 0.06 * ((d_id * 5) % 7)
                hours = max(0.6, rng.lognormvariate(0, 0.45) * st[3] * speed)
                closed = opened + dt.timedelta(hours=hours)
                closed_s = _ts(closed) if closed < CUTOFF else None
                minutes = max(10, int(rng.gauss(st[2], st[2] * 0.3)))
                labour_cost = round(minutes / 60 * 165, 2)
                parts = round(max(0.0, rng.gauss(st[2] * 2.6, st[2])), 2)
                v_id = rng.choices(vehicle_ids, weights=vehicle_weight)[0]
                ro_rows.append(
                    (
                        ro_id,
                        f"RO-{day.year % 100:02d}{ro_id:05d}",
                        d_id,
                        v_id,
                        st[0],
                        _ts(opened),
                        closed_s,
                        minutes,
                        labour_cost,
                        parts,
                    )
                )
    cur.executemany("INSERT INTO repair_orders VALUES (?,?,?,?,?,?,?,?,?,?)", ro_rows)

    # customer satisfaction surveys, 1-5
    survey_rows = []
    survey_id = 0
    dealer_mood = {d[0]: rng.uniform(-0.35, 0.35) for d in DEALERSHIPS}
    for row in sales_rows:
        if rng.random() < 0.42:
            survey_id += 1
            d_id = row[1]
            mood = 4.15 + dealer_mood[d_id] + rng.gauss(0, 0.9)
            score = int(min(5, max(1, round(mood))))
            day = dt.date.fromisoformat(row[4]) + dt.timedelta(days=rng.randint(2, 12))
            survey_rows.append((survey_id, d_id, row[2], "sales", day.isoformat(), score))
    for row in ro_rows:
        if row[6] is not None and rng.random() < 0.22:
            survey_id += 1
            d_id = row[2]
            mood = 3.85 + dealer_mood[d_id] * 0.8 + rng.gauss(0, 1.0)
            score = int(min(5, max(1, round(mood))))
            day = dt.datetime.fromisoformat(row[6]).date() + dt.timedelta(days=rng.randint(1, 6))
            survey_rows.append((survey_id, d_id, None, "service", day.isoformat(), score))
    cur.executemany("INSERT INTO csat_surveys VALUES (?,?,?,?,?,?)", survey_rows)

    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "dealerships.db")
