"""``--repeats K`` (and ``--judge-repeats J``) for ``eval-pipeline run`` and ``demo``."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from eval_pipeline.cli.args import at_least_one


def add_repeats_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repeats",
        type=at_least_one,
        default=1,
        metavar="K",
        help="ask every case K times (each repeat re-asks; reports pass@k, pass^k, flakiness)",
    )
    parser.add_argument(
        "--judge-repeats",
        type=at_least_one,
        default=1,
        metavar="J",
        help="judge every answer J times to split chatbot noise from judge noise (needs an LLM)",
    )


def wants_repeats(args: argparse.Namespace) -> bool:
    return bool(args.repeats > 1 or args.judge_repeats > 1)


def print_repeats(result: Mapping[str, Any]) -> None:
    """Per-case table and run totals; the repeats summary path is the last line."""
    cases = result["cases"]
    k = result["repeats"]
    width = max([len(c["case_id"]) for c in cases] + [4])
    print(f"\nrun {result['run_key']} × {k} repeats")
    print(f"{'case':<{width}}  passes  pass^{k:<3}  flaky  overall mean ± sd  outcomes")
    for c in cases:
        mean = "—" if c["overall_mean"] is None else f"{c['overall_mean']:.2f}"
        sd = "" if c["overall_stdev"] is None else f" ± {c['overall_stdev']:.2f}"
        outcomes = "".join("✓" if o else "✗" for o in c["outcomes"])
        print(
            f"{c['case_id']:<{width}}  {c['passes']:>3}/{c['n']:<2}  "
            f"{c['pass_hat_k'][str(k)]:>7.2f}  {c['flakiness']:>5.2f}  {mean + sd:>17}  {outcomes}"
        )
    print(
        f"\npass@1 {result['pass_at_k']['1']:.2f}, pass@{k} {result['pass_at_k'][str(k)]:.2f}, "
        f"pass^{k} {result['pass_hat_k'][str(k)]:.2f}; "
        f"flaky cases {len(result['flaky_cases'])}/{result['cases_total']}"
    )
    print(result["repeats_path"])


def run_repeats(
    run_key: str,
    k: int,
    overrides: Mapping[str, str],
    case_ids: Sequence[str] | None,
    judge_repeats: int = 1,
) -> dict[str, Any]:
    """What ``run``/``demo`` call instead of a single evaluation when ``wants_repeats``."""
    from eval_pipeline.runner.repeats import evaluate_repeats

    result = evaluate_repeats(
        run_key, k, overrides=overrides, case_ids=case_ids, judge_repeats=judge_repeats
    )
    print_repeats(result)
    return result


def repeats_exit_code(result: Mapping[str, Any], min_pass_rate: float | None) -> int:
    """1 when the repeats fail the gate: a case failed some repeat, or mean pass^k is below the bar.

    Under repeats the bar applies to pass^k, the share of cases a user gets right every time.
    """
    pass_hat = result["pass_hat_k"][str(result["repeats"])]
    if min_pass_rate is None:
        return 0 if pass_hat == 1 else 1
    return 0 if pass_hat >= min_pass_rate else 1
