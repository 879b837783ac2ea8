"""A BKG's locale: Spanish numbers ("1.234,56 €", "15 %", "quince por ciento") read as written."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.claims.locale import as_written, localized
from eval_pipeline.core.models import ChatPayload, GoldenCase, Reference, ReferenceValue
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.core.steps import extract


def spanish_claims(answer: str) -> list[tuple[float | None, str | None, str]]:
    read = localized(answer, "es")
    contract = as_written(extract_claims("c", "", read.text), answer, read)
    return [(c.value, c.unit, c.text) for c in contract.claims]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Cuesta 1.234,56 € al mes.", [(1234.56, "currency", "1.234,56 €")]),
        ("Cuesta 49,90 €.", [(49.9, "currency", "49,90 €")]),
        ("Un descuento del 15 % requiere aprobación.", [(15.0, "percent", "15 %")]),
        ("Ofrecemos el quince por ciento.", [(15.0, "percent", "quince por ciento")]),
        ("Son treinta y cinco licencias.", [(35.0, "count", "treinta y cinco")]),
        ("Tenemos veintitrés clientes.", [(23.0, "count", "veintitrés")]),
        ("Vendimos 2.500 licencias.", [(2500.0, "count", "2.500")]),
        ("Unos 3 mil euros.", [(3000.0, "currency", "Unos 3 mil euros")]),
        ("Cien clientes.", [(100.0, "count", "Cien")]),
        ("Son ciento veinte licencias.", [(120.0, "count", "ciento veinte")]),
        ("Atendimos a doscientas empresas.", [(200.0, "count", "doscientas")]),
        ("Quinientos cuarenta y un usuarios.", [(541.0, "count", "Quinientos cuarenta y un")]),
        ("Cuesta mil euros.", [(1000.0, "currency", "mil euros")]),
        ("Tenemos dos mil clientes.", [(2000.0, "count", "dos mil")]),
        ("Trescientos mil usuarios.", [(300_000.0, "count", "Trescientos mil")]),
        (
            "Vendimos mil doscientos treinta y cuatro licencias.",
            [(1234.0, "count", "mil doscientos treinta y cuatro")],
        ),
        ("Facturamos un millón de euros.", [(1e6, "currency", "un millón de euros")]),
        ("Hay dos millones de usuarios.", [(2e6, "count", "dos millones")]),
        (
            "Son dos millones trescientos mil cuarenta y una fichas.",
            [(2_300_041.0, "count", "dos millones trescientos mil cuarenta y una")],
        ),
        ("Ingresos de 1,5 millones de euros.", [(1.5e6, "currency", "1,5 millones de euros")]),
        ("Mil millones de euros.", [(1e9, "currency", "Mil millones de euros")]),
        ("Un descuento para una empresa.", []),
    ],
)
def test_spanish_numbers_are_read_with_their_value_unit_and_written_text(
    answer: str, expected: list[tuple[float, str, str]]
) -> None:
    assert spanish_claims(answer) == expected


@pytest.mark.parametrize(
    ("spanish", "english"),
    [
        ("dos mil", "two thousand"),
        ("trescientos mil", "three hundred thousand"),
        ("dos millones", "two million"),
        ("1,5 millones", "1.5 million"),
        ("ciento veinte", "one hundred twenty"),
    ],
)
def test_spanish_number_words_are_as_precise_as_their_english(spanish: str, english: str) -> None:
    """A scale word rounds ("dos mil" is 2,000 give or take 500, as "two thousand" is), so a
    correctly rounded figure is not contradicted; words without one are exact."""
    es = extract_claims("c", "", localized(f"Tenemos {spanish} clientes.", "es").text).claims
    en = extract_claims("c", "", f"We have {english} customers.").claims
    assert [(c.value, c.precision, c.place) for c in es] == [
        (c.value, c.precision, c.place) for c in en
    ]


def test_spanish_hedges_and_bounds() -> None:
    read = localized("Más de 2.500 clientes y aproximadamente el 40 %.", "es")
    claims = extract_claims("c", "", read.text).claims
    assert [(c.value, c.bound, c.hedged) for c in claims] == [
        (2500.0, "at_least", False),
        (40.0, None, True),
    ]


def test_the_rewrite_keeps_every_offset_and_english_is_untouched() -> None:
    text = "Más de 1.234,56 € — quince por ciento, treinta y cinco, casi 3 mil."
    read = localized(text, "es")
    assert len(read.text) == len(text)
    assert localized(text, "en").text == text
    english = extract_claims("c", "", localized("It is 1,234.56.", "en").text).claims
    assert [c.value for c in english] == [1234.56]


def test_a_wrong_spanish_price_is_contradicted_against_the_catalogue() -> None:
    catalogue = ReferenceValue(
        reference=Reference(kpi="precio_catalogo"),
        shape="mapping",
        value={"Patito Básico": 349.9, "Paquete Premium": 2890.5},
        unit="currency",
    )
    case = GoldenCase(id="c", question="¿Cuál es el precio del Paquete Premium?")
    for answer, verdict in (
        ("El Paquete Premium cuesta 2.890,50 €.", "supported"),
        ("El Paquete Premium cuesta 2.490,50 €.", "contradicted"),
    ):
        payload = ChatPayload(case_id="c", question=case.question, answer=answer)
        contract = extract(case, payload, locale="es")
        read = localized(answer, "es").text
        verdicts = verify_claims(contract, [catalogue], answer=read, question=case.question)
        assert [v.verdict for v in verdicts] == [verdict], (answer, verdicts)
