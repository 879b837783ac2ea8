"""Fitness club chain warehouse (deterministic, sqlite3 + stdlib only)."""
import random
import sqlite3
from datetime import date, datetime, timedelta

SEED = 2741

CLUBS = [
    (1, "Studio 54", "New York", "East", "2015-03-01"),
    (2, "Club 9", "Boston", "East", "2017-09-15"),
    (3, "Pier 39", "San Francisco", "West", "2016-05-20"),
    (4, "Route 66", "Flagstaff", "West", "2019-01-10"),
    (5, "Harbor 7", "Seattle", "West", "2018-06-01"),
    (6, "Station 12", "Chicago", "Central", "2014-11-03"),
    (7, "Loft 21", "Denver", "Central", "2020-02-14"),
    (8, "Riverside", "Austin", "South", "2016-08-08"),
    (9, "Summit", "Atlanta", "South", "2021-04-01"),
    (10, "Gate 5", "Miami", "South", "2019-10-12"),
]
CLUB_WEIGHTS = [14, 9, 12, 5, 8, 13, 7, 10, 6, 8]
PLANS = [("Flex 12", 49.0, 12), ("Core 3", 39.0, 3), ("Premium 24", 89.0, 24),
         ("Student 6", 25.0, 6), ("Off-Peak", 29.0, 1)]
PLAN_WEIGHTS = [35, 22, 15, 14, 14]
FIRST = ["Ava", "Liam", "Noah", "Emma", "Olivia", "Mason", "Sophia", "Lucas", "Mia", "Ethan",
         "Isabella", "Logan", "Amelia", "James", "Harper", "Elijah", "Evelyn", "Aiden", "Abigail",
         "Carter", "Ella", "Jackson", "Scarlett", "Leo", "Grace", "Mateo", "Chloe", "Owen", "Zoe", "Kai"]
LAST = ["Smith", "Johnson", "Garcia", "Martinez", "Lee", "Brown", "Davis", "Lopez", "Wilson",
        "Anderson", "Thomas", "Moore", "Taylor", "Clark", "Lewis", "Walker", "Hall", "Young",
        "King", "Wright", "Scott", "Green", "Baker", "Adams", "Nelson", "Hill", "Rivera", "Campbell"]
CLASS_TYPES = [("Spin 45", 45, 20), ("HIIT 30", 30, 16), ("Yoga Flow", 60, 24),
               ("Pilates", 50, 14), ("Boxfit", 55, 18)]
INSTRUCTORS = ["Dana Ortiz", "Ravi Shah", "Keiko Mori", "Sam Fischer", "Lena Novak", "Marcus Bell"]
TRAINERS = [("Jordan Blake", 80.0), ("Priya Nair", 95.0), ("Tom Reyes", 70.0),
            ("Alicia Grant", 85.0), ("Chen Wu", 75.0), ("Mo Haddad", 90.0)]
ADDONS = [("Towel service", 8.0), ("Locker rental", 15.0), ("Smoothie bar", 7.5),
          ("InBody scan", 30.0), ("Guest pass", 20.0)]

START = date(2024, 1, 1)
END = date(2025, 12, 31)


def _d(x):
    return x.isoformat()


def build(path: str) -> None:
    rng = random.Random(SEED)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript("""
    DROP TABLE IF EXISTS clubs; DROP TABLE IF EXISTS members; DROP TABLE IF EXISTS visits;
    DROP TABLE IF EXISTS classes; DROP TABLE IF EXISTS bookings; DROP TABLE IF EXISTS pt_sessions;
    DROP TABLE IF EXISTS freezes; DROP TABLE IF EXISTS payments;
    CREATE TABLE clubs (club_id INTEGER PRIMARY KEY, club_name TEXT NOT NULL, city TEXT,
        region TEXT, opened_on DATE);
    CREATE TABLE members (member_id TEXT PRIMARY KEY, first_name TEXT, last_name TEXT,
        home_club_id INTEGER REFERENCES clubs(club_id), plan_name TEXT, monthly_fee NUMERIC(8,2),
        joined_on DATE, status TEXT, cancelled_on DATE, cancel_notice_days INTEGER);
    CREATE TABLE visits (visit_id INTEGER PRIMARY KEY, member_id TEXT REFERENCES members(member_id),
        club_id INTEGER REFERENCES clubs(club_id), checked_in_at TIMESTAMP, checked_out_at TIMESTAMP,
        duration_minutes INTEGER);
    CREATE TABLE classes (class_id INTEGER PRIMARY KEY, club_id INTEGER REFERENCES clubs(club_id),
        class_type TEXT, instructor TEXT, starts_at TIMESTAMP, duration_minutes INTEGER, capacity INTEGER);
    CREATE TABLE bookings (booking_id INTEGER PRIMARY KEY, class_id INTEGER REFERENCES classes(class_id),
        member_id TEXT REFERENCES members(member_id), booked_at TIMESTAMP, status TEXT);
    CREATE TABLE pt_sessions (session_id INTEGER PRIMARY KEY, member_id TEXT REFERENCES members(member_id),
        club_id INTEGER REFERENCES clubs(club_id), trainer TEXT, session_date DATE, hours NUMERIC(4,2),
        price NUMERIC(8,2));
    CREATE TABLE freezes (freeze_id INTEGER PRIMARY KEY, member_id TEXT REFERENCES members(member_id),
        start_date DATE, days INTEGER, reason TEXT);
    CREATE TABLE payments (payment_id INTEGER PRIMARY KEY, member_id TEXT REFERENCES members(member_id),
        club_id INTEGER REFERENCES clubs(club_id), paid_on DATE, kind TEXT, item TEXT, amount NUMERIC(8,2));
    """)
    cur.executemany("INSERT INTO clubs VALUES (?,?,?,?,?)", CLUBS)

    members = []
    base = date(2022, 6, 1)
    span = (date(2025, 10, 31) - base).days
    for i in range(900):
        mid = f"M-{2001 + i}"
        club = rng.choices([c[0] for c in CLUBS], weights=CLUB_WEIGHTS)[0]
        plan, fee, _term = rng.choices(PLANS, weights=PLAN_WEIGHTS)[0]
        joined = base + timedelta(days=rng.randrange(span))
        cancelled = None
        notice = None
        status = "active"
        if rng.random() < 0.33:
            c = joined + timedelta(days=rng.randint(45, 720))
            if c <= END:
                cancelled = c
                status = "cancelled"
                notice = rng.choice([14, 30, 30, 30, 60])
        if status == "active" and rng.random() < 0.05:
            status = "frozen"
        members.append((mid, rng.choice(FIRST), rng.choice(LAST), club, plan, fee,
                        _d(joined), status, _d(cancelled) if cancelled else None, notice))
    cur.executemany("INSERT INTO members VALUES (?,?,?,?,?,?,?,?,?,?)", members)

    # visits
    vid = 0
    visits = []
    for m in members:
        mid, club = m[0], m[3]
        j = date.fromisoformat(m[6])
        c = date.fromisoformat(m[8]) if m[8] else END
        s = max(j, START)
        e = min(c, END)
        if s > e:
            continue
        rate = rng.uniform(0.05, 0.33)  # visits per day-ish / 7
        d = s
        while d <= e:
            d = d + timedelta(days=max(1, int(rng.expovariate(rate / 3.5) + 0.5)))
            if d > e:
                break
            vid += 1
            vc = club if rng.random() < 0.86 else rng.choice(CLUBS)[0]
            hour = rng.choices([6, 7, 8, 12, 17, 18, 19, 20], weights=[8, 10, 6, 7, 12, 14, 10, 5])[0]
            t_in = datetime(d.year, d.month, d.day, hour, rng.randrange(60), rng.randrange(60))
            dur = max(15, int(rng.gauss(68, 22)))
            t_out = t_in + timedelta(minutes=dur)
            visits.append((vid, mid, vc, t_in.isoformat(sep=" "), t_out.isoformat(sep=" "), dur))
    cur.executemany("INSERT INTO visits VALUES (?,?,?,?,?,?)", visits)

    by_club = {}
    for m in members:
        by_club.setdefault(m[3], []).append(m)
    # classes and bookings
    cid = 0
    bid = 0
    classes = []
    bookings = []
    d = START
    while d <= END:
        for club in CLUBS:
            n_classes = 1 if CLUB_WEIGHTS[club[0] - 1] < 10 else 2
            for _ in range(n_classes):
                ctype, dur, cap = rng.choice(CLASS_TYPES)
                cap = cap + rng.choice([-2, 0, 0, 2, 4])
                cid += 1
                day = d + timedelta(days=rng.randrange(7))
                if day > END:
                    day = END
                hour = rng.choice([6, 7, 12, 18, 19])
                st = datetime(day.year, day.month, day.day, hour, rng.choice([0, 15, 30]))
                classes.append((cid, club[0], ctype, rng.choice(INSTRUCTORS), st.isoformat(sep=" "), dur, cap))
                eligible = [m for m in by_club[club[0]]
                            if m[6] <= _d(day) and (m[8] is None or m[8] > _d(day))]
                fill = rng.uniform(0.3, 0.85)
                nb = min(len(eligible), int(round(cap * fill)))
                for m in rng.sample(eligible, nb):
                    bid += 1
                    r = rng.random()
                    status = "cancelled" if r < 0.09 else ("no_show" if r < 0.09 + rng.uniform(0.06, 0.2) else "attended")
                    bt = st - timedelta(hours=rng.randint(2, 96))
                    bookings.append((bid, cid, m[0], bt.isoformat(sep=" "), status))
        d += timedelta(days=7)
    cur.executemany("INSERT INTO classes VALUES (?,?,?,?,?,?,?)", classes)
    cur.executemany("INSERT INTO bookings VALUES (?,?,?,?,?)", bookings)

    # personal training
    pts = []
    pt_members = rng.sample(members, 260)
    sid = 0
    for m in pt_members:
        j = max(date.fromisoformat(m[6]), START)
        e = min(date.fromisoformat(m[8]) if m[8] else END, END)
        if j > e:
            continue
        trainer, rate = rng.choice(TRAINERS)
        for _ in range(rng.randint(1, 14)):
            sid += 1
            sd = j + timedelta(days=rng.randrange((e - j).days + 1))
            hrs = rng.choices([0.5, 1.0, 1.5, 2.0], weights=[15, 55, 20, 10])[0]
            pts.append((sid, m[0], m[3], trainer, _d(sd), hrs, round(hrs * rate, 2)))
    cur.executemany("INSERT INTO pt_sessions VALUES (?,?,?,?,?,?,?)", pts)

    # freezes
    fr = []
    fid = 0
    for m in rng.sample(members, 240):
        j = max(date.fromisoformat(m[6]), START)
        e = min(date.fromisoformat(m[8]) if m[8] else END, END)
        if j >= e:
            continue
        fid += 1
        sd = j + timedelta(days=rng.randrange((e - j).days))
        fr.append((fid, m[0], _d(sd), rng.choice([7, 14, 14, 21, 28, 30, 30, 45, 60, 90]),
                   rng.choice(["travel", "injury", "medical", "financial", "other"])))
    cur.executemany("INSERT INTO freezes VALUES (?,?,?,?,?)", fr)

    # payments: monthly dues on the 1st + add-ons
    pays = []
    pid = 0
    for m in members:
        j = date.fromisoformat(m[6])
        e = date.fromisoformat(m[8]) if m[8] else END
        y, mo = START.year, START.month
        while date(y, mo, 1) <= min(e, END):
            first = date(y, mo, 1)
            if first >= j.replace(day=1):
                pid += 1
                pays.append((pid, m[0], m[3], _d(first), "dues", m[4], m[5]))
            mo += 1
            if mo == 13:
                y, mo = y + 1, 1
        s = max(j, START)
        if s < min(e, END) and rng.random() < 0.6:
            for _ in range(rng.randint(1, 6)):
                item, price = rng.choice(ADDONS)
                pid += 1
                pd_ = s + timedelta(days=rng.randrange((min(e, END) - s).days + 1))
                pays.append((pid, m[0], m[3], _d(pd_), "addon", item, price))
    cur.executemany("INSERT INTO payments VALUES (?,?,?,?,?,?,?)", pays)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys
    build(sys.argv[1] if len(sys.argv) > 1 else "fitness.db")
