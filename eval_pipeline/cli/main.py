"""``eval-pipeline``: the command line. User mistakes end in a clear message, never a traceback."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from eval_pipeline.cli.args import fraction, port
from eval_pipeline.cli.calibrate import add_subcommands as add_calibrate_subcommands
from eval_pipeline.cli.compare import add_subcommands as add_compare_subcommands
from eval_pipeline.cli.repeats import (
    add_repeats_argument,
    repeats_exit_code,
    run_repeats,
    wants_repeats,
)
from eval_pipeline.cli.view import add_subcommands as add_view_subcommands
from eval_pipeline.core.keys import check_key, new_run_key
from eval_pipeline.core.problems import COMMAND_LINE, SETTINGS, InputError, configured
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.settings import ExecutorKind, load_settings

if TYPE_CHECKING:
    from eval_pipeline.core.summary import RunSummary


def _print_summary(summary: RunSummary) -> None:
    cases = summary.cases
    width = max([len(c.case_id) for c in cases] + [4])
    print(f"\nrun {summary.run_key}")
    print(f"{'case':<{width}}  result  overall  claims ✓/✗/?  gate failures")
    for c in cases:
        result = "FAIL" if c.result == "fail" else c.result
        overall = "—" if c.overall is None else f"{c.overall:.2f}"
        v = c.verdict_counts
        claims = f"{v.get('supported', 0)}/{v.get('contradicted', 0)}/{v.get('unverifiable', 0)}"
        gates = "; ".join(c.gate_failures)
        print(f"{c.case_id:<{width}}  {result:<6}  {overall:>7}  {claims:>12}  {gates[:90]}")
    claims = ", ".join(f"{n} {verdict}" for verdict, n in summary.verdict_counts.items())
    print(
        f"\n{summary.cases_passed}/{summary.cases_total} passed "
        f"(pass rate {summary.pass_rate:.0%}, coverage {summary.coverage:.0%}, "
        f"errors {summary.cases_error}); claims: {claims}"
    )
    if summary.cases_error:
        kinds = ", ".join(f"{kind} {n}" for kind, n in summary.error_counts.items())
        erred = ", ".join(
            f"{name} in {states['error']}"
            for name, states in summary.dimension_states.items()
            if states.get("error")
        )
        print(f"cases in error by cause: {kinds}; dimensions in error: {erred or 'none'}")
    traces = summary.trace_export
    if traces:
        lost = f", {traces.failed} failed ({traces.reason})" if traces.failed else ""
        print(f"traces: {traces.exported}/{traces.spans} spans to {traces.endpoint}{lost}")
    print(f"report: {summary.report_path}")


def start_reference_process() -> None:
    """BKG code runs in a child process whose imports take a second or two: started before this
    process imports what the command needs, the two import side by side."""
    from eval_pipeline.core.warehouse.bkg_process import default_bkg_process

    default_bkg_process().start()


def start_encoder(overrides: dict[str, str]) -> None:
    """The sentence encoder's worker imports torch for seconds: started before this process
    imports Dagster, the two load side by side instead of one after the other. Only in process:
    other executors encode in their steps' processes."""
    if load_settings(**overrides).executor == "in_process":
        from eval_pipeline.core.embeddings.encoder import default_embedder

        default_embedder().prefetch(())


def gate_exit_code(summary: RunSummary, min_pass_rate: float | None) -> int:
    """1 when the run fails its gate: any failed or errored case, or a pass rate below the bar."""
    if min_pass_rate is None:
        return 0 if summary.cases_passed == summary.cases_total else 1
    return 0 if summary.pass_rate >= min_pass_rate else 1


def _evaluate(
    run_key: str, overrides: dict[str, str], args: argparse.Namespace, *, gate: bool
) -> int:
    check_key(run_key, "run")
    if args.junit:
        writable_file(Path(args.junit), "--junit")
    start_reference_process()
    start_encoder(overrides)
    from eval_pipeline.core.report.claim_results import with_claims
    from eval_pipeline.core.report.junit import junit_xml
    from eval_pipeline.runner.evaluate import evaluate
    from eval_pipeline.runner.heap import no_collection_at_exit
    from eval_pipeline.runner.interrupt import stoppable

    no_collection_at_exit()
    if args.refresh:
        overrides = {**overrides, "refresh": "true"}
    if wants_repeats(args):
        result = stoppable(
            lambda: run_repeats(run_key, args.repeats, overrides, args.cases, args.judge_repeats)
        )
        return repeats_exit_code(result, args.min_pass_rate) if gate else 0
    from eval_pipeline.runner.progress import StoreCounter, showing_progress
    from eval_pipeline.settings import Settings

    counter = partial(StoreCounter.for_settings, Settings(**overrides), run_key, args.cases)
    with showing_progress(counter):
        summary = stoppable(lambda: evaluate(run_key, overrides=overrides, case_ids=args.cases))
    _print_summary(summary)
    if args.junit:
        Path(args.junit).write_text(junit_xml(with_claims(summary)), encoding="utf-8")
        print(f"junit: {args.junit}")
    print(summary.summary_path)
    return gate_exit_code(summary, args.min_pass_rate) if gate else 0


def demo_slas(ttft_s: float, tokens_per_s: float) -> dict[str, str]:
    """SLAs scaled to the demo bot's configured speed, so its slow-stream fault is visible.

    A typical demo answer is about 40 tokens; the SLA allows twice its normal duration.
    """
    total = 2 * (ttft_s + 40 / tokens_per_s)
    return {"latency_total_sla_s": f"{total:.3f}", "latency_ttft_sla_s": f"{4 * ttft_s:.3f}"}


DEMO_CHANNELS = ("sse", "http_json", "openai_chat", "ui")


def demo_channel(channel: str, bot_url: str) -> dict[str, str]:
    """The settings that point the evaluation at the demo bot through one of its transports."""
    from eval_pipeline.settings import DEMO_DATA

    return {
        "sse": {"chatbot_kind": "sse", "chatbot_url": bot_url},
        "http_json": {"chatbot_kind": "http_json", "chatbot_url": f"{bot_url}/answer"},
        "openai_chat": {
            "chatbot_kind": "openai_chat",
            "chatbot_url": f"{bot_url}/v1",
            "chatbot_model": "demo-bot",
        },
        "ui": {
            "chatbot_kind": "ui",
            "chatbot_url": bot_url,
            "chatbot_ui_config": str(DEMO_DATA / "ui_chatbot.yaml"),
        },
    }[channel]


@contextmanager
def demo_secrets(channel: str, api_key: str) -> Iterator[None]:
    """The demo bot's API key for the channels that send one, as the environment variable a
    user would set: secrets never travel in overrides (they are Dagster run config)."""
    variables = {
        "openai_chat": {"EVAL_CHATBOT_API_KEY": api_key},
        "http_json": {"EVAL_CHATBOT_HEADERS": json.dumps({"Authorization": f"Bearer {api_key}"})},
    }.get(channel, {})
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def cmd_demo(args: argparse.Namespace) -> int:
    if args.world == "helpdesk":
        if args.channel != "sse":
            print(
                "eval-pipeline demo: --channel is for the analytics world; the help-desk "
                "assistant is asked over its HTTP JSON endpoint",
                file=sys.stderr,
            )
            return 2
        from eval_pipeline.cli.helpdesk_demo import run_helpdesk_demo

        return run_helpdesk_demo(args)
    if args.fault_seed is None:
        args.fault_seed = 7
    from eval_pipeline.configuration import home_problems
    from eval_pipeline.core.warehouse.db import redact_url
    from eval_pipeline.demo import warehouse
    from eval_pipeline.demo.bot.runner import start_bot

    if args.run_key:
        check_key(args.run_key, "run")
    settings = load_settings()
    problems = home_problems(settings.home)
    if problems:
        raise InputError(problems)
    settings.home.mkdir(parents=True, exist_ok=True)
    db_file = settings.home / "demo_warehouse.db"
    url = settings.database_url or f"sqlite:///{db_file}"
    if args.fresh_warehouse or (not settings.database_url and not db_file.exists()):
        print(f"generating the demo warehouse in {redact_url(url)} …")
        with configured("EVAL_DATABASE_URL", f"cannot write the demo warehouse {redact_url(url)}"):
            warehouse.load(url)
    fault_log = settings.home / "bot" / "faults.jsonl"
    fault_log.parent.mkdir(parents=True, exist_ok=True)
    with start_bot(
        database_url=url,
        fault_seed=args.fault_seed,
        fault_log=fault_log,
        ttft_s=args.ttft,
        tokens_per_s=args.token_rate,
        answer_s=args.answer_time,
    ) as bot:
        print(
            f"demo chatbot listening on {bot.url} (fault seed {args.fault_seed}), "
            f"asked through the {args.channel} channel"
        )
        overrides = {  # run config, stored by Dagster: the warehouse URL (it may hold a
            # password) comes from the settings, where it already is
            **demo_channel(args.channel, bot.url),
            # the bot listens on a new port each time: a demo run key is always asked afresh
            "refresh": "true",
            **demo_slas(args.ttft, args.token_rate),
        }
        with demo_secrets(args.channel, bot.api_key):
            return _evaluate(args.run_key or new_run_key("demo"), overrides, args, gate=False)


def cmd_conversations(args: argparse.Namespace) -> int:
    start_reference_process()
    from eval_pipeline.runner.conversations import evaluate_conversations
    from eval_pipeline.runner.heap import no_collection_at_exit
    from eval_pipeline.runner.interrupt import stoppable

    no_collection_at_exit()
    load_settings()
    run_key = args.run_key or new_run_key("conversations")
    summary = stoppable(lambda: evaluate_conversations(run_key, last=args.last))
    _print_summary(summary)
    print(summary.summary_path)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    overrides = {"executor": args.executor} if args.executor else {}
    load_settings(**overrides)
    return _evaluate(args.run_key or new_run_key("manual"), overrides, args, gate=True)


def cmd_validate(args: argparse.Namespace) -> int:
    settings = load_settings()
    start_reference_process()
    from eval_pipeline.configuration import (
        build_adapter,
        configuration_problems,
        existing_results_store,
    )
    from eval_pipeline.core.inputs import validate_inputs

    from_settings = args.database_url is None
    database_url = settings.warehouse_url if from_settings else args.database_url
    variable = "EVAL_DATABASE_URL" if from_settings else None
    problems = validate_inputs(
        Path(args.bkg or settings.bkg_path),
        Path(args.golden or settings.golden_path),
        database_url,
        max_field_chars=settings.golden_max_field_chars,
        rubric_path=Path(args.rubric) if args.rubric else settings.rubric_path,
        limits=settings.reference_limits,
        database_variable=variable,
    )
    problems += configuration_problems(
        settings,
        store=lambda: existing_results_store(settings),
        adapter=lambda: build_adapter(settings).close(),
        bkg=None,
        found=problems,
    )
    if not problems and settings.llm is not None:
        from eval_pipeline.core.llm.client import JudgeClient
        from eval_pipeline.core.preflight import judge_problems

        with closing(JudgeClient(settings.llm)) as judge:
            problems += judge_problems(judge)
    for problem in problems:
        print(_redacted(str(problem)), file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) found", file=sys.stderr)
        return 1
    if database_url:
        from eval_pipeline.core.warehouse.db import Database

        with Database(database_url) as db:
            db.warn_if_writable(variable)
    print("inputs are valid")
    return 0


def cmd_bot(args: argparse.Namespace) -> int:
    from eval_pipeline.demo.bot.runner import serve_forever

    settings = load_settings()
    serve_forever(
        database_url=args.database_url or settings.warehouse_url,
        fault_seed=args.fault_seed,
        fault_log=Path(args.fault_log) if args.fault_log else None,
        ttft_s=args.ttft,
        tokens_per_s=args.token_rate,
        answer_s=args.answer_time,
        host=args.host,
        port=args.port,
    )
    return 0


def cmd_warehouse(args: argparse.Namespace) -> int:
    from eval_pipeline.core.warehouse.db import redact_url
    from eval_pipeline.demo import warehouse

    variable, source = (
        ("--database-url", COMMAND_LINE) if args.database_url else ("EVAL_DATABASE_URL", SETTINGS)
    )
    url = args.database_url or load_settings().warehouse_url
    what = f"cannot write the demo warehouse {redact_url(url)}"
    with configured(variable, what, source=source):
        if args.action == "generate":
            sqlite_folder(url).mkdir(parents=True, exist_ok=True)
            warehouse.load(url, seed=args.seed)
        else:
            changed = warehouse.refresh(url, tables=args.tables, seed=args.seed)
    if args.action == "generate":
        print(f"demo warehouse written to {redact_url(url)}")
    else:
        rows = ", ".join(f"{table} {n} rows" for table, n in changed.items()) or "no rows"
        print(f"refreshed {redact_url(url)}: {rows} changed")
    return 0


def sqlite_folder(url: str) -> Path:
    """The folder a SQLite URL's file goes in (the current one for any other URL)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return Path()
    return Path(database.removeprefix("file:").partition("?")[0]).parent


def writable_file(path: Path, option: str) -> None:
    """``path`` can be written (its folder created): checked before the evaluation, not after."""
    with configured(option, f"cannot write {path}", source=COMMAND_LINE):
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(path.parent, os.W_OK):
            raise PermissionError(f"{path.parent} is not writable")


def _bot_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ttft", type=float, default=0.05, help="bot time to first token, seconds")
    p.add_argument("--token-rate", type=float, default=200.0, help="bot tokens per second")
    p.add_argument(
        "--answer-time",
        type=float,
        default=None,
        help="end every answer this many seconds after the request, whatever its length",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eval-pipeline",
        description="Evaluate an analytics chatbot; fact-check its numbers on the live warehouse.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run the whole evaluation on the embedded demo world")
    demo.add_argument("--run-key", help="run partition key (default: <UTC time>-demo)")
    demo.add_argument(
        "--world",
        choices=["analytics", "helpdesk"],
        default="analytics",
        help="the analytics warehouse and chatbot, or the help-desk sales assistant",
    )
    demo.add_argument(
        "--fault-seed", type=int, help="demo bot fault seed (7 analytics, 40 help-desk)"
    )
    demo.add_argument(
        "--channel",
        choices=DEMO_CHANNELS,
        default="sse",
        help="how the demo bot is asked: its SSE stream, its JSON endpoint, its OpenAI-compatible "
        "endpoint, or its web page in headless Chromium (default: sse)",
    )
    demo.add_argument("--cases", nargs="+", metavar="ID", help="only these case ids")
    demo.add_argument(
        "--fresh-warehouse", action="store_true", help="regenerate the demo warehouse"
    )
    demo.add_argument(
        "--refresh", action="store_true", help="always on: the demo bot gets a new port each run"
    )
    demo.add_argument("--junit", metavar="PATH", help="also write the cases as JUnit XML")
    _bot_options(demo)
    add_repeats_argument(demo)
    demo.set_defaults(func=cmd_demo)

    run = sub.add_parser(
        "run", help="evaluate the configured chatbot, BKG, golden set and database"
    )
    run.add_argument("--run-key", help="run partition key (default: <UTC time>-manual)")
    run.add_argument("--cases", nargs="+", metavar="ID", help="only these case ids")
    run.add_argument("--refresh", action="store_true", help="re-ask even reusable answers")
    run.add_argument("--junit", metavar="PATH", help="also write the cases as JUnit XML")
    run.add_argument(
        "--min-pass-rate",
        type=fraction,
        help="exit 1 only when the pass rate is below this (default: any failed case exits 1)",
    )
    run.add_argument(
        "--executor",
        choices=get_args(ExecutorKind),
        help="where Dagster runs the steps (default: EVAL_EXECUTOR, else in_process)",
    )
    add_repeats_argument(run)
    run.set_defaults(func=cmd_run)

    validate = sub.add_parser(
        "validate", help="check the BKG, golden dataset and database; list every problem"
    )
    validate.add_argument("--bkg", help="BKG JSON (default: EVAL_BKG_PATH)")
    validate.add_argument("--golden", help="golden dataset JSON (default: EVAL_GOLDEN_PATH)")
    validate.add_argument("--database-url", help="warehouse URL to check ('' to skip)")
    validate.add_argument("--rubric", help="rubric file (default: EVAL_RUBRIC_PATH)")
    validate.set_defaults(func=cmd_validate)

    bot = sub.add_parser("bot", help="serve the demo chatbot (login + SSE) until interrupted")
    bot.add_argument("--host", default="127.0.0.1")
    bot.add_argument("--port", type=port, default=8765)
    bot.add_argument("--database-url", help="warehouse URL (default: the demo warehouse)")
    bot.add_argument("--fault-seed", type=int, default=None, help="inject seeded faults")
    bot.add_argument("--fault-log", help="append the injected faults to this JSONL file")
    _bot_options(bot)
    bot.set_defaults(func=cmd_bot)

    wh = sub.add_parser("warehouse", help="generate or refresh the demo warehouse")
    wh.add_argument("action", choices=["generate", "refresh"])
    wh.add_argument("--database-url", help="target URL (default: the configured warehouse)")
    wh.add_argument("--seed", type=int, default=7)
    wh.add_argument("--tables", nargs="+", default=["hse_audits"], help="tables to refresh")
    wh.set_defaults(func=cmd_warehouse)
    conversations = sub.add_parser(
        "conversations",
        help="evaluate the latest logged conversations (EVAL_CONVERSATIONS_URL) without "
        "asking the bot",
    )
    conversations.add_argument("--run-key", help="default: <UTC time>-conversations")
    conversations.add_argument(
        "--last", type=int, help="how many recent conversations (default EVAL_CONVERSATION_BATCH)"
    )
    conversations.set_defaults(func=cmd_conversations)
    add_compare_subcommands(sub)
    add_calibrate_subcommands(sub)
    add_view_subcommands(sub)
    return parser


def _redacted(message: str) -> str:
    """A message for the terminal (or a CI log) without the settings' secrets."""
    try:
        return Redactor.from_settings(load_settings()).text(message)
    except InputError:  # settings that do not load still hold no credential shape to show
        return Redactor().text(message)


@contextmanager
def write_access_warning_on_stderr() -> Iterator[None]:
    """The warning that the warehouse connection can write, as one line on stderr whatever
    logging the process has set up: Python's last-resort handler, which printed it otherwise,
    is silent as soon as any handler exists (pytest's, an embedding application's)."""
    logger = logging.getLogger("eval_pipeline.core.warehouse.db")
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    logger.addHandler(handler)
    propagated, logger.propagate = logger.propagate, False  # not a second time by a root handler
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagated


def main(argv: Sequence[str] | None = None) -> int:
    warnings.filterwarnings("ignore", message=".*is currently in beta")
    args = build_parser().parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        with write_access_warning_on_stderr():
            return func(args)
    except InputError as exc:
        print(_redacted(str(exc)), file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:  # a bad argument, a file or port that cannot be used
        print(_redacted(f"error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
