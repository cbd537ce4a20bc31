"""The seed's rules for a source that `doit source` enforces: authority and references resolved against
the constitution the source publishes, draft rules under a draft constitution, trial rules changed in
place, restored rules accepted, external check scripts revised like python checks."""

import datetime
import shutil
from pathlib import Path

import pytest

from agent_constitution.ruleset.source import load_source
from agent_constitution.authoring.new_rule import new_rule
from agent_constitution.authoring.validate import validate_source

from .conftest import commit_files, git
from .test_authoring import SOURCE, rule

CONSTITUTION = Path(__file__).resolve().parents[2] / "constitution" / "2026-10"


def messages(root: Path) -> list[str]:
    return [str(problem) for problem in validate_source(root)]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A source repository publishing this project's draft constitution, with rules 1 and 2 (draft)."""
    repo = tmp_path / "source"
    shutil.copytree(CONSTITUTION, repo / "constitution" / "2026-10", ignore=shutil.ignore_patterns("generated"))
    git(repo, "init", "-q")
    draft = {1: rule(1).replace('"active"', '"draft"'), 2: rule(2).replace('"active"', '"draft"')}
    commit_files(repo, {"rules/source.toml": SOURCE, "rules/1.toml": draft[1], "rules/2.toml": draft[2]})
    return repo


def write(source: Path, rule_id: int, text: str) -> None:
    (source / "rules" / f"{rule_id}.toml").write_text(text)


def test_the_fixture_is_valid(source: Path):
    assert messages(source) == []


def test_authority_is_required_and_resolved(source: Path):
    write(source, 1, rule(1).replace('"active"', '"draft"').replace('authority = ["must-ask"]', "authority = []"))
    write(source, 2, rule(2).replace('"active"', '"draft"').replace('["must-ask"]', '["must-ask", "no-such"]'))
    empty, unknown = messages(source)
    assert "rules/1.toml: authority: authority is empty" in empty
    assert "rules/2.toml: authority.1: 'no-such' is not a provision of constitution edition 2026-10 revision 0.3" in unknown


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        ("{@rule:99}", "{@rule:99} refers to rule 99, which this source does not have"),
        ("{@rule:other:3}", "{@rule:other:3} names source 'other', which rules/source.toml [sources] does not declare"),
        ("{@rule:x}", "{@rule:x} is not a rule reference"),
        ("{@nowhere}", "{@nowhere} refers to a provision that does not exist"),
        ("{@ must-ask}", "'{@ must-ask}' is not a reference"),
    ],
)
def test_a_reference_that_does_not_resolve_is_an_error(source: Path, reference: str, expected: str):
    write(source, 1, rule(1, text=f"See {reference}.").replace('"active"', '"draft"'))
    found = [m for m in messages(source) if "text." in m]
    assert len(found) == 2 and all(expected in m for m in found)  # en and zh
    assert "rules/1.toml: text.en:" in found[0]


def test_references_that_resolve(source: Path):
    write(source, 1, rule(1, revision=2, text="As {@must-ask} says, and {@rule:2}.").replace('"active"', '"draft"'))
    assert messages(source) == []


def test_a_draft_constitution_has_draft_rules(source: Path):
    write(source, 1, rule(1).replace('"active"', '"trial"'))
    write(source, 2, rule(2))
    trial, active = messages(source)
    assert "rules/1.toml: status: the rule is trial, but the constitution it refines (edition 2026-10," in trial
    assert "is a draft: while the constitution is a draft, every rule is draft" in trial
    assert "the rule is active" in active and 'fix: set status = "draft"' in active
    write(source, 1, rule(1, revision=2).replace('status = "active"', 'status = "superseded"\nsuperseded_by = 2'))
    write(source, 2, rule(2).replace('"active"', '"draft"'))
    assert messages(source) == []  # superseded (and repealed) rules keep their place


def test_an_approved_constitution_allows_trial_and_active(source: Path):
    index = source / "constitution" / "2026-10" / "index.toml"
    index.write_text(index.read_text().replace('status = "draft"', 'status = "active"').replace('"0.3"', '"1"'))
    write(source, 1, rule(1).replace('"active"', '"trial"'))
    write(source, 2, rule(2))
    assert [m for m in messages(source) if "status" in m] == []


def test_new_rule_is_draft_under_a_draft_constitution(source: Path):
    path = new_rule(source, title="Sign commits", parent="git", today=datetime.date(2026, 12, 1))
    assert load_source(source).rules[int(path.stem)].status == "draft"


def test_a_trial_rule_changes_in_place(source: Path):
    index = source / "constitution" / "2026-10" / "index.toml"
    index.write_text(index.read_text().replace('status = "draft"', 'status = "active"').replace('"0.3"', '"1"'))
    commit_files(source, {"rules/1.toml": rule(1).replace('"active"', '"trial"'), "rules/2.toml": rule(2)}, "approved")
    write(source, 1, rule(1, text="Commit one change at a time.").replace('"active"', '"trial"'))
    write(source, 2, rule(2, text="Commit one change at a time."))
    trial, active = messages(source)
    assert "text changed since HEAD, but the revision is still 1" in trial
    assert "fix: set revision = 2 (a trial rule changes in place, also when what counts as compliant changes" in trial
    assert "write a new rule instead and supersede this one" in active
    write(source, 1, rule(1, revision=2, text="Commit one change at a time.").replace('"active"', '"trial"'))
    write(source, 2, rule(2))
    assert messages(source) == []


def test_a_restored_deleted_rule_is_accepted(source: Path):
    old = (source / "rules" / "2.toml").read_text()
    commit_files(source, {"rules/2.toml": None}, "delete 2")
    [deleted] = messages(source)
    assert "rule 2 was deleted" in deleted and "restore it" in deleted
    write(source, 2, old.replace("revision = 1", "revision = 2").replace('"draft"', '"repealed"'))  # the fix
    assert messages(source) == []
    write(source, 2, rule(2, text="Another requirement.").replace('"active"', '"draft"'))
    [reused] = messages(source)
    assert "rule 2 is new here, but ID 2 was used before" in reused


def test_an_external_check_script_needs_a_higher_revision(source: Path):
    check = '[check]\ncommand = ["python3", "{source}/scripts/check_1.py"]\n'
    text = rule(1).replace('"active"', '"draft"') + check
    commit_files(source, {"rules/1.toml": text, "scripts/check_1.py": "print('ok')\n"}, "a scripted check")
    (source / "scripts" / "check_1.py").write_text("print('fixed')\n")
    [problem] = messages(source)
    assert "rules/1.toml: revision: check script scripts/check_1.py changed since HEAD, but the revision is still 1" in problem
    write(source, 1, text.replace("revision = 1", "revision = 2"))
    assert messages(source) == []
