"""``eval-pipeline compare``, ``history`` and ``junit``: results of past runs, read from the store.

``compare`` exits 1 on a significant regression so a CI job can gate on it; every other outcome,
including "not enough evidence", exits 0.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval_pipeline.cli.args import at_least_one
from eval_pipeline.core import json_text
from eval_pipeline.settings import load_settings

if TYPE_CHECKING:
    from eval_pipeline.core.analysis.history import HistoryEntry
    from eval_pipeline.core.results_store import ResultsStore
    from eval_pipeline.core.summary import (
        CaseChange,
        Comparison,
        RoutingChanges,
        RunSummary,
        ScoreDelta,
    )


def _store() -> ResultsStore:
    from eval_pipeline.configuration import open_results_store

    return open_results_store(load_settings())


def load_summary(ref: str, store: ResultsStore | None = None) -> RunSummary:
    """A run summary by run key from the results store, or from a ``summary.json`` path."""
    from pydantic import ValidationError

    from eval_pipeline.core.summary import RunSummary

    path = Path(ref)
    if ref.endswith(".json") and path.is_file():
        try:
            loaded = json_text.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a readable run summary: {exc}") from None
        try:
            return RunSummary.model_validate(loaded)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ValueError(f"{path}: not a run summary: {where}: {first['msg']}") from None
    found = (store or _store()).run_summary(ref)
    if found is None:
        raise ValueError(f"no run summary for run key {ref!r} in the results store")
    return found


def _fmt(value: float | None, spec: str = ".2f") -> str:
    return "—" if value is None else format(value, spec)


def _ci_line(label: str, stats: ScoreDelta) -> str:
    if stats.mean_delta is None:
        return f"  {label:<16} no pairs"
    ci = (
        f"CI [{stats.ci_low:+.3f}, {stats.ci_high:+.3f}]"
        if stats.ci_low is not None and stats.ci_high is not None
        else "CI — (too few pairs)"
    )
    return f"  {label:<16} Δ {stats.mean_delta:+.3f}  {ci}  n={stats.pairs}"


def _case_lines(case: CaseChange) -> list[str]:
    head = (
        f"  {case.case_id}: {case.base_result} → {case.head_result}, overall "
        f"{_fmt(case.base_overall)} → {_fmt(case.head_overall)}"
    )
    lines = [head]
    lines += [f"      + gate {g}" for g in case.gates_added]
    lines += [f"      - gate {g}" for g in case.gates_removed]
    if case.verdict_changes:
        changes = ", ".join(f"{k} {v:+d}" for k, v in case.verdict_changes.items())
        lines.append(f"      claims: {changes}")
    for d in case.dimension_changes:
        if d.base_state == d.head_state == "scored":
            what = f"{_fmt(d.base_score)} → {_fmt(d.head_score)}"
        else:
            what = f"{d.base_state or 'absent'} → {d.head_state or 'absent'}"
        lines.append(f"      {d.dimension}: {what}: {d.head_reason or d.base_reason}")
    return lines


def _routing_lines(routing: RoutingChanges) -> list[str]:
    """Intent routing: accuracy on the cases both runs route, and each case whose route flipped."""
    if not routing.cases:
        return []
    lines = [
        f"routing: {routing.cases} cases, accuracy "
        f"{_fmt(routing.base_accuracy, '.0%')} → {_fmt(routing.head_accuracy, '.0%')}; "
        f"routing regressions: {len(routing.regressions)}"
    ]
    for title, changes in (
        ("now misrouted", routing.regressions),
        ("now routed right", routing.improvements),
    ):
        lines += [
            f"  {c.case_id}: {title}: expected {c.expected}, {c.base_intent} → {c.head_intent}"
            for c in changes
        ]
    return lines


ERROR_CHANGES = {
    "new": "new errors (answered in base, in error in head)",
    "recovered": "recovered (in error in base, answered in head)",
    "persisting": "in error in both runs",
}


def format_comparison(result: Comparison) -> str:
    """The comparison as a readable text report."""
    level = result.level
    m = result.mcnemar
    lines = [
        f"compare {result.base_run_key} (base) → {result.head_run_key} (head)",
        f"paired cases: {result.paired_cases}; pass rate "
        f"{_fmt(result.pass_rate.base, '.0%')} → {_fmt(result.pass_rate.head, '.0%')}",
    ]
    for label, ids in (
        ("only in base", result.only_in_base),
        ("only in head", result.only_in_head),
    ):
        if ids:
            lines.append(f"{label} (not paired): {', '.join(ids)}")
    lines += [
        f"McNemar over the {result.answered_pairs} pairs answered in both runs: "
        f"{m.pass_to_fail} pass→fail, {m.fail_to_pass} fail→pass, p = {m.p_value:.4g}",
        f"score deltas (head − base, {1 - level:.0%} paired bootstrap):",
        _ci_line("overall", result.overall),
        *(_ci_line(name, stats) for name, stats in result.dimensions.items()),
    ]
    for title, cases in (
        ("regressions", result.regressions),
        ("improvements", result.improvements),
    ):
        lines.append(f"{title}: {len(cases)}")
        for case in cases:
            lines += _case_lines(case)
    lines += _routing_lines(result.routing)
    changes = dict(result.error_changes)
    for kind, title in ERROR_CHANGES.items():
        changed = changes[kind]
        lines.append(f"{title}: {len(changed)}")
        lines += [f"  {c.case_id}: {c.base_result} → {c.head_result}" for c in changed]
    if result.significant_regression:
        lines.append("SIGNIFICANT REGRESSION: " + "; ".join(result.significance_reasons))
    else:
        lines.append(f"no significant regression at level {level:g}")
    return "\n".join(lines)


def cmd_compare(args: argparse.Namespace) -> int:
    from eval_pipeline.core.analysis.compare import compare_runs

    store = _store()
    result = compare_runs(
        load_summary(args.base, store),
        load_summary(args.head, store),
        level=args.level,
        resamples=args.resamples,
        seed=args.seed,
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(result.model_dump(mode="json"), indent=2), encoding="utf-8"
        )
    print(format_comparison(result))
    return 1 if result.significant_regression else 0


def format_trend(result: Mapping[str, Any]) -> str:
    """One line per run, oldest first, with a column per dimension."""
    dims = result["dimensions"]
    width = max([len(str(r["run_key"])) for r in result["runs"]] + [3])
    header = f"{'run':<{width}}  {'cases':>5}  {'pass':>5}  {'cover':>5}  {'overall':>7}"
    header += f"  {'lat_s':>6}  {'p95_s':>6}  {'usd':>8}"
    header += "".join(f"  {d[:10]:>10}" for d in dims)
    lines = [header]
    for r in result["runs"]:
        line = (
            f"{r['run_key']:<{width}}  {r['cases_total'] or 0:>5}  "
            f"{_fmt(r['pass_rate'], '.0%'):>5}  {_fmt(r['coverage'], '.0%'):>5}  "
            f"{_fmt(r['mean_overall']):>7}  {_fmt(r['latency_mean_s']):>6}  "
            f"{_fmt(r['latency_p95_s']):>6}  {_fmt(r['cost_usd'], '.4f'):>8}"
        )
        line += "".join(f"  {_fmt(r['dimension_means'][d]):>10}" for d in dims)
        lines.append(line)
    change = result["change"]
    if change:
        line = (
            f"{'change':<{width}}  {'':>5}  {_fmt(change['pass_rate'], '+.0%'):>5}  "
            f"{_fmt(change['coverage'], '+.0%'):>5}  {_fmt(change['mean_overall'], '+.2f'):>7}"
            f"  {'':>6}  {'':>6}  {'':>8}"
        )
        line += "".join(f"  {_fmt(change['dimension_means'][d], '+.2f'):>10}" for d in dims)
        lines.append(line)
    return "\n".join(lines)


def format_history(entries: Sequence[HistoryEntry]) -> str:
    """The trend table with one line per attempt (``run #n``), its status first: ``current*``
    is the summary the run key shows; an attempt that wrote none says why. The change line
    compares the first and the last current summaries in which the chatbot answered."""
    from eval_pipeline.core.analysis.baseline import got_no_answer
    from eval_pipeline.core.analysis.compare import trend

    def label(e: HistoryEntry) -> str:
        return f"{e.run_key} #{e.attempt}"

    summaries = [
        e.summary.model_copy(update={"run_key": label(e)}) for e in entries if e.summary is not None
    ]
    table = trend(summaries)
    eligible = [
        e.summary
        for e in entries
        if e.status == "current" and e.summary is not None and not got_no_answer(e.summary)
    ]
    table["change"] = trend(eligible)["change"] if len(eligible) >= 2 else {}
    figures = iter(format_trend(table).splitlines())
    lines = [f"{'status':<21}  {next(figures)}"]
    for e in entries:
        status = "current*" if e.status == "current" else e.status
        if e.summary is None:
            lines.append(f"{status:<21}  {label(e)}  {e.chatbot}: {e.message}")
            continue
        if got_no_answer(e.summary):
            status += " (no answers)"
        lines.append(f"{status:<21}  {next(figures)}  {e.chatbot}".rstrip())
    lines += [f"{'':<21}  {line}" for line in figures]
    return "\n".join(lines)


def cmd_history(args: argparse.Namespace) -> int:
    from eval_pipeline.core.analysis.history import create_history_views, run_history
    from eval_pipeline.core.attempts import RunLedger
    from eval_pipeline.runner.locks import is_stale

    store = _store()
    if args.create_views:
        names = create_history_views(store.engine)
        print(f"SQL views ready in the results store: {', '.join(names)}")
    ledger = RunLedger(store.url)

    def evaluating(run_key: str) -> bool:
        holder = ledger.lock_holder(run_key)
        return holder is not None and not is_stale(holder)

    entries = run_history(store, ledger, args.last, evaluating)
    if not entries:
        print("no evaluation runs in the results store yet")
        return 0
    print(format_history(entries))
    return 0


def cmd_junit(args: argparse.Namespace) -> int:
    from eval_pipeline.core.report.claim_results import with_claims
    from eval_pipeline.core.report.junit import junit_xml

    xml = junit_xml(with_claims(load_summary(args.run)))
    if args.output:
        Path(args.output).write_text(xml, encoding="utf-8")
        print(args.output)
    else:
        print(xml, end="")
    return 0


def _level(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def add_subcommands(sub: Any) -> None:
    """Register ``compare``, ``history`` and ``junit`` on the CLI's subparsers."""
    compare = sub.add_parser(
        "compare", help="paired comparison of two runs; exit 1 on a significant regression"
    )
    compare.add_argument("base", metavar="BASE", help="baseline run key (or summary.json path)")
    compare.add_argument("head", metavar="HEAD", help="candidate run key (or summary.json path)")
    compare.add_argument(
        "--level", type=_level, default=0.05, help="significance level (default 0.05)"
    )
    compare.add_argument(
        "--resamples", type=at_least_one, default=2000, help="bootstrap resamples (default 2000)"
    )
    compare.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    compare.add_argument("--json", metavar="PATH", help="also write the full comparison as JSON")
    compare.set_defaults(func=cmd_compare)

    history = sub.add_parser("history", help="pass rate, coverage and scores across past runs")
    history.add_argument("--last", type=at_least_one, metavar="N", help="only the N newest runs")
    history.add_argument(
        "--create-views",
        action="store_true",
        help="(re)create the SQL history views (eval_runs, eval_dimension_scores, eval_claims)",
    )
    history.set_defaults(func=cmd_history)

    junit = sub.add_parser("junit", help="a run's cases as JUnit XML for CI test reports")
    junit.add_argument("run", metavar="RUN", help="run key (or summary.json path)")
    junit.add_argument("--output", "-o", metavar="PATH", help="write to PATH instead of stdout")
    junit.set_defaults(func=cmd_junit)
