"""Record and change checks: each passes on a compliant fixture, reports the violating one and is
undecidable on a third, or can never be undecidable (and says why)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.checks.api import Undecidable

from .subjects import AGENTS, LINED, bash, change, check_module, record

# rule id → (compliant tool calls, violating tool calls)
RECORD_CASES: dict[int, tuple[list, list]] = {
    14: (
        bash(
            "git switch -c my-topic",
            "git push --force-with-lease origin my-topic",
            "git push origin main",
            "git checkout -b fix origin/main",
            "git push -u origin +fix:fix",
        ),
        bash("git status && git push -f origin main"),
    ),
    15: (
        bash('git commit -m "-n is now an option"', "git commit -am 'fix'", "git push origin topic"),
        bash("git commit --no-verify -m wip"),
    ),
    16: (
        bash("git stash && git status", "git restore --staged a.py", "git checkout -b topic", "git clean -n"),
        bash("git reset --hard HEAD~1"),
    ),
    39: (
        [("Edit", {"file_path": "a.py"}), *bash("uv run pytest -q")],
        [*bash("uv run pytest -q"), ("Write", {"file_path": "a.py", "content": ""})],
    ),
    40: (bash("uv build", "npm run publish-docs-locally", "aws s3 ls"), bash("uv build && uv publish")),
    48: (
        [
            ("Read", {"file_path": "/home/me/.ssh/id_ed25519.pub"}),
            *bash("ssh -T git@github.com", "ls ~/.ssh"),
        ],
        bash("cat ~/.ssh/id_ed25519"),
    ),
}

# rule id → (compliant change, violating change) as (messages, files)
CHANGE_CASES: dict[int, tuple[tuple, tuple]] = {
    8: ((["Add the lock command"], {}), (["Add the lock command and the upgrade command, with tests"], {})),
    9: (
        (["Add the lock command and the upgrade command, with tests and a benchmark"], {}),
        (["Add the lock command, the upgrade command and the outdated command, with tests and docs"], {}),
    ),
    10: (
        (["Add the lock command\n\nIt writes rules.lock.", "Fix a typo"], {}),
        (["Add the lock command\nIt writes rules.lock."], {}),
    ),
    44: (
        ([], {"rules/3.toml": ('id = 3\nstatus = "active"\n', 'id = 3\nstatus = "repealed"\n')}),
        ([], {"rules/3.toml": ('id = 3\nstatus = "active"\n', None)}),
    ),
    45: (
        (
            [],
            {
                "rules/checks/r3.py": ("RULE = 3\n", "RULE = 3  # fixed\n"),
                "rules/3.toml": ("id = 3\nrevision = 1\n", "id = 3\nrevision = 2\n"),
                "rules/checks/r4.py": (None, "RULE = 4\n"),
            },
        ),
        ([], {"rules/checks/r3.py": ("RULE = 3\n", "RULE = 3  # fixed\n")}),
    ),
}


# rule id → a session on which the check must be undecidable (every record check is also undecidable
# on a record nobody can read: test_agent_records.py)
RECORD_UNDECIDABLE: dict[int, list] = {
    14: bash("git push -f origin my-topic"),
    15: bash("git commit -m wip $GIT_FLAGS", 'git push "$@"'),
    16: bash('git reset $RESET_OPTS HEAD~1', "git clean ${CLEAN_ARGS}"),
    39: [("Edit", {"file_path": "a.py"}), *bash("make")],
    48: bash('cat ~/.ssh/"$KEY_NAME"', "ls ~/.ssh"),
}


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("rule_id", sorted(RECORD_UNDECIDABLE))
def test_record_check_is_undecidable_on_the_third_session(rule_id, agent, tmp_path):
    with pytest.raises(Undecidable):
        check_module(rule_id).check(record(tmp_path / "s.jsonl", *RECORD_UNDECIDABLE[rule_id], agent=agent))


def test_a_violation_beside_options_from_a_variable_is_still_reported(tmp_path):
    session = record(tmp_path / "s.jsonl", *bash('git push "$@"', "git commit --no-verify -m wip"))
    assert [finding.reason.split(":")[0] for finding in check_module(15).check(session)] == [
        "git commit --no-verify skips the hooks"]


# rule id → a change on which the check must be undecidable
CHANGE_UNDECIDABLE: dict[int, tuple] = {
    45: ([], {"rules/checks/r3.py": ("RULE = 3\n", "RULE = 3  # fixed\n"),
              "rules/3.toml": ("id = 3\nrevision = 1\n", "id = 3\nrevision = [2\n")}),
}
# Change checks that can never be undecidable: rule id → why (docs/rule-catalogue.md says it too).
# The record checks' third case is the record nobody can read (test_agent_records.py).
CHANGE_NEVER_UNDECIDABLE = {
    8: "a commit message's first line has a length",
    9: "a commit message's first line has a length",
    10: "a commit message's second line is empty or not",
    44: "the paths of the change's files decide",
}


@pytest.mark.parametrize("rule_id", sorted(CHANGE_UNDECIDABLE))
def test_change_check_is_undecidable_on_the_third_change(rule_id, tmp_path):
    messages, files = CHANGE_UNDECIDABLE[rule_id]
    with pytest.raises(Undecidable):
        check_module(rule_id).check(change(tmp_path, messages, files))


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=90)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(texts, max_size=3),
       paths=st.lists(st.sampled_from(["rules/3.toml", "a/rules/12.toml", "rules/x.toml", "src/a.py"]), max_size=3),
       kept=st.booleans())
def test_change_checks_that_always_decide(tmp_path, messages, paths, kept):
    """Whatever the messages and files, these checks answer with findings or none, never Undecidable."""
    files = {path: ("id = 3\n", "id = [\n" if kept else None) for path in paths}
    for rule_id in sorted(CHANGE_NEVER_UNDECIDABLE):
        findings = check_module(rule_id).check(change(tmp_path, messages, files))
        assert isinstance(findings, list) and all(finding.reason for finding in findings)


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("rule_id", sorted(RECORD_CASES))
def test_record_check_passes_on_compliant_session(rule_id, agent, tmp_path):
    assert check_module(rule_id).check(record(tmp_path / "s.jsonl", *RECORD_CASES[rule_id][0], agent=agent)) == []


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("rule_id", sorted(RECORD_CASES))
def test_record_check_reports_violating_session(rule_id, agent, tmp_path):
    findings = check_module(rule_id).check(record(tmp_path / "s.jsonl", *RECORD_CASES[rule_id][1], agent=agent))
    assert findings
    assert all(finding.path == str(tmp_path / "s.jsonl") for finding in findings)
    assert all(finding.line for finding in findings) or agent not in LINED


@pytest.mark.parametrize("rule_id", sorted(CHANGE_CASES))
def test_change_check_passes_on_compliant_change(rule_id, tmp_path):
    messages, files = CHANGE_CASES[rule_id][0]
    assert check_module(rule_id).check(change(tmp_path, messages, files)) == []


@pytest.mark.parametrize("rule_id", sorted(CHANGE_CASES))
def test_change_check_reports_violating_change(rule_id, tmp_path):
    messages, files = CHANGE_CASES[rule_id][1]
    assert check_module(rule_id).check(change(tmp_path, messages, files))


@pytest.mark.parametrize(
    "command, forced",
    [
        ("git push --force", True),  # names no branch
        ("git push -f origin HEAD", True),
        ("git push origin +main", True),
        ("git push --force-with-lease origin topic:main", True),
        ("git push --all -f origin", True),
        ("git -C repo push -fu origin refs/heads/master", True),
        ("git push -f origin release/2.1", True),
        ("git push -f origin +develop", True),
        ("git push -o ci.skip origin main", False),
        ("echo git push -f origin main", False),
    ],
)
def test_force_push_variants(command, forced, tmp_path):
    findings = check_module(14).check(record(tmp_path / "s.jsonl", *bash(command)))
    assert bool(findings) == forced


@pytest.mark.parametrize("created", ["git switch -c my-topic", "git checkout -b my-topic", "git branch my-topic",
                                     "git worktree add -b my-topic ../wt"])
def test_a_force_push_to_a_branch_the_agent_created_complies(created, tmp_path):
    assert check_module(14).check(record(tmp_path / "s.jsonl", *bash(created, "git push -f origin my-topic"))) == []


def test_a_force_push_to_a_branch_of_unknown_origin_is_undecidable(tmp_path):
    with pytest.raises(Undecidable, match="my-topic"):
        check_module(14).check(record(tmp_path / "s.jsonl", *bash("git push -f origin my-topic")))


@pytest.mark.parametrize(
    "command, bypass",
    [
        ("git commit -nm wip", True),
        ("git -c core.hooksPath=/dev/null commit -m wip", True),
        ("git config core.hooksPath /tmp/none", True),
        ("git config set --global core.hooksPath /dev/null", True),
        ("git config core.hooksPath", False),
        ("git config --get core.hooksPath", False),
        ("git config --unset core.hooksPath", False),
        ("HUSKY=1 git push --no-verify origin topic", True),
        ("git commit -m 'run -n'", False),
        ("git commit --message -n", False),
        ("git log -n 3", False),
        ("SKIP=ruff,mypy git commit -m wip", True),
        ("LEFTHOOK=0 git commit -m wip", True),
        ("env HUSKY=0 git push origin topic", True),
        ("export LEFTHOOK=false && git commit -m wip", True),
        ("LEFTHOOK=1 git commit -m wip", False),
        ("SKIP= git commit -m wip", False),
    ],
)
def test_hook_bypass_variants(command, bypass, tmp_path):
    assert bool(check_module(15).check(record(tmp_path / "s.jsonl", *bash(command)))) == bypass


@pytest.mark.parametrize(
    "command, discards",
    [
        ("git clean -fdx", True),
        ("git checkout -- src/a.py", True),
        ("git checkout .", True),
        ("git restore src/a.py", True),
        ("git restore --staged --worktree a.py", True),
        ("git reset --soft HEAD~1", False),
        ("git checkout main", False),
    ],
)
def test_discard_variants(command, discards, tmp_path):
    assert bool(check_module(16).check(record(tmp_path / "s.jsonl", *bash(command)))) == discards


@pytest.mark.parametrize(
    "command, runs",
    [
        ("uv run doit check", True),
        ("cd sub && make test", True),
        ("python -m pytest tests", True),
        ("cargo build", False),
        ("cat test_a.py", False),
    ],
)
def test_what_counts_as_running_the_checks(command, runs, tmp_path):
    calls = [("Edit", {"file_path": "a.py"}), *bash(command)]
    assert (check_module(39).check(record(tmp_path / "s.jsonl", *calls)) == []) == runs


@pytest.mark.parametrize("command", ["make", "just ci", "npm run lint", "uv run task verify", "./scripts/ci.sh",
                                     "bash tools/check.sh"])
def test_a_project_entry_point_after_the_last_edit_may_run_the_checks(command, tmp_path):
    calls = [("Edit", {"file_path": "a.py"}), *bash(command)]
    with pytest.raises(Undecidable, match="may run the checks"):
        check_module(39).check(record(tmp_path / "s.jsonl", *calls))


def test_session_without_edits_needs_no_checks(tmp_path):
    assert check_module(39).check(record(tmp_path / "s.jsonl", *bash("git log"))) == []


@pytest.mark.parametrize(
    "call",
    [
        ("Grep", {"pattern": "token", "path": "~/.git-credentials"}),
        ("Read", {"file_path": "/root/.aws/credentials"}),
        ("Bash", {"command": "cp ~/.netrc /tmp/n"}),
        ("Bash", {"command": "cat ~/.ssh/github_deploy"}),
        ("Bash", {"command": "tar czf /tmp/keys.tgz ~/.ssh/"}),
        ("Bash", {"command": "vim ~/.docker/config.json"}),
    ],
)
def test_credential_reads(call, tmp_path):
    assert check_module(48).check(record(tmp_path / "s.jsonl", call))


@pytest.mark.parametrize(
    "command",
    ["cat ~/.ssh/known_hosts", "cat ~/.ssh/config", "cat ~/.ssh/id_rsa.pub", "ls -la ~/.ssh", "cat ~/.aws/config",
     "ssh -i ~/.ssh/id_ed25519 git@example.test"],
)
def test_what_is_not_a_credential_read(command, tmp_path):
    assert check_module(48).check(record(tmp_path / "s.jsonl", *bash(command))) == []


def test_cloud_create_needs_a_principal(tmp_path):
    assert check_module(40).check(record(tmp_path / "s.jsonl", *bash("aws ec2 run-instances --count 4")))
    assert check_module(40).check(record(tmp_path / "s.jsonl", *bash("gcloud compute instances create vm-1")))


def test_superseded_subject_limit_still_runs_when_asked(tmp_path):
    module = check_module(8)
    assert module.SUPERSEDED is True
    assert module.check(change(tmp_path, ["x" * 51])) and not module.check(change(tmp_path, ["x" * 50]))


def test_subject_ending_in_a_period(tmp_path):
    assert check_module(60).check(change(tmp_path, ["Add the lock command."]))
    assert check_module(60).check(change(tmp_path, ["添加锁定命令。"]))


def test_renamed_rule_file_is_reported(tmp_path):
    from agent_constitution.checks.api import Change, FileChange

    renamed = Change(tmp_path, (FileChange("rules/3.toml", "rules/30.toml", "id = 3\n", "id = 3\n"),))
    assert check_module(44).check(renamed)


def test_revision_that_did_not_go_up(tmp_path):
    files = {
        "rules/checks/r3.py": ("RULE = 3\n", "RULE = 3  # fixed\n"),
        "rules/3.toml": ("id = 3\nrevision = 2\n", "id = 3\nrevision = 2\ntitle = {}\n"),
    }
    assert check_module(45).check(change(tmp_path, [], files))
