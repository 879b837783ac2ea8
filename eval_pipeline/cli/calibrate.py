"""``eval-pipeline calibrate``: agreement of judge models with each other and with people.

The run's stored answers are re-judged (no chatbot call); the per-dimension agreement is printed
and stored per judge version, where the gates of later runs look it up.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval_pipeline.cli.args import at_least_one
from eval_pipeline.settings import load_settings

if TYPE_CHECKING:
    from eval_pipeline.core.analysis.calibration import CalibrationResult


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def format_calibration(result: CalibrationResult, statuses: Mapping[tuple[str, str], str]) -> str:
    """Per dimension: the panel's α, each pair's κ, then one line per judge version."""
    models = sorted({r.model for r in result.raters})
    samples = len(result.raters) // max(1, len(models))
    lines = [
        f"calibration of run {result.run_key}: {len(models)} judge model(s) × {samples} "
        f"sample(s) over {result.cases} case(s); κ on pass/fail at {result.threshold:.2f}"
    ]
    versions = sorted({r.version for r in result.raters})
    lines += [f"  judge version: {v}" for v in versions]
    width = max([len(r.model) for r in result.raters] + [5])
    for dim in result.dimensions:
        lines.append(
            f"\n{dim.dimension}: panel α {_fmt(dim.alpha)} over {dim.cases} case(s), "
            f"{dim.human_cases} with human labels"
        )
        lines += [f"  κ {a} ~ {b}: {_fmt(k)}" for (a, b), k in dim.kappas.items()]
        lines.append(
            f"  {'judge':<{width}}  {'α':>6}  {'κ':>6}  {'human α':>7}  {'human κ':>7}  "
            f"{'n':>4}  status"
        )
        model_of = {r.version: r.model for r in result.raters}
        for j in dim.judges:
            lines.append(
                f"  {model_of[j.judge_version]:<{width}}  {_fmt(j.alpha):>6}  {_fmt(j.kappa):>6}  "
                f"{_fmt(j.human_alpha):>7}  {_fmt(j.human_kappa):>7}  {j.n:>4}  "
                f"{statuses.get((j.judge_version, dim.dimension), 'no evidence: not stored')}"
            )
    return "\n".join(lines)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from eval_pipeline.core.analysis.calibration import (
        calibrate,
        calibration_status,
        load_human_labels,
    )
    from eval_pipeline.core.inputs import load_bkg
    from eval_pipeline.core.llm.client import CostLedger, JudgeClient

    settings = load_settings()
    base = settings.llm
    if base is None:
        raise ValueError(
            "calibration needs an LLM endpoint: set EVAL_LLM_BASE_URL and EVAL_LLM_MODEL"
        )
    bar = settings.calibration_bar if args.bar is None else args.bar
    threshold = settings.pass_threshold if args.threshold is None else args.threshold
    human = load_human_labels(Path(args.human_labels)) if args.human_labels else None
    ledger = CostLedger()
    clients = [
        JudgeClient(
            base.model_copy(
                update={"model": model, "azure_deployment": model}
                if base.is_azure
                else {"model": model}
            ),
            cache_url=settings.results_store_url,
            ledger=ledger,
        )
        for model in args.judge
    ]
    try:
        result = calibrate(
            settings.results_store_url,
            args.run,
            clients,
            load_bkg(settings.bkg_path),
            repeats=args.repeats,
            human=human,
            threshold=threshold,
            case_ids=args.cases,
            concurrency=base.concurrency,
        )
    finally:
        for client in clients:
            client.close()
    statuses = {
        (row.judge_version, row.dimension): calibration_status(
            settings.results_store_url, row.judge_version, row.dimension, bar
        )
        for row in result.rows
        if row.deciding_alpha[1] is not None
    }
    print(format_calibration(result, statuses))
    spent = ledger.total()
    print(
        f"\nbar: α ≥ {bar:.2f} (α with people when labelled, else the panel's α); "
        f"judge calls {spent.calls - spent.cached_calls} (+{spent.cached_calls} cached), "
        f"${spent.cost_usd:.4f}; stored in judge_calibration"
    )
    return 0


def _unit(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def add_subcommands(sub: Any) -> None:
    """Register ``calibrate`` on the CLI's subparsers."""
    parser = sub.add_parser(
        "calibrate", help="agreement of judge models with each other and with human labels"
    )
    parser.add_argument("run", metavar="RUN", help="run key whose stored answers are re-judged")
    parser.add_argument(
        "--judge",
        action="append",
        required=True,
        metavar="MODEL",
        help="judge model on the configured endpoint; repeat for a panel",
    )
    parser.add_argument(
        "--repeats",
        type=at_least_one,
        default=1,
        metavar="K",
        help="ask each judge K times with the cache off (self-consistency)",
    )
    parser.add_argument(
        "--human-labels", metavar="FILE", help="CSV or JSON rows of case_id, dimension, score"
    )
    parser.add_argument(
        "--bar",
        type=_unit,
        help="α below this demotes the dimension (default EVAL_CALIBRATION_BAR)",
    )
    parser.add_argument(
        "--threshold",
        type=_unit,
        help="pass/fail line for κ (default EVAL_PASS_THRESHOLD)",
    )
    parser.add_argument("--cases", nargs="+", metavar="ID", help="only these case ids")
    parser.set_defaults(func=cmd_calibrate)
