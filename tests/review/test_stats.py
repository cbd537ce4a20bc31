"""Calibration statistics against values computed by hand (the arithmetic is in each comment)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.review.stats import Matrix, kappa, scores, wilson


def pairs(tp=0, fp=0, fn=0, tn=0, unsure_violated=0, unsure_satisfied=0):
    return ([("violated", "violated")] * tp + [("satisfied", "violated")] * fp + [("violated", "satisfied")] * fn
            + [("satisfied", "satisfied")] * tn + [("violated", "cannot-tell")] * unsure_violated
            + [("satisfied", "cannot-tell")] * unsure_satisfied)


def test_a_reviewer_that_is_always_right():
    labels = ["violated"] * 30 + ["satisfied"] * 70
    found = scores(Matrix.of((label, label) for label in labels))
    assert (found.precision, found.recall, found.kappa, found.agreement) == (1.0, 1.0, 1.0, 1.0)
    # Wilson for 30/30: (30 + z²/2 - z·sqrt(0 + z²/4)) / (30 + z²) = (30 + 1.920729 - 1.920729) / 33.841459
    assert found.recall_interval.low == pytest.approx(30 / 33.841459, abs=1e-6)    # 0.886486
    assert found.recall_interval.high == 1.0


def test_a_reviewer_that_is_always_wrong():
    flipped = {"violated": "satisfied", "satisfied": "violated"}
    labels = ["violated"] * 30 + ["satisfied"] * 70
    matrix = Matrix.of((label, flipped[label]) for label in labels)
    assert (matrix.tp, matrix.fp, matrix.fn, matrix.tn) == (0, 70, 30, 0)
    found = scores(matrix)
    assert (found.precision, found.recall, found.agreement) == (0.0, 0.0, 0.0)
    # observed 0; chance (70·30 + 30·70) / 100² = 0.42; kappa (0 - 0.42) / (1 - 0.42) = -0.724138
    assert found.kappa == pytest.approx(-0.724138, abs=1e-6)
    # Wilson for 0/30: low 0, high (0 + 1.920729 + 1.920729) / 33.841459 = 0.113514
    assert found.recall_interval.low == 0.0
    assert found.recall_interval.high == pytest.approx(0.113514, abs=1e-6)


def test_the_textbook_two_by_two():
    # 50 cases: 20 both violated, 5 violated but said satisfied, 10 satisfied but said violated, 15 both
    # satisfied: observed 0.7, chance 0.6·0.5 + 0.4·0.5 = 0.5, kappa 0.4; precision 20/30, recall 20/25.
    found = scores(Matrix.of(pairs(tp=20, fn=5, fp=10, tn=15)))
    assert found.kappa == pytest.approx(0.4)
    assert found.precision == pytest.approx(2 / 3) and found.recall == pytest.approx(0.8)
    # Wilson for 20/25: (20 + 1.920729 ∓ 1.959964·sqrt(20·5/25 + 0.960365)) / 28.841459
    #   sqrt(4.960365) = 2.227188, times z = 4.365206: low 17.555523 / 28.841459, high 26.285935 / 28.841459
    assert found.recall_interval.low == pytest.approx(0.608691, abs=1e-5)
    assert found.recall_interval.high == pytest.approx(0.911394, abs=1e-5)


def test_cannot_tell_decides_nothing_and_costs_recall_and_agreement():
    found = scores(Matrix.of(pairs(tp=8, unsure_violated=2, tn=10)))
    assert found.recall == pytest.approx(0.8) and found.precision == 1.0 and found.agreement == pytest.approx(0.9)
    # three verdict categories: observed 18/20; chance (8·10 + 10·10 + 2·0) / 400 = 0.45; (0.9 - 0.45) / 0.55
    assert found.kappa == pytest.approx(0.45 / 0.55)


def test_a_random_reviewer_with_a_seed_agrees_by_chance_only():
    draw = random.Random(20261202)
    labels = ["violated" if draw.random() < 0.3 else "satisfied" for _ in range(2000)]
    verdicts = [draw.choice(("violated", "satisfied")) for _ in labels]
    matrix = Matrix.of(zip(labels, verdicts))
    # The same figures from the counts, written out: kappa = (po - pe) / (1 - pe).
    n = len(labels)
    tp = sum(1 for l, v in zip(labels, verdicts) if l == v == "violated")
    tn = sum(1 for l, v in zip(labels, verdicts) if l == v == "satisfied")
    said = verdicts.count("violated")
    truly = labels.count("violated")
    po, pe = (tp + tn) / n, (said * truly + (n - said) * (n - truly)) / n ** 2
    assert kappa(matrix) == pytest.approx((po - pe) / (1 - pe))
    assert abs(kappa(matrix)) < 0.06
    assert scores(matrix).recall == pytest.approx(tp / truly)


def test_no_cases_no_figures():
    found = scores(Matrix())
    assert found.kappa is found.precision is found.recall is found.recall_interval is None
    assert wilson(0, 0) is None


def test_unknown_labels_and_verdicts_are_refused():
    with pytest.raises(ValueError, match="label 'noise'"):
        Matrix.of([("noise", "violated")])
    with pytest.raises(ValueError, match="verdict 'maybe'"):
        Matrix.of([("violated", "maybe")])


counts = st.integers(min_value=0, max_value=200)


@given(counts, counts, counts, counts, counts, counts)
def test_figures_stay_in_range_and_matrices_add(tp, fp, fn, tn, uv, us):
    matrix = Matrix(tp, fp, fn, tn, uv, us)
    found = scores(matrix)
    assert matrix == Matrix.of(pairs(tp, fp, fn, tn, uv, us))
    assert matrix + Matrix() == matrix and (matrix + matrix).cases == 2 * matrix.cases
    if found.kappa is not None:
        assert -1.0 - 1e-9 <= found.kappa <= 1.0 + 1e-9
    for value, interval in ((found.precision, found.precision_interval), (found.recall, found.recall_interval),
                            (found.agreement, found.agreement_interval)):
        if value is not None:
            assert 0.0 <= interval.low <= value + 1e-9 and value - 1e-9 <= interval.high <= 1.0


@given(st.integers(min_value=1, max_value=500), st.data())
def test_the_wilson_interval_holds_its_proportion_and_narrows_with_more_trials(trials, data):
    successes = data.draw(st.integers(min_value=0, max_value=trials))
    small, large = wilson(successes, trials), wilson(successes * 4, trials * 4)
    p = successes / trials
    assert small.low <= p <= small.high
    assert large.high - large.low <= small.high - small.low + 1e-12
