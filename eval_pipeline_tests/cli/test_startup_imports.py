"""The commands users feel start fast: ``--help`` and ``validate`` import no heavy library they
do not use. Each command runs in a fresh interpreter, so nothing imported by the tests counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from eval_pipeline.demo import warehouse

HEAVY = {"dagster", "torch", "openai", "pandas", "pyarrow", "scipy", "sentence_transformers"}

_PROBE = """
import json, sys
from eval_pipeline.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted({m.partition(".")[0] for m in sys.modules})}))
"""


def run_fresh(home: Path, *argv: str) -> tuple[int, set[str]]:
    """Exit code of ``eval-pipeline ARGV`` run in a new interpreter, and the top-level modules it
    imported; settings come only from ``EVAL_HOME``, not from this shell or a ``.env``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        env={**env, "EVAL_HOME": str(home)},
        cwd=home,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    return report["code"], set(report["modules"])


def test_help_imports_no_heavy_library(tmp_path: Path) -> None:
    code, modules = run_fresh(tmp_path, "--help")
    assert code == 0
    assert modules & HEAVY == set()


def test_validate_imports_only_what_checking_the_inputs_needs(tmp_path: Path) -> None:
    warehouse.load(f"sqlite:///{tmp_path / 'demo_warehouse.db'}")
    code, modules = run_fresh(tmp_path, "validate")
    assert (
        code == 0
    )  # every input valid: the BKG, the golden set and each reference on the warehouse
    # the references run in the BKG process, which alone needs pandas for their DataFrames
    assert modules & HEAVY == set()


def test_the_evaluation_loads_the_openai_sdk_only_to_call_a_model() -> None:
    """``run`` without an LLM judge or an ``openai_chat`` bot never builds a client: the SDK
    would add 0.6 s to its start. Nor does it load pandas (0.5 s) before a step makes a
    DataFrame: its references are computed in the BKG process."""
    probe = (
        "import sys, eval_pipeline.runner.evaluate; "
        "print('openai' in sys.modules, 'pandas' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "False False", result.stderr
