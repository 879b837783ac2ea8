"""Judge calibration end to end: two scripted judge models with known disagreement over a stored
run, human labels, storage per judge version, and the demotion of uncalibrated dimensions."""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import permutations
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

from eval_pipeline.cli.calibrate import add_subcommands
from eval_pipeline.core.aggregate import GatePolicy, judge_case
from eval_pipeline.core.analysis.calibration import (
    JudgeAgreement,
    calibrate,
    calibration_status,
    demotions,
    judge_version,
    latest_calibration,
    load_human_labels,
    store_calibration,
)
from eval_pipeline.core.dimensions.judges import prompt_versions
from eval_pipeline.core.inputs import load_bkg
from eval_pipeline.core.llm.client import JudgeClient
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.core.models import (
    BKG,
    ChatPayload,
    DimensionResult,
    GoldenCase,
    OracleResult,
    ToolCall,
)
from eval_pipeline.core.problems import InputError
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS, PROJECT_ROOT
from eval_pipeline_tests.scripted_openai import (
    RecordedRequest,
    Reply,
    ScriptedOpenAI,
    content,
    error,
)

KEY = "sk-calibration-test-key"
RUN = "run-cal"
DEMO = PROJECT_ROOT / "data" / "demo"
CASES = ["c1", "c2", "c3", "c4", "c5", "c6"]
ERROR = "error"

# The scripted judgements: model → dimension → case → score (ERROR: an unparsable reply).
SCRIPT: dict[str, dict[str, dict[str, Any]]] = {
    "judge-a": {
        "content_quality": dict(zip(CASES, [1.0, 0.8, 0.2, 0.0, 0.6, 0.4], strict=True)),
        "on_topic": dict(zip(CASES, [1.0, 1.0, 0.5, 0.0, 0.75, 0.25], strict=True)),
        "bkg": {"c1": 0.9, "c2": 0.1, "c4": 0.65},
    },
    "judge-b": {
        "content_quality": dict(zip(CASES, [1.0, 0.4, 0.2, 0.8, 0.6, 0.4], strict=True)),
        "on_topic": dict(zip(CASES, [1.0, 0.75, ERROR, 0.0, 0.75, 0.5], strict=True)),
        "bkg": {"c1": 0.8, "c2": 0.2, "c4": 0.5},
    },
}
BKG_CASES = ["c1", "c2", "c4"]


def alpha_by_coincidences(rows: Sequence[Sequence[float | None]]) -> float | None:
    """Krippendorff's α from its coincidence form, α = 1 − (n−1)·Σ o_ck δ² / Σ n_c n_k δ²,
    enumerating every pair of values in exact fractions — a different route from the module's."""
    units = [
        [Fraction(str(v)) for v in column if v is not None] for column in zip(*rows, strict=True)
    ]
    units = [u for u in units if len(u) >= 2]
    values = [v for u in units for v in u]
    n = len(values)
    observed = sum(
        ((a - b) ** 2 / (len(u) - 1) for u in units for a, b in permutations(u, 2)), Fraction(0)
    )
    expected = sum(((a - b) ** 2 for a, b in permutations(values, 2)), Fraction(0))
    return None if expected == 0 else float(1 - (n - 1) * observed / expected)


def axis(score: float) -> dict[str, Any]:
    return {"score": score, "reason": "scripted"}


def rubric(dimension: str, score: float) -> dict[str, Any]:
    if dimension == "content_quality":
        return {
            "correctness": axis(score),
            "completeness": axis(score),
            "grounding": axis(score),
            "unforgivable_violations": [],
            "summary": "scripted",
        }
    if dimension == "on_topic":
        return {"relevance": axis(score), "adherence": axis(score), "summary": "scripted"}
    return {
        "entity_grounding": axis(score),
        "schema_fit": axis(score),
        "unknown_entities": [],
        "summary": "scripted",
    }


def dimension_of(request: RecordedRequest) -> str:
    name = request.body["response_format"]["json_schema"]["name"]
    return str(name).removesuffix("_judgement")


def case_of(request: RecordedRequest) -> str:
    found = re.search(r"CASE-(c\d+)", request.text)
    assert found, "every judge prompt carries the case's question"
    return found.group(1)


def scripted_judges(request: RecordedRequest) -> Reply:
    score = SCRIPT[request.body["model"]][dimension_of(request)][case_of(request)]
    return (
        content("not json at all")
        if score == ERROR
        else content(json.dumps(rubric(dimension_of(request), score)))
    )


@pytest.fixture(scope="module")
def bkg() -> BKG:
    return load_bkg(DEMO / "bkg.json")


@pytest.fixture
def store_url(tmp_path: Path, bkg: BKG) -> str:
    """A stored run: six answered cases, one errored answer, one removed case; the scoring
    retrieved BKG tables for three of them."""
    url = f"sqlite:///{tmp_path / 'results.db'}"
    store = ResultsStore(url)
    ids = [*CASES, "c7", "c8"]

    def rec(case_id: str, payload: dict[str, Any]) -> StoredRecord:
        return StoredRecord(run_key=RUN, case_id=case_id, payload=payload, content_hash=case_id)

    golden = [
        StoredRecord(
            "", c, GoldenCase(id=c, question=f"How many for CASE-{c}?").model_dump(mode="json"), c
        )
        for c in ids[:-1]
    ] + [StoredRecord("", "c8", {"id": "c8", "removed": True}, "c8")]
    store.append("golden_cases", golden, "dr")
    answers = [
        ChatPayload(
            case_id=c,
            question=f"How many for CASE-{c}?",
            answer=f"There are 12 for CASE-{c}.",
            tool_calls=[ToolCall(id="t1", name="sql", sql=f"SELECT 12 AS n_{c}")],
        )
        for c in CASES
    ]
    answers.append(
        ChatPayload(case_id="c7", question="How many for CASE-c7?", status="error", errors=["x"])
    )
    answers.append(ChatPayload(case_id="c8", question="How many for CASE-c8?", answer="8."))
    store.append(
        "chatbot_responses", [rec(p.case_id, p.model_dump(mode="json")) for p in answers], "dr"
    )
    store.append(
        "oracle_verdicts",
        [rec(c, OracleResult(case_id=c).model_dump(mode="json")) for c in ids],
        "dr",
    )
    table = bkg.tables[0].name
    retrieved = {"dimensions": {"bkg": {"details": {"retrieved": [{"table": table}]}}}}
    store.append("judge_scores", [rec(c, retrieved) for c in BKG_CASES], "dr")
    return url


@pytest.fixture
def server() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI(api_key=KEY, default=scripted_judges) as srv:
        yield srv


def client(server: ScriptedOpenAI, model: str, cache_url: str) -> JudgeClient:
    return JudgeClient(
        LLMSettings(base_url=server.base_url, api_key=KEY, model=model), cache_url=cache_url
    )


def version(model: str) -> str:
    return judge_version(f"llm:{model}", prompt_versions())


def row(rows: dict[str, JudgeAgreement], dimension: str) -> JudgeAgreement:
    return rows[dimension]


# --------------------------------------------------------------------------- two judge models


def test_two_judges_report_the_alpha_and_kappa_of_their_known_disagreement(
    server: ScriptedOpenAI, store_url: str, bkg: BKG
) -> None:
    judges = [client(server, "judge-a", store_url), client(server, "judge-b", store_url)]
    result = calibrate(store_url, RUN, judges, bkg, threshold=0.6, concurrency=3)

    # Nothing but the six answered cases is judged: 2 models × (2 dimensions × 6 cases + 3 bkg)
    # plus one retry of judge-b's unparsable on_topic reply for c3.
    asked = Counter((r.body["model"], dimension_of(r), case_of(r)) for r in server.requests)
    assert sum(asked.values()) == 2 * (2 * 6 + 3) + 1
    assert asked[("judge-b", "on_topic", "c3")] == 2
    assert {case for _, _, case in asked} == set(CASES)
    bkg_prompt = next(r.text for r in server.requests if dimension_of(r) == "bkg")
    assert f"### {bkg.tables[0].name}" in bkg_prompt

    dims = {d.dimension: d for d in result.dimensions}
    assert list(dims) == ["content_quality", "on_topic", "bkg"]

    # content_quality, by hand: differences 0, .4, 0, .8, 0, 0 → D_o = 2·0.8/12 = 2/15;
    # the 12 values sum to 6.4 with squares 4.56 → D_e = 2(12·4.56 − 6.4²)/(12·11) = 27.52/132;
    # α = 1 − (2/15)/(27.52/132) = 31/86. κ at 0.6: A = PPFFPF, B = PFFPPF, p_o = 4/6, p_e = 1/2
    # → 1/3.
    quality = dims["content_quality"]
    assert quality.alpha == pytest.approx(31 / 86)
    assert quality.kappas == {("judge-a#1", "judge-b#1"): pytest.approx(1 / 3)}
    assert quality.cases == 6

    # on_topic: judge-b's c3 is missing, so c3 is a single, unpairable rating.
    a, b = SCRIPT["judge-a"]["on_topic"], SCRIPT["judge-b"]["on_topic"]
    expected = alpha_by_coincidences(
        [[a[c] for c in CASES], [None if b[c] == ERROR else b[c] for c in CASES]]
    )
    assert dims["on_topic"].alpha == pytest.approx(expected)
    assert dims["on_topic"].kappas == {("judge-a#1", "judge-b#1"): pytest.approx(1.0)}

    # bkg: only the three cases whose scoring retrieved tables. κ at 0.6: A = PFP, B = PFF,
    # p_o = 2/3, p_e = 2/3·1/3 + 1/3·2/3 = 4/9 → (2/9)/(5/9) = 0.4.
    expected = alpha_by_coincidences(
        [[SCRIPT[m]["bkg"][c] for c in BKG_CASES] for m in ("judge-a", "judge-b")]
    )
    assert dims["bkg"].alpha == pytest.approx(expected)
    assert dims["bkg"].kappas == {("judge-a#1", "judge-b#1"): pytest.approx(0.4)}

    stored_a = latest_calibration(store_url, version("judge-a"))
    stored_b = latest_calibration(store_url, version("judge-b"))
    assert set(stored_a) == set(stored_b) == {"content_quality", "on_topic", "bkg"}
    assert row(stored_a, "content_quality").alpha == pytest.approx(31 / 86)
    assert row(stored_b, "content_quality").kappa == pytest.approx(1 / 3)
    assert (row(stored_a, "on_topic").n, row(stored_b, "on_topic").n) == (6, 5)
    assert row(stored_a, "bkg").n == 3
    assert row(stored_a, "content_quality").human_alpha is None

    # Without human labels the panel's α decides: 31/86 ≈ 0.36 is below the bar.
    assert calibration_status(store_url, version("judge-a"), "content_quality", 0.67) == (
        "uncalibrated"
    )
    assert calibration_status(store_url, version("judge-a"), "on_topic", 0.67) == "calibrated"
    assert calibration_status(store_url, version("judge-c"), "on_topic", 0.67) == "unknown"
    assert "content_quality" in demotions(store_url, version("judge-b"), 0.67)
    assert demotions(store_url, version("judge-a"), 0.67)["content_quality"] == (
        "judge uncalibrated (α=0.36 < 0.67)"
    )


def test_human_labels_calibrate_each_judge_on_its_own(
    server: ScriptedOpenAI, store_url: str, bkg: BKG, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "case_id,dimension,score,labeller\n"
        "c1,content_quality,1.0,ann\n"
        "c2,content_quality,0.6,ann\n"
        "c3,content_quality,0.2,ann\n"
        "c4,content_quality,0.0,ann\n"
        "c4,content_quality,0.4,bob\n"
        "c99,content_quality,0.5,ann\n",
        encoding="utf-8",
    )
    human = load_human_labels(labels)
    assert human == {"content_quality": {"c1": 1.0, "c2": 0.6, "c3": 0.2, "c4": 0.2, "c99": 0.5}}
    judges = [client(server, "judge-a", store_url), client(server, "judge-b", store_url)]
    result = calibrate(store_url, RUN, judges, bkg, human=human, threshold=0.6)

    quality = next(d for d in result.dimensions if d.dimension == "content_quality")
    assert quality.human_cases == 4  # c99 is not a case of the run
    people = [1.0, 0.6, 0.2, 0.2]
    judged = {m: [SCRIPT[m]["content_quality"][c] for c in CASES[:4]] for m in SCRIPT}
    by_version = {j.judge_version: j for j in quality.judges}
    a, b = by_version[version("judge-a")], by_version[version("judge-b")]
    assert a.human_alpha == pytest.approx(alpha_by_coincidences([people, judged["judge-a"]]))
    assert b.human_alpha == pytest.approx(alpha_by_coincidences([people, judged["judge-b"]]))
    # At 0.6 people say PPFF; judge-a PPFF (κ = 1), judge-b PFFP (p_o = 1/2 = p_e, κ = 0).
    assert (a.human_kappa, b.human_kappa) == (pytest.approx(1.0), pytest.approx(0.0))

    # With people's labels, their α decides: judge-a is trusted on content quality, judge-b not,
    # although the panel's α is the same for both.
    assert a.alpha == b.alpha
    assert calibration_status(store_url, a.judge_version, "content_quality", 0.67) == "calibrated"
    assert calibration_status(store_url, b.judge_version, "content_quality", 0.67) == (
        "uncalibrated"
    )
    assert "content_quality" not in demotions(store_url, a.judge_version, 0.67)
    assert demotions(store_url, b.judge_version, 0.67)["content_quality"].startswith(
        "judge uncalibrated (α with people="
    )


def test_repeats_ask_afresh_despite_the_cache_and_measure_self_consistency(
    server: ScriptedOpenAI, store_url: str, bkg: BKG
) -> None:
    judge = client(server, "judge-a", store_url)
    calibrate(store_url, RUN, [judge], bkg, human={"on_topic": {"c1": 1.0}})
    first = len(server.requests)
    assert first == 6 * 2 + 3

    calls: Counter[tuple[str, str]] = Counter()
    drift = [0.0, 0.2, 0.4]

    def noisy(request: RecordedRequest) -> Reply:
        key = (dimension_of(request), case_of(request))
        calls[key] += 1
        base = SCRIPT["judge-a"][key[0]][key[1]]
        return content(json.dumps(rubric(key[0], abs(base - drift[calls[key] - 1]))))

    server.default = noisy
    result = calibrate(store_url, RUN, [judge], bkg, repeats=3, concurrency=1)

    assert len(server.requests) - first == 3 * (6 * 2 + 3)
    assert [r.label for r in result.raters] == ["judge-a#1", "judge-a#2", "judge-a#3"]
    quality = next(d for d in result.dimensions if d.dimension == "content_quality")
    base = SCRIPT["judge-a"]["content_quality"]
    samples = [[abs(base[c] - d) for c in CASES] for d in drift]
    assert quality.alpha == pytest.approx(alpha_by_coincidences(samples))
    assert len(quality.kappas) == 3
    (only,) = quality.judges
    assert only.judge_version == version("judge-a")
    assert only.alpha == quality.alpha
    kappas = list(quality.kappas.values())
    assert None not in kappas
    assert only.kappa == pytest.approx(fmean(k for k in kappas if k is not None))


def test_one_rater_without_human_labels_is_refused(
    server: ScriptedOpenAI, store_url: str, bkg: BKG
) -> None:
    with pytest.raises(ValueError, match="two raters"):
        calibrate(store_url, RUN, [client(server, "judge-a", store_url)], bkg)
    with pytest.raises(ValueError, match="listed twice"):
        calibrate(
            store_url,
            RUN,
            [client(server, "judge-a", store_url), client(server, "judge-a", store_url)],
            bkg,
        )
    with pytest.raises(ValueError, match="no chatbot responses"):
        calibrate(store_url, "no-such-run", [client(server, "judge-a", store_url)], bkg, repeats=2)
    assert server.requests == []


def test_a_calibration_without_evidence_keeps_the_earlier_one(
    server: ScriptedOpenAI, store_url: str, bkg: BKG
) -> None:
    earlier = JudgeAgreement(version("judge-x"), "on_topic", 0.3, None, None, None, 9)
    earlier_a = JudgeAgreement(version("judge-a"), "on_topic", 0.5, None, None, None, 9)
    store_calibration(store_url, [earlier, earlier_a], run_key="before")
    server.on(lambda r: r.body["model"] == "judge-x", error(400, message="no such model"))
    judges = [client(server, "judge-a", store_url), client(server, "judge-x", store_url)]
    result = calibrate(store_url, RUN, judges, bkg)

    # judge-x scored nothing, so judge-a had no one to agree with: α is undefined for both.
    on_topic = next(d for d in result.dimensions if d.dimension == "on_topic")
    by_version = {j.judge_version: j for j in on_topic.judges}
    assert (by_version[version("judge-x")].n, by_version[version("judge-a")].n) == (0, 6)
    assert all(d.alpha is None for d in result.dimensions)
    assert latest_calibration(store_url, version("judge-x")) == {"on_topic": earlier}
    assert latest_calibration(store_url, version("judge-a")) == {"on_topic": earlier_a}


# --------------------------------------------------------------------------- storage and status


def agreement(alpha: float | None, human_alpha: float | None = None) -> JudgeAgreement:
    return JudgeAgreement("llm:m [p.v1]", "on_topic", alpha, 0.5, human_alpha, None, 10)


def test_the_newest_calibration_of_a_judge_version_decides(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    assert calibration_status(url, "llm:m [p.v1]", "on_topic", 0.67) == "unknown"
    store_calibration(url, [agreement(0.9)], run_key="r1")
    assert calibration_status(url, "llm:m [p.v1]", "on_topic", 0.67) == "calibrated"
    store_calibration(url, [agreement(0.9, human_alpha=0.5)], run_key="r2")
    assert calibration_status(url, "llm:m [p.v1]", "on_topic", 0.67) == "uncalibrated"
    assert calibration_status(url, "llm:m [p.v1]", "on_topic", 0.4) == "calibrated"
    store_calibration(url, [agreement(None)], run_key="r3")
    assert calibration_status(url, "llm:m [p.v1]", "on_topic", 0.67) == "unknown"
    assert calibration_status(url, "llm:m [p.v2]", "on_topic", 0.67) == "unknown"
    assert demotions(url, "llm:m [p.v1]", 0.67) == {}


@pytest.mark.postgres
def test_calibration_is_stored_and_read_back_on_postgres(pg_schema_url: str) -> None:
    store_calibration(pg_schema_url, [agreement(0.41, human_alpha=0.8)], run_key="r1")
    store_calibration(pg_schema_url, [agreement(0.9, human_alpha=0.5)], run_key="r2")
    (stored,) = latest_calibration(pg_schema_url, "llm:m [p.v1]").values()
    assert stored == agreement(0.9, human_alpha=0.5)
    assert demotions(pg_schema_url, "llm:m [p.v1]", 0.67) == {
        "on_topic": "judge uncalibrated (α with people=0.50 < 0.67)"
    }


def test_human_labels_are_validated_with_every_problem_reported(tmp_path: Path) -> None:
    good = tmp_path / "labels.json"
    good.write_text(
        json.dumps(
            [
                {"case_id": "c1", "dimension": "on_topic", "score": 0.5},
                {"case_id": "c1", "dimension": "on_topic", "score": 1.0},
                {"case_id": "c2", "dimension": "bkg", "score": 0},
            ]
        ),
        encoding="utf-8",
    )
    assert load_human_labels(good) == {"on_topic": {"c1": 0.75}, "bkg": {"c2": 0.0}}
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "case_id,dimension,score\nc1,on_topic,1.5\nc2,safety,1\nc3,on_topic,0.2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_human_labels(bad)
    locations = [p.location for p in caught.value.problems]
    assert locations == ["row 1 score", "row 2 dimension"]


# --------------------------------------------------------------------------- demotion


def dim(name: str, score: float) -> DimensionResult:
    return DimensionResult(name=name, state="scored", score=score, method="llm:judge-a")


def test_an_uncalibrated_dimension_cannot_fail_a_case_and_says_why(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    judge = "llm:judge-a [p.v1]"
    store_calibration(
        url,
        [
            JudgeAgreement(judge, "content_quality", 0.41, 0.2, None, None, 20),
            JudgeAgreement(judge, "on_topic", 0.9, 0.8, None, None, 20),
        ],
        run_key="r",
    )
    reasons = demotions(url, judge, 0.67)
    assert reasons == {"content_quality": "judge uncalibrated (α=0.41 < 0.67)"}
    dims = {
        "oracle": dim("oracle", 1.0),
        "content_quality": dim("content_quality", 0.0),
        "on_topic": dim("on_topic", 0.6),
    }
    base = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)
    demoting = GatePolicy(
        weights=FULL_WEIGHTS,
        weights_bare=BARE_WEIGHTS,
        demoted=frozenset(reasons),
        demotion_reasons=reasons,
    )

    def outcome(policy: GatePolicy) -> Any:
        return judge_case(
            "c1",
            dims,
            has_expected_answer=True,
            has_reference=True,
            chatbot_errors=[],
            policy=policy,
        )

    # Gated: (0.30·1 + 0.25·0 + 0.15·0.6) / 0.70 = 0.557 < 0.60. Demoted: 0.39 / 0.45 = 0.867.
    gated = outcome(base)
    assert gated.overall == pytest.approx((0.30 + 0.15 * 0.6) / 0.70, abs=1e-4)
    assert not gated.passed
    demoted = outcome(demoting)
    assert demoted.overall == pytest.approx((0.30 + 0.15 * 0.6) / 0.45, abs=1e-4)
    assert demoted.passed
    assert "content_quality: judge uncalibrated (α=0.41 < 0.67), warning only" in demoted.warnings
    assert not any("uncalibrated" in w for w in gated.warnings)


# --------------------------------------------------------------------------- command line


def test_calibrate_command_prints_the_table_and_stores_the_rows(
    server: ScriptedOpenAI,
    store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in {
        "EVAL_HOME": str(tmp_path / "home"),
        "EVAL_RESULTS_URL": store_url,
        "EVAL_LLM_BASE_URL": server.base_url,
        "EVAL_LLM_API_KEY": KEY,
        "EVAL_LLM_MODEL": "judge-a",
        "EVAL_CALIBRATION_BAR": "0.5",
    }.items():
        monkeypatch.setenv(name, value)
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["calibrate", RUN, "--judge", "judge-a", "--judge", "judge-b", "--threshold", "0.6"]
    )
    assert args.func(args) == 0

    out = capsys.readouterr().out
    assert KEY not in out
    assert "content_quality: panel α 0.360 over 6 case(s)" in out
    assert "κ judge-a#1 ~ judge-b#1: 0.333" in out
    lines = [line.split() for line in out.splitlines()]
    assert ["judge-a", "0.360", "0.333", "—", "—", "6", "uncalibrated"] in lines
    assert "bar: α ≥ 0.50" in out
    assert set(latest_calibration(store_url, version("judge-b"))) == {
        "content_quality",
        "on_topic",
        "bkg",
    }
