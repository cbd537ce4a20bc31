"""Calibrating a reviewer before its verdicts gate: labelled cases, agreement statistics, probes.

- `stats`: the confusion matrix of verdicts against labels, precision and recall for "violated",
  Cohen's kappa and Wilson intervals, in plain Python.
- `cases`: the labelled cases (the field corpus format, and the project's own `rules.cases.toml`).
- `probes`: the metamorphic variants of a case (padded, reordered, renamed) and the canary.
- `calibrate`: `review calibrate`, running a group's reviewer on the cases. The calibrations on
  record (`rules.calibration.toml`) and the gate they open are `checks.calibration`'s: the check run
  applies the gate, and checks/ sits below this package.
- `run`: `doit review`, asking each group's reviewer about its queue and recording the answers.
- `audit`: which passing results a run sends to the reviewer; `answers`: answers cached by subject.

docs/checks.md ("Calibrating a reviewer") documents the behaviour and the decisions.
"""
