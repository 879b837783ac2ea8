"""Online-learning platform warehouse (deterministic, sqlite3 + standard library only)."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

SEED = 2817

INSTRUCTORS = [
    (1, "Dr. Amara Okafor", "Nigeria", "2022-09-12"),
    (2, "Lucas Ferreira", "Brazil", "2022-11-03"),
    (3, "Mei Tanaka", "Japan", "2023-01-20"),
    (4, "Priya Raman", "India", "2022-10-01"),
    (5, "Tom Gallagher", "Ireland", "2023-04-17"),
    (6, "Sofia Lindqvist", "Sweden", "2023-06-05"),
    (7, "Jamal Reed", "United States", "2022-08-22"),
]

# course_id, code, title, category, instructor, level, launched, price, lessons, popularity, completion propensity
COURSES = [
    (1, "CS-101", "Python 101", "Programming", 7, "beginner", "2023-01-09", 49.0, 18, 10.0, 0.52),
    (2, "ST-002", "Statistics 2", "Data", 1, "intermediate", "2023-01-16", 59.0, 14, 6.0, 0.41),
    (3, "DE-003", "Module 3: Data Ethics", "Data", 1, "beginner", "2023-03-06", 29.0, 8, 3.5, 0.68),
    (4, "WD-201", "Web Dev 201", "Programming", 2, "intermediate", "2023-02-13", 79.0, 22, 7.0, 0.34),
    (5, "SQ-150", "SQL for Analysts 150", "Data", 4, "beginner", "2023-01-23", 39.0, 12, 8.0, 0.57),
    (6, "ML-300", "Machine Learning 300", "Data", 4, "advanced", "2023-05-08", 129.0, 26, 5.0, 0.27),
    (7, "XL-365", "Excel 365 Essentials", "Business", 5, "beginner", "2023-04-24", 35.0, 12, 6.5, 0.61),
    (8, "UX-110", "UX Design 110", "Design", 6, "beginner", "2023-07-10", 59.0, 14, 4.0, 0.49),
    (9, "JP-N5", "Japanese N5", "Languages", 3, "beginner", "2023-02-06", 45.0, 15, 4.5, 0.38),
    (10, "AW-101", "AWS Cloud 101", "Cloud", 7, "beginner", "2023-09-04", 69.0, 16, 5.5, 0.45),
    (11, "CA-001", "Calculus 1", "Math", 2, "intermediate", "2023-08-21", 55.0, 20, 3.0, 0.31),
    (12, "PM-004", "Agile PM in 4 Weeks", "Business", 5, "beginner", "2024-01-15", 49.0, 10, 3.5, 0.66),
    (13, "GD-220", "Godot 4 Game Dev 220", "Programming", 3, "intermediate", "2024-03-04", 89.0, 21, 2.5, 0.29),
    (14, "DV-050", "Data Viz 50 Charts", "Design", 6, "beginner", "2024-06-03", 39.0, 15, 3.0, 0.55),
]

FIRST = ["Ana", "Ben", "Chloe", "Diego", "Ella", "Farid", "Grace", "Hugo", "Ines", "Jon", "Kira",
         "Liam", "Maya", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sami", "Tara", "Umar", "Vera",
         "Wen", "Ximena", "Yusuf", "Zoe", "Arjun", "Bea", "Carlos", "Dana"]
LAST = ["Silva", "Khan", "Nguyen", "Smith", "Garcia", "Muller", "Rossi", "Kim", "Novak", "Haddad",
        "Osei", "Lopez", "Chen", "Ivanova", "Brown", "Sato", "Dubois", "Costa", "Ali", "Moreau"]
COUNTRIES = [("United States", 30), ("India", 18), ("United Kingdom", 9), ("Brazil", 8),
             ("Germany", 7), ("Nigeria", 6), ("Japan", 5), ("Canada", 6), ("Spain", 5), ("Mexico", 6)]

START = dt.date(2023, 1, 1)
END = dt.date(2025, 12, 31)
MONTHLY_PRICE = 29.0
ANNUAL_PRICE = 249.0


def _weighted(rng: random.Random, items):
    total = sum(w for _, w in items)
    x = rng.uniform(0, total)
    for item, w in items:
        x -= w
        if x <= 0:
            return item
    return items[-1][0]


def _signup_date(rng: random.Random) -> dt.date:
    # growth: more signups later, a January bump and a September bump
    while True:
        d = START + dt.timedelta(days=rng.randrange((END - START).days + 1))
        t = (d - START).days / (END - START).days
        w = 0.45 + 0.75 * t
        if d.month == 1:
            w *= 1.5
        if d.month == 9:
            w *= 1.25
        if d.month in (7, 8):
            w *= 0.8
        if rng.random() < w / 1.9:
            return d


def build(path: str) -> None:
    rng = random.Random(SEED)
    con = sqlite3.connect(path)
    cur = con.cursor()
    cur.executescript(
        """
        DROP TABLE IF EXISTS instructors; DROP TABLE IF EXISTS courses; DROP TABLE IF EXISTS learners;
        DROP TABLE IF EXISTS enrolments; DROP TABLE IF EXISTS lesson_views; DROP TABLE IF EXISTS quiz_attempts;
        DROP TABLE IF EXISTS course_ratings; DROP TABLE IF EXISTS subscriptions; DROP TABLE IF EXISTS payments;
        DROP TABLE IF EXISTS refunds;
        CREATE TABLE instructors (instructor_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT,
            joined_date DATE);
        CREATE TABLE courses (course_id INTEGER PRIMARY KEY, code TEXT, title TEXT NOT NULL, category TEXT,
            instructor_id INTEGER REFERENCES instructors(instructor_id), level TEXT, launched_date DATE,
            price_usd NUMERIC(8,2), lesson_count INTEGER);
        CREATE TABLE learners (learner_id INTEGER PRIMARY KEY, name TEXT, country TEXT, signup_date DATE,
            signup_channel TEXT);
        CREATE TABLE enrolments (enrolment_id INTEGER PRIMARY KEY, learner_id INTEGER REFERENCES learners(learner_id),
            course_id INTEGER REFERENCES courses(course_id), enrolled_at TIMESTAMP, status TEXT,
            completed_at TIMESTAMP);
        CREATE TABLE lesson_views (view_id INTEGER PRIMARY KEY, enrolment_id INTEGER REFERENCES enrolments(enrolment_id),
            lesson_no INTEGER, viewed_at TIMESTAMP, watch_minutes NUMERIC(6,1));
        CREATE TABLE quiz_attempts (attempt_id INTEGER PRIMARY KEY, enrolment_id INTEGER REFERENCES enrolments(enrolment_id),
            module_no INTEGER, attempted_at TIMESTAMP, score INTEGER);
        CREATE TABLE course_ratings (rating_id INTEGER PRIMARY KEY, enrolment_id INTEGER REFERENCES enrolments(enrolment_id),
            rated_at TIMESTAMP, stars INTEGER);
        CREATE TABLE subscriptions (subscription_id INTEGER PRIMARY KEY, learner_id INTEGER REFERENCES learners(learner_id),
            plan TEXT, started_at DATE, ended_at DATE);
        CREATE TABLE payments (payment_id INTEGER PRIMARY KEY, learner_id INTEGER REFERENCES learners(learner_id),
            paid_at TIMESTAMP, kind TEXT, course_id INTEGER, subscription_id INTEGER, amount_usd NUMERIC(10,2));
        CREATE TABLE refunds (refund_id INTEGER PRIMARY KEY, payment_id INTEGER REFERENCES payments(payment_id),
            refunded_at TIMESTAMP, amount_usd NUMERIC(10,2), reason TEXT);
        """
    )
    cur.executemany("INSERT INTO instructors VALUES (?,?,?,?)", INSTRUCTORS)
    cur.executemany(
        "INSERT INTO courses VALUES (?,?,?,?,?,?,?,?,?)", [c[:9] for c in COURSES]
    )
    course_by_id = {c[0]: c for c in COURSES}

    learners = []
    for lid in range(1, 2401):
        d = _signup_date(rng)
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        country = _weighted(rng, COUNTRIES)
        channel = _weighted(rng, [("organic", 45), ("paid_search", 25), ("referral", 15), ("partner", 15)])
        learners.append((lid, name, country, d.isoformat(), channel))
    cur.executemany("INSERT INTO learners VALUES (?,?,?,?,?)", learners)

    enrol_id = view_id = attempt_id = rating_id = sub_id = pay_id = refund_id = 0
    enrolments, views, attempts, ratings, subs, pays, refunds = [], [], [], [], [], [], []

    def ts(d: dt.date, rng=rng) -> str:
        return f"{d.isoformat()} {rng.randrange(6, 23):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"

    for lid, _name, _country, sdate, _ch in learners:
        signup = dt.date.fromisoformat(sdate)
        # subscription plan
        plan = _weighted(rng, [("free", 52), ("monthly", 33), ("annual", 15)])
        sub_end = None
        if plan != "free":
            sub_id += 1
            start = signup + dt.timedelta(days=rng.randrange(0, 20))
            if start > END:
                start = END
            lifetime = int(rng.expovariate(1 / (260 if plan == "monthly" else 520)))
            end = start + dt.timedelta(days=max(lifetime, 28))
            ended = end.isoformat() if end <= END else None
            sub_end = end if end <= END else END
            subs.append((sub_id, lid, plan, start.isoformat(), ended))
            # payments
            step = 30 if plan == "monthly" else 365
            price = MONTHLY_PRICE if plan == "monthly" else ANNUAL_PRICE
            if plan == "monthly" and start >= dt.date(2025, 1, 1):
                price = 32.0  # price rise in 2025
            p = start
            while p <= sub_end:
                pay_id += 1
                pays.append((pay_id, lid, ts(p), "subscription", None, sub_id, price))
                if rng.random() < (0.035 if plan == "monthly" else 0.06):
                    refund_id += 1
                    rd = min(p + dt.timedelta(days=rng.randrange(1, 14)), END)
                    reason = _weighted(rng, [("not_as_expected", 40), ("accidental_renewal", 35),
                                             ("technical_issue", 15), ("other", 10)])
                    amt = price if rng.random() < 0.8 else round(price / 2, 2)
                    refunds.append((refund_id, pay_id, ts(rd), amt, reason))
                p += dt.timedelta(days=step)

        n_courses = min(1 + int(rng.expovariate(0.75)), 6)
        chosen = set()
        for _ in range(n_courses):
            avail = [c for c in COURSES if dt.date.fromisoformat(c[6]) <= END and c[0] not in chosen]
            c = _weighted(rng, [(c, c[9]) for c in avail])
            launched = dt.date.fromisoformat(c[6])
            first = max(signup, launched)
            if first > END:
                continue
            span = (END - first).days
            delay = int(rng.expovariate(1 / 90))
            if delay > span:
                continue
            ed = first + dt.timedelta(days=delay)
            chosen.add(c[0])
            enrol_id += 1
            cid = c[0]
            # free learners buy the course
            if plan == "free":
                pay_id += 1
                pays.append((pay_id, lid, ts(ed), "course", cid, None, c[7]))
                if rng.random() < 0.07:
                    refund_id += 1
                    rd = min(ed + dt.timedelta(days=rng.randrange(1, 20)), END)
                    refunds.append((refund_id, pay_id, ts(rd), c[7], _weighted(
                        rng, [("not_as_expected", 55), ("technical_issue", 20), ("other", 25)])))
            prop = c[10] + (0.08 if plan == "annual" else 0) + (0.04 if ed.year == 2025 else 0)
            lessons = c[8]
            completed = rng.random() < prop
            days_total = (END - ed).days
            if completed:
                dur = max(5, int(rng.gauss(lessons * 2.2, lessons * 0.7)))
                if dur > days_total:
                    completed = False
            if completed:
                n_view = lessons
                status = "completed"
                comp = ed + dt.timedelta(days=dur)
                completed_at = ts(comp)
            else:
                n_view = rng.randrange(1, max(2, int(lessons * 0.7)))
                status = "dropped" if days_total > 60 and rng.random() < 0.75 else "active"
                completed_at = None
                dur = max(n_view * 2, 3)
            enrolments.append((enrol_id, lid, cid, ts(ed), status, completed_at))
            base_len = {"Programming": 14, "Data": 12, "Business": 9, "Design": 10, "Languages": 11,
                        "Cloud": 13, "Math": 15}[c[3]]
            for k in range(1, n_view + 1):
                view_id += 1
                vd = ed + dt.timedelta(days=int(dur * (k - 1) / max(n_view, 1)))
                if vd > END:
                    vd = END
                wm = round(max(1.5, rng.gauss(base_len, base_len * 0.3)), 1)
                views.append((view_id, enrol_id, k, ts(vd), wm))
            modules = max(1, lessons // 6)
            done_mod = modules if completed else rng.randrange(0, modules + 1)
            skill = rng.gauss(74 if completed else 63, 12)
            for m in range(1, done_mod + 1):
                attempt_id += 1
                ad = ed + dt.timedelta(days=int(dur * m / (modules + 1)))
                if ad > END:
                    ad = END
                sc = int(round(min(100, max(12, rng.gauss(skill, 9)))))
                attempts.append((attempt_id, enrol_id, m, ts(ad), sc))
            if (completed and rng.random() < 0.55) or (not completed and rng.random() < 0.12):
                rating_id += 1
                rdate = dt.date.fromisoformat(completed_at[:10]) if completed else ed + dt.timedelta(days=7)
                if rdate > END:
                    rdate = END
                mean = {1: 4.5, 2: 4.1, 3: 4.6, 4: 3.9, 5: 4.4, 6: 4.0, 7: 4.3, 8: 4.2, 9: 4.4,
                        10: 4.1, 11: 3.7, 12: 4.5, 13: 3.8, 14: 4.3}[cid] - (0.0 if completed else 0.9)
                st = int(round(min(5, max(1, rng.gauss(mean, 0.8)))))
                ratings.append((rating_id, enrol_id, ts(rdate), st))

    cur.executemany("INSERT INTO subscriptions VALUES (?,?,?,?,?)", subs)
    cur.executemany("INSERT INTO payments VALUES (?,?,?,?,?,?,?)", pays)
    cur.executemany("INSERT INTO refunds VALUES (?,?,?,?,?)", refunds)
    cur.executemany("INSERT INTO enrolments VALUES (?,?,?,?,?,?)", enrolments)
    cur.executemany("INSERT INTO lesson_views VALUES (?,?,?,?,?)", views)
    cur.executemany("INSERT INTO quiz_attempts VALUES (?,?,?,?,?)", attempts)
    cur.executemany("INSERT INTO course_ratings VALUES (?,?,?,?)", ratings)
    con.commit()
    con.close()


if __name__ == "__main__":
    import sys

    build(sys.argv[1] if len(sys.argv) > 1 else "elearning.db")
