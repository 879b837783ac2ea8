"""One bad value stays with its reference (#17 item 6): KPIs returning ``10**400``, NaN or text,
or calling ``sys.exit`` or raising ``KeyboardInterrupt``, leave their own cases in ``error`` with
the reason and no traceback; every other case of the batch is evaluated, the run writes its
summary and exits 1, ``validate`` lists each one by file, case and field, and the run stored
before is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.stored_results import GoodRun
from eval_pipeline_tests.stored_run import stderr_lines, summary_of

TINY = PROJECT_ROOT / "data" / "tiny"

BAD = {  # KPI body: the start of the reason given
    "huge": ("return 10**400", "returned an integer of 1,329 bits, beyond the range of a float"),
    "nan": ("return float('nan')", "returned NaN, not a number"),
    "text": ("return 'lots'", "returned the text 'lots': a scalar result is a number"),
    "exits": ("import sys; sys.exit(3)", "SystemExit: 3"),
    "interrupted": ("raise KeyboardInterrupt", "KeyboardInterrupt"),
}


def bad_world(tmp_path: Path) -> tuple[Path, Path]:
    """The tiny BKG with one KPI per bad behaviour, and the tiny golden set with a copy of
    TC_003 (units sold of one product) asking each of them."""
    bkg = json.loads((TINY / "bkg.json").read_text())
    units = next(k for k in bkg["kpis"] if k["name"] == "units_sold")
    golden: list[dict[str, Any]] = json.loads((TINY / "golden_dataset.json").read_text())
    question = next(c for c in golden if c["id"] == "TC_003")
    for name, (body, _) in BAD.items():
        source = f"def bad_{name}(db, product):\n    {body}\n"
        bkg["kpis"].append({**units, "name": f"bad_{name}", "python_function": source})
        reference = [{"kpi": f"bad_{name}", "params": {"product": "Croissant"}}]
        golden.append({**question, "id": f"BAD_{name}", "reference": reference})
    bkg_path, golden_path = tmp_path / "bad_bkg.json", tmp_path / "bad_golden.json"
    bkg_path.write_text(json.dumps(bkg))
    golden_path.write_text(json.dumps(golden))
    return bkg_path, golden_path


def test_each_bad_value_or_exit_errs_its_own_case_and_the_batch_goes_on(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bkg_path, golden_path = bad_world(tmp_path)
    monkeypatch.setenv("EVAL_BKG_PATH", str(bkg_path))
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(golden_path))

    assert main(["run", "--run-key", "bad"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert stderr_lines(captured.err) == []
    n = len(BAD)
    assert f"5/{5 + n} passed (pass rate 50%, coverage 50%, errors {n}); claims: " in captured.out
    assert f"cases in error by cause: oracle {n}; dimensions in error: oracle in {n}\n" in (
        captured.out
    )
    _, summary = summary_of(captured.out)
    cases = {c["case_id"]: c for c in summary["cases"]}
    for name, (_, reason) in BAD.items():
        case = cases[f"BAD_{name}"]
        assert (case["state"], case["passed"], case["overall"]) == ("error", False, None)
        expected = f"oracle: no reference could be computed: bad_{name}: {reason}"
        assert case["errors"][0].startswith(expected), case["errors"]
    assert all(cases[f"TC_00{i}"]["passed"] for i in range(1, 6)), "the rest of the batch"
    good_env.before.assert_unchanged()

    assert main(["validate"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    lines = captured.err.strip().splitlines()
    assert lines[-1] == f"{n} problem(s) found"
    for (name, (_, reason)), line in zip(BAD.items(), lines[:-1], strict=True):
        prefix = f"{golden_path}: BAD_{name}.reference[0]: kpi 'bad_{name}' failed: {reason}"
        assert line.startswith(prefix), line
    good_env.before.assert_unchanged()
