"""Cascade Regional Airlines: flight operations warehouse (deterministic)."""
import datetime as dt
import random
import sqlite3

AIRPORTS = [
    ("PDX", "Portland International", "Portland", "OR", 1),
    ("SEA", "Seattle-Tacoma International", "Seattle", "WA", 1),
    ("BOI", "Boise Airport", "Boise", "ID", 0),
    ("GEG", "Spokane International", "Spokane", "WA", 0),
    ("SFO", "San Francisco International", "San Francisco", "CA", 0),
    ("SMF", "Sacramento International", "Sacramento", "CA", 0),
    ("RNO", "Reno-Tahoe International", "Reno", "NV", 0),
    ("MFR", "Rogue Valley International-Medford", "Medford", "OR", 0),
    ("EUG", "Eugene Airport", "Eugene", "OR", 0),
    ("RDM", "Roberts Field", "Redmond", "OR", 0),
    ("PSC", "Tri-Cities Airport", "Pasco", "WA", 0),
    ("SLC", "Salt Lake City International", "Salt Lake City", "UT", 0),
    ("BZN", "Bozeman Yellowstone International", "Bozeman", "MT", 0),
]

TYPES = [  # type, seats, count, cruise mph
    ("Boeing 737-800", 166, 5, 450),
    ("A320neo", 180, 4, 450),
    ("Embraer E175", 76, 7, 420),
    ("ATR 72-600", 70, 6, 300),
    ("Dash 8-400", 76, 5, 330),
]

ROUTES = [  # origin, dest, miles, type, daily freq
    ("PDX", "SEA", 129, "ATR 72-600", 3),
    ("PDX", "BOI", 344, "Embraer E175", 2),
    ("PDX", "SFO", 550, "A320neo", 2),
    ("PDX", "MFR", 222, "Dash 8-400", 1),
    ("PDX", "EUG", 106, "ATR 72-600", 1),
    ("PDX", "RDM", 116, "Dash 8-400", 1),
    ("SEA", "GEG", 224, "Embraer E175", 2),
    ("SEA", "PSC", 172, "ATR 72-600", 1),
    ("SEA", "SMF", 605, "Boeing 737-800", 1),
    ("SEA", "BZN", 536, "Embraer E175", 1),
    ("PDX", "SLC", 630, "Boeing 737-800", 1),
    ("PDX", "RNO", 448, "Dash 8-400", 1),
    ("SEA", "SFO", 679, "A320neo", 1),
]

FIRST = ["Maya", "Liam", "Priya", "Noah", "Elena", "Owen", "Grace", "Mateo", "Hannah", "Ravi",
         "Chloe", "Diego", "Ava", "Samuel", "Zoe", "Ethan", "Nora", "Caleb", "Ines", "Jonah",
         "Leah", "Marcus", "Sofia", "Tomas", "Yuki", "Aaron", "Bianca", "Felix", "Iris", "Kofi"]
LAST = ["Hart", "Okafor", "Nguyen", "Lindqvist", "Castillo", "Brennan", "Shah", "Moreau",
        "Fischer", "Kowalski", "Reyes", "Tanaka", "Dubois", "Osei", "Larsen", "Quinn", "Patel",
        "Almeida", "Novak", "Sato"]

CAUSES = ["Weather", "Air Traffic Control", "Maintenance", "Crew", "Late Inbound Aircraft",
          "Ground Handling"]


def build(path: str) -> None:
    rng = random.Random(2028)
    con = sqlite3.connect(path)
    c = con.cursor()
    c.executescript("""
    CREATE TABLE airports (code TEXT PRIMARY KEY, name TEXT, city TEXT, state TEXT, is_hub INTEGER);
    CREATE TABLE aircraft (tail_number TEXT PRIMARY KEY, aircraft_type TEXT, seats INTEGER,
        delivered_on DATE, status TEXT);
    CREATE TABLE routes (route_id INTEGER PRIMARY KEY, route_code TEXT, origin TEXT, destination TEXT,
        distance_miles INTEGER, scheduled_block_minutes INTEGER);
    CREATE TABLE flights (flight_id INTEGER PRIMARY KEY, flight_number TEXT, route_id INTEGER,
        tail_number TEXT, flight_date DATE, scheduled_departure TIMESTAMP, actual_departure TIMESTAMP,
        scheduled_arrival TIMESTAMP, actual_arrival TIMESTAMP, status TEXT,
        arrival_delay_minutes INTEGER, delay_cause TEXT, block_minutes INTEGER,
        seats INTEGER, passengers INTEGER);
    CREATE TABLE crew (crew_id INTEGER PRIMARY KEY, employee_no TEXT, full_name TEXT, role TEXT,
        base TEXT, hire_date DATE);
    CREATE TABLE crew_assignments (assignment_id INTEGER PRIMARY KEY, flight_id INTEGER,
        crew_id INTEGER, duty_minutes INTEGER);
    CREATE TABLE bookings (booking_id INTEGER PRIMARY KEY, booking_ref TEXT, flight_id INTEGER,
        booked_at TIMESTAMP, channel TEXT, fare_class TEXT, party_size INTEGER, fare_total_usd REAL,
        status TEXT);
    CREATE TABLE baggage_claims (claim_id INTEGER PRIMARY KEY, claim_ref TEXT, flight_id INTEGER,
        filed_at TIMESTAMP, claim_type TEXT, amount_paid_usd REAL, resolved_at TIMESTAMP, status TEXT);
    """)
    c.executemany("INSERT INTO airports VALUES (?,?,?,?,?)", AIRPORTS)
    fleet = {}
    tail_no = 401
    for typ, seats, n, _ in TYPES:
        fleet[typ] = []
        for _ in range(n):
            tail = f"N{tail_no}CR"
            tail_no += rng.choice([3, 7, 11])
            d = dt.date(2012, 1, 1) + dt.timedelta(days=rng.randint(0, 3650))
            c.execute("INSERT INTO aircraft VALUES (?,?,?,?,?)", (tail, typ, seats, d.isoformat(), "active"))
            fleet[typ].append(tail)
    speed = {t[0]: t[3] for t in TYPES}
    seatmap = {t[0]: t[1] for t in TYPES}
    routes = []
    rid = 1
    for o, d_, miles, typ, freq in ROUTES:
        for a, b in ((o, d_), (d_, o)):
            sched = int(round(25 + miles / speed[typ] * 60))
            code = f"{a}-{b}"
            c.execute("INSERT INTO routes VALUES (?,?,?,?,?,?)", (rid, code, a, b, miles, sched))
            routes.append((rid, a, b, miles, typ, max(1, freq // 2 + (1 if freq % 2 and a == o else 0)), sched))
            rid += 1
    # crew
    crew = []
    emp = 1001
    for role, n in (("Captain", 34), ("First Officer", 38)):
        for _ in range(n):
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            base = rng.choice(["PDX", "PDX", "SEA"])
            hd = dt.date(2008, 1, 1) + dt.timedelta(days=rng.randint(0, 5800))
            c.execute("INSERT INTO crew VALUES (?,?,?,?,?,?)",
                      (len(crew) + 1, f"E-{emp}", name, role, base, hd.isoformat()))
            crew.append((len(crew) + 1, role, base))
            emp += rng.randint(1, 9)
    captains = [x for x in crew if x[1] == "Captain"]
    fos = [x for x in crew if x[1] == "First Officer"]
    start = dt.date(2023, 1, 1)
    end = dt.date(2025, 12, 31)
    fid = 0
    bid = 0
    cid = 0
    aid = 0
    day = start
    flight_rows, assign_rows, booking_rows, claim_rows = [], [], [], []
    while day <= end:
        month = day.month
        winter = month in (12, 1, 2)
        summer = month in (6, 7, 8)
        growth = 1 + 0.04 * (day.year - 2023)
        for (r_id, a, b, miles, typ, freq, sched) in routes:
            # not every frequency operates every day
            for k in range(freq):
                if rng.random() < 0.66:
                    continue
                fid += 1
                hour = 6 + k * 5 + rng.randint(0, 3)
                minute = rng.choice([0, 10, 15, 25, 30, 40, 45, 55])
                sdep = dt.datetime(day.year, day.month, day.day, hour, minute)
                sarr = sdep + dt.timedelta(minutes=sched)
                tail = rng.choice(fleet[typ])
                seats = seatmap[typ]
                fnum = f"CR {1000 + r_id * 20 + k}"
                p_cancel = 0.045 if winter else 0.014
                if typ == "ATR 72-600":
                    p_cancel += 0.006
                if day.year == 2024:
                    p_cancel *= 0.85
                if rng.random() < p_cancel:
                    flight_rows.append((fid, fnum, r_id, tail, day.isoformat(), sdep.isoformat(sep=" "),
                                        None, sarr.isoformat(sep=" "), None, "cancelled", None,
                                        rng.choice(["Weather", "Weather", "Maintenance", "Crew"]),
                                        None, seats, 0))
                    continue
                lf = min(0.99, max(0.35, rng.gauss(0.78 + (0.08 if summer else 0) - (0.07 if winter else 0)
                                                   + 0.02 * (day.year - 2023), 0.1)))
                pax = int(seats * lf)
                u = rng.random()
                base_late = 0.22 + (0.08 if winter else 0) - (0.03 if day.year == 2025 else 0)
                if typ == "Dash 8-400":
                    base_late += 0.04
                if u < base_late:
                    delay = int(rng.expovariate(1 / 42)) + 15
                    cause = rng.choice(CAUSES + (["Weather"] * 2 if winter else []))
                else:
                    delay = rng.randint(-12, 14)
                    cause = None
                dep_delay = max(-5, delay + rng.randint(-8, 4))
                adep = sdep + dt.timedelta(minutes=dep_delay)
                block = sched + (delay - dep_delay)
                if block < sched - 15:
                    block = sched - 15
                aarr = adep + dt.timedelta(minutes=block)
                delay = int((aarr - sarr).total_seconds() // 60)
                flight_rows.append((fid, fnum, r_id, tail, day.isoformat(), sdep.isoformat(sep=" "),
                                    adep.isoformat(sep=" "), sarr.isoformat(sep=" "), aarr.isoformat(sep=" "),
                                    "completed", delay, cause, block, seats, pax))
                cap = rng.choice([x for x in captains if x[2] in (a, b)] or captains)
                fo = rng.choice([x for x in fos if x[2] in (a, b)] or fos)
                for person in (cap, fo):
                    aid += 1
                    assign_rows.append((aid, fid, person[0], block + 60 + rng.randint(0, 20)))
                # bookings: a sample of bookings per flight
                for _ in range(rng.choice([1, 2, 2, 3])):
                    bid += 1
                    ch = rng.choices(["Web", "Mobile App", "Travel Agency", "Call Center"], [45, 33, 15, 7])[0]
                    fc = rng.choices(["Basic", "Main", "Flex", "Premium"], [30, 45, 17, 8])[0]
                    mult = {"Basic": 0.7, "Main": 1.0, "Flex": 1.45, "Premium": 2.3}[fc]
                    party = rng.choices([1, 2, 3, 4], [60, 28, 8, 4])[0]
                    fare = round((59 + miles * 0.21) * mult * rng.uniform(0.8, 1.3) * growth, 2) * party
                    lead = rng.randint(1, 90)
                    bat = sdep - dt.timedelta(days=lead, minutes=rng.randint(0, 1439))
                    st = "ticketed" if rng.random() > 0.06 else "refunded"
                    booking_rows.append((bid, f"BK{700000 + bid * 7}", fid, bat.isoformat(sep=" "), ch, fc,
                                         party, round(fare, 2), st))
                # baggage claims
                p_claim = pax * 0.0011 * (1.5 if delay > 60 else 1.0)
                if rng.random() < p_claim:
                    cid += 1
                    ctype = rng.choices(["Delayed", "Damaged", "Lost", "Pilfered"], [62, 24, 9, 5])[0]
                    filed = aarr + dt.timedelta(minutes=rng.randint(20, 2880))
                    days = {"Delayed": 2, "Damaged": 9, "Lost": 24, "Pilfered": 16}[ctype]
                    res = filed + dt.timedelta(hours=rng.randint(6, days * 48))
                    amt = {"Delayed": 45, "Damaged": 180, "Lost": 720, "Pilfered": 260}[ctype] * rng.uniform(0.4, 1.6)
                    status = "closed"
                    if res.date() > dt.date(2025, 12, 31):
                        res, status = None, "open"
                    claim_rows.append((cid, f"BG-{cid:05d}", fid, filed.isoformat(sep=" "), ctype,
                                       round(amt, 2) if status == "closed" else 0.0,
                                       res.isoformat(sep=" ") if res else None, status))
        day += dt.timedelta(days=1)
    c.executemany("INSERT INTO flights VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", flight_rows)
    c.executemany("INSERT INTO crew_assignments VALUES (?,?,?,?)", assign_rows)
    c.executemany("INSERT INTO bookings VALUES (?,?,?,?,?,?,?,?,?)", booking_rows)
    c.executemany("INSERT INTO baggage_claims VALUES (?,?,?,?,?,?,?,?)", claim_rows)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys
    build(sys.argv[1])
