"""``eval-pipeline view``: serve every report under ``EVAL_HOME`` until interrupted."""

from __future__ import annotations

import argparse
from typing import Any

from eval_pipeline.settings import load_settings


def cmd_view(args: argparse.Namespace) -> int:
    import uvicorn

    from eval_pipeline.core.report.viewer import build_app

    reports = load_settings().reports_dir
    print(f"serving the reports in {reports} on http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(build_app(reports), host=args.host, port=args.port, log_level="warning")
    return 0


def add_subcommands(sub: Any) -> None:
    """Register ``view`` on the CLI's subparsers."""
    from eval_pipeline.settings import VIEW_PORT

    view = sub.add_parser(
        "view", help="serve every run's report over HTTP (what the Dagster UI links to)"
    )
    view.add_argument("--host", default="127.0.0.1")
    view.add_argument("--port", type=int, default=VIEW_PORT, help=f"default {VIEW_PORT}")
    view.set_defaults(func=cmd_view)
