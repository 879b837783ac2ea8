"""Warehouse of a small boutique hotel chain (seven properties), deterministic.

Check-ins run from 2024-01-01 to 2025-03-31. Tables: hotels, room_types, rooms, guests,
bookings, daily_inventory, reviews, tickets.
"""

from __future__ import annotations

import math
import os
import random
import sqlite3
from datetime import date, datetime, timedelta

SEED = 20240917
START = date(2024, 1, 1)
END = date(2025, 3, 31)  # last check-in / inventory date

HOTELS = [
    # id, code, name, city, state, opened, stars, rooms, price mult, occupancy target, rating mean, ticket speed
    (1, "BOS", "Harbor 9 Hotel", "Boston", "MA", "2016-05-12", 4, 34, 1.25, 0.80, 4.45, 0.85),
    (2, "CHI", "Tower 2 Suites", "Chicago", "IL", "2012-09-01", 4, 44, 1.15, 0.74, 4.20, 1.00),
    (3, "DEN", "The Meridian", "Denver", "CO", "2018-03-20", 4, 28, 1.00, 0.70, 4.30, 0.95),
    (4, "SEA", "Bayview Lodge", "Seattle", "WA", "2009-06-15", 3, 22, 1.10, 0.76, 4.10, 1.10),
    (5, "AUS", "Parkside Inn", "Austin", "TX", "2020-02-02", 3, 26, 0.95, 0.68, 4.00, 1.05),
    (6, "MSY", "Old Quarter House", "New Orleans", "LA", "2014-11-08", 4, 20, 1.05, 0.72, 4.55, 0.90),
    (7, "ABQ", "Route 66 Lodge", "Albuquerque", "NM", "2011-04-30", 3, 16, 0.75, 0.60, 3.80, 1.40),
]

ROOM_TYPES = [
    # id, name, base rate, max guests, share of rooms
    (1, "Classic Queen", 159.0, 2, 0.34),
    (2, "Double Queen", 179.0, 4, 0.28),
    (3, "Deluxe King", 209.0, 2, 0.22),
    (4, "Junior Suite", 289.0, 3, 0.10),
    (5, "Suite 200", 399.0, 4, 0.06),
]

CHANNELS = ["direct", "OTA", "corporate", "wholesale"]
CHANNEL_WEIGHTS = {
    1: [0.34, 0.30, 0.28, 0.08],
    2: [0.26, 0.30, 0.36, 0.08],
    3: [0.32, 0.38, 0.20, 0.10],
    4: [0.30, 0.42, 0.14, 0.14],
    5: [0.28, 0.44, 0.16, 0.12],
    6: [0.40, 0.36, 0.08, 0.16],
    7: [0.22, 0.52, 0.10, 0.16],
}
CHANNEL_RATE = {"direct": 0.97, "OTA": 1.0, "corporate": 0.88, "wholesale": 0.80}
CHANNEL_CANCEL = {"direct": 0.11, "OTA": 0.23, "corporate": 0.08, "wholesale": 0.15}
CHANNEL_LEAD = {"direct": 24.0, "OTA": 17.0, "corporate": 11.0, "wholesale": 45.0}

MONTH_SEASON = {1: 0.78, 2: 0.84, 3: 0.95, 4: 1.0, 5: 1.06, 6: 1.12, 7: 1.15, 8: 1.12,
                9: 1.05, 10: 1.08, 11: 0.92, 12: 0.86}

COMPANIES = [
    ("Northwind Traders", 0.22), ("Globex Corporation", 0.18), ("Apex 360 Consulting", 0.15),
    ("Initech", 0.12), ("Stark Logistics", 0.10), ("Blue Harbor Bank", 0.09),
    ("Delta 7 Engineering", 0.08), ("Umbrella Health", 0.06),
]

FIRST = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
         "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas",
         "Sarah", "Carlos", "Karen", "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Sandra",
         "Mark", "Ashley", "Priya", "Wei", "Aisha", "Diego", "Yuki", "Olga", "Hassan", "Chloe",
         "Mateo", "Fatima", "Noah", "Emma", "Liam", "Sofia", "Ethan", "Grace", "Omar", "Nina"]
LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
        "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas",
        "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris",
        "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King",
        "Wright", "Scott", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Novak", "Rossi", "Silva"]
COUNTRIES = [("US", 0.78), ("CA", 0.06), ("GB", 0.04), ("MX", 0.04), ("DE", 0.03),
             ("JP", 0.02), ("FR", 0.02), ("AU", 0.01)]
TIERS = [("none", 0.55), ("Silver", 0.25), ("Gold", 0.14), ("Platinum", 0.06)]

HK_ISSUES = ["linen change", "deep clean", "amenity restock", "spill cleanup", "late checkout turn"]
MT_ISSUES = ["HVAC", "plumbing", "electrical", "TV/Wi-Fi", "door lock", "furniture"]
PRIORITIES = [("low", 0.30), ("medium", 0.45), ("high", 0.20), ("urgent", 0.05)]


def _pick(rng: random.Random, pairs):
    r = rng.random()
    acc = 0.0
    for value, weight in pairs:
        acc += weight
        if r < acc:
            return value
    return pairs[-1][0]


def _poisson(rng: random.Random, lam: float) -> int:
    if lam > 30:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    limit = math.exp(-lam)
    k, p = 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _ts(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%d %H:%M:%S")


def build(path: str) -> None:
    rng = random.Random(SEED)
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        CREATE TABLE hotels (
            hotel_id INTEGER PRIMARY KEY, hotel_code TEXT NOT NULL, hotel_name TEXT NOT NULL,
            city TEXT NOT NULL, state TEXT NOT NULL, opened_on DATE NOT NULL,
            star_rating INTEGER NOT NULL, room_count INTEGER NOT NULL);
        CREATE TABLE room_types (
            room_type_id INTEGER PRIMARY KEY, room_type_name TEXT NOT NULL,
            base_rate REAL NOT NULL, max_guests INTEGER NOT NULL);
        CREATE TABLE rooms (
            room_id INTEGER PRIMARY KEY, hotel_id INTEGER NOT NULL REFERENCES hotels(hotel_id),
            room_number TEXT NOT NULL, room_type_id INTEGER NOT NULL REFERENCES room_types(room_type_id),
            floor INTEGER NOT NULL);
        CREATE TABLE guests (
            guest_id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, loyalty_tier TEXT NOT NULL,
            country TEXT NOT NULL, joined_on DATE NOT NULL);
        CREATE TABLE bookings (
            booking_id INTEGER PRIMARY KEY, booking_code TEXT NOT NULL UNIQUE,
            hotel_id INTEGER NOT NULL REFERENCES hotels(hotel_id),
            room_type_id INTEGER NOT NULL REFERENCES room_types(room_type_id),
            room_id INTEGER REFERENCES rooms(room_id),
            guest_id INTEGER NOT NULL REFERENCES guests(guest_id),
            channel TEXT NOT NULL, corporate_account TEXT,
            booked_at TIMESTAMP NOT NULL, check_in DATE NOT NULL, check_out DATE NOT NULL,
            nights INTEGER NOT NULL, adults INTEGER NOT NULL, nightly_rate REAL NOT NULL,
            room_revenue REAL NOT NULL, status TEXT NOT NULL, cancelled_at TIMESTAMP,
            updated_at TIMESTAMP NOT NULL);
        CREATE TABLE daily_inventory (
            hotel_id INTEGER NOT NULL REFERENCES hotels(hotel_id), stay_date DATE NOT NULL,
            rooms_available INTEGER NOT NULL, rooms_out_of_order INTEGER NOT NULL,
            PRIMARY KEY (hotel_id, stay_date));
        CREATE TABLE reviews (
            review_id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(booking_id),
            hotel_id INTEGER NOT NULL REFERENCES hotels(hotel_id), source TEXT NOT NULL,
            submitted_at TIMESTAMP NOT NULL, overall_rating INTEGER NOT NULL,
            cleanliness_rating INTEGER NOT NULL, would_recommend INTEGER NOT NULL);
        CREATE TABLE tickets (
            ticket_id INTEGER PRIMARY KEY, ticket_code TEXT NOT NULL UNIQUE,
            hotel_id INTEGER NOT NULL REFERENCES hotels(hotel_id),
            room_id INTEGER REFERENCES rooms(room_id), department TEXT NOT NULL,
            issue_type TEXT NOT NULL, priority TEXT NOT NULL, opened_at TIMESTAMP NOT NULL,
            resolved_at TIMESTAMP);
        """
    )
    cur.executemany(
        "INSERT INTO hotels VALUES (?,?,?,?,?,?,?,?)", [h[:8] for h in HOTELS]
    )
    cur.executemany(
        "INSERT INTO room_types VALUES (?,?,?,?)", [rt[:4] for rt in ROOM_TYPES]
    )

    # rooms
    rooms_by = {}  # (hotel, type) -> [room_id]
    room_rows = []
    rid = 0
    for h in HOTELS:
        hid, n = h[0], h[7]
        counts = [max(1, int(round(n * rt[4]))) for rt in ROOM_TYPES]
        while sum(counts) > n:
            counts[0] -= 1
        while sum(counts) < n:
            counts[0] += 1
        per_floor = 10 if n <= 30 else 12
        idx = 0
        for rt, c in zip(ROOM_TYPES, counts):
            for _ in range(c):
                floor = idx // per_floor + 1
                number = f"{floor}{idx % per_floor + 1:02d}"
                rid += 1
                room_rows.append((rid, hid, number, rt[0], floor))
                rooms_by.setdefault((hid, rt[0]), []).append(rid)
                idx += 1
    cur.executemany("INSERT INTO rooms VALUES (?,?,?,?,?)", room_rows)
    type_weights = {}
    for h in HOTELS:
        type_weights[h[0]] = [(rt[0], len(rooms_by[(h[0], rt[0])]) / h[7]) for rt in ROOM_TYPES]

    # inventory
    inv_rows = []
    day = START
    while day <= END:
        for h in HOTELS:
            ooo = _pick(rng, [(0, 0.70), (1, 0.22), (2, 0.08)])
            inv_rows.append((h[0], day.isoformat(), h[7] - ooo, ooo))
        day += timedelta(days=1)
    cur.executemany("INSERT INTO daily_inventory VALUES (?,?,?,?)", inv_rows)

    # guests and bookings
    guests = []  # rows
    guest_pool = []

    def new_guest(when: date) -> int:
        gid = len(guests) + 1
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        tier = _pick(rng, TIERS)
        joined = when - timedelta(days=rng.randint(0, 900))
        guests.append((gid, name, tier, _pick(rng, COUNTRIES), joined.isoformat()))
        guest_pool.append(gid)
        return gid

    bookings = []
    bid = 0
    los_weights = [(1, 0.24), (2, 0.30), (3, 0.20), (4, 0.11), (5, 0.07), (6, 0.04), (7, 0.04)]
    mean_los = sum(a * b for a, b in los_weights)
    day = START
    while day <= END:
        weekend = day.weekday() in (4, 5)
        for h in HOTELS:
            hid, n, mult, occ = h[0], h[7], h[8], h[9]
            season = MONTH_SEASON[day.month]
            lam = n * occ * (0.85 + 0.15 * season) * (1.08 if weekend else 0.97) / mean_los
            lam /= 0.84  # cancellations and no-shows
            if day.year == 2025:
                lam *= 1.04
            for _ in range(_poisson(rng, lam)):
                bid += 1
                channel = rng.choices(CHANNELS, weights=CHANNEL_WEIGHTS[hid])[0]
                rt_id = _pick(rng, type_weights[hid])
                rt = ROOM_TYPES[rt_id - 1]
                nights = _pick(rng, los_weights)
                if channel == "corporate" and nights > 4:
                    nights = rng.randint(1, 4)
                rate = rt[2] * mult * season * CHANNEL_RATE[channel]
                rate *= 1.06 if weekend else 1.0
                rate *= 1.055 if day.year == 2025 else 1.0
                rate *= rng.uniform(0.92, 1.08)
                rate = round(rate, 2)
                lead = min(240, int(rng.expovariate(1 / CHANNEL_LEAD[channel])))
                booked = datetime(day.year, day.month, day.day, 12) - timedelta(
                    days=lead, hours=rng.randint(0, 11), minutes=rng.randint(0, 59),
                    seconds=rng.randint(0, 59))
                r = rng.random()
                if r < CHANNEL_CANCEL[channel]:
                    status = "cancelled"
                elif r < CHANNEL_CANCEL[channel] + 0.025:
                    status = "no_show"
                else:
                    status = "checked_out"
                if len(guest_pool) > 400 and rng.random() < 0.45:
                    guest = rng.choice(guest_pool[:400]) if rng.random() < 0.2 else rng.choice(guest_pool)
                else:
                    guest = new_guest(day)
                cancelled_at = None
                room_id = None
                revenue = 0.0
                check_out = day + timedelta(days=nights)
                if status == "cancelled":
                    span = (datetime(day.year, day.month, day.day, 12) - booked).total_seconds()
                    cdt = booked + timedelta(seconds=int(span * rng.uniform(0.05, 0.98)))
                    cancelled_at = _ts(cdt)
                    updated = cdt
                elif status == "no_show":
                    updated = datetime(day.year, day.month, day.day, 23, 59, 0)
                else:
                    room_id = rng.choice(rooms_by[(hid, rt_id)])
                    revenue = round(rate * nights, 2)
                    updated = datetime(check_out.year, check_out.month, check_out.day,
                                       rng.randint(7, 11), rng.randint(0, 59), 0)
                corp = None
                if channel == "corporate":
                    corp = _pick(rng, COMPANIES)
                adults = _pick(rng, [(1, 0.42), (2, 0.48), (3, 0.06), (4, 0.04)])
                adults = min(adults, rt[3])
                bookings.append((
                    bid, f"BK-{10000 + bid}", hid, rt_id, room_id, guest, channel, corp,
                    _ts(booked), day.isoformat(), check_out.isoformat(), nights, adults, rate,
                    revenue, status, cancelled_at, _ts(updated)))
        day += timedelta(days=1)
    cur.executemany("INSERT INTO guests VALUES (?,?,?,?,?)", guests)
    cur.executemany(
        "INSERT INTO bookings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", bookings)

    # reviews
    rating_mean = {h[0]: h[10] for h in HOTELS}
    review_rows = []
    rvid = 0
    for b in bookings:
        if b[15] != "checked_out" or rng.random() >= 0.22:
            continue
        rvid += 1
        co = date.fromisoformat(b[10])
        sub = datetime(co.year, co.month, co.day) + timedelta(
            days=rng.randint(0, 10), hours=rng.randint(8, 22), minutes=rng.randint(0, 59))
        mu = rating_mean[b[2]] + (0.15 if b[3] >= 4 else 0.0)
        rating = int(min(5, max(1, round(rng.gauss(mu, 0.85)))))
        clean = int(min(5, max(1, round(rng.gauss(mu - 0.1, 0.9)))))
        rec = 1 if (rating >= 4 and rng.random() < 0.93) or (rating == 3 and rng.random() < 0.3) else 0
        source = _pick(rng, [("Google", 0.40), ("TripAdvisor", 0.25), ("Post-stay survey", 0.35)])
        review_rows.append((rvid, b[0], b[2], source, _ts(sub), rating, clean, rec))
    cur.executemany("INSERT INTO reviews VALUES (?,?,?,?,?,?,?,?)", review_rows)

    # tickets
    ticket_rows = []
    tid = 0
    hotel_rooms = {}
    for r in room_rows:
        hotel_rooms.setdefault(r[1], []).append(r[0])
    day = START
    last_ts = datetime(END.year, END.month, END.day, 23, 59, 59)
    while day <= END:
        for h in HOTELS:
            hid, n, speed = h[0], h[7], h[11]
            for _ in range(_poisson(rng, n * 0.026)):
                tid += 1
                dept = "housekeeping" if rng.random() < 0.55 else "maintenance"
                issue = rng.choice(HK_ISSUES if dept == "housekeeping" else MT_ISSUES)
                prio = _pick(rng, PRIORITIES)
                opened = datetime(day.year, day.month, day.day) + timedelta(
                    hours=rng.randint(6, 22), minutes=rng.randint(0, 59), seconds=rng.randint(0, 59))
                base = 48.0 if dept == "housekeeping" else 260.0
                sigma = 0.55 if dept == "housekeeping" else 0.85
                mins = math.exp(rng.gauss(math.log(base), sigma)) * speed
                if prio == "urgent":
                    mins *= 0.45
                elif prio == "high":
                    mins *= 0.75
                elif prio == "low":
                    mins *= 1.3
                mins = max(5, int(round(mins)))
                resolved = opened + timedelta(minutes=mins)
                if resolved > last_ts or rng.random() < 0.012:
                    resolved_s = None
                else:
                    resolved_s = _ts(resolved)
                room = rng.choice(hotel_rooms[hid]) if rng.random() < 0.9 else None
                ticket_rows.append((tid, f"T-{day.year}-{tid:05d}", hid, room, dept, issue, prio,
                                    _ts(opened), resolved_s))
        day += timedelta(days=1)
    cur.executemany("INSERT INTO tickets VALUES (?,?,?,?,?,?,?,?,?)", ticket_rows)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "/tmp/hotels-scratch/warehouse.db")
