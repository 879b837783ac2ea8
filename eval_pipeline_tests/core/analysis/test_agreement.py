"""Krippendorff's α and Cohen's κ against published examples and hand computations."""

from __future__ import annotations

import math

import pytest

from eval_pipeline.core.analysis.agreement import (
    cohen_kappa,
    krippendorff_alpha_interval,
    pass_fail_kappa,
)

N = None


def test_cohen_kappa_of_the_textbook_two_by_two_table() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # p_o = 35/50 = 0.7; rater A says yes 25/50, B 30/50: p_e = 0.5·0.6 + 0.5·0.4 = 0.5.
    # κ = (0.7 − 0.5) / (1 − 0.5) = 0.4.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_with_three_categories() -> None:
    # p_o = 3/6; each rater uses each category twice: p_e = 3 · (2/6)² = 1/3.
    # κ = (1/2 − 1/3) / (2/3) = 1/4.
    assert cohen_kappa([0, 1, 2, 0, 1, 2], [0, 1, 2, 1, 2, 0]) == pytest.approx(0.25)


def test_cohen_kappa_is_undefined_without_variation_and_refuses_unpaired_input() -> None:
    assert cohen_kappa([True, True], [True, True]) is None
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError, match="same units"):
        cohen_kappa([True], [True, False])


def test_systematic_disagreement_gives_a_negative_kappa() -> None:
    # p_o = 0, p_e = 0.5 → κ = −1.
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)


def test_pass_fail_kappa_drops_missing_pairs_and_passes_at_the_threshold() -> None:
    # Units 2 (None) and 5 (NaN) are dropped. At 0.6 (inclusive): A = P P F F, B = P F F P.
    # p_o = 2/4; both pass half the time: p_e = 0.5 → κ = 0.
    a = [0.6, 0.9, 0.7, 0.1, 0.5, 0.2]
    b = [1.0, N, 0.59, 0.3, math.nan, 0.8]
    assert pass_fail_kappa(a, b, 0.6) == pytest.approx(0.0)
    # At 0.55 unit 3 agrees (0.7 / 0.59 both pass): A = P P F F, B = P P F P.
    # p_o = 3/4; A passes 2/4, B 3/4: p_e = 0.5·0.75 + 0.5·0.25 = 0.5 → κ = 0.5.
    assert pass_fail_kappa(a, b, 0.55) == pytest.approx(0.5)


def test_alpha_matches_krippendorffs_published_interval_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C:
    # 4 observers, 12 units, missing values; interval α = 0.849.
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
    alpha = krippendorff_alpha_interval(data)
    assert alpha is not None
    assert round(alpha, 3) == 0.849


def test_alpha_by_hand_with_a_missing_rating() -> None:
    # Unit 3 has one rating: not pairable, dropped. Pairable values: {1, 1}, {2, 3}; n = 4.
    # D_o = 1/4 · (0 + 2·(2−3)²/1) = 1/2.
    # D_e: pairs of {1, 1, 2, 3} sum to 0+1+4+1+4+1 = 11 unordered, 22 ordered; 22/(4·3) = 11/6.
    # α = 1 − (1/2)/(11/6) = 8/11.
    assert krippendorff_alpha_interval([[1, 2, 3], [1, 3, N]]) == pytest.approx(8 / 11)
    assert krippendorff_alpha_interval([[1, 2, 3], [1, 3, math.nan]]) == pytest.approx(8 / 11)


def test_alpha_is_negative_for_systematic_disagreement() -> None:
    # Units {0, 1} and {1, 0}: D_o = 1/4 · (2 + 2) = 1; D_e = 8 / 12 = 2/3; α = 1 − 3/2.
    assert krippendorff_alpha_interval([[0, 1], [1, 0]]) == pytest.approx(-0.5)


def test_alpha_does_not_depend_on_which_rater_gave_which_score() -> None:
    rows = [[0.1, 0.5, 0.9, N], [0.3, 0.5, 0.6, 0.2], [0.2, N, 1.0, 0.4]]
    swapped = [[0.3, 0.5, 1.0, 0.2], [0.1, N, 0.6, 0.4], [0.2, 0.5, 0.9, N]]
    assert krippendorff_alpha_interval(rows) == pytest.approx(krippendorff_alpha_interval(swapped))


def test_alpha_is_one_for_perfect_agreement_and_undefined_without_evidence() -> None:
    assert krippendorff_alpha_interval([[0.2, 0.8, 0.5], [0.2, 0.8, 0.5]]) == pytest.approx(1.0)
    assert krippendorff_alpha_interval([[0.7, 0.7], [0.7, 0.7]]) is None
    assert krippendorff_alpha_interval([[0.1, N], [N, 0.9]]) is None
    assert krippendorff_alpha_interval([[0.1, 0.9]]) is None
    assert krippendorff_alpha_interval([]) is None
