"""Agreement of a reviewer's verdicts with labels: a 2×2 confusion matrix for "violated", precision,
recall, Cohen's kappa and Wilson 95 % score intervals.

Plain Python on counts: the matrix of 500 cases is four integers, and numpy would be a dependency for
four divisions. "violated" is the positive class (a missed violation is what a gate must not let
through); a `cannot-tell` verdict is counted apart and scored as wrong for recall and agreement (it
decides nothing), never silently dropped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

Z95 = 1.959963984540054   # the standard normal quantile for a two-sided 95 % interval


@dataclass(frozen=True)
class Matrix:
    """Counts of (label, verdict): tp violated/violated, fp satisfied/violated, fn violated/satisfied,
    tn satisfied/satisfied; `unsure_violated` and `unsure_satisfied`: cannot-tell on each label."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    unsure_violated: int = 0
    unsure_satisfied: int = 0

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> "Matrix":
        """From (label, verdict) pairs: label satisfied | violated, verdict satisfied | violated | cannot-tell."""
        counts = dict.fromkeys(("tp", "fp", "fn", "tn", "unsure_violated", "unsure_satisfied"), 0)
        for label, verdict in pairs:
            if label not in ("satisfied", "violated"):
                raise ValueError(f"label {label!r}: expected satisfied or violated")
            if verdict == "cannot-tell":
                counts[f"unsure_{label}"] += 1
            elif verdict == "violated":
                counts["tp" if label == "violated" else "fp"] += 1
            elif verdict == "satisfied":
                counts["fn" if label == "violated" else "tn"] += 1
            else:
                raise ValueError(f"verdict {verdict!r}: expected satisfied, violated or cannot-tell")
        return cls(**counts)

    def __add__(self, other: "Matrix") -> "Matrix":
        return Matrix(*(a + b for a, b in zip(self.astuple(), other.astuple())))

    def astuple(self) -> tuple[int, ...]:
        return self.tp, self.fp, self.fn, self.tn, self.unsure_violated, self.unsure_satisfied

    @property
    def cases(self) -> int:
        return sum(self.astuple())

    @property
    def violated(self) -> int:
        """Cases labelled violated (recall's denominator: a cannot-tell on one is a miss)."""
        return self.tp + self.fn + self.unsure_violated

    @property
    def agreed(self) -> int:
        return self.tp + self.tn


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class Scores:
    cases: int
    agreement: float | None
    precision: float | None       # of the verdicts "violated", the share labelled violated
    recall: float | None          # of the cases labelled violated, the share found violated
    kappa: float | None
    precision_interval: Interval | None
    recall_interval: Interval | None
    agreement_interval: Interval | None


def ratio(part: int, whole: int) -> float | None:
    return None if whole == 0 else part / whole


def wilson(successes: int, trials: int, z: float = Z95) -> Interval | None:
    """The Wilson score interval of a proportion (no interval for no trials)."""
    if trials == 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # At 0 or all successes the bound is exactly 0 or 1 (the float arithmetic leaves a residue).
    return Interval(0.0 if successes == 0 else max(0.0, centre - half),
                    1.0 if successes == trials else min(1.0, centre + half))


def kappa(matrix: Matrix) -> float | None:
    """Cohen's kappa of verdicts against labels over three verdict categories (cannot-tell is one the
    labels never use), so a reviewer that is unsure agrees less. None without cases; 1.0 when both
    sides use one category only and agree on every case (chance agreement 1)."""
    n = matrix.cases
    if n == 0:
        return None
    observed = matrix.agreed / n
    said_violated = matrix.tp + matrix.fp
    said_satisfied = matrix.fn + matrix.tn
    labelled_violated = matrix.violated
    labelled_satisfied = n - labelled_violated
    expected = (said_violated * labelled_violated + said_satisfied * labelled_satisfied) / (n * n)
    if expected == 1:
        return 1.0 if observed == 1 else 0.0
    return (observed - expected) / (1 - expected)


def scores(matrix: Matrix) -> Scores:
    said_violated = matrix.tp + matrix.fp
    return Scores(
        cases=matrix.cases,
        agreement=ratio(matrix.agreed, matrix.cases),
        precision=ratio(matrix.tp, said_violated),
        recall=ratio(matrix.tp, matrix.violated),
        kappa=kappa(matrix),
        precision_interval=wilson(matrix.tp, said_violated),
        recall_interval=wilson(matrix.tp, matrix.violated),
        agreement_interval=wilson(matrix.agreed, matrix.cases),
    )
