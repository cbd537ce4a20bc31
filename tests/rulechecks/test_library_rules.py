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
    64: (
        (None, bash("kill 4242", "kill -- -$(cat /tmp/job/pid)", "kill %1")),
        (None, bash("pkill -f 'doit check'", "kill $(pgrep -f uvicorn)", "ps aux | grep x | awk '{print $2}'",
                    "pgrep node | xargs kill -9", "killall python", "kill -9 -1")),
        (None, bash("kill $(lsof -t -i :8000)")),
    ),
    65: (
        (None, bash("gh repo view --json visibility", "chmod 755 run.sh", "gh api repos/o/r/collaborators")),
        (None, bash("gh repo edit --visibility public", "chmod -R 777 build", "gh secret set TOKEN < t",
                    "aws iam attach-user-policy --user-name ci --policy-arn x")),
        (None, bash("gh api -X PATCH repos/o/r -f has_wiki=false")),
    ),
    66: (
        (None, bash("gh pr view 12 --comments", "gh issue list", "curl -s https://example.test/api")),
        (None, bash("gh pr comment 12 --body 'LGTM'", "gh issue create --title bug --body x",
                    "curl -X POST -d @m.json https://hooks.slack.com/services/T/B/x")),
        ("Open a pull request with the fix", bash("gh pr create --fill")),
    ),
    67: (
        (None, [("Write", {"file_path": "/work/src/a.py", "content": ""}), *bash("echo x > /tmp/out.txt",
                "uv run pytest > log.txt 2>&1", "cat a | tee -a notes.md")], "codex"),
        (None, [("Write", {"file_path": "/home/me/.bashrc", "content": ""}), *bash("echo x >> ~/.profile")], "codex"),
        (None, [("Write", {"file_path": "/work/src/a.py", "content": ""})]),
    ),
    68: (
        (None, bash("uv sync", "echo 'use sudo only by hand'", "id -u")),
        (None, bash("sudo apt-get install -y jq", "cd / && doas rm x", "su -c 'make install'")),
        (None, bash("ssh build-host 'sudo systemctl restart web'")),
    ),
    69: (
        (None, bash("uv add httpx", "npm install --save-dev eslint", "python -m venv .venv && pip install -e .")),
        (None, bash("npm install -g typescript", "pip install --user black", "cargo install ripgrep",
                    "uv tool install ruff", "sudo apt-get install -y jq", "brew install gh")),
        (None, bash("pip install requests")),
    ),
}
# Checks that read something only some agents' records give (the session's folder): the agents
# whose records the violating session is written for.
AGENTS_OF = {67: ("codex",)}

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
    prompt, calls, *agent = case
    if prompt is None:
        return record(tmp_path / "s.jsonl", *calls, agent=agent[0] if agent else "claude-code")
    return told(tmp_path / "s.jsonl", prompt, *calls)


@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_passes_on_a_compliant_session(rule_id, tmp_path):
    assert check_module(rule_id).check(_record(tmp_path, RECORDS[rule_id][0])) == []


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_reports_a_violating_session(rule_id, agent, tmp_path):
    if agent not in AGENTS_OF.get(rule_id, AGENTS):
        pytest.skip(f"rule {rule_id}'s check reads what {agent}'s records do not give")
    prompt, calls, *_ = RECORDS[rule_id][1]
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


# How many findings each violating session gives: every violating command is found, once.
FINDINGS = {40: 2, 61: 1, 64: 5, 65: 4, 66: 3, 67: 2, 68: 3, 69: 6}


@pytest.mark.parametrize("rule_id", sorted(FINDINGS))
def test_every_violating_command_is_found_once(rule_id, tmp_path):
    prompt, calls, *agent = RECORDS[rule_id][1]
    findings = check_module(rule_id).check(record(tmp_path / "s.jsonl", *calls, agent=(agent or ["claude-code"])[0]))
    assert len(findings) == FINDINGS[rule_id], [finding.reason for finding in findings]
