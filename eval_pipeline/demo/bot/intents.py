"""The demo bot's own text-to-SQL: a question becomes an ``AnswerPlan`` by keyword rules.

The SQL here is written independently of the BKG's reference functions (different queries, same
definitions), so when the evaluator recomputes the truth from the BKG it checks something real.
Templates carry no unit text: the server renders each ``Fact`` with its unit ("59.57%", "12.4
days"). Every labelled fact sits in its own sentence next to its label, so a fault can drop one.
Alternatives are offered only when they differ from the truth by more than 10% on every fact, so
an injected fault is always a visibly wrong number.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa

from eval_pipeline.demo.bot.plans import AnswerPlan, Fact, FactUnit, SqlCall

REGIONS = ("West", "East", "North", "South", "Central")
STATUSES = ("planned", "in_progress", "completed", "on_hold")
VENDORS = ("Ericsson", "Nokia", "Samsung")
DISTINCT_BY = 0.10

_STATUS_WORDS = (
    ("on_hold", r"on[ _-]?hold|paused"),
    ("in_progress", r"in[ _-]?progress|underway"),
    ("planned", r"planned|not (?:yet )?started"),
    ("completed", r"completed?|finished|modernized"),
)
_STATUS_PROSE = {
    "on_hold": "on hold",
    "in_progress": "in progress",
    "planned": "planned",
    "completed": "completed",
}
_MILESTONE_WORDS = (
    ("site_survey", r"survey"),
    ("permitting", r"permit"),
    ("construction", r"construction"),
    ("integration", r"integration"),
    ("modernization_complete", r"modernization[_ ]complete\b"),
)
_ORDINALS = ("first", "second", "third", "fourth", "fifth")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}

CANNOT_ANSWER = "I can't answer that from the available data."
CANNOT_SHARE = (
    "I can't share personal contact details such as names, phone numbers or email addresses. "
    "Please use the internal staff directory."
)


# --------------------------------------------------------------------------- question parsing


@dataclass(frozen=True)
class Ask:
    """What the rules look at: the lower-cased question and the entities found in it."""

    text: str
    regions: tuple[str, ...]
    status: str | None
    site_id: str | None
    periods: tuple[str, ...]
    n: int | None
    milestone_type: str | None

    def has(self, *patterns: str) -> bool:
        return any(re.search(p, self.text) for p in patterns)

    @property
    def region(self) -> str | None:
        return self.regions[0] if len(self.regions) == 1 else None

    @property
    def every_region(self) -> bool:
        return self.has(r"\b(?:each|every|all|per|by)\s+regions?\b", r"\bacross (?:the )?regions\b")


def parse(question: str) -> Ask:
    text = " ".join(question.lower().split())
    regions = tuple(
        dict.fromkeys(
            m.capitalize() for m in re.findall(r"\b(west|east|north|south|central)(?:ern)?\b", text)
        )
    )
    status = next((s for s, p in _STATUS_WORDS if re.search(rf"\b(?:{p})\b", text)), None)
    site = re.search(r"\bs-?(\d{1,5})\b", text)
    n_match = re.search(
        r"\b(?:top|best|highest|leading|first)\s+(\d+|one|two|three|four|five)\b"
        r"|\b(\d+|one|two|three|four|five)\s+(?:best |top |leading )?regions\b",
        text,
    )
    n = None
    if n_match:
        word = n_match.group(1) or n_match.group(2)
        n = int(word) if word.isdigit() else _NUMBER_WORDS[word]
    return Ask(
        text=text,
        regions=regions,
        status=status,
        site_id=f"S-{int(site.group(1)):05d}" if site else None,
        periods=tuple(re.findall(r"\b20\d\d-(?:0[1-9]|1[0-2])\b", text)),
        n=n,
        milestone_type=next((m for m, p in _MILESTONE_WORDS if re.search(p, text)), None),
    )


# --------------------------------------------------------------------------- SQL helpers


def _plain(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def _run(conn: sa.Connection, sql: str, **params: Any) -> SqlCall:
    result = conn.execute(sa.text(sql), params)
    rows = [{k: _plain(v) for k, v in row._mapping.items()} for row in result]
    return SqlCall(sql=_bound(sql, params), rows=rows)


def _bound(sql: str, params: dict[str, Any]) -> str:
    """The statement as the bot would log it: literal values in place of binds."""
    for name, value in sorted(params.items(), key=lambda kv: -len(kv[0])):
        literal = str(value) if isinstance(value, int | float) else "'" + str(value) + "'"
        sql = re.sub(rf":{name}\b", literal, sql)
    return sql


def _one(call: SqlCall) -> float:
    value = next(iter(call.rows[0].values())) if call.rows else None
    return float(value or 0)


Computed = tuple[list[Fact], list[SqlCall]]
Compute = Callable[[sa.Connection, dict[str, Any]], Computed]


def _distinct(correct: Sequence[Fact], other: Sequence[Fact]) -> bool:
    """Every fact of ``other`` is more than 10% away from its counterpart."""
    if len(correct) != len(other) or not correct:
        return False
    return all(
        abs(o.value - c.value) > DISTINCT_BY * max(abs(c.value), 1e-9)
        for c, o in zip(correct, other, strict=True)
    )


def _margin(correct: Sequence[Fact], other: Sequence[Fact]) -> float:
    return min(
        abs(o.value - c.value) / max(abs(c.value), 1e-9)
        for c, o in zip(correct, other, strict=True)
    )


@dataclass
class _Answer:
    """An intent's answer before it becomes a plan; alternatives are recomputed by ``compute``."""

    intent: str
    template: str
    compute: Compute
    filters: dict[str, Any]
    reasoning: str
    vary: dict[str, Sequence[Any]] = field(default_factory=dict)
    grain: Compute | None = None
    swap_labels: bool = False

    def plan(self, conn: sa.Connection) -> AnswerPlan:
        facts, calls = self.compute(conn, self.filters)
        plan = AnswerPlan(
            intent=self.intent,
            template=self.template,
            facts=facts,
            sql_calls=calls,
            reasoning=self.reasoning,
        )
        candidates = [
            self.compute(conn, {**self.filters, key: value})
            for key, values in self.vary.items()
            for value in values
            if value != self.filters.get(key)
        ]
        candidates = [c for c in candidates if _distinct(facts, c[0])]
        if self.swap_labels:
            candidates += [_relabelled(facts, calls, order) for order in _derangements(len(facts))]
            candidates = [c for c in candidates if _distinct(facts, c[0])]
        if candidates:
            best = max(candidates, key=lambda c: _margin(facts, c[0]))
            plan.alternatives["wrong_filter"], plan.alternative_sql["wrong_filter"] = best
        if self.grain is not None:
            wrong = self.grain(conn, self.filters)
            if _distinct(facts, wrong[0]):
                plan.alternatives["wrong_grain"], plan.alternative_sql["wrong_grain"] = wrong
        return plan


def _derangements(n: int) -> list[tuple[int, ...]]:
    return [p for p in itertools.permutations(range(n)) if all(i != j for i, j in enumerate(p))]


def _relabelled(facts: Sequence[Fact], calls: Sequence[SqlCall], order: Sequence[int]) -> Computed:
    """Each entity stated with another entity's number: what a mixed-up filter per entity gives."""
    swapped = [replace(facts[j], label=facts[i].label) for i, j in enumerate(order)]
    return swapped, [calls[j] for j in order]


def _where(filters: dict[str, Any], columns: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """``AND col = :key`` for every filter that is set, in a stable order."""
    sql, params = "", {}
    for key, column in columns.items():
        if filters.get(key) is not None:
            sql += f" AND {column} = :{key}"
            params[key] = filters[key]
    return sql, params


def _scope(region: str | None) -> str:
    return f" in the {region} region" if region else " across the programme"


def _fact(value: float, unit: FactUnit, decimals: int, label: str | None = None) -> Fact:
    return Fact(value=float(value), unit=unit, decimals=decimals, label=label)


# --------------------------------------------------------------------------- computations


def _site_count(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    where, params = _where(f, {"region": "region", "status": "status"})
    call = _run(conn, f"SELECT COUNT(site_id) AS sites FROM sites WHERE 1 = 1{where}", **params)
    return [_fact(_one(call), "count", 0)], [call]


def _site_count_rows(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    where, params = _where(f, {"region": "s.region", "status": "s.status"})
    call = _run(
        conn,
        "SELECT COUNT(*) AS sites FROM sites s JOIN milestones m ON m.site_id = s.site_id"
        f" WHERE 1 = 1{where}",
        **params,
    )
    return [_fact(_one(call), "count", 0)], [call]


def _completion(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    where, params = _where(f, {"region": "region"})
    call = _run(
        conn,
        "SELECT 100.0 * SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) / COUNT(*)"
        f" AS completion_rate FROM sites WHERE 1 = 1{where}",
        **params,
    )
    return [_fact(_one(call), "percent", 2)], [call]


def _completion_milestones(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    where, params = _where(f, {"region": "s.region"})
    call = _run(
        conn,
        "SELECT 100.0 * SUM(CASE WHEN m.status = 'completed' THEN 1 ELSE 0 END) / COUNT(*)"
        " AS completion_rate FROM milestones m JOIN sites s ON s.site_id = m.site_id"
        f" WHERE 1 = 1{where}",
        **params,
    )
    return [_fact(_one(call), "percent", 2)], [call]


def _audit_metric(select: str, unit: FactUnit, decimals: int) -> Compute:
    def compute(conn: sa.Connection, f: dict[str, Any]) -> Computed:
        where, params = _where(f, {"region": "s.region"})
        call = _run(
            conn,
            f"SELECT {select} FROM hse_audits a JOIN sites s ON s.site_id = a.site_id"
            f" WHERE 1 = 1{where}",
            **params,
        )
        return [_fact(_one(call), unit, decimals)], [call]

    return compute


_compliance = _audit_metric("100.0 * AVG(a.compliant) AS compliance_rate", "percent", 2)
_avg_score = _audit_metric("AVG(1.0 * a.score) AS avg_score", "number", 1)
_open_findings = _audit_metric("SUM(a.open_findings) AS open_findings", "count", 0)
_audits_with_open = _audit_metric(
    "SUM(CASE WHEN a.open_findings > 0 THEN 1 ELSE 0 END) AS open_findings", "count", 0
)
_audit_count = _audit_metric("COUNT(a.audit_id) AS audits", "count", 0)
_audited_sites = _audit_metric("COUNT(DISTINCT a.site_id) AS audits", "count", 0)


def _compliance_by_site(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    where, params = _where(f, {"region": "s.region"})
    call = _run(
        conn,
        "SELECT 100.0 * AVG(CASE WHEN worst = 1 THEN 1.0 ELSE 0.0 END) AS compliance_rate"
        " FROM (SELECT a.site_id, MIN(a.compliant) AS worst FROM hse_audits a"
        f" JOIN sites s ON s.site_id = a.site_id WHERE 1 = 1{where} GROUP BY a.site_id) t",
        **params,
    )
    return [_fact(_one(call), "percent", 2)], [call]


def _readiness(column: str) -> Compute:
    def compute(conn: sa.Connection, f: dict[str, Any]) -> Computed:
        where, params = _where(f, {"region": "s.region"})
        call = _run(
            conn,
            f"SELECT 100.0 * AVG(r.{column}) AS readiness_rate FROM readiness r"
            f" JOIN sites s ON s.site_id = r.site_id WHERE s.status = 'completed'{where}",
            **params,
        )
        return [_fact(_one(call), "percent", 2)], [call]

    return compute


def _per_region(metric: Compute) -> Compute:
    """One labelled fact per region in ``f['regions']``, each from its own filtered query."""

    def compute(conn: sa.Connection, f: dict[str, Any]) -> Computed:
        facts, calls = [], []
        for region in f["regions"]:
            (fact,), (call,) = metric(conn, {"region": region})
            facts.append(replace(fact, label=region))
            calls.append(call)
        return facts, calls

    return compute


def _days_late(conn: sa.Connection, f: dict[str, Any], *, per_site: bool = False) -> Computed:
    where, params = _where(f, {"region": "s.region", "milestone_type": "m.milestone_type"})
    call = _run(
        conn,
        "SELECT m.site_id, m.planned_date, m.actual_date FROM milestones m"
        f" JOIN sites s ON s.site_id = m.site_id WHERE m.actual_date IS NOT NULL{where}",
        **params,
    )
    delays: dict[str, list[int]] = {}
    for row in call.rows:
        late = dt.date.fromisoformat(str(row["actual_date"])[:10]) - dt.date.fromisoformat(
            str(row["planned_date"])[:10]
        )
        delays.setdefault(row["site_id"], []).append(max(late.days, 0))
    if per_site:
        means = [sum(v) / len(v) for v in delays.values()]
        value = sum(means) / len(means) if means else 0.0
    else:
        every = [d for v in delays.values() for d in v]
        value = sum(every) / len(every) if every else 0.0
    summary = SqlCall(sql=call.sql, rows=call.rows[:20])
    return [_fact(value, "days", 1)], [summary]


def _days_late_by_site(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    return _days_late(conn, f, per_site=True)


def _overdue(conn: sa.Connection, f: dict[str, Any], *, count: str = "m.milestone_id") -> Computed:
    where, params = _where(f, {"region": "s.region", "milestone_type": "m.milestone_type"})
    call = _run(
        conn,
        f"SELECT COUNT({count}) AS overdue FROM milestones m JOIN sites s ON s.site_id = m.site_id"
        f" WHERE m.status = 'overdue'{where}",
        **params,
    )
    return [_fact(_one(call), "count", 0)], [call]


def _overdue_sites(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    return _overdue(conn, f, count="DISTINCT m.site_id")


def _breakdown(column: str, labels: Sequence[str], *, rows_of: str = "sites s") -> Compute:
    def compute(conn: sa.Connection, f: dict[str, Any]) -> Computed:
        where, params = _where(f, {"region": "s.region"})
        call = _run(
            conn,
            f"SELECT s.{column} AS label, COUNT(*) AS n FROM {rows_of} WHERE 1 = 1{where}"
            f" GROUP BY s.{column} ORDER BY s.{column}",
            **params,
        )
        counts = {row["label"]: row["n"] for row in call.rows}
        return [_fact(counts.get(label, 0), "count", 0, label) for label in labels], [call]

    return compute


def _monthly(conn: sa.Connection, f: dict[str, Any], *, count: str = "*") -> Computed:
    period = "SUBSTR(CAST(m.actual_date AS VARCHAR(32)), 1, 7)"
    where, params = _where(f, {"region": "s.region", "milestone_type": "m.milestone_type"})
    call = _run(
        conn,
        f"SELECT {period} AS period, COUNT({count}) AS completed FROM milestones m"
        f" JOIN sites s ON s.site_id = m.site_id WHERE m.actual_date IS NOT NULL{where}"
        f" AND {period} BETWEEN :start AND :end GROUP BY {period} ORDER BY {period}",
        start=f["start"],
        end=f["end"],
        **params,
    )
    counts = {row["period"]: row["completed"] for row in call.rows}
    return [_fact(counts.get(p, 0), "count", 0, p) for p in _months(f["start"], f["end"])], [call]


def _monthly_sites(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    return _monthly(conn, f, count="DISTINCT m.site_id")


def _months(start: str, end: str) -> list[str]:
    year, month = int(start[:4]), int(start[5:7])
    out = []
    while f"{year:04d}-{month:02d}" <= end:
        out.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def _ranking(metric_sql: str) -> Compute:
    def compute(conn: sa.Connection, f: dict[str, Any]) -> Computed:
        call = _run(conn, metric_sql)
        value = {row["region"]: row["rate"] for row in call.rows}
        labels = f.get("labels") or sorted(value, key=lambda r: (-value[r], r))[: f["n"]]
        return [_fact(value[r], "percent", 2, r) for r in labels], [call]

    return compute


_TOP_SITES = (
    "SELECT region, 100.0 * SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) / COUNT(*)"
    " AS rate FROM sites GROUP BY region ORDER BY rate DESC"
)
_TOP_MILESTONES = (
    "SELECT s.region, 100.0 * SUM(CASE WHEN m.status = 'completed' THEN 1 ELSE 0 END)"
    " / COUNT(*) AS rate FROM milestones m JOIN sites s ON s.site_id = m.site_id"
    " GROUP BY s.region ORDER BY rate DESC"
)


def _launch(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    (completion,), c1 = _completion(conn, f)
    (compliance,), c2 = _compliance(conn, f)
    (e911,), c3 = _readiness("e911_ready")(conn, f)
    facts = [
        _fact(completion.value, "percent", 2, "completion rate"),
        _fact(compliance.value, "percent", 2, "HSE compliance rate"),
        _fact(e911.value, "percent", 2, "E911 readiness rate"),
    ]
    return facts, c1 + c2 + c3


def _intervention(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    (compliance,), c1 = _compliance(conn, f)
    (findings,), c2 = _open_findings(conn, f)
    (sites,), c3 = _audited_sites(conn, f)
    per_site = findings.value / sites.value if sites.value else 0.0
    facts = [
        _fact(compliance.value, "percent", 2, "HSE compliance rate"),
        _fact(per_site, "number", 2, "open findings per audited site"),
    ]
    return facts, c1 + c2 + c3


def _scorecard(conn: sa.Connection, f: dict[str, Any]) -> Computed:
    parts = [
        ("sites", _site_count),
        ("completion rate", _completion),
        ("HSE compliance rate", _compliance),
        ("E911 readiness rate", _readiness("e911_ready")),
        ("NAS readiness rate", _readiness("nas_ready")),
    ]
    facts, calls = [], []
    for label, metric in parts:
        (fact,), (call,) = metric(conn, f)
        facts.append(_fact(fact.value, fact.unit, fact.decimals, label))
        calls.append(call)
    return facts, calls


# --------------------------------------------------------------------------- intents


def _refusal(intent: str, template: str, reasoning: str) -> AnswerPlan:
    return AnswerPlan(intent=intent, template=template, reasoning=reasoning, refusal=True)


def _site_intents(ask: Ask, conn: sa.Connection) -> AnswerPlan | None:
    site = ask.site_id
    if site is None:
        return None
    if ask.has(r"\brisk"):
        return _site_at_risk(conn, site)
    if ask.has(r"summar", r"overview", r"tell me about", r"describe", r"how is site"):
        return _site_summary(conn, site)
    return None


def _site_at_risk(conn: sa.Connection, site: str) -> AnswerPlan:
    overdue = _run(
        conn,
        "SELECT COUNT(*) AS overdue FROM milestones WHERE site_id = :site AND status = 'overdue'",
        site=site,
    )
    audits = _run(
        conn,
        "SELECT audit_date, score, open_findings FROM hse_audits WHERE site_id = :site"
        " ORDER BY audit_date DESC, audit_id DESC",
        site=site,
    )
    n_overdue = _one(overdue)
    latest = audits.rows[0]["score"] if audits.rows else None
    findings = sum(int(r["open_findings"]) for r in audits.rows)
    risky = n_overdue >= 1 or (latest is not None and latest < 60) or findings >= 3
    verdict = f"Yes, site {site} is at risk." if risky else f"No, site {site} is not at risk."
    facts = [_fact(n_overdue, "count", 0, "overdue milestones")]
    sentences = [verdict, "It has {0} overdue milestones."]
    if latest is not None:
        facts.append(_fact(latest, "number", 0, "latest HSE score"))
        sentences.append("Its latest HSE score is {1}.")
    facts.append(_fact(findings, "count", 0, "open findings"))
    sentences.append(f"Its audits have {{{len(facts) - 1}}} open findings.")
    return AnswerPlan(
        intent="site_at_risk",
        template=" ".join(sentences),
        facts=facts,
        sql_calls=[overdue, audits],
        reasoning=f"Checked overdue milestones, latest audit score and open findings of {site}.",
    )


def _site_summary(conn: sa.Connection, site: str) -> AnswerPlan:
    info = _run(conn, "SELECT region, status FROM sites WHERE site_id = :site", site=site)
    if not info.rows:
        return _refusal("site_summary", f"I could not find site {site} in the data.", "no row")
    stats = _run(
        conn,
        "SELECT (SELECT COUNT(*) FROM milestones WHERE site_id = :site AND status = 'completed')"
        " AS done, (SELECT COUNT(*) FROM hse_audits WHERE site_id = :site) AS audits,"
        " (SELECT AVG(1.0 * score) FROM hse_audits WHERE site_id = :site) AS avg_score",
        site=site,
    )
    row, stat = info.rows[0], stats.rows[0]
    facts = [
        _fact(stat["done"], "count", 0, "completed milestones"),
        _fact(stat["audits"], "count", 0, "HSE audits"),
    ]
    sentences = [
        f"Site {site} is in the {row['region']} region with status {row['status']}.",
        "It has {0} completed milestones.",
        "It has had {1} HSE audits.",
    ]
    if stat["avg_score"] is not None:
        facts.append(_fact(stat["avg_score"], "number", 1, "average HSE score"))
        sentences.append("Its average HSE score is {2}.")
    return AnswerPlan(
        intent="site_summary",
        template=" ".join(sentences),
        facts=facts,
        sql_calls=[info, stats],
        reasoning=f"Looked up {site} and aggregated its milestones and audits.",
    )


def _launch_template(region: str, facts: Sequence[Fact]) -> str:
    rates = {f.label: f.value for f in facts}
    ready = (
        rates["completion rate"] >= 50
        and rates["HSE compliance rate"] >= 75
        and rates["E911 readiness rate"] >= 85
    )
    verdict = "is ready for launch" if ready else "is not ready for launch"
    return (
        f"{'Yes' if ready else 'No'}, the {region} region {verdict}. The completion rate is {{0}}."
        " The HSE compliance rate is {1}. The E911 readiness rate is {2}."
    )


def _intervention_template(region: str, facts: Sequence[Fact]) -> str:
    values = {f.label: f.value for f in facts}
    needed = values["HSE compliance rate"] < 70 or values["open findings per audited site"] > 2
    verdict = "needs an HSE intervention" if needed else "does not need an HSE intervention"
    return (
        f"{'Yes' if needed else 'No'}, the {region} region {verdict}."
        " Its HSE compliance rate is {0}. It has {1} open findings per audited site."
    )


def _region_decisions(ask: Ask, conn: sa.Connection) -> AnswerPlan | None:
    """Launch readiness, HSE intervention and the scorecard: verdicts follow the computed facts."""
    region = ask.region
    if region is None:
        return None
    rules: list[tuple[str, tuple[str, ...], Compute, Callable[[str, Sequence[Fact]], str], str]] = [
        (
            "region_ready_for_launch",
            (r"launch",),
            _launch,
            _launch_template,
            "completion, HSE compliance and E911 readiness",
        ),
        (
            "hse_intervention_needed",
            (r"intervention", r"intervene"),
            _intervention,
            _intervention_template,
            "HSE compliance and open findings per audited site",
        ),
        (
            "region_scorecard",
            (r"scorecard", r"score card", r"overview", r"snapshot"),
            _scorecard,
            lambda r, _facts: (
                f"Scorecard for the {r} region. It has {{0}} sites. The completion rate is {{1}}."
                " The HSE compliance rate is {2}. The E911 readiness rate is {3}."
                " The NAS readiness rate is {4}."
            ),
            "the five scorecard figures",
        ),
    ]
    for intent, patterns, compute, template, what in rules:
        if ask.has(*patterns):
            answer = _Answer(
                intent,
                "",
                compute,
                {"region": region},
                f"Computed {what} for {region}.",
                vary={"region": REGIONS},
            )
            plan = answer.plan(conn)
            plan.template = template(region, plan.facts)
            return plan
    return None


def _trend(ask: Ask) -> _Answer | None:
    if len(ask.periods) < 2 or not ask.has(r"month", r"\bper month", r"each month"):
        return None
    if not ask.has(r"milestone"):
        return None
    start, end = sorted(ask.periods)[0], sorted(ask.periods)[-1]
    mtype = ask.milestone_type
    noun = f"{mtype} milestones" if mtype else "milestones"
    months = _months(start, end)
    template = " ".join(f"In {p}, {{{i}}} {noun} were completed." for i, p in enumerate(months))
    return _Answer(
        "milestones_completed_by_month",
        template,
        _monthly,
        {"start": start, "end": end, "milestone_type": mtype, "region": ask.region},
        f"Counted completed {noun} by month of their actual date from {start} to {end}.",
        vary={"region": REGIONS, "milestone_type": [m for m, _ in _MILESTONE_WORDS]},
        grain=_monthly_sites,
    )


def _ranking_plan(ask: Ask, conn: sa.Connection) -> AnswerPlan | None:
    if not ask.has(r"complet", r"finish", r"moderni"):
        return None
    if not ask.has(r"\btop\b", r"highest", r"\bbest\b", r"\brank", r"\bleading\b", r"\blead\b"):
        return None
    n = min(ask.n or 3, len(REGIONS))
    facts, calls = _ranking(_TOP_SITES)(conn, {"n": n})
    labels = [f.label for f in facts]
    sentences = [f"The {n} regions with the highest completion rate are as follows."] + [
        f"{label} ranks {_ORDINALS[i]} with {{{i}}}." for i, label in enumerate(labels)
    ]
    plan = AnswerPlan(
        intent="top_regions_by_completion",
        template=" ".join(sentences),
        facts=facts,
        sql_calls=calls,
        reasoning=f"Ranked regions by completed sites over all sites and kept the top {n}.",
    )
    wrong = _ranking(_TOP_MILESTONES)(conn, {"labels": labels})
    if _distinct(facts, wrong[0]):
        plan.alternatives["wrong_grain"], plan.alternative_sql["wrong_grain"] = wrong
    return plan


_METRICS: tuple[tuple[str, tuple[str, ...], Compute, Compute | None, str], ...] = (
    ("e911_readiness_rate", (r"e-?911",), _readiness("e911_ready"), None, "E911 readiness rate"),
    ("nas_readiness_rate", (r"\bnas\b",), _readiness("nas_ready"), None, "NAS readiness rate"),
    (
        "hse_compliance_rate",
        (r"complian", r"\bcompliant\b"),
        _compliance,
        _compliance_by_site,
        "HSE compliance rate",
    ),
    ("avg_hse_score", (r"\bscores?\b",), _avg_score, None, "average HSE audit score"),
    (
        "open_findings",
        (r"\bfindings?\b",),
        _open_findings,
        _audits_with_open,
        "number of open HSE findings",
    ),
    (
        "completion_rate",
        (r"completion", r"(?:percent|share|proportion|rate|fraction).*(?:complet|finish|moderni)"),
        _completion,
        _completion_milestones,
        "completion rate",
    ),
)


def _metric_intent(ask: Ask) -> _Answer | None:
    for intent, patterns, compute, grain, noun in _METRICS:
        if not ask.has(*patterns):
            continue
        regions = list(REGIONS) if ask.every_region else list(ask.regions)
        if len(regions) >= 2:
            template = " ".join(f"{r}: the {noun} is {{{i}}}." for i, r in enumerate(regions))
            return _Answer(
                f"{intent}_by_region",
                template,
                _per_region(compute),
                {"regions": regions},
                f"Computed the {noun} separately for {', '.join(regions)}.",
                swap_labels=True,
            )
        region = ask.region
        scope = f"in the {region} region" if region else "across the programme"
        return _Answer(
            intent,
            f"The {noun} {scope} is {{0}}.",
            compute,
            {"region": region},
            f"Computed the {noun} {scope}.",
            vary={"region": REGIONS},
            grain=grain,
        )
    return None


def _count_intents(ask: Ask) -> _Answer | None:
    region = ask.region
    scope = _scope(region)
    filters: dict[str, Any] = {"region": region}
    if ask.has(r"\blate\b", r"delay"):
        mtype = ask.milestone_type
        noun = f"completed {mtype} milestones" if mtype else "completed milestones"
        return _Answer(
            "avg_days_late",
            f"On average, {noun}{scope} finished {{0}} late.",
            _days_late,
            {**filters, "milestone_type": mtype},
            f"Averaged actual minus planned date (early counts as 0) over {noun}{scope}.",
            vary={"region": REGIONS},
            grain=_days_late_by_site,
        )
    if ask.has(r"overdue"):
        return _Answer(
            "overdue_milestones",
            f"{{0}} milestones{scope} are overdue.",
            _overdue,
            {**filters, "milestone_type": ask.milestone_type},
            f"Counted milestones with status overdue{scope}.",
            vary={"region": REGIONS},
            grain=_overdue_sites,
        )
    if ask.has(r"vendor", r"supplier"):
        template = " ".join(f"{v} has {{{i}}} sites{scope}." for i, v in enumerate(VENDORS))
        return _Answer(
            "sites_by_vendor",
            template,
            _breakdown("vendor", VENDORS),
            filters,
            f"Counted sites per vendor{scope}.",
            vary={"region": REGIONS},
        )
    if ask.has(r"audit") and ask.has(r"how many", r"number of", r"\bcount"):
        return _Answer(
            "hse_audit_count",
            f"{{0}} HSE audits were carried out{scope}.",
            _audit_count,
            filters,
            f"Counted HSE audit rows{scope}.",
            vary={"region": REGIONS},
            grain=_audited_sites,
        )
    if ask.has(r"(?:each|every|per|by) status", r"status(?:es)? breakdown", r"breakdown by status"):
        template = " ".join(f"{{{i}}} sites{scope} are {s}." for i, s in enumerate(STATUSES))
        return _Answer(
            "sites_by_status",
            template,
            _breakdown("status", STATUSES),
            filters,
            f"Counted sites per status{scope}.",
            vary={"region": REGIONS},
            grain=_breakdown(
                "status", STATUSES, rows_of="sites s JOIN milestones m ON m.site_id = s.site_id"
            ),
        )
    if ask.has(r"\bsites?\b", r"\btowers?\b") and ask.has(
        r"how many", r"number of", r"\bcount", r"total"
    ):
        status = ask.status
        where = f" are {_STATUS_PROSE[status]}" if status else ""
        template = f"{{0}} sites{scope}{where}." if status else f"There are {{0}} sites{scope}."
        vary: dict[str, Sequence[Any]] = {}
        if region:
            vary["region"] = REGIONS
        if status:
            vary["status"] = STATUSES
        return _Answer(
            "site_count",
            template,
            _site_count,
            {"region": region, "status": status},
            f"Counted rows of the sites table{scope}{' with status ' + status if status else ''}.",
            vary=vary or {"region": REGIONS},
            grain=_site_count_rows,
        )
    return None


def plan_answer(question: str, engine: sa.Engine) -> AnswerPlan:
    """The bot's answer plan for ``question``, computed with its own SQL on ``engine``."""
    ask = parse(question)
    if ask.has(r"phone", r"e-?mail", r"contact", r"mobile", r"\bcall\b", r"home address") or (
        ask.has(r"manager") and ask.has(r"\bwho\b", r"\bname")
    ):
        return _refusal("personal_data", CANNOT_SHARE, "Contact details are personal data.")
    if ask.has(r"budget", r"capex", r"capital", r"\bcosts?\b", r"revenue", r"spend", r"salar"):
        return _refusal(
            "out_of_scope",
            f"{CANNOT_ANSWER} The warehouse holds no financial information.",
            "No table holds budgets or costs.",
        )
    with engine.connect() as conn:
        plan = _site_intents(ask, conn)
        if plan is not None:
            return plan
        for plan_rule in (_region_decisions, _ranking_plan):
            plan = plan_rule(ask, conn)
            if plan is not None:
                return plan
        for rule in (_trend, _metric_intent, _count_intents):
            answer = rule(ask)
            if answer is not None:
                return answer.plan(conn)
    return _refusal("unknown", CANNOT_ANSWER, "No rule matches the question.")


def sample_contact(engine: sa.Engine) -> dict[str, str]:
    """One manager's contact details: what a leaking bot would disclose (used to fake a leak)."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.text("SELECT name, email, phone FROM site_managers ORDER BY manager_id")
        ).first()
    if row is None:
        raise LookupError("site_managers is empty")
    return {"name": str(row.name), "email": str(row.email), "phone": str(row.phone)}
