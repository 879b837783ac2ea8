"""The offline bkg dimension: schema heuristic, embedding retrieval, and when there is nothing."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from eval_pipeline.core.dimensions.bkg_grounding import (
    HEURISTIC_WEIGHT,
    NEUTRAL,
    bkg_dimension,
    table_document,
)
from eval_pipeline.core.embeddings.encoder import (
    EmbeddingError,
    SentenceEmbedder,
    Vectors,
    default_embedder,
)
from eval_pipeline.core.models import (
    BKG,
    Column,
    Function,
    GlossaryEntry,
    GoldenCase,
    Param,
    Table,
)
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.core.dimensions.test_on_topic import ANSWERS

DEMO = PROJECT_ROOT / "data" / "demo"
OFF_TOPIC = "Our quarterly offsite will feature team-building and a catered lunch."


def table(name: str, description: str, *columns: tuple[str, str]) -> Table:
    return Table(
        name=name,
        description=description,
        primary_key=[columns[0][0]],
        columns=[Column(name=c, type="text", description=d) for c, d in columns],
    )


LIBRARY = BKG(
    name="library",
    tables=[
        table(
            "books",
            "One row per book in the catalogue.",
            ("book_id", "Book identifier."),
            ("title", "Title of the book."),
            ("genre", "fiction, history, science or poetry."),
            ("branch", "Library branch holding the book."),
        ),
        table(
            "loans",
            "Each time a member borrows a book; returned_on is null while the book is out.",
            ("loan_id", "Loan identifier."),
            ("book_id", "Borrowed book."),
            ("member_id", "Borrowing member."),
            ("lent_on", "Date the book was lent."),
            ("returned_on", "Date the book came back, null if still out."),
            ("due_on", "Date the book is due back."),
        ),
        table(
            "members",
            "Registered library members and their membership tier.",
            ("member_id", "Member identifier."),
            ("tier", "basic or premium."),
            ("joined_on", "Date of registration."),
        ),
        table(
            "staff_rota",
            "Shifts worked by librarians at each branch.",
            ("shift_id", "Shift identifier."),
            ("librarian", "Librarian on duty."),
            ("starts_at", "Start of the shift."),
        ),
    ],
    kpis=[
        Function(
            name="overdue_loans",
            description="Loans past their due date and not yet returned.",
            unit="count",
            params=[Param(name="genre", type="string", enum=["fiction", "history", "science"])],
            tables=["loans", "books"],
            python_function="def overdue_loans(db, genre=None):\n    return 0\n",
        )
    ],
    glossary=[GlossaryEntry(term="Overdue loan", definition="A loan past due_on, not returned.")],
)

QUESTION = "How many loans of fiction books are overdue?"
ANSWER = "There are 42 overdue loans of fiction books."
SQL = (
    "SELECT COUNT(*) AS overdue FROM loans l JOIN books b ON b.book_id = l.book_id "
    "WHERE b.genre = 'fiction' AND l.returned_on IS NULL AND l.due_on < CURRENT_DATE"
)


@pytest.fixture(scope="module")
def embedder() -> SentenceEmbedder:
    return default_embedder()


def test_a_grounded_answer_scores_high(embedder: SentenceEmbedder) -> None:
    result = bkg_dimension(QUESTION, ANSWER, [SQL], LIBRARY, embedder=embedder)
    assert result.state == "scored"
    assert result.method == "heuristic+embedding"
    assert result.score is not None and result.score >= 0.8
    assert result.details["heuristic"] == 1.0
    assert result.details["sql_tables"] == ["books", "loans"]
    assert result.details["retrieved"][0]["table"] == "loans"
    assert result.details["parts"]["overlap"] == 1.0
    assert {"overdue loans", "fiction"} <= set(result.details["bkg_terms"])


def test_made_up_tables_and_columns_are_named_and_punished(embedder: SentenceEmbedder) -> None:
    made_up = "SELECT COUNT(*) FROM late_items WHERE category = 'fiction' AND fine_amount > 0"
    result = bkg_dimension(QUESTION, ANSWER, [made_up], LIBRARY, embedder=embedder)
    grounded = bkg_dimension(QUESTION, ANSWER, [SQL], LIBRARY, embedder=embedder)
    assert result.details["unknown_tables"] == ["late_items"]
    assert result.details["unknown_columns"] == ["category", "fine_amount"]
    assert result.details["checks"]["sql"] == 0.0
    assert result.details["parts"]["overlap"] == 0.0
    assert "late_items" in result.reason
    assert result.score is not None and grounded.score is not None
    assert result.score <= grounded.score - 0.5


def test_aliases_and_ctes_are_not_made_up_names(embedder: SentenceEmbedder) -> None:
    sql = (
        "WITH per_genre AS (SELECT b.genre, COUNT(*) AS n FROM loans l "
        "JOIN books b ON b.book_id = l.book_id GROUP BY b.genre) "
        "SELECT genre, n FROM per_genre ORDER BY n DESC"
    )
    result = bkg_dimension(
        "Which genre is borrowed most?", "Fiction: 310 loans.", [sql], LIBRARY, embedder=embedder
    )
    assert result.details["unknown_tables"] == []
    assert result.details["unknown_columns"] == []
    assert result.details["checks"]["sql"] == 1.0


def test_identifiers_the_answer_invents_are_flagged(embedder: SentenceEmbedder) -> None:
    answer = "According to loans.fine_total and the overdue_flag column, 42 loans are overdue."
    result = bkg_dimension(QUESTION, answer, [], LIBRARY, embedder=embedder)
    assert result.details["unknown_identifiers"] == ["fine_total", "overdue_flag"]
    assert result.details["checks"] == {"answer": 0.0}
    known = bkg_dimension(QUESTION, "The due_on date has passed for 42 loans.", [], LIBRARY)
    assert known.details["checks"] == {"answer": 1.0}


def test_an_off_topic_answer_is_neutral_on_schema_and_low_overall(
    embedder: SentenceEmbedder,
) -> None:
    result = bkg_dimension(QUESTION, OFF_TOPIC, [], LIBRARY, embedder=embedder)
    assert result.state == "scored"
    assert result.details["neutral"] is True
    assert result.details["heuristic"] == NEUTRAL
    assert result.score is not None and result.score <= HEURISTIC_WEIGHT * NEUTRAL + 0.1


def test_sql_on_unrelated_tables_loses_the_overlap(embedder: SentenceEmbedder) -> None:
    sql = "SELECT COUNT(*) FROM staff_rota"
    result = bkg_dimension(QUESTION, ANSWER, [sql], LIBRARY, top_k=2, embedder=embedder)
    assert [r["table"] for r in result.details["retrieved"]] == ["loans", "books"]
    assert result.details["parts"]["overlap"] == 0.0


def test_top_k_bounds_the_retrieval(embedder: SentenceEmbedder) -> None:
    result = bkg_dimension(QUESTION, ANSWER, [SQL], LIBRARY, top_k=1, embedder=embedder)
    assert len(result.details["retrieved"]) == 1
    similarities = [r["similarity"] for r in result.details["retrieved"]]
    assert all(-1.0 <= s <= 1.0 for s in similarities)


def test_a_refusal_with_nothing_to_ground_is_skipped() -> None:
    result = bkg_dimension(
        "What will the city council decide next year?",
        "I'm sorry, I can't answer that from the available data.",
        [],
        LIBRARY,
        embedder=_Failing(),
    )
    assert result.state == "skipped"
    assert result.score is None
    assert "refusal" in result.reason


def test_a_refusal_that_names_the_schema_is_scored(embedder: SentenceEmbedder) -> None:
    result = bkg_dimension(
        "What is the phone number of member 17?",
        "I can't share the contact details of library members.",
        [],
        LIBRARY,
        embedder=embedder,
    )
    assert result.state == "scored"
    assert result.details["refusal"] is True


def test_no_answer_and_no_sql_is_skipped() -> None:
    result = bkg_dimension(QUESTION, "", [], LIBRARY, embedder=_Failing())
    assert result.state == "skipped"


def test_sql_without_an_answer_is_still_grounded(embedder: SentenceEmbedder) -> None:
    result = bkg_dimension(QUESTION, "", [SQL], LIBRARY, embedder=embedder)
    assert result.state == "scored"
    assert "alignment" not in result.details["parts"]
    assert result.details["parts"]["overlap"] == 1.0


def test_table_documents_are_embedded_once_per_content(embedder: SentenceEmbedder) -> None:
    bkg_dimension("Which members joined this year?", "17 members.", [], LIBRARY, embedder=embedder)
    before = embedder.encoded
    bkg_dimension("How many premium members?", "8 premium.", [], LIBRARY, embedder=embedder)
    assert embedder.encoded - before == 2  # the new question and answer only


def test_an_embedding_failure_is_an_error_state() -> None:
    result = bkg_dimension(QUESTION, ANSWER, [SQL], LIBRARY, embedder=_Failing())
    assert result.state == "error"
    assert "model unavailable" in result.reason


def test_the_table_document_carries_name_description_and_columns() -> None:
    text = table_document(LIBRARY.tables[2])
    assert text.startswith("members: Registered library members")
    assert "tier (basic or premium.)" in text


# --------------------------------------------------------------------------- demo BKG


@pytest.fixture(scope="module")
def demo_bkg() -> BKG:
    return BKG.model_validate(json.loads((DEMO / "bkg.json").read_text()))


@pytest.fixture(scope="module")
def demo_cases() -> list[GoldenCase]:
    cases = json.loads((DEMO / "golden_dataset.json").read_text())
    return [GoldenCase.model_validate(c) for c in cases]


def _reference_tables(case: GoldenCase, bkg: BKG) -> list[str]:
    tables: set[str] = set()
    for ref in case.reference:
        if ref.kind != "sql":
            function = bkg.function(ref.kind, ref.target)
            assert function is not None, (case.id, ref.target)
            tables |= set(function.tables)
    return sorted(tables)


def test_demo_questions_retrieve_their_reference_tables(
    demo_bkg: BKG, demo_cases: list[GoldenCase], embedder: SentenceEmbedder
) -> None:
    checked = 0
    for case in demo_cases:
        expected = _reference_tables(case, demo_bkg)
        if not expected:
            continue
        result = bkg_dimension(case.question, "Here it is.", [], demo_bkg, embedder=embedder)
        top = {r["table"] for r in result.details["retrieved"]}
        assert top & set(expected), (case.id, top, expected)
        checked += 1
    assert checked >= 20


def test_demo_answers_over_the_reference_tables_are_grounded(
    demo_bkg: BKG, demo_cases: list[GoldenCase], embedder: SentenceEmbedder
) -> None:
    for case in demo_cases:
        expected = _reference_tables(case, demo_bkg)
        if not expected:
            continue
        first, *others = expected
        joins = " ".join(f"JOIN {t} USING (site_id)" for t in others)
        sql = f"SELECT COUNT(*) FROM {first} {joins}"
        result = bkg_dimension(case.question, ANSWERS[case.id], [sql], demo_bkg, embedder=embedder)
        assert result.details["heuristic"] == 1.0, (case.id, result.reason)
        assert result.score is not None and result.score >= 0.7, (case.id, result.reason)
        off = bkg_dimension(case.question, OFF_TOPIC, [], demo_bkg, embedder=embedder)
        assert off.score is not None and off.score <= 0.3, (case.id, off.reason)


def test_demo_abstentions_are_not_punished(
    demo_bkg: BKG, demo_cases: list[GoldenCase], embedder: SentenceEmbedder
) -> None:
    for case in demo_cases:
        if "abstention" not in case.tags:
            continue
        result = bkg_dimension(case.question, ANSWERS[case.id], [], demo_bkg, embedder=embedder)
        assert result.details["refusal"] is True, case.id
        assert result.score is not None and result.score >= 0.7, (case.id, result.reason)


class _Failing:
    def encode(self, texts: Sequence[str]) -> Vectors:
        raise EmbeddingError("model unavailable")
