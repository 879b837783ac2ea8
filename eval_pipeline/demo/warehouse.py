"""The demo warehouse: a fictional operator's macro-tower modernization programme.

Generated from a fixed seed so every KPI has a reproducible value, and shaped so that the usual
analytics mistakes (another region, another status, counting milestone rows instead of sites) give
numbers far from the truth. ``refresh`` simulates a nightly load that touches a few tables, which is
what the evaluation's change detection and stale-verdict logic react to.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import sqlalchemy as sa

AS_OF = dt.date(2026, 6, 30)
LOADED_AT = dt.datetime(2026, 6, 30, 2, 0, 0)

REGIONS = ("West", "East", "North", "South", "Central")
SITE_STATUSES = ("planned", "in_progress", "completed", "on_hold")
MILESTONE_TYPES = (
    "site_survey",
    "permitting",
    "construction",
    "integration",
    "modernization_complete",
)
MILESTONE_STATUSES = ("completed", "pending", "overdue")
VENDORS = ("Ericsson", "Nokia", "Samsung")
SITE_TYPES = ("macro", "rooftop", "small_cell")

# Per-region character: share of sites, programme start window (months after 2024-01), mean delay
# of a milestone (days), mean HSE score, probability an open finding stays open, E911/NAS readiness
# of completed sites, vendor mix. Distinct enough that a wrong region filter is obvious.
_REGION_PROFILE: dict[str, dict[str, Any]] = {
    "West": dict(share=0.26, start=(0, 34), delay=5, score=84, open=0.25, e911=0.94, nas=0.77,
                 vendors=(0.55, 0.30, 0.15), markets=("Seattle", "Portland", "Sacramento")),
    "East": dict(share=0.22, start=(2, 36), delay=13, score=78, open=0.38, e911=0.82, nas=0.91,
                 vendors=(0.20, 0.60, 0.20), markets=("Boston", "Hartford", "Albany")),
    "North": dict(share=0.13, start=(8, 38), delay=24, score=71, open=0.52, e911=0.67, nas=0.58,
                  vendors=(0.34, 0.33, 0.33), markets=("Duluth", "Fargo", "Bismarck")),
    "South": dict(share=0.21, start=(4, 36), delay=9, score=81, open=0.31, e911=0.88, nas=0.69,
                  vendors=(0.25, 0.25, 0.50), markets=("Austin", "Tampa", "Mobile")),
    "Central": dict(share=0.18, start=(6, 38), delay=17, score=88, open=0.18, e911=0.97, nas=0.84,
                    vendors=(0.40, 0.45, 0.15), markets=("Omaha", "Wichita", "Tulsa")),
}  # fmt: skip

# Planned duration (days) of each milestone after the previous one: (low, high).
_PLANNED_DAYS = ((5, 25), (45, 90), (60, 120), (30, 60), (15, 30))

_FIRST = ("Ava", "Liam", "Maya", "Noah", "Zoe", "Omar", "Ines", "Ravi", "Lena", "Hugo", "Mila",
          "Theo", "Nora", "Ezra", "Iris", "Kai", "Rosa", "Ivan", "Lucy", "Sami")  # fmt: skip
_LAST = ("Okafor", "Lindqvist", "Moreau", "Tanaka", "Alvarez", "Novak", "Brennan", "Haddad",
         "Kowalski", "Duarte", "Petrov", "Nakamura", "Osei", "Varga", "Quinn", "Holm")  # fmt: skip

N_SITES = 2000
MANAGERS_PER_REGION = 12

_meta = sa.MetaData()

TABLES: dict[str, sa.Table] = {
    t.name: t
    for t in (
        sa.Table(
            "regions", _meta,
            sa.Column("region", sa.String(16), primary_key=True),
            sa.Column("market_count", sa.Integer, nullable=False),
            sa.Column("launch_target", sa.Date, nullable=False),
            sa.Column("updated_at", sa.DateTime, nullable=False),
        ),
        sa.Table(
            "site_managers", _meta,
            sa.Column("manager_id", sa.String(8), primary_key=True),
            sa.Column("name", sa.String(64), nullable=False),
            sa.Column("email", sa.String(128), nullable=False),
            sa.Column("phone", sa.String(32), nullable=False),
            sa.Column("region", sa.String(16), nullable=False),
            sa.Column("updated_at", sa.DateTime, nullable=False),
        ),
        sa.Table(
            "sites", _meta,
            sa.Column("site_id", sa.String(8), primary_key=True),
            sa.Column("region", sa.String(16), nullable=False),
            sa.Column("market", sa.String(32), nullable=False),
            sa.Column("site_type", sa.String(16), nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("vendor", sa.String(16), nullable=False),
            sa.Column("manager_id", sa.String(8), nullable=False),
            sa.Column("integrated_on", sa.Date),
            sa.Column("updated_at", sa.DateTime, nullable=False),
        ),
        sa.Table(
            "milestones", _meta,
            sa.Column("milestone_id", sa.Integer, primary_key=True),
            sa.Column("site_id", sa.String(8), nullable=False),
            sa.Column("milestone_type", sa.String(32), nullable=False),
            sa.Column("planned_date", sa.Date, nullable=False),
            sa.Column("actual_date", sa.Date),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("updated_at", sa.DateTime, nullable=False),
        ),
        sa.Table(
            "hse_audits", _meta,
            sa.Column("audit_id", sa.Integer, primary_key=True),
            sa.Column("site_id", sa.String(8), nullable=False),
            sa.Column("audit_date", sa.Date, nullable=False),
            sa.Column("score", sa.Integer, nullable=False),
            sa.Column("compliant", sa.Integer, nullable=False),
            sa.Column("findings", sa.Integer, nullable=False),
            sa.Column("open_findings", sa.Integer, nullable=False),
            sa.Column("updated_at", sa.DateTime, nullable=False),
        ),
        sa.Table(
            "readiness", _meta,
            sa.Column("site_id", sa.String(8), primary_key=True),
            sa.Column("e911_ready", sa.Integer, nullable=False),
            sa.Column("nas_ready", sa.Integer, nullable=False),
            sa.Column("checked_on", sa.Date, nullable=False),
            sa.Column("updated_at", sa.DateTime, nullable=False),
        ),
    )
}  # fmt: skip


def _stamp(rng: np.random.Generator, n: int) -> list[dt.datetime]:
    """Load timestamps spread over the nightly load window, so MAX(updated_at) is a real value."""
    seconds = rng.integers(0, 3 * 3600, size=n)
    return [LOADED_AT + dt.timedelta(seconds=int(s)) for s in seconds]


def _managers(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for r, region in enumerate(REGIONS):
        for i in range(MANAGERS_PER_REGION):
            first = _FIRST[int(rng.integers(len(_FIRST)))]
            last = _LAST[int(rng.integers(len(_LAST)))]
            number = r * MANAGERS_PER_REGION + i + 1
            rows.append(
                {
                    "manager_id": f"M-{number:03d}",
                    "name": f"{first} {last}",
                    "email": f"{first.lower()}.{last.lower()}{number}@example-telco.test",
                    "phone": f"+1-555-{rng.integers(100, 1000):03d}-{rng.integers(0, 10000):04d}",
                    "region": region,
                }
            )
    frame = pd.DataFrame(rows)
    frame["updated_at"] = _stamp(rng, len(frame))
    return frame


def _site_plan(rng: np.random.Generator, profile: dict[str, Any], on_hold: bool) -> list[dict]:
    """Planned and actual dates of one site's milestones; a held site stops after a few."""
    lo, hi = profile["start"]
    start = dt.date(2024, 1, 1) + dt.timedelta(days=int(rng.integers(lo * 30, hi * 30)))
    stop_after = int(rng.integers(0, 4)) if on_hold else len(MILESTONE_TYPES)
    planned = actual = start
    out = []
    for k, mtype in enumerate(MILESTONE_TYPES):
        duration = int(rng.integers(*_PLANNED_DAYS[k]))
        delay = int(rng.exponential(profile["delay"])) - int(rng.integers(0, 6))
        planned = planned + dt.timedelta(days=duration)
        actual = actual + dt.timedelta(days=max(duration + delay, 1))
        done = k < stop_after and actual <= AS_OF
        status = "completed" if done else ("overdue" if planned < AS_OF else "pending")
        out.append(
            {
                "milestone_type": mtype,
                "planned_date": planned,
                "actual_date": actual if done else None,
                "status": status,
            }
        )
        if not done:
            stop_after = k
    return out


def generate(seed: int = 7) -> dict[str, pd.DataFrame]:
    """Every table of the demo warehouse as a DataFrame; the same seed gives the same frames."""
    rng = np.random.default_rng(seed)
    managers = _managers(rng)
    shares = np.array([_REGION_PROFILE[r]["share"] for r in REGIONS])
    site_regions = rng.choice(len(REGIONS), size=N_SITES, p=shares / shares.sum())

    sites, milestones, audits, readiness = [], [], [], []
    for idx, r in enumerate(site_regions):
        region = REGIONS[int(r)]
        profile = _REGION_PROFILE[region]
        site_id = f"S-{idx + 1:05d}"
        on_hold = bool(rng.random() < 0.07)
        plan = _site_plan(rng, profile, on_hold)
        done = sum(m["actual_date"] is not None for m in plan)
        if on_hold:
            status = "on_hold"
        elif done == len(MILESTONE_TYPES):
            status = "completed"
        elif done == 0:
            status = "planned"
        else:
            status = "in_progress"
        sites.append(
            {
                "site_id": site_id,
                "region": region,
                "market": profile["markets"][int(rng.integers(3))],
                "site_type": SITE_TYPES[int(rng.choice(3, p=(0.7, 0.2, 0.1)))],
                "status": status,
                "vendor": VENDORS[int(rng.choice(3, p=profile["vendors"]))],
                "manager_id": f"M-{int(r) * MANAGERS_PER_REGION + int(rng.integers(12)) + 1:03d}",
                "integrated_on": plan[3]["actual_date"],
            }
        )
        for m in plan:
            milestones.append({"site_id": site_id, **m})

        first_day = plan[0]["planned_date"]
        span = (AS_OF - first_day).days
        for _ in range(int(rng.integers(1, 7)) if span > 30 else int(span > 0)):
            score = int(np.clip(rng.normal(profile["score"], 11), 15, 100))
            findings = int(rng.poisson(max(100 - score, 2) / 9))
            open_findings = int(rng.binomial(findings, profile["open"]))
            audits.append(
                {
                    "site_id": site_id,
                    "audit_date": first_day + dt.timedelta(days=int(rng.integers(0, span))),
                    "score": score,
                    "compliant": int(score >= 70 and open_findings <= 1),
                    "findings": findings,
                    "open_findings": open_findings,
                }
            )

        p_ready = 1.0 if status == "completed" else 0.3
        readiness.append(
            {
                "site_id": site_id,
                "e911_ready": int(rng.random() < profile["e911"] * p_ready),
                "nas_ready": int(rng.random() < profile["nas"] * p_ready),
                "checked_on": AS_OF - dt.timedelta(days=int(rng.integers(0, 60))),
            }
        )

    frames = {
        "regions": pd.DataFrame(
            {
                "region": list(REGIONS),
                "market_count": [len(_REGION_PROFILE[r]["markets"]) for r in REGIONS],
                "launch_target": [dt.date(2026, 8 + i, 1) for i in range(len(REGIONS))],
            }
        ),
        "site_managers": managers,
        "sites": pd.DataFrame(sites),
        "milestones": pd.DataFrame(milestones),
        "hse_audits": pd.DataFrame(audits),
        "readiness": pd.DataFrame(readiness),
    }
    frames["milestones"].insert(0, "milestone_id", range(1, len(milestones) + 1))
    frames["hse_audits"].insert(0, "audit_id", range(1, len(audits) + 1))
    for name, frame in frames.items():
        if "updated_at" not in frame:
            frame["updated_at"] = _stamp(rng, len(frame))
        frames[name] = frame[[c.name for c in TABLES[name].columns]]
    return frames


def _native(value: Any) -> Any:
    """Plain Python values for the DB driver (psycopg2 does not adapt numpy or pandas scalars)."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and np.isnan(value):
        return None
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    columns = list(frame.columns)
    return [
        {c: _native(v) for c, v in zip(columns, row, strict=True)}
        for row in frame.itertuples(index=False, name=None)
    ]


def load(url: str, seed: int = 7, *, replace: bool = True) -> None:
    """Create the tables and write the generated rows (SQLite or PostgreSQL, same code)."""
    frames = generate(seed)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            if replace:
                _meta.drop_all(conn)
            _meta.create_all(conn)
            for name, table in TABLES.items():
                conn.execute(table.insert(), _records(frames[name]))
    finally:
        engine.dispose()


def _changes(table: sa.Table, rows: pd.DataFrame, rng: np.random.Generator) -> list[dict[str, Any]]:
    """New values for a sample of rows, the kind of corrections a nightly load brings."""
    name = table.name
    out: list[dict[str, Any]] = []
    for row in rows.to_dict("records"):
        change: dict[str, Any]
        if name == "hse_audits":
            score = int(np.clip(row["score"] + rng.integers(-25, 26), 15, 100))
            change = {"score": score, "compliant": int(score >= 70 and row["open_findings"] <= 1)}
        elif name == "readiness":
            change = {"e911_ready": 1 - row["e911_ready"], "nas_ready": 1 - row["nas_ready"]}
        elif name == "sites":
            change = {"status": SITE_STATUSES[int(rng.integers(len(SITE_STATUSES)))]}
        elif name == "milestones":
            change = {"status": "completed", "actual_date": row["planned_date"]}
        elif name == "site_managers":
            change = {"phone": f"+1-555-{rng.integers(100, 1000):03d}-{rng.integers(0, 10000):04d}"}
        else:
            change = {"market_count": int(row["market_count"]) + 1}
        out.append({"_pk": row[table.primary_key.columns.keys()[0]], **change})
    return out


def refresh(url: str, *, tables: Sequence[str] = ("hse_audits",), seed: int = 1) -> dict[str, int]:
    """Change about 5% of the rows of the named tables and bump their ``updated_at``.

    The new timestamp is later than anything in the table, so a fingerprint on
    ``MAX(updated_at)`` sees the change even though the row count stays the same.
    """
    unknown = set(tables) - set(TABLES)
    if unknown:
        raise ValueError(f"unknown tables: {sorted(unknown)}")
    rng = np.random.default_rng(seed)
    engine = sa.create_engine(url)
    changed: dict[str, int] = {}
    try:
        with engine.begin() as conn:
            for name in tables:
                table = TABLES[name]
                pk = table.primary_key.columns.values()[0]
                rows = pd.DataFrame(conn.execute(sa.select(table).order_by(pk)).mappings().all())
                sample = rows.iloc[rng.permutation(len(rows))[: max(1, len(rows) // 20)]]
                latest = pd.to_datetime(rows["updated_at"]).max().to_pydatetime()
                stamp = latest.replace(microsecond=0) + dt.timedelta(hours=1)
                updates = _changes(table, sample, rng)
                for update in updates:
                    values = {k: _native(v) for k, v in update.items() if k != "_pk"}
                    conn.execute(
                        table.update()
                        .where(pk == _native(update["_pk"]))
                        .values(**values, updated_at=stamp)
                    )
                changed[name] = len(updates)
    finally:
        engine.dispose()
    return changed
