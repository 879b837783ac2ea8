"""Escape attempts against the Python sandbox: each must be refused or killed, and say which.

Limits are small so the whole file runs in a few seconds; nothing here asserts on wall-clock time.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
from pathlib import Path

import numpy as np
import pytest

from eval_pipeline.core.warehouse.sandbox import (
    CHILD_SCRIPT,
    SandboxResult,
    execute_python,
    run_isolated_python,
)
from eval_pipeline.core.warehouse.sandbox_child import STDOUT_CAP

FAST = {"cpu_s": 1, "memory_mb": 64, "wall_s": 10}

REFUSED = {
    "import_os": ("import os\nos.system('id')", "import of 'os'"),
    "import_subprocess": ("import subprocess", "import of 'subprocess'"),
    "import_socket": ("import socket\nsocket.socket()", "import of 'socket'"),
    "import_multiprocessing": ("import multiprocessing", "import of 'multiprocessing'"),
    "from_os_import_system": ("from os import system\nsystem('id')", "import from 'os'"),
    "relative_import": ("from . import sandbox", "import from '.'"),
    "dunder_import": ("__import__('os').system('id')", "'__import__'"),
    "open_file": ("result = open('/etc/passwd').read()", "'open' is not allowed"),
    "write_outside": ("open('/tmp/sandbox_escape', 'w').write('x')", "'open' is not allowed"),
    "subclasses_walk": ("result = ().__class__.__bases__[0].__subclasses__()", "'__class__'"),
    "getattr_builtins": ("result = getattr(__builtins__, 'open')", "'getattr' is not allowed"),
    "lambda_globals": ("result = (lambda: 0).__globals__", "'__globals__'"),
    "generator_frame": (
        "g = (i for i in [1])\nresult = g.gi_frame.f_back.f_globals",
        "'gi_frame'",
    ),
    "eval": ("result = eval('1 + 1')", "'eval' is not allowed"),
    "exec": ("exec('import os')", "'exec' is not allowed"),
    "compile": ("compile('1', 'f', 'eval')", "'compile' is not allowed"),
    "vars": ("result = vars()", "'vars' is not allowed"),
    "breakpoint": ("breakpoint()", "'breakpoint' is not allowed"),
    "format_attribute_walk": ("result = '{0.__class__}'.format(1)", "'format'"),
    "operator_attrgetter": (
        "import operator\nresult = operator.attrgetter('__class__')(1)",
        "'attrgetter'",
    ),
    "from_operator_methodcaller": (
        "from operator import methodcaller\nresult = methodcaller('__subclasses__')(object)",
        "operator.methodcaller",
    ),
    "private_module_member": ("import collections\nresult = collections._sys", "'_sys'"),
    "match_class_attribute": (
        "match 1:\n    case int(__class__=c):\n        result = 1",
        "'__class__'",
    ),
    "class_definition": ("class A:\n    pass", "class definitions"),
    "rebind_builtins": ("import math as __builtins__", "'__builtins__'"),
    "syntax_error": ("result = (", "does not parse"),
}


def _describe(result: SandboxResult) -> str:
    return f"killed_by={result.killed_by} error={result.error}"


@pytest.mark.parametrize(("code", "reason"), REFUSED.values(), ids=REFUSED.keys())
def test_escape_attempts_are_refused_before_running(code: str, reason: str) -> None:
    result = execute_python(code, **FAST)
    assert not result.ok
    assert result.killed_by == "refused", _describe(result)
    assert result.error is not None and reason in result.error, result.error
    assert result.error.startswith("refused: line ") or "does not parse" in result.error


def test_fork_bomb_has_no_route_past_the_policy() -> None:
    # Every way to reach fork/spawn is an import or attribute the policy refuses...
    for code in (
        "import os\nwhile True:\n    os.fork()",
        "import subprocess\nsubprocess.Popen(['sh'])",
        "import multiprocessing",
        "import pty",
        "__import__('os').fork()",
    ):
        assert execute_python(code, **FAST).killed_by == "refused", code
    # ...and a module's own imports are not reachable through it: this passes the AST policy
    # but the child hands out module proxies without sub-modules.
    code = "import statistics\nresult = statistics.sys.modules['os'].getpid()"
    result = execute_python(code, **FAST)
    assert result.killed_by is None
    assert not result.ok
    assert result.error is not None
    assert "has no attribute 'sys'" in result.error
    assert "(line 2)" in result.error


def test_even_with_os_in_hand_the_confined_process_cannot_fork_write_or_connect() -> None:
    """Defense in depth below the policy: the same confinement the child applies, then raw os."""
    probe = f"""
import json, os, socket, sys
sys.path.insert(0, {str(CHILD_SCRIPT.parent)!r})
import sandbox_child
sandbox_child.confine(cpu_s=2, memory_mb=256)
seen = {{"uid": os.getuid()}}
def attempt(name, action):
    try:
        action()
        seen[name] = "succeeded"
    except OSError as exc:
        seen[name] = type(exc).__name__
attempt("fork", os.fork)
attempt("write", lambda: open("/tmp/sandbox_probe_escape", "w").write("x"))
attempt("read", lambda: open("/etc/hostname").read())
attempt("socket", socket.socket)
print(json.dumps(seen))
"""
    run = run_isolated_python(["-c", probe], b"", wall_s=10)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["uid"] != 0  # root is dropped: RLIMIT_NPROC does not bind root
    assert seen["fork"] == "BlockingIOError"  # RLIMIT_NPROC = 0
    assert seen["write"] != "succeeded"  # no descriptor left (RLIMIT_NOFILE = 3)
    assert seen["read"] != "succeeded"
    assert seen["socket"] != "succeeded"
    assert not Path("/tmp/sandbox_probe_escape").exists()


def test_endless_loop_is_killed_by_the_cpu_limit() -> None:
    result = execute_python("while True:\n    pass", cpu_s=1, memory_mb=64, wall_s=30)
    assert (result.ok, result.killed_by) == (False, "cpu"), _describe(result)


def test_endless_loop_is_killed_by_the_wall_clock() -> None:
    result = execute_python("while True:\n    pass", cpu_s=30, memory_mb=64, wall_s=0.5)
    assert (result.ok, result.killed_by) == (False, "wall"), _describe(result)
    assert result.error == "wall-clock limit of 0.5s exceeded"


@pytest.mark.parametrize(
    "code",
    [
        "x = 'a' * 10**10\nresult = len(x)",
        "x = []\nwhile True:\n    x.append(' ' * 10**6)",
    ],
    ids=["one_huge_string", "growing_list"],
)
def test_memory_bombs_hit_the_memory_limit(code: str) -> None:
    result = execute_python(code, **FAST)
    assert (result.ok, result.killed_by) == (False, "memory"), _describe(result)


def test_parent_secrets_do_not_reach_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_CHATBOT_PASSWORD", "s3cret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    refused = execute_python("import os\nresult = os.environ['EVAL_CHATBOT_PASSWORD']", **FAST)
    assert refused.killed_by == "refused"
    # The process the sandbox starts sees an empty environment and a throwaway cwd.
    probe = "import json, os; print(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd()}))"
    run = run_isolated_python(["-c", probe], b"", wall_s=10)
    seen = json.loads(run.stdout)
    assert "s3cret" not in run.stdout.decode()
    assert not any(
        word in name.upper() for name in seen["env"] for word in ("EVAL", "KEY", "PASSWORD")
    )
    assert set(seen["env"]) <= {"LC_CTYPE"}  # only what the interpreter sets for itself
    assert seen["cwd"] != os.getcwd()
    assert not Path(seen["cwd"]).exists()  # deleted afterwards


def test_the_child_checks_the_policy_again() -> None:
    """A caller that skipped the parent's check still meets the same policy inside the child."""
    request = json.dumps({"code": "import os\nresult = os.getcwd()", "inputs": {}}).encode()
    run = run_isolated_python([str(CHILD_SCRIPT), "1", "64"], request, wall_s=10)
    envelope = json.loads(run.stdout)
    assert envelope["killed_by"] == "refused"
    assert "import of 'os'" in envelope["error"]


def test_builtins_inside_the_child_are_curated() -> None:
    # Not refused statically, but the child's builtins do not hold them.
    for name in ("staticmethod", "classmethod", "id", "property"):
        result = execute_python(f"result = repr({name})", **FAST)
        assert result.killed_by is None
        assert result.error == f"NameError: name {name!r} is not defined (line 1)"


def test_statistics_from_inputs_succeed() -> None:
    code = """
import statistics
from collections import Counter
values = [row["value"] for row in inputs["rows"]]
print("n =", len(values))
result = {
    "mean": statistics.mean(values),
    "median": statistics.median(values),
    "stdev": round(statistics.stdev(values), 6),
    "top_label": Counter(row["label"] for row in inputs["rows"]).most_common(1)[0][0],
    "share": sum(values[:2]) / sum(values),
}
"""
    rows = [{"label": "x", "value": 2}, {"label": "y", "value": 4}, {"label": "x", "value": 6}]
    result = execute_python(code, inputs={"rows": rows}, **FAST)
    assert result.ok, result.error
    assert result.result == {
        "mean": 4,
        "median": 4,
        "stdev": 2.0,
        "top_label": "x",
        "share": 0.5,
    }
    assert result.stdout == "n = 3\n"
    assert result.killed_by is None


def test_non_json_inputs_are_converted() -> None:
    inputs = {"d": decimal.Decimal("1.25"), "day": dt.date(2024, 3, 1), "n": np.int64(7)}
    code = "result = [inputs['d'] * 2, inputs['day'], inputs['n'] + 1]"
    result = execute_python(code, inputs=inputs, **FAST)
    assert result.ok, result.error
    assert result.result == [2.5, "2024-03-01", 8]


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("x = 1", "the code did not assign `result`"),
        ("import decimal\nresult = decimal.Decimal(1)", "`result` is not JSON"),
        ("result = float('nan')", "`result` is not JSON"),
        ("a = 1\nresult = a / 0", "ZeroDivisionError: division by zero (line 2)"),
    ],
)
def test_failures_of_the_code_itself_are_reported(code: str, error: str) -> None:
    result = execute_python(code, **FAST)
    assert not result.ok
    assert result.killed_by is None
    assert result.error is not None and result.error.startswith(error), result.error


def test_printed_output_is_capped() -> None:
    result = execute_python("print('x' * 100000)\nresult = 1", **FAST)
    assert result.ok
    assert result.stdout.startswith("x" * STDOUT_CAP)
    assert "more characters dropped" in result.stdout
    assert len(result.stdout) < STDOUT_CAP + 100
