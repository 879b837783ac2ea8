"""A network of outpatient clinics: a deterministic SQLite warehouse.

Tables: clinics, departments, physicians, patients, appointments, billing, surveys, referrals.
Appointments run from Monday 2023-01-02 to Sunday 2025-06-29. Everything comes from one
``random.Random`` seed and fixed dates, so the same file is written on every machine.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import sqlite3

SEED = 20240517
FIRST_DAY = dt.date(2023, 1, 2)
LAST_DAY = dt.date(2025, 6, 29)

# clinic_id, name, address, city, opened_on, volume weight, no-show base, wait mean (min),
# satisfaction mean, charge multiplier, open on Saturdays
CLINICS = [
    (
        1,
        "Riverside Clinic",
        "410 River Rd",
        "Springfield",
        "2009-03-01",
        1.25,
        0.085,
        14.0,
        4.30,
        1.00,
        False,
    ),
    (
        2,
        "Clinic 7 Downtown",
        "77 Main St",
        "Springfield",
        "2014-09-15",
        1.10,
        0.135,
        22.0,
        3.85,
        1.05,
        False,
    ),
    (
        3,
        "Maple Grove Family Health",
        "12 Maple Ave",
        "Shelbyville",
        "2011-06-01",
        0.95,
        0.070,
        11.0,
        4.45,
        0.92,
        False,
    ),
    (
        4,
        "Harbor View Medical",
        "2500 Harbor Blvd, Suite 200",
        "Port Ellis",
        "2016-01-11",
        1.00,
        0.105,
        18.0,
        4.05,
        1.18,
        False,
    ),
    (
        5,
        "Northgate Clinic",
        "9 Northgate Plaza",
        "Springfield",
        "2018-04-03",
        0.80,
        0.115,
        16.0,
        4.10,
        0.98,
        False,
    ),
    (
        6,
        "Route 66 Urgent Care",
        "6600 Route 66",
        "Kingman",
        "2020-02-17",
        0.90,
        0.060,
        27.0,
        3.70,
        0.85,
        True,
    ),
    (
        7,
        "Lakeside Pediatrics",
        "300 Lakeshore Dr, Suite 110",
        "Shelbyville",
        "2012-08-20",
        0.85,
        0.095,
        12.0,
        4.55,
        0.80,
        False,
    ),
    (
        8,
        "Eastside Health Center",
        "1801 E 14th St",
        "Port Ellis",
        "2021-10-04",
        0.70,
        0.160,
        20.0,
        3.95,
        0.95,
        False,
    ),
]

# department_id, name, service line, mean visit minutes, charge base
DEPARTMENTS = [
    (1, "Family Medicine", "Primary care", 22, 165.0),
    (2, "Internal Medicine", "Primary care", 26, 185.0),
    (3, "Pediatrics", "Primary care", 20, 150.0),
    (4, "Cardiology", "Specialty", 34, 310.0),
    (5, "Dermatology", "Specialty", 18, 240.0),
    (6, "Orthopedics", "Specialty", 28, 290.0),
    (7, "Urgent Care", "Urgent care", 24, 210.0),
]

# which departments each clinic runs, with physicians per department
STAFFING = {
    1: {1: 2, 2: 1, 4: 1, 6: 1},
    2: {1: 2, 2: 1, 5: 1},
    3: {1: 2, 3: 1},
    4: {2: 1, 4: 1, 5: 1, 6: 1},
    5: {1: 1, 2: 1, 6: 1},
    6: {7: 3},
    7: {3: 3},
    8: {1: 2, 2: 1},
}

FIRST = [
    "Ana",
    "Marcus",
    "Priya",
    "Daniel",
    "Helen",
    "Omar",
    "Grace",
    "Victor",
    "Lena",
    "Samuel",
    "Rosa",
    "Kenji",
    "Amara",
    "Thomas",
    "Ines",
    "Dmitri",
    "Claire",
    "Rahul",
    "Fatima",
    "George",
    "Naomi",
    "Luis",
    "Yara",
    "Peter",
    "Mei",
    "Jonas",
    "Leila",
    "Arthur",
    "Sofia",
    "Kwame",
    "Elena",
    "Hugo",
    "Zara",
    "Felix",
    "Maya",
]
LAST = [
    "Patel",
    "Okafor",
    "Nguyen",
    "Schmidt",
    "Alvarez",
    "Haddad",
    "Kim",
    "Lindqvist",
    "Moreau",
    "Brennan",
    "Costa",
    "Tanaka",
    "Mensah",
    "Reyes",
    "Fischer",
    "Ivanova",
    "Dubois",
    "Shah",
    "Rahman",
    "Walsh",
    "Adeyemi",
    "Ortega",
    "Karimi",
    "Novak",
    "Chen",
    "Berg",
    "Farah",
    "Doyle",
    "Rossi",
    "Asante",
    "Sokolova",
    "Laurent",
    "Malik",
    "Weber",
    "Ross",
]

PAYERS = [
    ("Commercial", 0.45, 0.84),
    ("Medicare", 0.25, 0.71),
    ("Medicaid", 0.20, 0.58),
    ("Self-pay", 0.10, 0.46),
]
CPT = {"new": ("99204", 1.45), "follow_up": ("99213", 1.0), "annual": ("99396", 1.25)}
MONTH_FACTOR = {
    1: 1.18,
    2: 1.12,
    3: 1.05,
    4: 0.98,
    5: 0.95,
    6: 0.9,
    7: 0.82,
    8: 0.88,
    9: 1.0,
    10: 1.05,
    11: 1.08,
    12: 1.0,
}
YEAR_FACTOR = {2023: 1.0, 2024: 1.14, 2025: 1.22}

SCHEMA = """
CREATE TABLE clinics (
    clinic_id INTEGER PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL, city TEXT NOT NULL,
    opened_on DATE NOT NULL
);
CREATE TABLE departments (
    department_id INTEGER PRIMARY KEY, name TEXT NOT NULL, service_line TEXT NOT NULL
);
CREATE TABLE physicians (
    physician_id INTEGER PRIMARY KEY, name TEXT NOT NULL, clinic_id INTEGER NOT NULL REFERENCES clinics,
    department_id INTEGER NOT NULL REFERENCES departments, hired_on DATE NOT NULL, fte REAL NOT NULL
);
CREATE TABLE patients (
    patient_id INTEGER PRIMARY KEY, birth_year INTEGER NOT NULL, sex TEXT NOT NULL,
    home_clinic_id INTEGER NOT NULL REFERENCES clinics, insurance_type TEXT NOT NULL,
    registered_on DATE NOT NULL
);
CREATE TABLE appointments (
    appointment_id INTEGER PRIMARY KEY, patient_id INTEGER NOT NULL REFERENCES patients,
    physician_id INTEGER NOT NULL REFERENCES physicians, clinic_id INTEGER NOT NULL REFERENCES clinics,
    department_id INTEGER NOT NULL REFERENCES departments, visit_type TEXT NOT NULL,
    booked_at TIMESTAMP NOT NULL, scheduled_at TIMESTAMP NOT NULL, checked_in_at TIMESTAMP,
    seen_at TIMESTAMP, ended_at TIMESTAMP, status TEXT NOT NULL, updated_at TIMESTAMP NOT NULL
);
CREATE TABLE billing (
    claim_id INTEGER PRIMARY KEY, appointment_id INTEGER NOT NULL UNIQUE REFERENCES appointments,
    clinic_id INTEGER NOT NULL REFERENCES clinics, billed_on DATE NOT NULL, cpt_code TEXT NOT NULL,
    payer_type TEXT NOT NULL, charge_amount NUMERIC(10,2) NOT NULL, collected_amount NUMERIC(10,2) NOT NULL
);
CREATE TABLE surveys (
    survey_id INTEGER PRIMARY KEY, appointment_id INTEGER NOT NULL UNIQUE REFERENCES appointments,
    clinic_id INTEGER NOT NULL REFERENCES clinics, submitted_on DATE NOT NULL, score INTEGER NOT NULL,
    would_recommend INTEGER NOT NULL
);
CREATE TABLE referrals (
    referral_id INTEGER PRIMARY KEY, patient_id INTEGER NOT NULL REFERENCES patients,
    referring_physician_id INTEGER NOT NULL REFERENCES physicians,
    to_department_id INTEGER NOT NULL REFERENCES departments, referred_on DATE NOT NULL,
    status TEXT NOT NULL, completed_on DATE
);
CREATE INDEX ix_appt_sched ON appointments (scheduled_at);
CREATE INDEX ix_appt_clinic ON appointments (clinic_id, scheduled_at);
"""


def _ts(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _pick(rng: random.Random, weighted: list[tuple]) -> tuple:
    x = rng.random()
    acc = 0.0
    for item in weighted:
        acc += item[1]
        if x < acc:
            return item
    return weighted[-1]


def build(path: str) -> None:
    rng = random.Random(SEED)
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO clinics VALUES (?,?,?,?,?)", [c[:5] for c in CLINICS])
    con.executemany("INSERT INTO departments VALUES (?,?,?)", [d[:3] for d in DEPARTMENTS])
    dept = {d[0]: d for d in DEPARTMENTS}
    clinic = {c[0]: c for c in CLINICS}

    # physicians: deterministic names, no duplicates
    names = [f"{f} {l}" for f, l in zip(FIRST, LAST)]
    physicians = []
    pid = 0
    for cid in sorted(STAFFING):
        for did, n in sorted(STAFFING[cid].items()):
            for _ in range(n):
                pid += 1
                hired = dt.date(2008, 1, 1) + dt.timedelta(days=rng.randrange(0, 5000))
                fte = rng.choice([0.6, 0.8, 1.0, 1.0, 1.0])
                # speed and no-show propensity differ per physician
                physicians.append(
                    {
                        "id": pid,
                        "name": names[pid - 1],
                        "clinic": cid,
                        "dept": did,
                        "hired": hired.isoformat(),
                        "fte": fte,
                        "load": fte * rng.uniform(0.75, 1.3),
                        "wait": rng.uniform(0.8, 1.25),
                        "ns": rng.uniform(0.8, 1.25),
                        "sat": rng.uniform(-0.25, 0.25),
                    }
                )
    con.executemany(
        "INSERT INTO physicians VALUES (?,?,?,?,?,?)",
        [
            (p["id"], "Dr. " + p["name"], p["clinic"], p["dept"], p["hired"], p["fte"])
            for p in physicians
        ],
    )

    # patients
    patients_by_clinic: dict[int, list[tuple[int, str]]] = {c[0]: [] for c in CLINICS}
    patient_rows = []
    weights = [(c[0], c[5] / sum(x[5] for x in CLINICS)) for c in CLINICS]
    for patid in range(1, 6201):
        cid = _pick(rng, weights)[0]
        if cid == 7:
            birth = rng.randint(2008, 2024)
        else:
            birth = rng.randint(1938, 2020)
        payer = _pick(rng, [(p[0], p[1]) for p in PAYERS])[0]
        if birth < 1959 and rng.random() < 0.7:
            payer = "Medicare"
        reg = dt.date(2016, 1, 1) + dt.timedelta(days=rng.randrange(0, 3467))
        if reg > LAST_DAY:
            reg = LAST_DAY - dt.timedelta(days=rng.randrange(0, 400))
        patient_rows.append((patid, birth, rng.choice(["F", "M"]), cid, payer, reg.isoformat()))
        patients_by_clinic[cid].append((patid, payer, reg))
    con.executemany("INSERT INTO patients VALUES (?,?,?,?,?,?)", patient_rows)

    appts, bills, surveys, referrals = [], [], [], []
    aid = 0
    day = FIRST_DAY
    specialty_by_clinic = {
        cid: [d for d in STAFFING[cid] if dept[d][2] == "Specialty"] for cid in STAFFING
    }
    while day <= LAST_DAY:
        wd = day.weekday()
        for p in physicians:
            cid = p["clinic"]
            c = clinic[cid]
            if wd == 6 or (wd == 5 and not c[10]):
                continue
            if p["fte"] < 1.0 and wd == (p["id"] % 5):
                continue
            mean = 1.05 * p["load"] * c[5] * MONTH_FACTOR[day.month] * YEAR_FACTOR[day.year]
            if wd == 5:
                mean *= 0.6
            n = 0
            # a small Poisson draw
            limit, prod = pow(2.718281828, -mean), rng.random()
            while prod > limit:
                n += 1
                prod *= rng.random()
            slots = rng.sample(range(8 * 3, 17 * 3), min(n, 27))
            for slot in sorted(slots):
                aid += 1
                sched = dt.datetime(day.year, day.month, day.day, slot // 3, (slot % 3) * 20)
                pool = patients_by_clinic[cid]
                patid, payer, reg = pool[rng.randrange(len(pool))]
                vtype = _pick(rng, [("follow_up", 0.58), ("new", 0.22), ("annual", 0.20)])[0]
                lead_days = min(rng.expovariate(1 / (9.0 if cid != 6 else 1.5)), 90)
                booked = sched - dt.timedelta(days=lead_days, hours=rng.uniform(0, 8))
                ns_p = c[6] * p["ns"] * (1.35 if lead_days > 21 else 1.0)
                if day.year == 2025:
                    ns_p *= 0.9
                r = rng.random()
                checked = seen = ended = None
                if r < 0.075:
                    status = "cancelled"
                    updated = booked + (sched - booked) * rng.uniform(0.3, 0.95)
                elif r < 0.075 + ns_p:
                    status = "no_show"
                    updated = sched + dt.timedelta(minutes=30)
                else:
                    status = "completed"
                    checked = sched + dt.timedelta(minutes=rng.randint(-15, 12))
                    wait = rng.gammavariate(2.2, c[7] * p["wait"] / 2.2)
                    if day.year == 2024:
                        wait *= 0.95
                    elif day.year == 2025:
                        wait *= 0.9
                    seen = checked + dt.timedelta(seconds=int(wait * 60))
                    dur = max(6.0, rng.gauss(dept[p["dept"]][3], dept[p["dept"]][3] * 0.25))
                    if vtype == "new":
                        dur *= 1.3
                    ended = seen + dt.timedelta(seconds=int(dur * 60))
                    updated = ended
                appts.append(
                    (
                        aid,
                        patid,
                        p["id"],
                        cid,
                        p["dept"],
                        vtype,
                        _ts(booked),
                        _ts(sched),
                        _ts(checked) if checked else None,
                        _ts(seen) if seen else None,
                        _ts(ended) if ended else None,
                        status,
                        _ts(updated),
                    )
                )
                if status != "completed":
                    continue
                code, mult = CPT[vtype]
                charge = round(dept[p["dept"]][4] * mult * c[9] * rng.uniform(0.85, 1.2), 2)
                pay_rate = next(x[2] for x in PAYERS if x[0] == payer)
                collected = (
                    0.0
                    if rng.random() < 0.05
                    else round(charge * min(1.0, pay_rate * rng.uniform(0.85, 1.15)), 2)
                )
                billed = day + dt.timedelta(days=rng.randint(0, 3))
                bills.append(
                    (len(bills) + 1, aid, cid, billed.isoformat(), code, payer, charge, collected)
                )
                if rng.random() < 0.3:
                    smean = c[8] + p["sat"] - (0.004 * max(0.0, wait - 15))
                    score = max(1, min(5, int(round(rng.gauss(smean, 0.8)))))
                    submitted = day + dt.timedelta(days=rng.randint(1, 7))
                    surveys.append(
                        (
                            len(surveys) + 1,
                            aid,
                            cid,
                            submitted.isoformat(),
                            score,
                            1 if score >= 4 else 0,
                        )
                    )
                if dept[p["dept"]][2] != "Specialty" and rng.random() < 0.1:
                    targets = specialty_by_clinic[cid] or [4, 5, 6]
                    to = rng.choice(targets + [4, 5, 6])
                    referred = day
                    rr = rng.random()
                    age = (LAST_DAY - referred).days
                    wait_days = int(rng.expovariate(1 / 19.0)) + 2
                    if rr < 0.09:
                        rstatus, done = "declined", None
                    elif age < wait_days:
                        rstatus, done = "pending", None
                    elif rr < 0.16:
                        rstatus, done = "pending", None
                    else:
                        rstatus, done = (
                            "completed",
                            (referred + dt.timedelta(days=wait_days)).isoformat(),
                        )
                    referrals.append(
                        (
                            len(referrals) + 1,
                            patid,
                            p["id"],
                            to,
                            referred.isoformat(),
                            rstatus,
                            done,
                        )
                    )
        day += dt.timedelta(days=1)

    con.executemany("INSERT INTO appointments VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", appts)
    con.executemany("INSERT INTO billing VALUES (?,?,?,?,?,?,?,?)", bills)
    con.executemany("INSERT INTO surveys VALUES (?,?,?,?,?,?)", surveys)
    con.executemany("INSERT INTO referrals VALUES (?,?,?,?,?,?,?)", referrals)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "clinics.db")
