"""A rubric through the whole graph: its dimensions in judge_scores and the summary, its gate in
the verdict, and an edited rubric re-scoring without asking the chatbot again."""

from __future__ import annotations

from pathlib import Path

from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.runner.evaluate import evaluate
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.pipeline.test_graph import tiny_overrides

RUBRIC = """\
name: bakery
dimensions:
  - name: names_the_figure
    question: Does the answer say what the figure measures?
    gate: true
    check: {kind: mentions, any: [revenue, units, stock, "%"]}
  - name: tone
    question: Is the tone friendly?
    weight: 0.2
"""


def test_rubric_dimensions_are_scored_gated_and_rescored_after_an_edit(tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    overrides = {**tiny_overrides(tmp_path, "honest"), "rubric_path": str(rubric)}
    with eval_instance() as instance:
        first = evaluate("r1", overrides=overrides, instance=instance)
        states = first.dimension_states
        assert states["rubric.tone"]["skipped"] == first.cases_total
        names = states["rubric.names_the_figure"]
        assert names["scored"] == first.cases_total
        for case in first.cases:
            dim = case.dimensions["rubric.names_the_figure"]
            assert dim.method == "mentions"
            if dim.score == 0.0:  # a refusal names no figure: the rubric's gate fails it
                assert not case.passed
                assert any(g.startswith("rubric.names_the_figure:") for g in case.gate_failures)
        assert any(c.dimensions["rubric.names_the_figure"].score == 1.0 for c in first.cases)

        asked = tiny_chatbot.asked_so_far()
        rubric.write_text(RUBRIC.replace('[revenue, units, stock, "%"]', "[zzz]"))
        second = evaluate("r1", overrides=overrides, instance=instance)
        assert tiny_chatbot.asked_so_far() == asked  # the answers were reused
        assert second.calls.chatbot == 0
        assert all(c.dimensions["rubric.names_the_figure"].score == 0.0 for c in second.cases)
        assert second.cases_passed == 0
    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    record = next(iter(store.latest("judge_scores", "r1").values()))
    assert record["dimensions"]["rubric.names_the_figure"]["raw_score"] == 1
