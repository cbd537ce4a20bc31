"""The checks of rules 37, 40 and 60 onwards: each passes on a compliant subject, reports the violating
one and is undecidable on the third, which it must not judge either way."""

from __future__ import annotations

import json

import pytest

from agent_constitution.checks.api import Record, Undecidable

from .subjects import AGENTS, bash, change, check_module, record, repository

SHA = "0123456789abcdef0123456789abcdef01234567"


def told(path, prompt: str, *tool_uses) -> Record:
    """A Claude Code record whose principal wrote `prompt`."""
    lines = [json.dumps({"type": "user", "message": {"role": "user", "content": prompt}})]
    for number, (name, tool_input) in enumerate(tool_uses):
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}
        lines.append(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Record.read(path)


# rule id → (compliant, violating, undecidable); each (principal's prompt or None, tool calls)
RECORDS: dict[int, tuple[tuple, tuple, tuple]] = {
    40: (
        (None, bash("uv build", "npm run publish-docs-locally", "aws s3 ls", "kubectl get pods")),
        (None, bash("uv build && uv publish", "kubectl apply -f deploy.yaml")),
        ("Deploy the new image to the staging cluster with helm", bash("helm upgrade web ./chart")),
    ),
    61: (
        (None, bash("git switch -c topic", "git push -u origin topic", "git push origin HEAD:refs/heads/topic")),
        (None, bash("git push origin main")),
        ("Fix the typo and push it to main", bash("git checkout main", "git pull", "git push")),
    ),
}

# rule id → (compliant, violating, undecidable); each (messages, files as path → (old, new))
CHANGES: dict[int, tuple[tuple, tuple, tuple]] = {
    37: (
        ([], {"rules.toml": ('rules = []\n', 'rules = []\n[sources]\nac = "github.com/Luolc/agent-constitution"\n')}),
        (["Enable the team rules"], {"rules.toml": ('rules = []\n', 'rules = []\n[sources.team]\nurl = "example.test/team/rules"\ntag = "v2"\n')}),
        ([], {"rules.toml": ('rules = []\n', 'rules = []\n[sources.team]\nurl = "example.test/team/rules"\ntag = "v2"\n')}),
    ),
    60: (
        (["Add the lock command", "修正拼写"], {}),
        (["Add the lock command."], {}),
        (["Support tags, branches, etc."], {}),
    ),
    62: (
        (["Add the lock command\n\nCo-authored-by: Claude <noreply@anthropic.com>", "Fix\n\nAssisted-by: Codex"], {}),
        (["Add the lock command\n\nIt writes rules.lock."], {}),
        (["Add the lock command\n\nCo-authored-by: Ada Lovelace <ada@example.test>"], {}),
    ),
    63: (
        ([], {"a.py": ("x = 1\n" * 300, "x = 1\n" * 300 + "y = 2\n" * 50), "uv.lock": (None, "z\n" * 5000)}),
        ([], {"a.py": (None, "y = 2\n" * 401)}),
        ([], {"old/util.py": ("x\n" * 300, None), "new/util.py": (None, "x\n" * 300)}),
    ),
}

# rule id → (compliant files, violating files, undecidable files)
REPOSITORIES: dict[int, tuple[dict, dict, dict]] = {}

# Rules whose check is a python module calling an external tool: they have a test of their own below.
TOOLS: dict[int, str] = {}


def _record(tmp_path, case):
    prompt, calls = case
    return record(tmp_path / "s.jsonl", *calls) if prompt is None else told(tmp_path / "s.jsonl", prompt, *calls)


@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_passes_on_a_compliant_session(rule_id, tmp_path):
    assert check_module(rule_id).check(_record(tmp_path, RECORDS[rule_id][0])) == []


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_reports_a_violating_session(rule_id, agent, tmp_path):
    prompt, calls = RECORDS[rule_id][1]
    findings = check_module(rule_id).check(record(tmp_path / "s.jsonl", *calls, agent=agent))
    assert findings and all(finding.path == str(tmp_path / "s.jsonl") for finding in findings)


@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_leaves_the_third_session_to_the_reviewer(rule_id, tmp_path):
    with pytest.raises(Undecidable):
        check_module(rule_id).check(_record(tmp_path, RECORDS[rule_id][2]))


@pytest.mark.parametrize("rule_id", sorted(CHANGES))
@pytest.mark.parametrize("which", [0, 1, 2], ids=["compliant", "violating", "undecidable"])
def test_change_check(rule_id, which, tmp_path):
    messages, files = CHANGES[rule_id][which]
    run = lambda: check_module(rule_id).check(change(tmp_path, messages, files))  # noqa: E731
    if which == 2:
        with pytest.raises(Undecidable):
            run()
    else:
        assert bool(run()) == (which == 1)


@pytest.mark.parametrize("rule_id", sorted(REPOSITORIES))
@pytest.mark.parametrize("which", [0, 1, 2], ids=["compliant", "violating", "undecidable"])
def test_repository_check(rule_id, which, tmp_path):
    run = lambda: check_module(rule_id).check(repository(tmp_path, REPOSITORIES[rule_id][which]))  # noqa: E731
    if which == 2:
        with pytest.raises(Undecidable):
            run()
    else:
        findings = run()
        assert bool(findings) == (which == 1), findings
        assert all(finding.reason for finding in findings)


@pytest.mark.parametrize("agent", AGENTS)
def test_the_principals_words_are_read_from_every_agents_record(agent, tmp_path):
    from importlib import import_module

    helpers = import_module(check_module(40).__package__ + "._helpers")
    assert "please do the task" in helpers.principal_text(record(tmp_path / "s.jsonl", *bash("ls"), agent=agent))


def test_a_publishing_command_the_task_never_mentions_is_reported_even_beside_one_it_does(tmp_path):
    session = told(tmp_path / "s.jsonl", "create the GitHub release v2.0", *bash("gh release create v2.0", "uv publish"))
    findings = check_module(40).check(session)
    assert [finding.reason.split(":")[0] for finding in findings] == ["uv publish"]
