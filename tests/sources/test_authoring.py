import datetime
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.source import load_source
from agent_constitution.authoring.history import next_free_id
from agent_constitution.authoring.new_rule import new_rule
from agent_constitution.authoring.validate import validate_source

from .conftest import commit_files, git

SOURCE = """name = "team"
languages = ["en", "zh"]

[domains.git]
title = { en = "Git", zh = "Git" }
"""
TODAY = datetime.date(2026, 11, 29)


# What every text ends with: with the requirement first, the three sentences a rule's text needs.
REASON = " Small commits are reviewed well. A reviewer reads the diff."


def rule(rule_id: int, *, revision: int = 1, text: str = "Commit small.", extra: str = "") -> str:
    text += REASON
    return f"""id = {rule_id}
revision = {revision}
status = "active"
parent = "git"
authority = ["must-ask"]
{extra}
[title]
en = "Rule {rule_id}"
zh = "规定 {rule_id}"

[text]
en = "{text}"
zh = "{text}"
"""


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A source repository with rules 1 and 2 committed on main."""
    repo = tmp_path / "source"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_files(repo, {"rules/source.toml": SOURCE, "rules/1.toml": rule(1), "rules/2.toml": rule(2)})
    return repo


def messages(root: Path, base: str | None = None) -> list[str]:
    return [str(problem) for problem in validate_source(root, base=base)]


def test_a_valid_source_has_no_problems(source: Path):
    assert messages(source) == []


def test_new_rule_takes_the_next_id_and_validation_wants_its_text(source: Path):
    path = new_rule(source, title="Sign commits", parent="git", today=TODAY)
    assert path == source / "rules" / "3.toml"
    written = load_source(source).rules[3]
    assert (written.status, written.revision, written.parent) == ("trial", 1, "git")
    assert written.title["en"] == "Sign commits"
    assert str(written.created) == "2026-11-29"
    authority, template = messages(source)
    assert "3.toml: authority: authority is empty" in authority
    assert "3.toml" in template and "title.zh, text.en, text.zh still hold the template" in template


def test_new_rule_never_reuses_an_id_from_the_history_or_another_branch(source: Path):
    commit_files(source, {"rules/3.toml": rule(3)})
    commit_files(source, {"rules/3.toml": None}, "delete 3")
    git(source, "checkout", "-q", "-b", "other")
    commit_files(source, {"rules/7.toml": rule(7)})
    git(source, "checkout", "-q", "main")
    assert next_free_id(source) == 8
    assert new_rule(source, title="x", parent="1", today=TODAY).name == "8.toml"


def test_new_rule_in_a_plain_folder_uses_the_files(tmp_path: Path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "source.toml").write_text(SOURCE)
    (tmp_path / "rules" / "4.toml").write_text(rule(4))
    assert new_rule(tmp_path, title="x", parent="git", today=TODAY).name == "5.toml"


@pytest.mark.parametrize(
    ("title", "parent", "expected"),
    [("", "git", "needs a title"), ("x", "nowhere", "parent 'nowhere' is not a domain"), ("x", "99", "'99'")],
)
def test_new_rule_errors(source: Path, title: str, parent: str, expected: str):
    with pytest.raises(UserError, match=expected):
        new_rule(source, title=title, parent=parent, today=TODAY)
    assert not (source / "rules" / "3.toml").exists()


def test_an_invalid_rule_is_one_message(source: Path):
    (source / "rules" / "2.toml").write_text(rule(2).replace("revision = 1", "revision = 1\ncolour = 1"))
    [problem] = messages(source)
    assert "2.toml" in problem and "colour" in problem


def test_a_missing_successor_is_reported(source: Path):
    (source / "rules" / "1.toml").write_text(
        rule(1, revision=2).replace('status = "active"', 'status = "superseded"\nsuperseded_by = 9')
    )
    [problem] = messages(source)
    assert "superseded_by" in problem and "rule 9 does not exist in this source" in problem


def test_trial_rules_are_listed_with_their_age(source: Path):
    from agent_constitution.authoring.validate import trial_rules

    new_rule(source, title="Sign commits", parent="git", today=TODAY)
    assert trial_rules(source, TODAY + datetime.timedelta(days=12)) == [
        "trial rule 3 'Sign commits': on trial for 12 days (since 2026-11-29)"
    ]
    assert trial_rules(source, TODAY + datetime.timedelta(days=1)) == [
        "trial rule 3 'Sign commits': on trial for 1 day (since 2026-11-29)"
    ]


def test_requirement_graph_constraints_are_checked_in_the_source(tmp_path: Path):
    """A cycle, a redundant requirement and a conflict with a pulled-in rule fail where they are written."""
    from tests.ruleset.builders import write_source

    root = write_source(
        tmp_path / "graph",
        {
            1: {"parent": "git", "conflicts": [4]},
            2: {"parent": "git", "requires": [1]},
            3: {"parent": "git", "requires": [2, 1]},  # 1 already follows from 2
            4: {"parent": "git", "requires": [2]},  # pulls 1 in, which conflicts with it
            5: {"parent": "g", "requires": [6]},  # an alternative needing its own group again
            6: {"parent": "python", "requires": ["g"]},
            7: {"parent": "g"},
            8: {"parent": 7, "requires": [7]},  # the parent counts as a requirement
        },
        text="Do the thing." + REASON,
        groups={"g": "python"},
        constitution=None,
    )
    found = messages(root)
    assert len(found) == 4, found
    cycle, redundant, pulled, parent = found
    assert "rules/5.toml: requires: the requirements form a cycle: 5 → 6 → g → 5" in cycle
    assert "rules/3.toml: requires: requires lists 1, but it already follows from 3 → 2 → 1" in redundant
    assert "rules/1.toml: conflicts: conflicts lists 4, but enabling rule 4 pulls rule 1 in: 4 → 2 → 1" in pulled
    assert "rules/8.toml: requires: requires lists 7, but it is the rule's parent" in parent


def test_a_deleted_rule_file_is_reported_even_after_the_commit(source: Path):
    (source / "rules" / "2.toml").unlink()
    [problem] = messages(source)
    assert "rule 2 was deleted" in problem and "git checkout" in problem and 'status = "repealed"' in problem
    git(source, "commit", "-qam", "delete")
    assert len(messages(source)) == 1


def test_an_id_used_before_is_not_reused(source: Path):
    commit_files(source, {"rules/3.toml": rule(3, text="Old requirement.")})
    commit_files(source, {"rules/3.toml": None}, "delete 3")
    (source / "rules" / "3.toml").write_text(rule(3, text="A new requirement."))
    [problem] = messages(source)
    assert "rule 3 is new here, but ID 3 was used before" in problem and "'Rule 3'" in problem


def test_a_reuse_against_base_is_caught_after_committing(source: Path):
    commit_files(source, {"rules/3.toml": rule(3)})
    commit_files(source, {"rules/3.toml": None}, "delete 3")
    git(source, "branch", "base")
    commit_files(source, {"rules/3.toml": rule(3, text="Another requirement.")}, "reuse")
    assert messages(source) == []  # against HEAD nothing is new
    assert any("ID 3 was used before" in problem for problem in messages(source, base="base"))


def test_changed_text_needs_a_higher_revision(source: Path):
    (source / "rules" / "1.toml").write_text(rule(1, text="Commit smaller."))
    [problem] = messages(source)
    assert "text changed since HEAD, but the revision is still 1" in problem and "revision = 2" in problem
    (source / "rules" / "1.toml").write_text(rule(1, revision=2, text="Commit smaller."))
    assert messages(source) == []


def test_revisions_compare_with_base(source: Path):
    git(source, "branch", "base")
    commit_files(source, {"rules/1.toml": rule(1, text="Commit smaller.")})
    assert messages(source) == []
    [problem] = messages(source, base="base")
    assert "text changed since base" in problem


def test_a_changed_check_module_needs_a_higher_revision(source: Path):
    check = '[check]\npython = "r1"\n'
    text = rule(1) + check
    commit_files(source, {"rules/1.toml": text, "rules/checks/__init__.py": "", "rules/checks/r1.py": "RULE = 1\n"})
    (source / "rules" / "checks" / "r1.py").write_text("RULE = 1\n# fixed\n")
    [problem] = messages(source)
    assert "check module changed" in problem


def test_the_revision_never_goes_down(source: Path):
    commit_files(source, {"rules/1.toml": rule(1, revision=3)})
    (source / "rules" / "1.toml").write_text(rule(1, revision=2))
    [problem] = messages(source)
    assert "the revision went down from 3" in problem


def test_an_unknown_base(source: Path):
    assert any("--base 'nope' names no commit" in problem for problem in messages(source, base="nope"))


def _doit(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True)


def test_doit_tasks_in_a_source_repository(source: Path):
    (source / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    done = _doit(source, "new-rule", "--title", "Sign commits", "--parent", "git")
    assert done.returncode == 0, done.stderr
    assert "wrote rules/3.toml" in done.stdout
    failed = _doit(source, "source")
    assert failed.returncode != 0 and "still hold the template" in failed.stdout + failed.stderr
    (source / "rules" / "3.toml").unlink()
    passed = _doit(source, "source")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "-- source" in _doit(source, "source").stdout  # nothing changed: up to date
    git(source, "commit", "-q", "--allow-empty", "-m", "another commit")
    assert ".  source" in _doit(source, "source").stdout  # the history moved: validated again


def test_doit_tasks_only_in_a_source_repository(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    listed = _doit(tmp_path, "list").stdout.splitlines()
    assert not [line for line in listed if line.startswith("new-rule")]
