"""Warehouse of a B2B industrial-supplies wholesale distributor (fictional).

Six distribution centres ("DC 1", "Reno 2", "Dallas 3", "DC 4", "Edison 5", "Kent 7"), twelve
sales reps, ~230 trade customers, 48 SKUs from six suppliers, two years of sales orders
(2024-2025) with order lines, returns, month-end inventory snapshots per DC and SKU, daily pick
productivity from the WMS and purchase orders with their receipt dates (supplier lead times).

Deterministic: random.Random(3030), fixed dates, sqlite3 only.
"""

import datetime as dt
import random
import sqlite3

SEED = 3030

DCS = [
    # dc_id, code, city, state, region, opened, line_fill_p, pick_rate, freight_base, ship_hours, weight, cover_months
    (1, "DC 1", "Atlanta", "GA", "Southeast", "2009-03-02", 0.962, 38.0, 47.0, 21.0, 1.10, 1.55),
    (2, "Reno 2", "Reno", "NV", "West", "2014-06-16", 0.905, 30.5, 63.0, 33.0, 0.80, 2.30),
    (3, "Dallas 3", "Dallas", "TX", "South Central", "2011-09-12", 0.948, 35.0, 52.0, 24.0, 1.00, 1.75),
    (4, "DC 4", "Columbus", "OH", "Midwest", "2006-01-09", 0.978, 42.5, 43.0, 17.0, 1.35, 1.30),
    (5, "Edison 5", "Edison", "NJ", "Northeast", "2016-04-04", 0.931, 28.0, 58.0, 28.0, 0.95, 2.05),
    (6, "Kent 7", "Kent", "WA", "Northwest", "2019-10-21", 0.942, 33.0, 55.5, 26.0, 0.70, 1.90),
]

REPS = [
    # rep_id, name, region, hire_date, volume weight, discount bias (pct points)
    (101, "Dana Whitfield", "Midwest", "2015-02-09", 1.45, 1.0),
    (102, "Marcus Oyelaran", "Southeast", "2018-07-23", 1.20, 3.5),
    (103, "Priya Raman", "West", "2020-01-13", 0.95, 0.0),
    (104, "Tom Kowalczyk", "Midwest", "2012-05-01", 1.05, 5.5),
    (105, "Elena Duarte", "South Central", "2019-03-18", 1.15, 2.0),
    (106, "Jordan Blake", "Northeast", "2021-09-07", 0.80, 4.5),
    (107, "Keiko Tanaka", "Northwest", "2017-11-27", 0.75, 1.5),
    (108, "Luis Ferreira", "South Central", "2022-04-11", 0.70, 6.5),
    (109, "Grace Mbeki", "Southeast", "2016-08-15", 1.00, 2.5),
    (110, "Ryan O'Connell", "Northeast", "2023-01-09", 0.60, 3.0),
    (111, "Hannah Stroud", "West", "2014-10-06", 0.90, 0.5),
    (112, "Victor Lindqvist", "Midwest", "2020-06-22", 0.85, 4.0),
]

REGION_DC = {
    "Southeast": [1, 1, 1, 3, 4],
    "West": [2, 2, 2, 6, 3],
    "South Central": [3, 3, 3, 1, 2],
    "Midwest": [4, 4, 4, 4, 1, 5],
    "Northeast": [5, 5, 5, 4],
    "Northwest": [6, 6, 6, 2],
}

SUPPLIERS = [
    # name, mean lead days, sd
    ("Kessler Fastener Co.", 13.0, 3.0),
    ("Ohio Valley Wire", 8.5, 2.0),
    ("Pacific Threadworks", 31.0, 6.0),
    ("Great Lakes Safety", 11.5, 2.5),
    ("Delta Pipe & Valve", 20.5, 4.0),
    ("Ironline Tools", 17.0, 3.5),
]

PRODUCTS = [
    # sku, name, category, supplier index, unit_cost, list_price, typical qty
    ("FB-0840", "M8-40 bolt", "Fasteners", 0, 0.11, 0.24, 400),
    ("FB-1060", "M10-60 hex bolt", "Fasteners", 0, 0.19, 0.41, 300),
    ("FB-1280", "M12-80 hex bolt", "Fasteners", 2, 0.34, 0.70, 250),
    ("FN-0006", "M6 nylock nut", "Fasteners", 2, 0.04, 0.10, 600),
    ("FN-0316", "3/8-16 flange nut", "Fasteners", 0, 0.09, 0.21, 500),
    ("FW-0050", "1/2 in flat washer", "Fasteners", 2, 0.03, 0.08, 800),
    ("FS-1034", "#10 x 3/4 sheet metal screw", "Fasteners", 0, 0.05, 0.12, 700),
    ("FS-0825", "#8 x 2-1/2 deck screw", "Fasteners", 2, 0.06, 0.14, 600),
    ("FA-0516", "5/16 anchor bolt", "Fasteners", 0, 0.62, 1.35, 150),
    ("FT-1420", "1/4-20 threaded rod 6 ft", "Fasteners", 2, 2.80, 5.90, 40),
    ("EW-1203", "12/3 SOOW cord 250 ft", "Electrical", 1, 118.00, 214.00, 3),
    ("EW-1402", "14/2 NM-B wire 250 ft", "Electrical", 1, 54.00, 98.00, 6),
    ("EC-6100", "Cat 6 cable 1000 ft", "Electrical", 1, 96.00, 172.00, 4),
    ("EB-0420", "4x4 junction box", "Electrical", 1, 1.85, 3.95, 60),
    ("EB-2020", "20A breaker", "Electrical", 1, 6.40, 12.90, 24),
    ("ET-0750", "3/4 in EMT conduit 10 ft", "Electrical", 1, 5.10, 9.80, 50),
    ("EL-4000", "LED high bay 150W", "Electrical", 1, 64.00, 119.00, 8),
    ("EG-0100", "GFCI receptacle 20A", "Electrical", 1, 9.20, 17.50, 20),
    ("PV-0750", "3/4 in ball valve", "Plumbing", 4, 7.80, 15.40, 24),
    ("PV-0200", "2 in gate valve", "Plumbing", 4, 38.00, 71.00, 6),
    ("PP-4010", "PVC pipe 4 in x 10 ft", "Plumbing", 4, 14.50, 26.00, 20),
    ("PP-1220", "1/2 in PEX 100 ft", "Plumbing", 4, 24.00, 44.50, 10),
    ("PF-0090", "1 in 90 deg elbow", "Plumbing", 4, 1.10, 2.45, 80),
    ("PF-0450", "3/4 in copper tee", "Plumbing", 4, 2.30, 4.90, 60),
    ("PS-0120", "Sump pump 1/2 HP", "Plumbing", 4, 118.00, 205.00, 2),
    ("PC-0001", "Pipe thread sealant 8 oz", "Plumbing", 4, 3.40, 7.20, 36),
    ("SG-0010", "Nitrile gloves box 100", "Safety", 3, 6.10, 11.90, 40),
    ("SG-0305", "Cut-resistant gloves A3", "Safety", 3, 4.20, 8.60, 48),
    ("SE-2000", "Safety glasses Z87", "Safety", 3, 1.90, 4.40, 72),
    ("SH-1100", "Hard hat type 1", "Safety", 3, 9.80, 19.50, 20),
    ("SV-0003", "Class 3 hi-vis vest", "Safety", 3, 7.40, 15.80, 24),
    ("SR-0095", "N95 respirator box 20", "Safety", 3, 18.50, 34.00, 16),
    ("SF-0500", "Fall harness 5-point", "Safety", 3, 62.00, 118.00, 4),
    ("SP-0032", "Ear plugs jar 200", "Safety", 3, 21.00, 38.50, 10),
    ("TD-1820", "18V drill driver kit", "Tools", 5, 96.00, 169.00, 3),
    ("TG-4500", "4-1/2 in angle grinder", "Tools", 5, 58.00, 104.00, 4),
    ("TB-0450", "4-1/2 in cutoff wheel", "Tools", 5, 1.45, 3.20, 100),
    ("TS-1250", "12 in pipe wrench", "Tools", 5, 19.50, 36.00, 12),
    ("TT-0025", "25 ft tape measure", "Tools", 5, 7.90, 15.50, 24),
    ("TL-2400", "24 in level", "Tools", 5, 14.20, 27.50, 10),
    ("TK-0300", "Utility knife 3-pack", "Tools", 5, 5.60, 11.20, 30),
    ("TX-1000", "Step drill bit set", "Tools", 5, 27.00, 49.00, 8),
    ("MA-0300", "WD-40 12 oz case 12", "Maintenance", 3, 42.00, 71.00, 6),
    ("MA-1100", "Zip ties 11 in bag 100", "Maintenance", 1, 3.10, 6.70, 60),
    ("MT-0048", "Duct tape 48 mm", "Maintenance", 3, 3.90, 7.90, 48),
    ("MB-2000", "Shop towels box 200", "Maintenance", 3, 11.80, 22.00, 20),
    ("ML-0500", "Lithium grease 14 oz", "Maintenance", 3, 4.60, 9.40, 36),
    ("MS-0040", "Absorbent pads bale 100", "Maintenance", 3, 38.00, 66.00, 5),
]

SEGMENTS = [("Contractor", 0.0, 1.0), ("OEM", 6.0, 1.8), ("MRO", 3.0, 1.2), ("Reseller", 9.0, 1.6)]

CUSTOMER_WORDS_A = ["Harbor", "Summit", "Keystone", "Prairie", "Granite", "Cascade", "Liberty",
                    "Ridgeline", "Copperfield", "Bluewater", "Northgate", "Ironwood", "Lakeshore",
                    "Redstone", "Evergreen", "Pioneer", "Tri-County", "Midland", "Silverline",
                    "Oakmont"]
CUSTOMER_WORDS_B = ["Mechanical", "Electric", "Fabrication", "Builders", "Industrial Supply",
                    "Plumbing", "Facilities", "Contracting", "Machine Works", "Maintenance",
                    "Steel", "HVAC"]

REASONS = ["Damaged in transit", "Wrong item picked", "Customer ordered in error", "Defective",
           "Overstock"]


def _month_end(year, month):
    nxt = dt.date(year + (month == 12), month % 12 + 1, 1)
    return nxt - dt.timedelta(days=1)


def build(path: str) -> None:
    rng = random.Random(SEED)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        DROP TABLE IF EXISTS dcs; DROP TABLE IF EXISTS reps; DROP TABLE IF EXISTS customers;
        DROP TABLE IF EXISTS products; DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS order_lines;
        DROP TABLE IF EXISTS returns; DROP TABLE IF EXISTS inventory_snapshots;
        DROP TABLE IF EXISTS pick_productivity; DROP TABLE IF EXISTS purchase_orders;
        CREATE TABLE dcs (dc_id INTEGER PRIMARY KEY, dc_code TEXT NOT NULL, city TEXT, state TEXT,
            region TEXT, opened_date TEXT);
        CREATE TABLE reps (rep_id INTEGER PRIMARY KEY, rep_name TEXT NOT NULL, region TEXT,
            hire_date TEXT);
        CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, customer_code TEXT NOT NULL,
            customer_name TEXT NOT NULL, segment TEXT, region TEXT, rep_id INTEGER,
            home_dc_id INTEGER, credit_limit REAL, created_date TEXT);
        CREATE TABLE products (sku TEXT PRIMARY KEY, product_name TEXT NOT NULL, category TEXT,
            supplier TEXT, unit_cost REAL, list_price REAL);
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY, order_number TEXT NOT NULL,
            customer_id INTEGER, rep_id INTEGER, dc_id INTEGER, channel TEXT, order_ts TEXT,
            order_date TEXT, ship_ts TEXT, freight_cost REAL);
        CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER, line_no INTEGER,
            sku TEXT, qty_ordered INTEGER, qty_shipped INTEGER, unit_price REAL, unit_cost REAL);
        CREATE TABLE returns (return_id INTEGER PRIMARY KEY, rma_number TEXT, line_id INTEGER,
            return_date TEXT, qty_returned INTEGER, reason TEXT, credit_amount REAL);
        CREATE TABLE inventory_snapshots (snapshot_date TEXT, dc_id INTEGER, sku TEXT,
            on_hand_units INTEGER, unit_cost REAL, PRIMARY KEY (snapshot_date, dc_id, sku));
        CREATE TABLE pick_productivity (dc_id INTEGER, work_date TEXT, lines_picked INTEGER,
            labor_hours REAL, pickers INTEGER, PRIMARY KEY (dc_id, work_date));
        CREATE TABLE purchase_orders (po_id INTEGER PRIMARY KEY, po_number TEXT, supplier TEXT,
            dc_id INTEGER, sku TEXT, qty INTEGER, order_date TEXT, received_date TEXT);
        """
    )
    cur.executemany("INSERT INTO dcs VALUES (?,?,?,?,?,?)", [d[:6] for d in DCS])
    cur.executemany("INSERT INTO reps VALUES (?,?,?,?)", [r[:4] for r in REPS])
    cur.executemany(
        "INSERT INTO products VALUES (?,?,?,?,?,?)",
        [(p[0], p[1], p[2], SUPPLIERS[p[3]][0], p[4], p[5]) for p in PRODUCTS],
    )
    dc = {d[0]: d for d in DCS}
    rep_by_region = {}
    for r in REPS:
        rep_by_region.setdefault(r[2], []).append(r)

    # customers
    customers = []
    used = set()
    cid = 0
    for region, reps in rep_by_region.items():
        n = {"Midwest": 52, "Southeast": 42, "South Central": 40, "West": 36, "Northeast": 34,
             "Northwest": 26}[region]
        for _ in range(n):
            cid += 1
            while True:
                name = f"{rng.choice(CUSTOMER_WORDS_A)} {rng.choice(CUSTOMER_WORDS_B)}"
                if name not in used:
                    used.add(name)
                    break
            rep = rng.choices(reps, weights=[r[4] for r in reps])[0]
            seg = rng.choices(SEGMENTS, weights=[5, 2, 3, 1.5])[0]
            home = rng.choice(REGION_DC[region])
            created = dt.date(2016, 1, 1) + dt.timedelta(days=rng.randint(0, 2900))
            size = rng.lognormvariate(0, 0.7) * seg[2]
            customers.append((cid, f"C-{100 + cid}", name, seg[0], region, rep[0], home,
                              round(5000 * round(size * 4 + 1), 2), created.isoformat(), size, seg[1]))
    cur.executemany("INSERT INTO customers VALUES (?,?,?,?,?,?,?,?,?)",
                    [c[:9] for c in customers])
    rep_bias = {r[0]: r[5] for r in REPS}
    rep_w = {r[0]: r[4] for r in REPS}
    cust_weights = [c[9] * rep_w[c[5]] * dc[c[6]][10] for c in customers]

    # product popularity per category
    prod_w = [rng.uniform(0.4, 2.2) for _ in PRODUCTS]

    # orders
    start = dt.date(2024, 1, 1)
    days = (dt.date(2025, 12, 31) - start).days + 1
    orders, lines = [], []
    oid = 0
    lid = 0
    for d in range(days):
        day = start + dt.timedelta(days=d)
        if day.weekday() >= 5:
            continue
        season = 1.0 + 0.18 * (day.month in (4, 5, 6, 9, 10)) - 0.15 * (day.month in (12, 1))
        growth = 1.0 if day.year == 2024 else 1.09
        n_orders = max(0, int(rng.gauss(11.5 * season * growth, 2.2)))
        for _ in range(n_orders):
            oid += 1
            c = rng.choices(customers, weights=cust_weights)[0]
            dc_id = c[6] if rng.random() < 0.88 else rng.randint(1, 6)
            d_info = dc[dc_id]
            hour = rng.randint(7, 17)
            order_ts = dt.datetime(day.year, day.month, day.day, hour, rng.randint(0, 59),
                                   rng.randint(0, 59))
            ship_h = max(2.0, rng.gammavariate(4.0, d_info[9] / 4.0))
            if day.year == 2025:
                ship_h *= 0.93 if dc_id != 2 else 1.06
            ship_ts = order_ts + dt.timedelta(hours=ship_h)
            channel = rng.choices(["EDI", "Web", "Phone", "Email"], weights=[3, 4, 2.5, 1])[0]
            n_lines = min(9, 1 + int(rng.expovariate(1 / 2.2)))
            skus = rng.sample(range(len(PRODUCTS)), n_lines)
            fill_p = d_info[6] + (0.012 if day.year == 2025 and dc_id != 2 else 0.0)
            if day.year == 2025 and dc_id == 2:
                fill_p -= 0.015
            for ln, si in enumerate(skus, 1):
                lid += 1
                p = PRODUCTS[si]
                q = max(1, int(p[6] * rng.lognormvariate(-0.2, 0.6)))
                if q > 20:
                    q = int(round(q / 10.0) * 10)
                if rng.random() < fill_p:
                    shipped = q
                else:
                    shipped = int(q * rng.choice([0.0, 0.0, 0.25, 0.5, 0.5, 0.75]))
                disc = c[10] + rep_bias[c[5]] + rng.uniform(-2.0, 6.0)
                infl = 1.0 if day.year == 2024 else 1.035
                price = round(p[5] * infl * (1 - disc / 100.0), 2 if p[5] > 1 else 3)
                cost = round(p[4] * (1.0 if day.year == 2024 else 1.045), 3)
                lines.append((lid, oid, ln, p[0], q, shipped, price, cost))
            freight = d_info[8] + 6.5 * n_lines + rng.gauss(0, 9)
            if day.year == 2025:
                freight *= 1.06
            orders.append((oid, f"SO-{240000 + oid}", c[0], c[5], dc_id, channel,
                           order_ts.isoformat(sep=" "), day.isoformat(),
                           ship_ts.isoformat(sep=" ", timespec="seconds"),
                           round(max(12.0, freight), 2)))
    cur.executemany("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?)", orders)
    cur.executemany("INSERT INTO order_lines VALUES (?,?,?,?,?,?,?,?)", lines)

    # returns
    order_by_id = {o[0]: o for o in orders}
    rets = []
    rid = 0
    ret_p = {1: 0.030, 2: 0.052, 3: 0.036, 4: 0.024, 5: 0.045, 6: 0.039}
    for ln in lines:
        if ln[5] == 0:
            continue
        o = order_by_id[ln[1]]
        if rng.random() < ret_p[o[4]]:
            rid += 1
            qty = max(1, int(ln[5] * rng.choice([1.0, 1.0, 0.5, 0.25, 0.1])))
            rdate = dt.date.fromisoformat(o[7]) + dt.timedelta(days=rng.randint(4, 40))
            reason = rng.choices(REASONS, weights=[3, 2.2, 2.5, 1.2, 1.1])[0]
            credit = round(qty * ln[6] * rng.choice([1.0, 1.0, 0.85]), 2)
            rets.append((rid, f"RMA-{7000 + rid}", ln[0], rdate.isoformat(), qty, reason, credit))
    cur.executemany("INSERT INTO returns VALUES (?,?,?,?,?,?,?)", rets)

    # monthly demand per dc/sku -> inventory snapshots
    demand = {}
    for ln in lines:
        o = order_by_id[ln[1]]
        key = (o[4], ln[3])
        demand[key] = demand.get(key, 0) + ln[4]
    months_total = 24.0
    snaps = []
    for year in (2024, 2025):
        for month in range(1, 13):
            snap = _month_end(year, month).isoformat()
            for d_info in DCS:
                for p in PRODUCTS:
                    avg = demand.get((d_info[0], p[0]), 0) / months_total
                    cover = d_info[11] * rng.uniform(0.6, 1.45)
                    if year == 2025 and d_info[0] == 2:
                        cover *= 1.2
                    units = int(avg * cover) + rng.randint(0, 3)
                    cost = round(p[4] * (1.0 if year == 2024 else 1.045), 3)
                    snaps.append((snap, d_info[0], p[0], units, cost))
    cur.executemany("INSERT INTO inventory_snapshots VALUES (?,?,?,?,?)", snaps)

    # pick productivity (WMS, all pick activity)
    picks = []
    for d in range(days):
        day = start + dt.timedelta(days=d)
        if day.weekday() >= 5:
            continue
        for d_info in DCS:
            base_lines = 1800 * d_info[10]
            lines_picked = int(rng.gauss(base_lines, base_lines * 0.12))
            rate = d_info[7] * rng.uniform(0.88, 1.12) * (1.03 if day.year == 2025 else 1.0)
            hours = round(lines_picked / rate, 1)
            pickers = max(1, round(hours / 7.6))
            picks.append((d_info[0], day.isoformat(), lines_picked, hours, pickers))
    cur.executemany("INSERT INTO pick_productivity VALUES (?,?,?,?,?)", picks)

    # purchase orders
    pos = []
    po = 0
    for d in range(days):
        day = start + dt.timedelta(days=d)
        if day.weekday() >= 5:
            continue
        for _ in range(rng.randint(1, 3)):
            po += 1
            pi = rng.randrange(len(PRODUCTS))
            p = PRODUCTS[pi]
            sup = SUPPLIERS[p[3]]
            lead = max(2, int(round(rng.gauss(sup[1], sup[2]))))
            if day.year == 2025 and p[3] == 2:
                lead += 4
            if day.year == 2025 and p[3] == 4:
                lead -= 3
            recv = day + dt.timedelta(days=lead)
            pos.append((po, f"PO-{55000 + po}", sup[0], rng.randint(1, 6), p[0],
                        p[6] * rng.randint(20, 60), day.isoformat(), recv.isoformat()))
    cur.executemany("INSERT INTO purchase_orders VALUES (?,?,?,?,?,?,?,?)", pos)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/wholesale.db"
    build(out)
    c = sqlite3.connect(out)
    for t in ["dcs", "reps", "customers", "products", "orders", "order_lines", "returns",
              "inventory_snapshots", "pick_productivity", "purchase_orders"]:
        print(t, c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
