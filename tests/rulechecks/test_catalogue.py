"""The rule files and the check modules agree, and every check has fixtures: compliant, violating and
undecidable, or a reason in the catalogue why it can never be undecidable."""

from __future__ import annotations

import tomllib

import pytest

from agent_constitution.checks.api import Repository, Undecidable

from .subjects import CHECKS, REPO, check_module, repository
from .test_agent_records import RECORD_RULES as UNREADABLE_RECORD_RULES
from .test_repository_checks import CASES, NEVER_UNDECIDABLE, UNDECIDABLE
from .test_session_checks import (CHANGE_CASES, CHANGE_NEVER_UNDECIDABLE, CHANGE_UNDECIDABLE, RECORD_CASES,
                                  RECORD_UNDECIDABLE)
from .test_library_rules import CHANGES as LIBRARY_CHANGES
from .test_library_rules import CONVERSATIONS
from .test_library_rules import RECORDS as LIBRARY_RECORDS
from .test_library_rules import REPOSITORIES as LIBRARY_REPOSITORIES
from .test_library_rules import TOOLS as LIBRARY_TOOLS
from .test_uv_lock_check import RULE as UV_LOCK_RULE

# The compliant and violating repository of every repository check.
REPOSITORY_CASES = CASES | {rule_id: cases[:2] for rule_id, cases in LIBRARY_REPOSITORIES.items()}
# Checks whose fixtures need a live tool or server have a test module of their own.
OWN_MODULES = {UV_LOCK_RULE, *LIBRARY_TOOLS}

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
    fixtures = {"repository": REPOSITORY_CASES, "record": RECORD_CASES | LIBRARY_RECORDS | CONVERSATIONS,
                "change": CHANGE_CASES | LIBRARY_CHANGES}
    assert rule_id in fixtures[RULES[rule_id]["check"]["subject"]] or rule_id in OWN_MODULES


# The subject on which each check must be undecidable: repository, change and record fixtures, the
# stand-in tools left off PATH (TOOLS), uv missing (test_uv_lock_check), the unreadable record.
UNDECIDABLE_CASES = ({*UNDECIDABLE, *LIBRARY_REPOSITORIES, *LIBRARY_TOOLS, UV_LOCK_RULE, *CHANGE_UNDECIDABLE,
                      *LIBRARY_CHANGES, *LIBRARY_RECORDS, *CONVERSATIONS, *RECORD_UNDECIDABLE,
                      *UNREADABLE_RECORD_RULES})
NEVER = NEVER_UNDECIDABLE.keys() | CHANGE_NEVER_UNDECIDABLE.keys()


@pytest.mark.parametrize("rule_id", CHECKED)
def test_every_check_has_a_case_it_must_leave_undecided_or_says_why_none_exists(rule_id):
    assert (rule_id in UNDECIDABLE_CASES) != (rule_id in NEVER)


def test_the_catalogue_says_why_a_check_is_never_undecidable():
    catalogue = (REPO / "docs" / "rule-catalogue.md").read_text(encoding="utf-8")
    section = catalogue.split("## Checks that are never undecidable", 1)[1].split("\n## ", 1)[0]
    cells = [row.split("|")[1] for row in section.splitlines() if row.startswith("| ")]
    listed = {int(number) for cell in cells for number in cell.split(",") if number.strip().isdigit()}
    assert listed == set(NEVER)


def test_no_module_without_a_rule():
    modules = {path.stem for path in CHECKS.glob("r*.py")}
    assert modules == {f"r{rule_id}" for rule_id in CHECKED}


REPOSITORY_INPUTS = sorted(
    rule_id for rule_id in CHECKED
    if RULES[rule_id]["check"]["subject"] == "repository" and "inputs" in RULES[rule_id]["check"]
    and rule_id not in OWN_MODULES
)


@pytest.mark.parametrize("rule_id", REPOSITORY_INPUTS)
@pytest.mark.parametrize("fixture", [0, 1, 2], ids=["compliant", "violating", "undecidable"])
def test_a_check_reads_only_what_its_inputs_declare(rule_id, fixture, tmp_path):
    """`doit check` re-runs a check only when a file its `inputs` match changes, so a check must
    decide the same when it sees only those files."""
    third = UNDECIDABLE.get(rule_id) or LIBRARY_REPOSITORIES.get(rule_id, (None,) * 3)[2]
    files = (*REPOSITORY_CASES[rule_id], third)[fixture]
    if files is None:
        pytest.skip(f"rule {rule_id}'s check is never undecidable")
    full = repository(tmp_path, files)
    # A pattern starting with `/` matches from the repository's root, which is the fixture's root here.
    declared = sorted({path for pattern in RULES[rule_id]["check"]["inputs"] for path in full.glob(pattern.lstrip("/"))})
    module = check_module(rule_id)
    decide = lambda repo: _answer(module, repo)  # noqa: E731
    assert decide(Repository(full.root, tuple(declared))) == decide(full)


def _answer(module, repo):
    try:
        return module.check(repo)
    except Undecidable:
        return "undecidable"


def _domain(rule: dict, source: dict) -> str:
    parent = rule["parent"]
    while parent not in source["domains"]:
        group = source.get("groups", {}).get(parent)
        parent = group["parent"] if group else RULES[int(parent)]["parent"]
    return parent


def test_the_catalogue_counts_the_rules_of_each_domain():
    source = tomllib.loads((REPO / "rules" / "source.toml").read_text(encoding="utf-8"))
    expected = {}
    for domain, spec in source["domains"].items():
        rules = [rule for rule in RULES.values() if _domain(rule, source) == domain]
        superseded = sum(rule["status"] == "superseded" for rule in rules)
        checked = sum("check" in rule and rule["status"] != "superseded" for rule in rules)
        expected[f"{spec['title']['en']} (`{domain}`)"] = [len(rules), len(rules) - superseded, checked,
                                                         len(rules) - superseded - checked, superseded]
    expected["all"] = [sum(column) for column in zip(*expected.values())]
    catalogue = (REPO / "docs" / "rule-catalogue.md").read_text(encoding="utf-8")
    table = catalogue.split("## Rules per domain", 1)[1].split("\n\n| domain |", 1)[1].split("\n\n", 1)[0]
    found = {cells[1].strip(): [int(cell) for cell in cells[2:-1]]
             for cells in (row.split("|") for row in table.splitlines()[2:])}
    assert found == expected
