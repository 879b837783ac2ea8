"""Warehouse of a contract manufacturer: five plants, their production lines and machines,
customers and parts, work orders, shift-level production records and downtime events,
calendar years 2024 and 2025. Deterministic: one seeded random generator, fixed dates."""

import math
import random
import sqlite3
from datetime import date, datetime, timedelta

SEED = 2917

START = date(2024, 1, 1)
END = date(2025, 12, 31)

PLANTS = [
    # code, name, city, country, region, opened
    ("DAY", "Dayton", "Dayton, OH", "US", "North America - East", "1998-04-01"),
    ("GVL", "Greenville", "Greenville, SC", "US", "North America - East", "2006-09-15"),
    ("MTY", "Monterrey", "Monterrey, NL", "MX", "Mexico", "2012-02-01"),
    ("SLT", "Saltillo", "Saltillo, COAH", "MX", "Mexico", "2019-06-03"),
    ("GLP", "Guelph", "Guelph, ON", "CA", "Canada", "2003-11-10"),
]

# line name, plant code, process, shifts per weekday, commissioned
LINES = [
    ("CNC Cell 1", "DAY", "machining", 3, "2015-03-01"),
    ("CNC Cell 2", "DAY", "machining", 2, "2018-07-01"),
    ("Press Line 1", "DAY", "stamping", 2, "2009-05-01"),
    ("Assembly Line 1", "DAY", "assembly", 2, "2011-01-10"),
    ("Molding Line 1", "GVL", "molding", 3, "2012-08-01"),
    ("Molding Line 2", "GVL", "molding", 3, "2016-04-01"),
    ("Assembly Line 2", "GVL", "assembly", 2, "2014-02-01"),
    ("Assembly Line 3", "GVL", "assembly", 2, "2020-10-01"),
    ("Press Line 2", "MTY", "stamping", 3, "2012-03-01"),
    ("Press Line 3", "MTY", "stamping", 2, "2017-09-01"),
    ("CNC Cell 3", "MTY", "machining", 2, "2019-01-15"),
    ("Assembly Line 4", "MTY", "assembly", 3, "2013-06-01"),
    ("Molding Line 3", "SLT", "molding", 3, "2019-07-01"),
    ("Molding Line 4", "SLT", "molding", 2, "2021-05-01"),
    ("Assembly Line 5", "SLT", "assembly", 2, "2019-07-01"),
    ("CNC Cell 4", "GLP", "machining", 2, "2008-02-01"),
    ("CNC Cell 5", "GLP", "machining", 3, "2022-03-01"),
    ("Press Line 4", "GLP", "stamping", 2, "2010-10-01"),
]

MACHINE_MODELS = {
    "machining": [("CNC-500", "Vertical machining centre"), ("CNC-750", "Vertical machining centre"),
                  ("Haas VF-2", "Vertical machining centre"), ("Okuma LB3000", "CNC lathe"),
                  ("Mazak QTN-200", "CNC lathe"), ("DMG Mori NLX 2500", "CNC lathe")],
    "stamping": [("Aida NC1-200", "Servo press"), ("Bruderer BSTA 510", "High-speed press"),
                 ("Komatsu H2W-300", "Straight-side press"), ("Coil Feeder CF-24", "Coil feeder")],
    "molding": [("Engel e-mac 280", "Injection molder"), ("Arburg 570", "Injection molder"),
                ("Husky HyPET 300", "Injection molder"), ("Sepro 5X-25", "Pick-and-place robot")],
    "assembly": [("Fanuc M-20iA", "Assembly robot"), ("Kuka KR 10", "Assembly robot"),
                 ("Keyence IV3 Station 2", "Vision inspection"), ("Torque Station TS-40", "Screwdriving station")],
}
MACHINE_PREFIX = {"machining": "CNC", "stamping": "Press", "molding": "Molder", "assembly": "Station"}

CUSTOMERS = [
    ("Apex Automotive", "Automotive", "US"),
    ("Northwind Medical", "Medical devices", "US"),
    ("Helios Solar", "Energy", "US"),
    ("Brightline Appliances", "Consumer goods", "CA"),
    ("Corvid Aerospace", "Aerospace", "US"),
    ("Tidewater Marine", "Marine", "US"),
    ("Summit Tools", "Industrial", "CA"),
    ("Kestrel Robotics", "Industrial", "US"),
    ("Ironbridge Agriculture", "Agriculture", "MX"),
    ("Lumen Lighting", "Consumer goods", "MX"),
]

PART_TEMPLATES = {
    "machining": [("Valve body", 95, 38.0), ("Pump housing", 140, 61.5), ("Drive shaft", 70, 24.9),
                  ("Manifold block", 180, 88.0), ("Bearing cap", 55, 12.4), ("Hydraulic fitting", 45, 7.8)],
    "stamping": [("Mounting bracket", 3.2, 0.86), ("Heat shield", 4.5, 2.15), ("Battery tray clip", 2.4, 0.41),
                 ("Hinge plate", 3.8, 1.12), ("Chassis gusset", 5.5, 3.40)],
    "molding": [("Connector housing", 28, 0.95), ("Lens cover", 35, 1.80), ("Cable clip", 18, 0.22),
                ("Fan shroud", 42, 4.60), ("Syringe barrel", 22, 0.38)],
    "assembly": [("Control module", 75, 46.0), ("Sensor assembly", 48, 18.5), ("Pump kit", 110, 72.0),
                 ("LED driver board", 60, 22.0), ("Hand tool kit", 52, 15.5)],
}
PART_PREFIX = {"machining": "MCH", "stamping": "STP", "molding": "MLD", "assembly": "ASM"}

SHIFTS = [("A", 6), ("B", 14), ("C", 22)]
PLANNED_MINUTES = 450

REASONS = [
    # reason, category, weight, median minutes, spread
    ("Breakdown", "unplanned", 30, 55, 0.8),
    ("Changeover", "planned", 0, 70, 0.35),
    ("Planned maintenance", "planned", 10, 120, 0.3),
    ("Material shortage", "unplanned", 14, 45, 0.6),
    ("Quality hold", "unplanned", 10, 35, 0.5),
    ("Minor stop", "unplanned", 36, 9, 0.5),
]


def _weekdays():
    d = START
    while d <= END:
        if d.weekday() < 5:
            yield d
        d += timedelta(days=1)


def build(path: str) -> None:
    rng = random.Random(SEED)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        DROP TABLE IF EXISTS plants;
        DROP TABLE IF EXISTS production_lines;
        DROP TABLE IF EXISTS machines;
        DROP TABLE IF EXISTS customers;
        DROP TABLE IF EXISTS parts;
        DROP TABLE IF EXISTS work_orders;
        DROP TABLE IF EXISTS shift_production;
        DROP TABLE IF EXISTS downtime_events;
        CREATE TABLE plants (
            plant_id INTEGER PRIMARY KEY,
            plant_code TEXT NOT NULL UNIQUE,
            plant_name TEXT NOT NULL UNIQUE,
            city TEXT NOT NULL,
            country TEXT NOT NULL,
            region TEXT NOT NULL,
            opened_on DATE NOT NULL
        );
        CREATE TABLE production_lines (
            line_id INTEGER PRIMARY KEY,
            plant_id INTEGER NOT NULL REFERENCES plants(plant_id),
            line_name TEXT NOT NULL UNIQUE,
            process TEXT NOT NULL,
            shifts_per_day INTEGER NOT NULL,
            commissioned_on DATE NOT NULL
        );
        CREATE TABLE machines (
            machine_id INTEGER PRIMARY KEY,
            line_id INTEGER NOT NULL REFERENCES production_lines(line_id),
            machine_name TEXT NOT NULL UNIQUE,
            model TEXT NOT NULL,
            machine_type TEXT NOT NULL,
            installed_on DATE NOT NULL
        );
        CREATE TABLE customers (
            customer_id INTEGER PRIMARY KEY,
            customer_name TEXT NOT NULL UNIQUE,
            industry TEXT NOT NULL,
            country TEXT NOT NULL
        );
        CREATE TABLE parts (
            part_id INTEGER PRIMARY KEY,
            part_number TEXT NOT NULL UNIQUE,
            description TEXT NOT NULL,
            customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
            process TEXT NOT NULL,
            ideal_cycle_sec REAL NOT NULL,
            unit_price_usd REAL NOT NULL
        );
        CREATE TABLE work_orders (
            wo_id INTEGER PRIMARY KEY,
            wo_number TEXT NOT NULL UNIQUE,
            line_id INTEGER NOT NULL REFERENCES production_lines(line_id),
            part_id INTEGER NOT NULL REFERENCES parts(part_id),
            customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
            qty_ordered INTEGER NOT NULL,
            qty_good INTEGER NOT NULL,
            qty_scrap INTEGER NOT NULL,
            released_on DATE NOT NULL,
            started_on DATE,
            due_date DATE NOT NULL,
            completed_on DATE,
            shipped_on DATE,
            status TEXT NOT NULL,
            updated_at TIMESTAMP NOT NULL
        );
        CREATE TABLE shift_production (
            shift_run_id INTEGER PRIMARY KEY,
            line_id INTEGER NOT NULL REFERENCES production_lines(line_id),
            wo_id INTEGER REFERENCES work_orders(wo_id),
            prod_date DATE NOT NULL,
            shift TEXT NOT NULL,
            shift_start TIMESTAMP NOT NULL,
            planned_minutes INTEGER NOT NULL,
            downtime_minutes INTEGER NOT NULL,
            run_minutes INTEGER NOT NULL,
            ideal_cycle_sec REAL NOT NULL,
            units_total INTEGER NOT NULL,
            units_scrap INTEGER NOT NULL,
            units_good INTEGER NOT NULL
        );
        CREATE TABLE downtime_events (
            event_id INTEGER PRIMARY KEY,
            shift_run_id INTEGER NOT NULL REFERENCES shift_production(shift_run_id),
            machine_id INTEGER NOT NULL REFERENCES machines(machine_id),
            line_id INTEGER NOT NULL REFERENCES production_lines(line_id),
            started_at TIMESTAMP NOT NULL,
            ended_at TIMESTAMP NOT NULL,
            duration_minutes INTEGER NOT NULL,
            reason TEXT NOT NULL,
            category TEXT NOT NULL
        );
        """
    )

    plant_ids = {}
    for i, (code, name, city, country, region, opened) in enumerate(PLANTS, start=1):
        cur.execute("INSERT INTO plants VALUES (?,?,?,?,?,?,?)", (i, code, name, city, country, region, opened))
        plant_ids[code] = i

    # customers
    for i, (name, industry, country) in enumerate(CUSTOMERS, start=1):
        cur.execute("INSERT INTO customers VALUES (?,?,?,?)", (i, name, industry, country))
    n_customers = len(CUSTOMERS)

    # parts: each process template becomes 1-2 part numbers for different customers
    parts_by_process = {p: [] for p in PART_TEMPLATES}
    part_id = 0
    for process, templates in PART_TEMPLATES.items():
        for desc, cycle, price in templates:
            for _ in range(rng.choice([1, 2, 2])):
                part_id += 1
                number = f"{PART_PREFIX[process]}-{rng.randint(1000, 9899)}"
                cust = rng.randint(1, n_customers)
                c = round(cycle * rng.uniform(0.85, 1.2), 1)
                pr = round(price * rng.uniform(0.9, 1.15), 2)
                cur.execute(
                    "INSERT INTO parts VALUES (?,?,?,?,?,?,?)",
                    (part_id, number, desc, cust, process, c, pr),
                )
                parts_by_process[process].append((part_id, cust, c, pr))

    # lines and machines
    machine_counter = {p: 0 for p in MACHINE_PREFIX}
    line_info = []
    machine_id = 0
    used_names = set()
    for li, (lname, pcode, process, shifts, comm) in enumerate(LINES, start=1):
        cur.execute(
            "INSERT INTO production_lines VALUES (?,?,?,?,?,?)",
            (li, plant_ids[pcode], lname, process, shifts, comm),
        )
        machines = []
        for _ in range(rng.randint(2, 4)):
            machine_id += 1
            model, mtype = rng.choice(MACHINE_MODELS[process])
            while True:
                machine_counter[process] += rng.randint(1, 3)
                mname = f"{MACHINE_PREFIX[process]} {machine_counter[process]}"
                if mname not in used_names:
                    used_names.add(mname)
                    break
            inst = date.fromisoformat(comm) + timedelta(days=rng.randint(0, 900))
            cur.execute(
                "INSERT INTO machines VALUES (?,?,?,?,?,?)",
                (machine_id, li, mname, model, mtype, inst.isoformat()),
            )
            machines.append((machine_id, rng.uniform(0.5, 2.0)))
        # line character
        plant_factor = {"DAY": 1.0, "GVL": 0.85, "MTY": 1.15, "SLT": 1.3, "GLP": 0.9}[pcode]
        line_info.append({
            "id": li, "name": lname, "plant": pcode, "process": process, "shifts": shifts,
            "machines": machines,
            "lam": rng.uniform(0.7, 1.3) * plant_factor,
            "perf": rng.uniform(0.80, 0.94),
            "scrap": {"machining": 0.018, "stamping": 0.012, "molding": 0.03, "assembly": 0.009}[process]
            * rng.uniform(0.6, 1.6) * plant_factor,
            "trend": rng.uniform(-0.25, 0.2),  # relative change of scrap and stops in 2025
        })

    wo_seq = {2024: 0, 2025: 0}
    wo_rows = {}
    wo_id = 0
    shift_run_id = 0
    event_id = 0
    days = list(_weekdays())

    def new_wo(line, d):
        nonlocal wo_id
        wo_id += 1
        yr = d.year
        wo_seq[yr] += 1
        pid, cust, cycle, price = rng.choice(parts_by_process[line["process"]])
        per_shift = PLANNED_MINUTES * 0.8 * 60 / cycle * line["perf"]
        n_shifts = rng.randint(2, 14)
        qty = max(50, int(round(per_shift * n_shifts / 50.0)) * 50)
        exp_days = math.ceil(n_shifts / line["shifts"])
        due = d + timedelta(days=int(exp_days * 7 / 5 * rng.uniform(0.9, 1.6)) + rng.randint(1, 6))
        wo_rows[wo_id] = {
            "wo_id": wo_id, "wo_number": f"WO-{yr % 100:02d}-{wo_seq[yr]:04d}",
            "line_id": line["id"], "part_id": pid, "customer_id": cust, "qty_ordered": qty,
            "qty_good": 0, "qty_scrap": 0, "released_on": d - timedelta(days=rng.randint(2, 12)),
            "started_on": d, "due_date": due, "completed_on": None, "shipped_on": None,
            "status": "in_progress", "cycle": cycle,
        }
        return wo_id

    shift_rows = []
    event_rows = []
    for line in line_info:
        current = None
        for d in days:
            yfac = 1.0 + (line["trend"] if d.year == 2025 else 0.0)
            for s_idx in range(line["shifts"]):
                sname, hour = SHIFTS[s_idx]
                # occasional idle shift (no demand / holiday)
                if rng.random() < 0.025:
                    continue
                changeover = False
                if current is None:
                    current = new_wo(line, d)
                    changeover = True
                wo = wo_rows[current]
                shift_run_id += 1
                start_dt = datetime(d.year, d.month, d.day, hour, 0)
                # downtime events
                events = []
                if changeover:
                    events.append(("Changeover", "planned", max(20, int(rng.lognormvariate(math.log(70), 0.35)))))
                n_ev = 0
                lam = line["lam"] * yfac * (1.15 if sname == "C" else 1.0)
                # poisson by inversion
                L, p, k = math.exp(-lam), 1.0, 0
                while True:
                    p *= rng.random()
                    if p <= L:
                        break
                    k += 1
                n_ev = k
                weights = [r[2] for r in REASONS]
                for _ in range(n_ev):
                    reason, cat, _w, med, spread = rng.choices(REASONS, weights=weights)[0]
                    mins = max(2, int(rng.lognormvariate(math.log(med), spread)))
                    events.append((reason, cat, mins))
                total_dt = 0
                kept = []
                for reason, cat, mins in events:
                    mins = min(mins, PLANNED_MINUTES - 40 - total_dt)
                    if mins < 2:
                        continue
                    total_dt += mins
                    kept.append((reason, cat, mins))
                run_min = PLANNED_MINUTES - total_dt
                perf = min(0.99, max(0.55, rng.gauss(line["perf"], 0.04)))
                units = int(run_min * 60 / wo["cycle"] * perf)
                scrap_p = max(0.001, line["scrap"] * yfac * rng.uniform(0.5, 1.5))
                scrap = sum(1 for _ in range(units) if rng.random() < scrap_p) if units < 800 else int(round(units * scrap_p * rng.uniform(0.85, 1.15)))
                good = units - scrap
                # cap at what the work order still needs
                need = wo["qty_ordered"] - wo["qty_good"]
                if good >= need:
                    frac = need / good if good else 1.0
                    good = need
                    scrap = int(round(scrap * frac))
                    units = good + scrap
                shift_rows.append((shift_run_id, line["id"], current, d.isoformat(), sname,
                                   start_dt.strftime("%Y-%m-%d %H:%M:%S"), PLANNED_MINUTES, total_dt,
                                   run_min, wo["cycle"], units, scrap, good))
                # place events in the shift
                t = start_dt + timedelta(minutes=rng.randint(0, 20))
                for reason, cat, mins in kept:
                    machine = rng.choices([m[0] for m in line["machines"]], weights=[m[1] for m in line["machines"]])[0]
                    event_id += 1
                    gap = rng.randint(0, max(0, (PLANNED_MINUTES - total_dt) // (len(kept) + 1)))
                    t = t + timedelta(minutes=gap)
                    e = t + timedelta(minutes=mins)
                    event_rows.append((event_id, shift_run_id, machine, line["id"],
                                       t.strftime("%Y-%m-%d %H:%M:%S"), e.strftime("%Y-%m-%d %H:%M:%S"),
                                       mins, reason, cat))
                    t = e
                wo["qty_good"] += good
                wo["qty_scrap"] += scrap
                if wo["qty_good"] >= wo["qty_ordered"]:
                    wo["completed_on"] = d
                    wo["status"] = "completed"
                    ship = d + timedelta(days=rng.choice([0, 1, 1, 1, 2, 2, 3, 4]))
                    if ship <= END:
                        wo["shipped_on"] = ship
                        wo["status"] = "shipped"
                    current = None

    cur.executemany("INSERT INTO shift_production VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", shift_rows)
    cur.executemany("INSERT INTO downtime_events VALUES (?,?,?,?,?,?,?,?,?)", event_rows)

    # a few cancelled orders that never started
    for _ in range(24):
        line = rng.choice(line_info)
        d = rng.choice(days)
        wid = new_wo(line, d)
        w = wo_rows[wid]
        w["started_on"] = None
        w["status"] = "cancelled"

    for w in wo_rows.values():
        last = w["shipped_on"] or w["completed_on"] or w["started_on"] or w["released_on"]
        cur.execute(
            "INSERT INTO work_orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                w["wo_id"], w["wo_number"], w["line_id"], w["part_id"], w["customer_id"],
                w["qty_ordered"], w["qty_good"], w["qty_scrap"], w["released_on"].isoformat(),
                w["started_on"].isoformat() if w["started_on"] else None, w["due_date"].isoformat(),
                w["completed_on"].isoformat() if w["completed_on"] else None,
                w["shipped_on"].isoformat() if w["shipped_on"] else None,
                w["status"], f"{min(last, END).isoformat()} 23:00:00",
            ),
        )
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "manufacturing.db")
