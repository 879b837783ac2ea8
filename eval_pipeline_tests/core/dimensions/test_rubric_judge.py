"""The rubric dimensions through the judge (the scripted OpenAI-compatible server) and checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_pipeline.core.dimensions.rubric_judge import rubric_dimensions
from eval_pipeline.core.llm.client import JudgeClient
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.core.models import (
    ChatPayload,
    Evidence,
    GoldenCase,
    LoggedAnswer,
    LoggedCase,
    OracleResult,
    ToolCall,
    Verdict,
)
from eval_pipeline.core.rubrics.load import Rubric, load_rubric
from eval_pipeline_tests.core.rubrics.seed_rubrica import SEED_DIMENSIONS
from eval_pipeline_tests.scripted_openai import RecordedRequest, ScriptedOpenAI, content

KEY = "sk-rubric-test"
RUBRIC = """\
name: mesa
dimensions:
  - name: precision_precio
    question: ¿El precio citado coincide con el catálogo?
    check: {kind: oracle, functions: [catalogue_prices]}
  - name: autorizacion_descuento
    question: Si hay descuento >10%, ¿advirtió que requiere aprobación del gerente?
    applies_when: {tags: [descuento_alto]}
    check: {kind: mentions, any: [aprobación del gerente]}
  - name: completitud_crm
    question: ¿Pidió nombre, empresa y tamaño antes de registrar?
    applies_when: {intents: [accion_registro]}
    check: {kind: tool_arguments, tool: registrar, required: [nombre, empresa, tamano]}
  - name: tono
    question: Tono profesional, amable y corporativo.
  - name: longitud
    question: Longitud concisa y precisa sin excesos.
    scale: {min: 0, max: 10}
"""


@pytest.fixture
def rubric(tmp_path: Path) -> Rubric:
    path = tmp_path / "rubric.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    return load_rubric(path)


@pytest.fixture
def server() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI(api_key=KEY) as srv:
        yield srv


def client(server: ScriptedOpenAI) -> JudgeClient:
    return JudgeClient(
        LLMSettings(
            base_url=server.base_url,
            api_key=KEY,
            model="judge",
            backoff_initial_s=0.01,
            backoff_max_s=0.02,
        )
    )


CASE = GoldenCase(id="TC_1", question="¿Cuánto cuesta la Patito Pro?", tags=["precio"])
ANSWER = "La Patito Pro cuesta 1.234,56 € por licencia."
PAYLOAD = ChatPayload(case_id="TC_1", question=CASE.question, answer=ANSWER)


def verdict(claim: str, label: str, source: str = "catalogue_prices") -> Verdict:
    evidence = [Evidence(source=source, kind="kpi", value=1234.56)]
    return Verdict(claim_id=claim, verdict=label, reason=f"{claim} {label}", evidence=evidence)  # type: ignore[arg-type]


def test_without_a_judge_checks_decide_and_the_rest_is_skipped_with_reasons(
    rubric: Rubric,
) -> None:
    oracle = OracleResult(case_id="TC_1", verdicts=[verdict("C1", "contradicted")])
    dims = rubric_dimensions(rubric, CASE, PAYLOAD, oracle, judge=None)
    assert list(dims) == [
        "rubric.precision_precio",
        "rubric.autorizacion_descuento",
        "rubric.completitud_crm",
        "rubric.tono",
        "rubric.longitud",
    ]
    price = dims["rubric.precision_precio"]
    assert (price.state, price.raw_score, price.score, price.method) == (
        "scored",
        1,
        0.0,
        "oracle",
    )
    assert "C1 contradicted" in price.reason
    assert dims["rubric.autorizacion_descuento"].state == "skipped"
    assert "descuento_alto" in dims["rubric.autorizacion_descuento"].reason
    assert dims["rubric.completitud_crm"].state == "skipped"
    assert dims["rubric.tono"].state == "skipped"
    assert dims["rubric.tono"].reason == "no LLM judge configured"


def test_supported_prices_score_the_top_and_other_functions_do_not_count(rubric: Rubric) -> None:
    oracle = OracleResult(
        case_id="TC_1",
        verdicts=[verdict("C1", "supported"), verdict("C2", "contradicted", "other_kpi")],
    )
    price = rubric_dimensions(rubric, CASE, PAYLOAD, oracle, judge=None)["rubric.precision_precio"]
    assert (price.raw_score, price.score) == (5, 1.0)
    assert price.details["claims"] == ["C1"]


def test_tool_arguments_and_mentions_are_checked_without_a_judge(rubric: Rubric) -> None:
    case = GoldenCase(
        id="TC_2",
        question="Regístrame con un descuento del 15 %",
        tags=["descuento_alto"],
        expected_intent="accion_registro",
    )
    payload = ChatPayload(
        case_id="TC_2",
        question=case.question,
        answer="Listo, registrado con el 15 % de descuento.",
        tool_calls=[ToolCall(id="1", name="registrar", arguments={"nombre": "Ana", "empresa": ""})],
    )
    dims = rubric_dimensions(
        rubric, case, payload, OracleResult(case_id="TC_2"), judge=None, intent="accion_registro"
    )
    crm = dims["rubric.completitud_crm"]
    assert (crm.raw_score, crm.method) == (1, "tool_arguments")
    assert crm.reason == "registrar was called without empresa, tamano"
    warning = dims["rubric.autorizacion_descuento"]
    assert (warning.raw_score, warning.method) == (1, "mentions")
    ok = payload.model_copy(update={"answer": "Requiere APROBACION del gerente."})
    dims = rubric_dimensions(
        rubric, case, ok, OracleResult(case_id="TC_2"), judge=None, intent="accion_registro"
    )
    assert dims["rubric.autorizacion_descuento"].raw_score == 5


TAGGED = """\
name: mesa
dimensions:
  - name: precision_precio
    question: ¿El precio citado coincide con el catálogo?
    applies_when: {tags: [precio]}
    check: {kind: oracle, functions: [catalogue_prices]}
  - name: cita_fuentes
    question: ¿Mencionó de qué documento sacó la info?
    applies_when: {tags: [precio]}
    check: {kind: mentions, any: ["fuente:"]}
"""


def test_a_logged_conversation_meets_a_tag_condition_when_the_check_finds_its_subject(
    tmp_path: Path,
) -> None:
    """No author tagged a logged conversation: a wrong catalogue price in it is still found
    (the oracle bound the claim to the catalogue), while a golden case's own tags still rule,
    and a phrase check, which decides any answer, stays skipped."""
    path = tmp_path / "tagged.yaml"
    path.write_text(TAGGED, encoding="utf-8")
    rubric = load_rubric(path)
    logged = LoggedCase(
        id="conv.c-1",
        question=CASE.question,
        tags=["conversation"],
        logged=LoggedAnswer(conversation_id="c-1", answer=ANSWER, created_at="2026-11-30"),
    )
    wrong = OracleResult(case_id="conv.c-1", verdicts=[verdict("C1", "contradicted")])
    dims = rubric_dimensions(rubric, logged, PAYLOAD, wrong, judge=None)
    price = dims["rubric.precision_precio"]
    assert (price.state, price.score, price.method) == ("scored", 0.0, "oracle")
    assert price.reason == "contradicted by the live data: C1: C1 contradicted"
    assert dims["rubric.cita_fuentes"].state == "skipped"

    for case, oracle in (
        (logged, OracleResult(case_id="conv.c-1")),  # no price quoted
        (logged, OracleResult(case_id="c", verdicts=[verdict("C1", "contradicted", "other")])),
        (CASE.model_copy(update={"tags": ["ventas"]}), wrong),  # the author said: not a price
    ):
        price = rubric_dimensions(rubric, case, PAYLOAD, oracle, judge=None)[
            "rubric.precision_precio"
        ]
        assert price.state == "skipped" and "tagged precio" in price.reason, (case.id, price)


def reply(**scores: tuple[int, str]) -> str:
    return json.dumps(
        {name: {"score": s, "justification": why} for name, (s, why) in scores.items()}
    )


def test_the_judge_sees_the_json_schema_of_the_applicable_dimensions_and_its_reply_is_kept(
    rubric: Rubric, server: ScriptedOpenAI
) -> None:
    server.script(content(reply(tono=(4, "cordial"), longitud=(6, "algo larga"))))
    oracle = OracleResult(case_id="TC_1", verdicts=[verdict("C1", "supported")])
    dims = rubric_dimensions(rubric, CASE, PAYLOAD, oracle, judge=client(server))
    [request] = server.requests
    system = request.messages[0]["content"]
    schema = json.loads(system[system.index("{") : system.rindex("}") + 1])
    assert set(schema["properties"]) == {"tono", "longitud"}  # decided and skipped ones left out
    assert request.body["response_format"]["json_schema"]["schema"] == schema
    assert "Tono profesional" in json.dumps(schema, ensure_ascii=False)
    tone, length = dims["rubric.tono"], dims["rubric.longitud"]
    assert (tone.state, tone.raw_score, tone.score, tone.reason) == ("scored", 4, 0.75, "cordial")
    assert (length.raw_score, length.score, length.method) == (6, 0.6, "llm:judge")
    assert tone.details["scale"] == [1, 5]
    assert dims["rubric.precision_precio"].method == "oracle"


def test_an_invalid_reply_is_an_error_never_a_guessed_score(
    rubric: Rubric, server: ScriptedOpenAI
) -> None:
    bad = content(reply(tono=(9, "fuera de escala"), longitud=(6, "ok")))
    server.script(bad, bad)
    dims = rubric_dimensions(
        rubric, CASE, PAYLOAD, OracleResult(case_id="TC_1"), judge=client(server)
    )
    for name in ("rubric.tono", "rubric.longitud"):
        assert dims[name].state == "error" and dims[name].score is None, dims[name]
        assert "invalid twice" in dims[name].reason
    assert len(server.requests) == 2  # the error was quoted back once


def test_a_teams_own_model_is_sent_whole_and_read_with_its_field_names(
    tmp_path: Path, server: ScriptedOpenAI
) -> None:
    path = tmp_path / "seed.yaml"
    path.write_text(
        "name: seed\nmodel: eval_pipeline_tests.core.rubrics.seed_rubrica:EvaluacionRica\n"
        "dimensions:\n" + "".join(f"  - name: {n}\n" for n in SEED_DIMENSIONS),
        encoding="utf-8",
    )
    rubric = load_rubric(path)

    def answer(request: RecordedRequest) -> object:
        schema = request.body["response_format"]["json_schema"]["schema"]
        assert set(schema["properties"]) == {d.name for d in rubric.dimensions}
        return content(
            json.dumps(
                {n: {"score": 3, "justificacion": f"{n} regular"} for n in schema["properties"]}
            )
        )

    server.on(lambda r: True, answer)
    dims = rubric_dimensions(
        rubric, CASE, PAYLOAD, OracleResult(case_id="TC_1"), judge=client(server)
    )
    assert dims["rubric.cita_fuentes"].raw_score == 3
    assert dims["rubric.cita_fuentes"].reason == "cita_fuentes regular"
    assert dims["rubric.cita_fuentes"].score == 0.5


def test_a_failed_answer_is_an_error_and_an_empty_one_scores_the_bottom(rubric: Rubric) -> None:
    failed = PAYLOAD.model_copy(update={"status": "error", "answer": ""})
    dims = rubric_dimensions(rubric, CASE, failed, OracleResult(case_id="TC_1"), judge=None)
    assert dims["rubric.tono"].state == "error"
    empty = PAYLOAD.model_copy(update={"answer": "  "})
    dims = rubric_dimensions(rubric, CASE, empty, OracleResult(case_id="TC_1"), judge=None)
    assert (dims["rubric.tono"].raw_score, dims["rubric.tono"].reason) == (1, "empty answer")
