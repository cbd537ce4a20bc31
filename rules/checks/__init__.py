"""The python checks of the `ac` rule source: one module `r<id>.py` per checked rule.

Each module has `RULE` (the rule it checks), `SUPERSEDED` (True once the rule is superseded: kept,
run only when asked for by id) and `check(subject) -> list[Finding]` (docs/formats.md). Operations
that three or more checks share live in `_helpers.py`.
"""
