"""Deterministic SQLite warehouse of a restaurant group (8 venues, 6 cities).

Period: 2024-06-01 .. 2026-02-28. Tables: venues, menu_items, reservations, orders,
order_lines, delivery_orders, staff_shifts, reviews. Only sqlite3 and the standard library.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import sqlite3

SEED = 20240601
START = dt.date(2024, 6, 1)
END = dt.date(2026, 2, 28)

# venue_id, name, city, opened_on, seats, tables, base daily reservations,
# no-show prob, mean turn minutes, mean delivery minutes (None: no delivery), rating mean
VENUES = [
    (1, "Pier 39 Grill", "San Francisco", "2016-04-12", 140, 30, 3.2, 0.070, 96, 38, 4.4),
    (2, "Route 9 Diner", "Boston", "2012-09-01", 90, 22, 2.6, 0.045, 47, 29, 4.1),
    (3, "Harbor & Vine", "Seattle", "2019-05-20", 110, 26, 2.4, 0.095, 88, 41, 4.3),
    (4, "The Copper Pot", "Chicago", "2014-11-03", 120, 28, 2.8, 0.060, 81, 35, 3.9),
    (5, "Station 12 Taproom", "Denver", "2020-02-14", 100, 24, 2.2, 0.120, 64, 33, 3.7),
    (6, "Maple Street Kitchen", "Austin", "2018-08-08", 85, 20, 1.9, 0.080, 72, 31, 4.5),
    (7, "Olive & Ash", "Chicago", "2021-06-30", 95, 22, 2.0, 0.105, 90, None, 4.2),
    (8, "Studio 7 Sushi", "Boston", "2025-03-15", 70, 18, 1.8, 0.065, 78, 44, 4.6),
]

# name, category, price, menu
MENU = [
    ("Burger 2.0", "Mains", 18.50, "All Day"),
    ("Pier 39 Cioppino", "Mains", 34.00, "Dinner"),
    ("Route 9 Breakfast Plate", "Mains", 15.75, "Brunch"),
    ("Set Menu 3", "Set Menus", 59.00, "Dinner"),
    ("Set Menu 5", "Set Menus", 79.00, "Dinner"),
    ("Steak Frites", "Mains", 32.00, "Dinner"),
    ("Roast Half Chicken", "Mains", 26.00, "Dinner"),
    ("Mushroom Risotto", "Mains", 23.50, "Dinner"),
    ("Fish & Chips", "Mains", 21.00, "All Day"),
    ("No. 5 Ramen", "Mains", 19.00, "All Day"),
    ("Salmon Poke Bowl", "Mains", 20.50, "Lunch"),
    ("Margherita Pizza", "Mains", 17.00, "All Day"),
    ("7-Spice Wings", "Starters", 13.50, "All Day"),
    ("Burrata & Tomatoes", "Starters", 15.00, "Dinner"),
    ("Clam Chowder", "Starters", 11.00, "All Day"),
    ("Crispy Calamari", "Starters", 14.00, "All Day"),
    ("Double 8 Dumplings", "Starters", 12.00, "All Day"),
    ("Caesar Salad", "Starters", 12.50, "All Day"),
    ("50/50 Fries", "Sides", 7.00, "All Day"),
    ("Truffle Mac", "Sides", 9.50, "All Day"),
    ("Charred Broccolini", "Sides", 8.00, "Dinner"),
    ("Sourdough Basket", "Sides", 6.00, "All Day"),
    ("Basque Cheesecake", "Desserts", 11.00, "All Day"),
    ("Sticky Toffee Pudding", "Desserts", 10.50, "Dinner"),
    ("Soft Serve Sundae", "Desserts", 8.00, "All Day"),
    ("House Lemonade", "Drinks", 5.50, "All Day"),
    ("Cold Brew", "Drinks", 5.00, "Brunch"),
    ("IPA No. 12", "Drinks", 8.00, "All Day"),
    ("Glass of Pinot Noir", "Drinks", 13.00, "Dinner"),
    ("Old Fashioned", "Drinks", 15.00, "Dinner"),
    ("Espresso Martini", "Drinks", 16.00, "Dinner"),
    ("Kids Mini Burger", "Kids", 9.00, "All Day"),
]

PLATFORMS = [("DoorDash", 0.45), ("Uber Eats", 0.35), ("In-house", 0.20)]
ROLES = [("server", 19.0), ("line cook", 22.5), ("host", 17.0), ("bartender", 20.0),
         ("dishwasher", 16.5), ("manager", 31.0)]
FIRST = ["Ava", "Liam", "Maya", "Noah", "Zoe", "Ethan", "Priya", "Lucas", "Chloe", "Mateo",
         "Hana", "Omar", "Grace", "Diego", "Ivy", "Sam", "Nina", "Jonah", "Leah", "Ravi",
         "Elena", "Marcus", "Tess", "Kai"]
LAST = ["Nguyen", "Patel", "Garcia", "Kim", "Okafor", "Rossi", "Murphy", "Chen", "Silva",
        "Novak", "Haddad", "Brooks", "Moreno", "Tanaka", "Walsh", "Ibrahim"]
SOURCES = [("Google", 0.5), ("Yelp", 0.3), ("OpenTable", 0.2)]


def _pick(rng: random.Random, weighted):
    r = rng.random()
    acc = 0.0
    for value, w in weighted:
        acc += w
        if r < acc:
            return value
    return weighted[-1][0]


def _season(day: dt.date) -> float:
    m = day.month
    base = {1: 0.80, 2: 0.85, 3: 0.95, 4: 1.0, 5: 1.05, 6: 1.15, 7: 1.20, 8: 1.15,
            9: 1.0, 10: 1.0, 11: 1.05, 12: 1.25}[m]
    if day.weekday() >= 4:
        base *= 1.35
    # modest growth through the period
    base *= 1.0 + 0.10 * ((day - START).days / 640.0)
    return base


def _poisson(rng: random.Random, lam: float) -> int:
    # Knuth, small lambda
    import math
    limit = math.exp(-lam)
    k, p = 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _ts(d: dt.datetime) -> str:
    return d.strftime("%Y-%m-%d %H:%M:%S")


def build(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)
    rng = random.Random(SEED)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        CREATE TABLE venues (
            venue_id INTEGER PRIMARY KEY, venue_name TEXT NOT NULL, city TEXT NOT NULL,
            opened_on TEXT NOT NULL, seats INTEGER NOT NULL, table_count INTEGER NOT NULL);
        CREATE TABLE menu_items (
            item_id INTEGER PRIMARY KEY, item_name TEXT NOT NULL, category TEXT NOT NULL,
            menu_name TEXT NOT NULL, list_price REAL NOT NULL);
        CREATE TABLE reservations (
            reservation_id INTEGER PRIMARY KEY, venue_id INTEGER NOT NULL, table_id TEXT,
            booked_at TEXT NOT NULL, reserved_for TEXT NOT NULL, party_size INTEGER NOT NULL,
            status TEXT NOT NULL, seated_at TEXT, departed_at TEXT);
        CREATE TABLE orders (
            order_id INTEGER PRIMARY KEY, order_number TEXT NOT NULL, venue_id INTEGER NOT NULL,
            reservation_id INTEGER, channel TEXT NOT NULL, ordered_at TEXT NOT NULL,
            order_total REAL NOT NULL);
        CREATE TABLE order_lines (
            line_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, item_id INTEGER NOT NULL,
            quantity INTEGER NOT NULL, unit_price REAL NOT NULL, line_total REAL NOT NULL);
        CREATE TABLE delivery_orders (
            delivery_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, platform TEXT NOT NULL,
            dispatched_at TEXT NOT NULL, delivered_at TEXT NOT NULL,
            delivery_minutes INTEGER NOT NULL, distance_km REAL NOT NULL);
        CREATE TABLE staff_shifts (
            shift_id INTEGER PRIMARY KEY, venue_id INTEGER NOT NULL, staff_name TEXT NOT NULL,
            role TEXT NOT NULL, shift_date TEXT NOT NULL, start_time TEXT NOT NULL,
            hours_worked REAL NOT NULL, hourly_rate REAL NOT NULL);
        CREATE TABLE reviews (
            review_id INTEGER PRIMARY KEY, venue_id INTEGER NOT NULL, review_date TEXT NOT NULL,
            rating INTEGER NOT NULL, source TEXT NOT NULL, order_id INTEGER);
        """
    )
    for v in VENUES:
        cur.execute("INSERT INTO venues VALUES (?,?,?,?,?,?)", v[:6])
    for i, (name, cat, price, menu) in enumerate(MENU, start=1):
        cur.execute("INSERT INTO menu_items VALUES (?,?,?,?,?)", (i, name, cat, menu, price))

    items_by_cat: dict[str, list[int]] = {}
    for i, (_, cat, _, _) in enumerate(MENU, start=1):
        items_by_cat.setdefault(cat, []).append(i)
    price_of = {i: m[2] for i, m in enumerate(MENU, start=1)}

    # staff rosters
    rosters = {}
    for v in VENUES:
        staff = []
        used = set()
        for role, rate in ROLES:
            n = {"server": 4, "line cook": 3, "host": 1, "bartender": 2, "dishwasher": 1,
                 "manager": 1}[role]
            for _ in range(n):
                while True:
                    nm = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
                    if nm not in used:
                        used.add(nm)
                        break
                staff.append((nm, role, round(rate + rng.uniform(-1.5, 2.5), 2)))
        rosters[v[0]] = staff

    res_id = 500000
    order_id = 10000
    line_id = 0
    delivery_id = 0
    shift_id = 0
    review_id = 0

    def add_order(venue_id, reservation_id, channel, when, n_people):
        nonlocal order_id, line_id
        order_id += 1
        lines = []
        mains = max(1, n_people if channel == "dine_in" else rng.randint(1, 3))
        picks: dict[int, int] = {}
        kinds = [rng.choice(items_by_cat["Mains"]) for _ in range(min(mains, 2))]
        if rng.random() < 0.12 and channel == "dine_in" and when.hour >= 17:
            kinds[0] = rng.choice(items_by_cat["Set Menus"])
        for k in range(mains):
            it = kinds[k % len(kinds)]
            picks[it] = picks.get(it, 0) + 1
        extras = [("Starters", 0.35), ("Sides", 0.2), ("Desserts", 0.2), ("Drinks", 0.6),
                  ("Kids", 0.05)]
        for cat, p in extras:
            if rng.random() < p:
                it = rng.choice(items_by_cat[cat])
                q = 1 if cat != "Drinks" else max(1, min(n_people, rng.randint(1, 4)))
                picks[it] = picks.get(it, 0) + q
        total = 0.0
        uplift = 1.05 if when.date() >= dt.date(2025, 7, 1) else 1.0
        for it, q in picks.items():
            line_id += 1
            up = round(price_of[it] * uplift, 2)
            lt = round(up * q, 2)
            total += lt
            lines.append((line_id, order_id, it, q, up, lt))
        cur.executemany("INSERT INTO order_lines VALUES (?,?,?,?,?,?)", lines)
        cur.execute(
            "INSERT INTO orders VALUES (?,?,?,?,?,?,?)",
            (order_id, f"#{order_id}", venue_id, reservation_id, channel, _ts(when),
             round(total, 2)),
        )
        return order_id

    day = START
    while day <= END:
        s = _season(day)
        for v in VENUES:
            vid, name, city, opened, seats, tables, lam, p_ns, turn, dmin, rmean = v
            if day < dt.date.fromisoformat(opened):
                continue
            # reservations
            n = _poisson(rng, 0.62 * lam * s)
            for _ in range(n):
                res_id += 1
                hour = rng.choice([12, 12, 13, 18, 18, 19, 19, 19, 20, 20, 21])
                if vid == 2:
                    hour = rng.choice([8, 9, 10, 11, 12, 13, 18, 19])
                minute = rng.choice([0, 15, 30, 45])
                when = dt.datetime(day.year, day.month, day.day, hour, minute)
                party = max(1, min(12, int(rng.gauss(3.2 if vid != 2 else 2.6, 1.5) + 0.5)))
                booked = when - dt.timedelta(days=rng.randint(0, 21), hours=rng.randint(1, 12))
                r = rng.random()
                ns = p_ns * (1.0 + 0.08 * (party - 3))
                if r < ns:
                    status = "no_show"
                elif r < ns + 0.06:
                    status = "cancelled"
                else:
                    status = "completed"
                table = f"T-{rng.randint(1, tables)}"
                seated = departed = None
                if status == "completed":
                    sd = when + dt.timedelta(minutes=rng.randint(-5, 15))
                    dur = max(20, int(rng.gauss(turn + 4 * (party - 3), turn * 0.18)))
                    seated, departed = sd, sd + dt.timedelta(minutes=dur)
                cur.execute(
                    "INSERT INTO reservations VALUES (?,?,?,?,?,?,?,?,?)",
                    (res_id, vid, table, _ts(booked), _ts(when), party, status,
                     _ts(seated) if seated else None, _ts(departed) if departed else None),
                )
                if status == "completed":
                    oid = add_order(vid, res_id, "dine_in", seated + dt.timedelta(minutes=8),
                                    party)
                    if rng.random() < 0.22:
                        review_id += 1
                        rating = max(1, min(5, int(round(rng.gauss(rmean, 0.85)))))
                        rd = day + dt.timedelta(days=rng.randint(0, 4))
                        if rd > END:
                            rd = END
                        cur.execute(
                            "INSERT INTO reviews VALUES (?,?,?,?,?,?)",
                            (review_id, vid, rd.isoformat(), rating, _pick(rng, SOURCES), oid),
                        )
            # takeaway
            if rng.random() < 0.25 * s:
                hour = rng.randint(11, 20)
                when = dt.datetime(day.year, day.month, day.day, hour, rng.randint(0, 59))
                add_order(vid, None, "takeaway", when, 1)
            # delivery
            if dmin is not None:
                nd = _poisson(rng, 0.45 * s)
                for _ in range(nd):
                    hour = rng.choice([11, 12, 13, 17, 18, 18, 19, 19, 20, 21])
                    when = dt.datetime(day.year, day.month, day.day, hour, rng.randint(0, 59))
                    oid = add_order(vid, None, "delivery", when, 1)
                    platform = _pick(rng, PLATFORMS)
                    dist = round(rng.uniform(0.8, 9.5), 1)
                    extra = 4 if platform == "In-house" else 0
                    if day.month in (12, 1):
                        extra += 3
                    mins = max(12, int(rng.gauss(dmin + extra + 1.2 * (dist - 4), 7)))
                    disp = when + dt.timedelta(minutes=rng.randint(10, 20))
                    delivery_id += 1
                    cur.execute(
                        "INSERT INTO delivery_orders VALUES (?,?,?,?,?,?,?)",
                        (delivery_id, oid, platform, _ts(disp),
                         _ts(disp + dt.timedelta(minutes=mins)), mins, dist),
                    )
                    if rng.random() < 0.05:
                        review_id += 1
                        rating = max(1, min(5, int(round(rng.gauss(rmean - 0.5, 1.0)))))
                        cur.execute(
                            "INSERT INTO reviews VALUES (?,?,?,?,?,?)",
                            (review_id, vid, day.isoformat(), rating, "Google", oid),
                        )
            # shifts: 2 staff a day from the roster (a sample of the shift log)
            for nm, role, rate in rng.sample(rosters[vid], 2):
                shift_id += 1
                hrs = round(rng.choice([4, 5, 6, 6.5, 7, 7.5, 8, 8, 9, 10]) + rng.choice(
                    [0, 0, 0.25, 0.5]), 2)
                start = rng.choice(["07:00", "10:30", "11:00", "16:00", "16:30", "17:00"])
                cur.execute(
                    "INSERT INTO staff_shifts VALUES (?,?,?,?,?,?,?,?)",
                    (shift_id, vid, nm, role, day.isoformat(), start, hrs, rate),
                )
        day += dt.timedelta(days=1)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "/tmp/restaurants.db")
