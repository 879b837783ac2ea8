"""Run Python written by a model, which is untrusted, in a separate confined process.

BKG functions are trusted and run in-process; model-written code never does. It is checked against
an AST policy here (no process is spent on code that would be refused), then run by
``sandbox_child.py`` in a fresh interpreter (``-I -S -B``: no environment variables, no installed
packages, no bytecode writes) started with an empty environment, in a temporary working
directory deleted afterwards, in its own session so that a wall-clock kill takes the whole process
group. The child checks the policy again, confines itself (unprivileged user, rlimits) and runs the
code with curated builtins. The code reads ``inputs`` and answers by assigning ``result``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from eval_pipeline.core.warehouse.db import to_python
from eval_pipeline.core.warehouse.sandbox_child import check_source

CHILD_SCRIPT = Path(__file__).with_name("sandbox_child.py")
_STDERR_TAIL = 500

KilledBy = Literal["cpu", "memory", "wall", "refused"]


class SandboxResult(BaseModel):
    """Outcome of one run; ``killed_by`` says which wall stopped the code, if one did."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    result: Any = None
    stdout: str = ""
    error: str | None = None
    killed_by: KilledBy | None = None


@dataclass(frozen=True)
class IsolatedRun:
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool


def run_isolated_python(args: Sequence[str], stdin: bytes, *, wall_s: float) -> IsolatedRun:
    """``python -I -S -B *args`` with an empty environment, in a throwaway cwd and own session.

    On a wall-clock timeout the whole process group is killed, so nothing it started survives.
    """
    with tempfile.TemporaryDirectory(prefix="sandbox-") as workdir:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env={},
            start_new_session=True,
            close_fds=True,
        )
        try:
            stdout, stderr = process.communicate(stdin, timeout=wall_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # it may end before the kill
                os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            timed_out = True
    return IsolatedRun(process.returncode, stdout, stderr, timed_out)


def _json_default(value: Any) -> Any:
    converted = to_python(value)
    if converted is value:
        raise TypeError(f"{type(value).__name__} is not JSON-serialisable")
    return converted


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _from_exit(run: IsolatedRun, cpu_s: float, wall_s: float) -> SandboxResult:
    if run.timed_out:
        return SandboxResult(
            ok=False, error=f"wall-clock limit of {wall_s:g}s exceeded", killed_by="wall"
        )
    if run.returncode == -signal.SIGXCPU:
        return SandboxResult(ok=False, error=f"CPU limit of {cpu_s:g}s exceeded", killed_by="cpu")
    if run.returncode == 0:
        try:
            envelope = json.loads(run.stdout)
            result = json.loads(envelope.pop("result_json", "null"))
            return SandboxResult(result=result, **envelope)
        except ValueError:  # includes pydantic's ValidationError and JSONDecodeError
            return SandboxResult(ok=False, error="the sandbox returned an unreadable answer")
    stderr = run.stderr.decode("utf-8", "replace").strip()
    if "MemoryError" in stderr:
        return SandboxResult(ok=False, error="MemoryError: memory limit", killed_by="memory")
    cause = (
        f"killed by {_signal_name(-run.returncode)}"
        if run.returncode < 0
        else f"exited with status {run.returncode}"
    )
    tail = stderr.splitlines()[-1][:_STDERR_TAIL] if stderr else ""
    return SandboxResult(ok=False, error=f"the sandbox {cause}" + (f": {tail}" if tail else ""))


def execute_python(
    code: str,
    *,
    inputs: Mapping[str, Any] | None = None,
    cpu_s: float = 2,
    memory_mb: int = 256,
    wall_s: float = 5,
) -> SandboxResult:
    """Run untrusted ``code`` with ``inputs`` bound to ``inputs``; return what it assigns to
    ``result``. Every failure, refusal or kill comes back as a result, never as an exception."""
    problems = check_source(code)
    if problems:
        return SandboxResult(ok=False, error="refused: " + "; ".join(problems), killed_by="refused")
    try:
        request = json.dumps({"code": code, "inputs": dict(inputs or {})}, default=_json_default)
    except (TypeError, ValueError) as exc:
        return SandboxResult(ok=False, error=f"inputs are not JSON-serialisable: {exc}")
    run = run_isolated_python(
        [str(CHILD_SCRIPT), repr(float(cpu_s)), str(int(memory_mb))],
        request.encode(),
        wall_s=wall_s,
    )
    return _from_exit(run, cpu_s, wall_s)
