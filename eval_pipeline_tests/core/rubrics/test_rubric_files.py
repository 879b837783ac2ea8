"""Rubric files: the published schema, what loads, and every mistake named by file and field."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from eval_pipeline.core.inputs import load_schema
from eval_pipeline.core.models import GoldenCase
from eval_pipeline.core.rubrics.load import check_rubric, check_rubric_set
from eval_pipeline.core.rubrics.spec import published_schema
from eval_pipeline_tests.core.rubrics.seed_rubrica import SEED_DIMENSIONS, EvaluacionRica
from eval_pipeline_tests.core.test_inputs import BASE_BKG

GOOD = """\
name: mesa de ayuda
instructions: Evalúa respuestas de un asistente de ventas.
dimensions:
  - name: precision_precio
    question: ¿El precio citado coincide con el catálogo?
    weight: 0.3
    gate: true
    check: {kind: oracle, functions: [order_count]}
  - name: autorizacion_descuento
    question: Si hay descuento >10%, ¿advirtió que requiere aprobación del gerente?
    applies_when: {tags: [descuento]}
  - name: tono
    question: Tono profesional, amable y corporativo.
    scale: {min: 0, max: 10}
    pass_score: 7
"""


def write(tmp_path: Path, text: str, name: str = "rubric.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path, **known: object) -> list[str]:
    defaults = {"tags": ["descuento", "precio"], "intents": ["catalogo_precios"]}
    _, found = check_rubric(path, **{**defaults, **known})  # type: ignore[arg-type]
    return [str(p).replace(f"{path.parent}/", "") for p in found]


def test_the_published_schema_is_the_models_and_a_valid_draft_2020_12() -> None:
    schema = load_schema("rubric")
    assert schema == json.loads(json.dumps(published_schema()))
    jsonschema.Draft202012Validator.check_schema(schema)
    for title, definition in schema["$defs"].items():
        assert definition["description"], title
        assert definition["additionalProperties"] is False, title


def test_a_good_rubric_loads_in_yaml_and_json(tmp_path: Path) -> None:
    import yaml

    yaml_path = write(tmp_path, GOOD)
    json_path = write(tmp_path, json.dumps(yaml.safe_load(GOOD)), "rubric.json")
    for path in (yaml_path, json_path):
        rubric, found = check_rubric(path, tags=["descuento"], functions=["order_count"])
        assert found == [] and rubric is not None
        keys = [d.key for d in rubric.dimensions]
        assert keys == ["rubric.precision_precio", "rubric.autorizacion_descuento", "rubric.tono"]
        price, _, tone = rubric.dimensions
        assert price.gate and price.passing == 3 and price.pass_threshold == 0.5
        assert tone.normalised(7) == 0.7 and tone.pass_threshold == 0.7
        assert rubric.spec.instructions.startswith("Evalúa")


def test_one_pydantic_model_is_built_from_the_file_with_its_questions_and_scales(
    tmp_path: Path,
) -> None:
    rubric, _ = check_rubric(write(tmp_path, GOOD))
    assert rubric is not None
    schema = rubric.model.model_json_schema()
    assert set(schema["properties"]) == {"precision_precio", "autorizacion_descuento", "tono"}
    assert schema["properties"]["tono"]["description"] == "Tono profesional, amable y corporativo."
    tone = schema["$defs"][schema["properties"]["tono"]["$ref"].split("/")[-1]]
    assert tone["properties"]["score"]["minimum"] == 0
    assert tone["properties"]["score"]["maximum"] == 10
    assert tone["required"] == ["score", "justification"]
    assert schema["additionalProperties"] is False


def test_unknown_field_inverted_scale_and_unknown_tag_are_named_by_file_and_field(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        """\
name: r
dimensions:
  - name: tono
    question: q
    wieght: 0.2
  - name: precio
    question: q
    scale: {min: 5, max: 1}
  - name: descuento
    question: q
    applies_when: {tags: [descuentos], intents: [catalogo]}
  - name: crm
    question: q
    check: {kind: tool_args, tool: registrar}
  - name: crm2
    question: q
    check: {kind: tool_arguments, tool: registrar}
  - name: precio2
    question: q
    pass_score: 9
""",
    )
    assert problems(path) == [
        "rubric.yaml: dimensions.tono.wieght: unknown field (did you mean 'weight'?)",
        'rubric.yaml: dimensions.crm.check.kind: must be one of "mentions", "oracle", '
        '"tool_arguments"',
        "rubric.yaml: dimensions.crm2.check.required: missing required field",
        "rubric.yaml: dimensions.precio.scale: min 5 must be less than max 1",
        "rubric.yaml: dimensions.descuento.applies_when.tags[0]: unknown tag 'descuentos': no "
        "golden case carries it (did you mean 'descuento'?)",
        "rubric.yaml: dimensions.descuento.applies_when.intents[0]: unknown intent 'catalogo': "
        "no golden case expects it (did you mean 'catalogo_precios'?)",
        "rubric.yaml: dimensions.precio2.pass_score: 9 is outside the scale 1–5",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: r\ndimensions: []\n", "rubric.yaml: dimensions: a rubric needs at least one"),
        ("name: r\ndimensions:\n  - name: Tono\n", "rubric.yaml: dimensions.Tono.name: invalid"),
        (
            "name: r\ndimensions:\n  - name: tono\n",
            "rubric.yaml: dimensions.tono.question: missing",
        ),
        (
            "name: r\ndimensions:\n  - {name: a, question: q}\n  - {name: a, question: q}\n",
            "rubric.yaml: dimensions.a: duplicate dimension name",
        ),
        (
            "name: r\ndimensions:\n  - {name: a, question: q, check: {kind: oracle, "
            "functions: [nope]}}\n",
            "rubric.yaml: dimensions.a.check.functions[0]: unknown BKG function 'nope'",
        ),
        ("name: r\ndimensions: [\n", "rubric.yaml: line 3, column 1: invalid YAML"),
        ("- a list\n", "rubric.yaml: expected object, got array"),
    ],
)
def test_other_mistakes(tmp_path: Path, text: str, expected: str) -> None:
    found = problems(write(tmp_path, text), functions=["order_count"])
    assert found and found[0].startswith(expected), found


def test_a_teams_own_pydantic_model_is_the_judges_schema(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: seed\nmodel: eval_pipeline_tests.core.rubrics.seed_rubrica:EvaluacionRica\n",
    )
    rubric, found = check_rubric(path)
    assert found == [] and rubric is not None
    assert [d.name for d in rubric.dimensions] == list(SEED_DIMENSIONS)
    assert rubric.dimensions[4].question == "Tono profesional, amable y corporativo."
    assert rubric.model is EvaluacionRica


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (
            "nowhere.at_all:Model",
            "rubric.yaml: model: cannot import 'nowhere.at_all:Model': No module named 'nowhere'",
        ),
        (
            "eval_pipeline_tests.core.rubrics.seed_rubrica:NotARubric",
            "rubric.yaml: model: eval_pipeline_tests.core.rubrics.seed_rubrica:NotARubric has no "
            "field holding a score",
        ),
    ],
)
def test_a_model_that_does_not_fit_is_a_problem(tmp_path: Path, model: str, expected: str) -> None:
    assert problems(write(tmp_path, f"name: r\nmodel: {model}\n")) == [expected]


def test_a_dimension_the_model_lacks_is_named(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: r\nmodel: eval_pipeline_tests.core.rubrics.seed_rubrica:EvaluacionRica\n"
        "dimensions:\n  - name: tone\n",
    )
    found = problems(path)
    assert found[0] == (
        "rubric.yaml: dimensions.tone.name: not a field of "
        "eval_pipeline_tests.core.rubrics.seed_rubrica:EvaluacionRica (did you mean 'tono'?)"
    )


def test_case_overrides_resolve_from_the_golden_folder_and_a_missing_one_is_the_cases(
    tmp_path: Path,
) -> None:
    from eval_pipeline.core.models import BKG

    write(tmp_path, GOOD, "own.yaml")
    cases = [
        GoldenCase(id="A", question="q", tags=["descuento"], rubric="own.yaml"),
        GoldenCase(id="B", question="q", rubric="absent.yaml"),
        GoldenCase(id="C", question="q"),
    ]
    bkg = BKG.model_validate(BASE_BKG)
    default = write(tmp_path, "name: d\ndimensions:\n  - {name: tono, question: q}\n", "d.yaml")
    rubrics, found = check_rubric_set(default, cases, tmp_path / "golden.json", bkg)
    assert [str(p) for p in found] == [
        f"{tmp_path}/golden.json: B.rubric: rubric file not found: {tmp_path}/absent.yaml",
        f"{tmp_path}/own.yaml: dimensions.tono: defined with another scale, weight or gate in "
        f"{default}",
    ]
    own = rubrics.for_case(cases[0])
    assert own is not None and own.path == str(tmp_path / "own.yaml")
    assert rubrics.for_case(cases[2]) is rubrics.default


def test_validate_rejects_a_broken_rubric_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from eval_pipeline.cli.main import main
    from eval_pipeline_tests.core.test_inputs import BASE_GOLDEN

    (tmp_path / "bkg.json").write_text(json.dumps(BASE_BKG))
    (tmp_path / "golden.json").write_text(json.dumps(BASE_GOLDEN))
    path = write(
        tmp_path,
        "name: r\ndimensions:\n  - {name: tono, question: q, scale: {min: 4, max: 2}}\n",
    )
    code = main(
        [
            "validate",
            "--bkg",
            str(tmp_path / "bkg.json"),
            "--golden",
            str(tmp_path / "golden.json"),
            "--database-url",
            "",
            "--rubric",
            str(path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert f"{path}: dimensions.tono.scale: min 4 must be less than max 2" in err
