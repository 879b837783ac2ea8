"""The reports of every run, served over HTTP: ``eval-pipeline view`` and the Dagster UI's links.

A ``file://`` link does not open from a web page, so the Dagster UI links to this viewer instead:
``/`` lists the runs under the reports folder, newest first, and ``/runs/<run key>/report.html``
serves a run's report (``#case-<id>`` opens that case).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from eval_pipeline.core.summary import RunSummary

FILES = {"report.html": "text/html; charset=utf-8", "summary.json": "application/json"}

_INDEX = Environment(autoescape=select_autoescape(default=True)).from_string(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Evaluation reports</title>
<style>
 body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 16px; max-width: 1100px; }
 table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 5px 8px;
 border-bottom: 1px solid #d0d7de; } th { background: #f6f8fa; } .bad { color: #cf222e; }
 .wrap { overflow-x: auto; } code { word-break: break-all; }
</style></head><body>
<h1>Evaluation reports</h1>
<p>{{ runs | length }} runs under <code>{{ folder }}</code>, newest first.</p>
{% if runs %}<div class="wrap"><table id="runs">
<thead><tr><th>run</th><th>created</th><th>cases</th><th>passed</th><th>failed</th>
<th>errors</th><th>pass rate</th></tr></thead><tbody>
{% for r in runs %}<tr data-run="{{ r.run_key }}">
<td>{% if r.report %}<a href="{{ r.href }}">{{ r.run_key }}</a>{% else %}{{ r.run_key }}
 <span class="bad">(no report yet)</span>{% endif %}</td>
<td>{{ r.created }}</td><td>{{ r.total }}</td><td>{{ r.passed }}</td>
<td>{{ r.failed }}</td><td>{{ r.error }}</td><td>{{ r.pass_rate }}</td></tr>
{% endfor %}</tbody></table></div>
{% else %}<p>No run has been evaluated yet: <code>eval-pipeline run</code> writes the first.</p>
{% endif %}</body></html>"""
)


def report_url(base: str, run_key: str, case_id: str | None = None) -> str:
    """The viewer's URL of a run's report, opened at a case when one is given."""
    url = f"{base.rstrip('/')}/runs/{quote(run_key, safe='')}/report.html"
    return url if case_id is None else f"{url}#case-{quote(case_id, safe='')}"


def _run_row(folder: Path) -> dict[str, Any]:
    """What the index shows of one run folder: its summary's counts, when it has one."""
    try:
        summary = RunSummary.model_validate_json((folder / "summary.json").read_bytes())
    except (OSError, ValueError):
        summary = None
    report = folder / "report.html"
    written = report if report.exists() else folder
    stamp = summary.created_at if summary else datetime.fromtimestamp(written.stat().st_mtime, UTC)
    return {
        "run_key": folder.name,
        "href": f"runs/{quote(folder.name, safe='')}/report.html",
        "report": report.exists(),
        "created": str(stamp)[:19].replace("T", " "),
        "sort": str(stamp),
        "total": summary.cases_total if summary else "—",
        "passed": summary.cases_passed if summary else "—",
        "failed": summary.cases_failed if summary else "—",
        "error": summary.cases_error if summary else "—",
        "pass_rate": f"{summary.pass_rate:.0%}" if summary else "—",
    }


def list_runs(reports: Path) -> list[dict[str, Any]]:
    """Every run folder under ``reports``, newest first."""
    folders = [p for p in reports.iterdir() if p.is_dir()] if reports.is_dir() else []
    return sorted((_run_row(f) for f in folders), key=lambda r: r["sort"], reverse=True)


def build_app(reports: Path) -> Starlette:
    """The viewer over the reports folder; nothing outside it is ever served."""
    root = reports.resolve()

    async def index(request: Request) -> Response:
        html = _INDEX.render(runs=list_runs(root), folder=str(root))
        return HTMLResponse(html)

    async def run_file(request: Request) -> Response:
        run_key = request.path_params["run_key"]
        name = request.path_params.get("name", "report.html")
        path = (root / run_key / name).resolve()
        if name not in FILES or path.parent.parent != root or not path.is_file():
            raise HTTPException(404, f"no {name} for run {run_key!r}")
        return FileResponse(path, media_type=FILES[name])

    async def run_folder(request: Request) -> Response:
        return RedirectResponse(f"{request.url.path.rstrip('/')}/report.html")

    return Starlette(
        routes=[
            Route("/", index),
            Route("/runs/{run_key}/{name}", run_file),
            Route("/runs/{run_key}", run_folder),
            Route("/runs/{run_key}/", run_folder),
        ]
    )
