"""The rule files and the check modules agree, and every check has fixtures."""

from __future__ import annotations

import tomllib

import pytest

from agent_constitution.checks.api import Repository

from .subjects import CHECKS, REPO, check_module, repository
from .test_repository_checks import CASES
from .test_session_checks import CHANGE_CASES, RECORD_CASES
from .test_uv_lock_check import RULE as UV_LOCK_RULE

# Checks whose fixtures need a live tool or server have a test module of their own.
OWN_MODULES = {UV_LOCK_RULE}

RULES = {
    int(path.stem): tomllib.loads(path.read_text(encoding="utf-8"))
    for path in (REPO / "rules").glob("*.toml")
    if path.stem.isdigit()
}
CHECKED = sorted(rule_id for rule_id, rule in RULES.items() if "check" in rule)


def test_each_file_holds_the_rule_it_is_named_after():
    # Ids are handed out in ranges to work done side by side, so the sequence may have gaps until
    # the ranges fill up; an id is still never reused (`doit source` checks the history).
    assert all(rule["id"] == rule_id for rule_id, rule in RULES.items())


@pytest.mark.parametrize("rule_id", CHECKED)
def test_module_names_its_rule_and_status(rule_id):
    rule = RULES[rule_id]
    assert rule["check"]["python"] == f"r{rule_id}"
    module = check_module(rule_id)
    assert module.RULE == rule_id
    assert module.SUPERSEDED is (rule["status"] == "superseded")
    assert callable(module.check)


@pytest.mark.parametrize("rule_id", CHECKED)
def test_every_check_has_fixtures_for_its_subject(rule_id):
    fixtures = {"repository": CASES, "record": RECORD_CASES, "change": CHANGE_CASES}
    assert rule_id in fixtures[RULES[rule_id]["check"]["subject"]] or rule_id in OWN_MODULES


def test_no_module_without_a_rule():
    modules = {path.stem for path in CHECKS.glob("r*.py")}
    assert modules == {f"r{rule_id}" for rule_id in CHECKED}


REPOSITORY_INPUTS = sorted(
    rule_id for rule_id in CHECKED
    if RULES[rule_id]["check"]["subject"] == "repository" and "inputs" in RULES[rule_id]["check"]
    and rule_id not in OWN_MODULES
)


@pytest.mark.parametrize("rule_id", REPOSITORY_INPUTS)
@pytest.mark.parametrize("fixture", [0, 1], ids=["compliant", "violating"])
def test_a_check_reads_only_what_its_inputs_declare(rule_id, fixture, tmp_path):
    """`doit check` re-runs a check only when a file its `inputs` match changes, so a check must
    decide the same when it sees only those files."""
    full = repository(tmp_path, CASES[rule_id][fixture])
    declared = sorted({path for pattern in RULES[rule_id]["check"]["inputs"] for path in full.glob(pattern)})
    module = check_module(rule_id)
    assert module.check(Repository(full.root, tuple(declared))) == module.check(full)
