"""Issue #17, item 8: no secret, nor any 8-character piece of one, in anything stored or logged.

A chatbot on loopback that leaks on purpose (its bearer token and login password echoed in
answers; error bodies holding the password, the token and the warehouse DSN at offsets on both
sides of the 200-character excerpt; an error event carrying the DSN), a KPI whose exception
message holds the DSN, and a judge whose every error echoes its API key. Two evaluations through
the CLI, then every output an outsider could have made a secret reach is read back — summary.json,
report.html, JUnit XML, every row of every table of the results store, every table of every
database of the Dagster instance and its other files, and what the commands printed and logged —
and none may hold a secret or a piece of one. The markers prove the secrets did come in; each
case's reason reads as one line with the secret replaced where it stood, and the second run leaves
the first as it was stored.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from eval_pipeline.cli.main import main
from eval_pipeline.core.redaction import PIECE_CHARS
from eval_pipeline.demo import tiny
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.scripted_openai import ScriptedOpenAI, error
from eval_pipeline_tests.stored_results import one_line
from eval_pipeline_tests.stored_run import StoredRun, summary_of

TINY = PROJECT_ROOT / "data" / "tiny"
PASSWORD = f"pw-{uuid.uuid4().hex[:20]}"
TOKEN = f"tok{uuid.uuid4().hex}"
DB_SECRET = f"dbpw{uuid.uuid4().hex[:16]}"
LLM_KEY = f"sk-test-{uuid.uuid4().hex}"
SECRETS = {"password": PASSWORD, "token": TOKEN, "dsn": DB_SECRET, "llm_key": LLM_KEY}
BODY_OFFSETS = (150, 172, 180, 185, 190, 195, 199, 200, 230)
QUESTION = "What was the total revenue over the quarter?"


def pieces(secret: str) -> set[str]:
    return {secret[i : i + PIECE_CHARS] for i in range(len(secret) - PIECE_CHARS + 1)}


def leaks(text: str) -> list[str]:
    return sorted({f"{name}:{p}" for name, s in SECRETS.items() for p in pieces(s) if p in text})


class LeakyBot:
    """Login → opaque bearer token; each question ends with the behaviour it asks for."""

    def __init__(self, warehouse_url: str) -> None:
        self.dsn = warehouse_url
        self.engine = sa.create_engine(warehouse_url)
        bot = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if self.path == "/auth/login":
                    ok = body.get("password") == PASSWORD
                    self.reply(200 if ok else 401, {"access_token": TOKEN} if ok else {})
                elif self.headers.get("authorization") != f"Bearer {TOKEN}":
                    self.reply(401, {"detail": "bad token"})
                else:
                    bot.chat(self, body["question"])

            def reply(self, status: int, data: Any, kind: str = "application/json") -> None:
                raw = data.encode() if isinstance(data, str) else json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *_args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def chat(self, handler: Any, question: str) -> None:
        behaviour = re.search(r"\[(.*)\]$", question)
        what = behaviour.group(1) if behaviour else "honest"
        answer = tiny.answer(question, self.engine)
        if what.startswith("body "):
            offset = int(what.split()[1])
            leak = f"password={PASSWORD} token={TOKEN} dsn={self.dsn} key={LLM_KEY}"
            handler.reply(400, "e" * offset + leak + " end", "text/plain")
            return
        events = []
        if what == "echo_token":
            events.append(("chunk", {"text": f"{answer} Your session token is {TOKEN}."}))
        elif what == "echo_password":
            events.append(("chunk", {"text": f"{answer} I logged in with {PASSWORD} today."}))
        elif what == "error_event_dsn":
            events.append(("error", {"message": f"could not reach {self.dsn}: timeout"}))
        else:
            events.append(("chunk", {"text": answer}))
        events.append(("done", {}))
        stream = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events)
        handler.reply(200, stream, "text/event-stream")

    def __enter__(self) -> LeakyBot:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.engine.dispose()


def leaky_inputs(tmp_path: Path) -> tuple[Path, Path]:
    bkg = json.loads((TINY / "bkg.json").read_text())
    revenue = next(k for k in bkg["kpis"] if k["name"] == "total_revenue")
    bkg["kpis"].append(
        {
            **revenue,
            "name": "leaky_revenue",
            "python_function": (
                "def leaky_revenue(db, month=None):\n"
                "    raise RuntimeError(f'warehouse unreachable at {db.url}')\n"
            ),
        }
    )
    reference = [{"kpi": "total_revenue", "params": {}}]
    behaviours = [
        "honest",
        "echo_token",
        "echo_password",
        "error_event_dsn",
        *(f"body {n}" for n in BODY_OFFSETS),
    ]
    cases = [
        {"id": f"S_{i:02d}", "question": f"{QUESTION} [{b}]", "reference": reference}
        for i, b in enumerate(behaviours)
    ]
    cases.append(
        {
            "id": "S_KPI",
            "question": f"{QUESTION} [honest]",
            "reference": [{"kpi": "leaky_revenue", "params": {}}],
        }
    )
    bkg_path, golden_path = tmp_path / "bkg.json", tmp_path / "golden.json"
    bkg_path.write_text(json.dumps(bkg))
    golden_path.write_text(json.dumps(cases))
    return bkg_path, golden_path


@pytest.fixture
def warehouse_url(pg_schema_url: str) -> str:
    """The tiny warehouse in a fresh PostgreSQL schema, reached with a password in the DSN (the
    test server trusts loopback, so any password connects)."""
    tiny.load(pg_schema_url)
    url = sa.make_url(pg_schema_url).set(password=DB_SECRET)
    return url.render_as_string(hide_password=False)


@pytest.fixture
def leaky_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warehouse_url: str
) -> Iterator[tuple[Path, Path]]:
    bkg_path, golden_path = leaky_inputs(tmp_path)
    home, dagster_home = tmp_path / "home", tmp_path / "dagster_home"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text((PROJECT_ROOT / "dagster.yaml").read_text())
    with LeakyBot(warehouse_url) as bot:
        env = {
            "HOME": str(home),
            "BKG_PATH": str(bkg_path),
            "GOLDEN_PATH": str(golden_path),
            "DATABASE_URL": warehouse_url,
            "CHATBOT_KIND": "sse",
            "CHATBOT_URL": bot.url,
            "CHATBOT_USERNAME": "eval",
            "CHATBOT_PASSWORD": PASSWORD,
            "CHATBOT_RETRIES": "0",
            "CONCURRENCY": "4",
        }
        for key, value in env.items():
            monkeypatch.setenv(f"EVAL_{key}", value)
        monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
        yield home, dagster_home


def sqlite_text(path: Path) -> str:
    """Every value of every table of a SQLite file, as text."""
    out = []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                out.extend(str(v) for v in row)
    return "\n".join(out)


def everything_stored(*folders: Path) -> dict[str, str]:
    """Each file under the folders as text: SQLite databases table by table, others as bytes."""
    found = {}
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            if path.suffix in {".db-wal", ".db-shm"} or path.name.endswith(("-wal", "-shm")):
                continue
            raw = path.read_bytes()
            text = sqlite_text(path) if raw.startswith(b"SQLite format 3") else ""
            found[str(path)] = text + "\n" + raw.decode("utf-8", "replace")
    return found


@pytest.mark.postgres
def test_no_secret_or_piece_of_one_is_stored_or_logged(
    leaky_env: tuple[Path, Path],
    warehouse_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    home, dagster_home = leaky_env
    junit = home / "reports" / "leaky.junit.xml"
    code = main(["run", "--run-key", "leaky", "--junit", str(junit)])
    printed = [capsys.readouterr()]
    assert code == 1, printed[0].err
    leaky = StoredRun.of(f"sqlite:///{home / 'results.db'}", summary_of(printed[0].out)[0])
    with ScriptedOpenAI(api_key=LLM_KEY) as judge:
        judge.default = error(400, message=f"this deployment refuses key {LLM_KEY} for now")
        monkeypatch.setenv("EVAL_LLM_BASE_URL", judge.base_url)
        monkeypatch.setenv("EVAL_LLM_MODEL", "judge")
        monkeypatch.setenv("EVAL_LLM_API_KEY", LLM_KEY)
        monkeypatch.setenv("EVAL_LLM_MAX_RETRIES", "0")
        assert main(["run", "--run-key", "leaky-judge"]) == 1
        printed.append(capsys.readouterr())
        assert len(judge.requests) > 1, "the judge was asked beyond its probe"
    assert main(["junit", "leaky-judge", "-o", str(home / "reports" / "judge.junit.xml")]) == 0
    printed.append(capsys.readouterr())
    stored = everything_stored(home, dagster_home)
    stored["stdout and stderr"] = "\n".join(p.out + p.err for p in printed)
    stored["log records"] = "\n".join(r.getMessage() for r in caplog.records)

    assert {k: leaks(v) for k, v in stored.items() if leaks(v)} == {}
    leaky.assert_unchanged()  # the second run, with its judge, left the first one as it was

    # What each run said: on stderr one line only, the superuser's warning with its DSN redacted.
    shown = warehouse_url.replace(DB_SECRET, "***")
    for run in printed[:2]:
        assert one_line(run.err).startswith(
            f"WARNING: the warehouse connection EVAL_DATABASE_URL={shown} can write ("
        )
    # Each case's reason is one line, each secret replaced in place, the excerpt cut after.
    reasons = [
        e for run in printed[:2] for c in summary_of(run.out)[1]["cases"] for e in c["errors"]
    ]
    assert reasons and not [e for e in reasons if "\n" in e]
    dsn = warehouse_url.replace(DB_SECRET, "[redacted:database_url_password]")
    errors = {c["case_id"]: c["errors"] for c in summary_of(printed[0].out)[1]["cases"]}
    assert errors["S_03"] == [f"chatbot: chatbot error event: could not reach {dsn}: timeout"]
    assert errors["S_04"] == [
        f"chatbot: chat request rejected: HTTP 400: {'e' * BODY_OFFSETS[0]}"
        "password=[redacted:chatbot_password] token=…"
    ]
    assert errors["S_KPI"] == [
        "oracle: no reference could be computed: leaky_revenue: RuntimeError: warehouse "
        f"unreachable at {dsn} (kpis.leaky_revenue line 2)"
    ]
    judged = summary_of(printed[1].out)[1]["cases"][0]
    refused = (
        "HTTP 400: Error code: 400 - this deployment refuses key [redacted:llm_api_key] for now"
    )
    assert judged["case_id"] == "S_00" and all(e.endswith(refused) for e in judged["errors"])

    # The secrets did come in and were replaced where they landed.
    summary = json.loads((home / "reports" / "leaky" / "summary.json").read_text())
    cases = {c["case_id"]: c for c in summary["cases"]}
    for case_id in ("S_01", "S_02"):
        assert any("credential in the answer" in g for g in cases[case_id]["gate_failures"])
    results = sqlite_text(home / "results.db")
    for name in (
        "chatbot_token",
        "chatbot_password",
        "database_url_password",
        "llm_api_key",
    ):
        assert f"[redacted:{name}]" in results, name
    report = (home / "reports" / "leaky" / "report.html").read_text()
    assert "[redacted:chatbot_token]" in report
    assert junit.is_file() and "S_04" in junit.read_text()
    run_logs = "\n".join(v for k, v in stored.items() if k.startswith(str(dagster_home)))
    assert "failed chatbot calls" in run_logs and "[redacted:chatbot_password]" in run_logs
