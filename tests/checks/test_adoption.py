"""A change is judged by what it adds; a baseline lets an old repository adopt the checks; agent-only
rules never refuse a person's commit. A real git repository with findings from before adoption (an
unpinned action, a workflow without `permissions`), run through doit as the hooks run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.checks import baseline
from agent_constitution.errors import UserError

from .conftest import git, make_source, rule_toml, write

UNPINNED = '''\
import re
from agent_constitution.checks.api import Finding

RULE = 1
USES = re.compile(r"uses:\\s*([^\\s@]+)@([^\\s#]+)")


def check(repo):
    found = []
    for path in repo.glob(".github/workflows/*.yml"):
        for number, line in enumerate(repo.read_text(path).splitlines(), 1):
            match = USES.search(line)
            if match and not re.fullmatch("[0-9a-f]{40}", match[2]):
                found.append(Finding(f"action {match[1]}@{match[2]} is not pinned to a commit", path, number))
    return found
'''
PERMISSIONS = '''\
from agent_constitution.checks.api import Finding

RULE = 2


def check(repo):
    return [Finding("the workflow sets no permissions", path) for path in repo.glob(".github/workflows/*.yml")
            if "permissions:" not in repo.read_text(path)]
'''
TRAILER = '''\
from agent_constitution.checks.api import Finding

RULE = 3


def check(change):
    return [Finding(f"commit has no attribution trailer: {m.splitlines()[0]!r}") for m in change.messages
            if m and "Co-authored-by:" not in m]
'''
CI = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make test
"""
AGENT_VARIABLES = ("AGENT_CONSTITUTION_AGENT", "CLAUDECODE", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED",
                   "CODEX_THREAD_ID", "GEMINI_CLI", "CURSOR_AGENT", "CLINE_ACTIVE")


def person() -> dict[str, str]:
    """The environment of a person's terminal: no agent host's variable (the test may run in one)."""
    return {key: value for key, value in os.environ.items() if key not in AGENT_VARIABLES}


def run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True,
                          env=person() if env is None else env, timeout=300)


def failing(stdout: str) -> str:
    """The violations part of a summary (what does not fail is listed after it)."""
    for title in ("pre-existing:", "accepted by "):
        stdout = stdout.split(title)[0]
    return stdout


@pytest.fixture
def adopted(repo: Path) -> Path:
    """A repository with two findings before adoption, committed."""
    make_source(repo, {
        1: rule_toml(1, 'python = "r1"'),
        2: rule_toml(2, 'python = "r2"'),
        3: rule_toml(3, 'subject = "change"\nauthor = "agent"\npython = "r3"'),
    }, {"r1": UNPINNED, "r2": PERMISSIONS, "r3": TRAILER})
    write(repo, {".github/workflows/ci.yml": CI, "docs/guide.md": "# Guide\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Before adoption")
    return repo


def test_a_docs_only_change_passes_and_counts_what_was_there(adopted: Path):
    whole = run(adopted, "checks")
    assert whole.returncode == 1  # the whole repository: both findings fail, and adopting them is offered
    assert "hint: to adopt the checks on this repository as it is, `agent-constitution baseline` accepts these " \
           "2 findings in rules.baseline.toml" in whole.stdout
    write(adopted, {"docs/guide.md": "# Guide\n\nMore.\n"})
    git(adopted, "add", "-A")
    done = run(adopted, "checks", "change=staged")
    assert done.returncode == 0, done.stdout + done.stderr
    # doit shows its task lines, the detail `agent-constitution check -v` shows: the list too.
    assert "pre-existing: in the base of the change, not failing it (2)\n" in done.stdout
    assert "ac:1: .github/workflows/ci.yml:6: action actions/checkout@v4 is not pinned" in done.stdout
    report = json.loads((adopted / "cache/checks/report.json").read_text())
    assert [f["status"] for f in report["findings"]] == ["preexisting", "preexisting"]
    assert list((adopted / "cache/checks/base").glob("*.json"))  # kept by the base tree's id


def test_a_change_that_adds_a_finding_is_refused_naming_only_it(adopted: Path):
    write(adopted, {".github/workflows/release.yml": "permissions: {}\njobs:\n  r:\n    steps:\n"
                                                      "      - uses: actions/setup-node@v4\n"})
    git(adopted, "add", "-A")
    done = run(adopted, "checks", "change=staged")
    assert done.returncode == 1
    assert ".github/workflows/release.yml:5: action actions/setup-node@v4 is not pinned" in done.stdout
    assert "ci.yml" not in failing(done.stdout)  # the old findings are not among the violations
    assert "pre-existing: in the base of the change, not failing it (2)" in done.stdout


def test_a_touched_file_is_judged_whole(adopted: Path):
    (adopted / ".github/workflows/ci.yml").write_text(CI + "      - run: make lint\n")
    git(adopted, "add", "-A")
    done = run(adopted, "checks", "change=staged")
    assert done.returncode == 1 and "ci.yml:6: action actions/checkout@v4" in done.stdout


def test_baseline_then_ratchet(adopted: Path):
    done = run(adopted, "baseline")
    assert done.returncode == 0, done.stdout + done.stderr
    text = (adopted / "rules.baseline.toml").read_text()
    assert text.count("[[finding]]") == 2 and 'rule = "ac:1"' in text and 'path = ".github/workflows/ci.yml"' in text
    rules = len(set(re.findall(r'^rule = "([^"]+)"', text, re.MULTILINE)))
    assert f"rules.baseline.toml: 2 findings of {rules} rule{'' if rules == 1 else 's'};" in done.stdout
    assert run(adopted, "baseline").returncode == 0
    assert (adopted / "rules.baseline.toml").read_text() == text  # the same findings, the same bytes
    full = run(adopted, "checks")
    assert full.returncode == 0, full.stdout + full.stderr
    assert "accepted by rules.baseline.toml (2)" in full.stdout
    sarif = json.loads((adopted / "cache/checks/code-scanning.sarif").read_text())
    assert sarif["runs"][0]["results"] == []  # accepted findings are not alerts
    git(adopted, "add", "-A")
    git(adopted, "commit", "-qm", "Adopt the checks")
    # A new finding in the same file: only it is named, the baselined ones in that file are not.
    (adopted / ".github/workflows/ci.yml").write_text(CI + "      - uses: actions/cache@v3\n")
    git(adopted, "add", "-A")
    done = run(adopted, "checks", "change=staged")
    assert done.returncode == 1
    assert "ci.yml:8: action actions/cache@v3 is not pinned" in done.stdout
    assert "actions/checkout@v4" not in failing(done.stdout)
    sarif = json.loads((adopted / "cache/checks/code-scanning.sarif").read_text())
    [alert] = sarif["runs"][0]["results"]
    entries = {entry.fingerprint for entry in baseline.read(adopted).finding}
    assert alert["partialFingerprints"]["agentConstitution/v1"] not in entries
    # A fixed finding shows as prunable; --prune removes exactly it.
    (adopted / ".github/workflows/ci.yml").write_text("permissions: {}\n" + CI)
    fixed = run(adopted, "checks")
    assert fixed.returncode == 0
    assert "rules.baseline.toml: 1 entry no longer occurs (fixed): run `agent-constitution baseline --prune`" \
        in fixed.stderr
    assert run(adopted, "baseline", "--prune").returncode == 0
    left = baseline.read(adopted).finding
    assert [entry.rule for entry in left] == ["ac:1"]


def test_an_expired_baseline_entry_no_longer_applies(adopted: Path):
    assert run(adopted, "baseline").returncode == 0
    path = adopted / "rules.baseline.toml"
    path.write_text(path.read_text().replace('reason = "the workflow sets no permissions"',
                                             'reason = "the workflow sets no permissions"\nuntil = 2020-01-01'))
    done = run(adopted, "checks")
    assert done.returncode == 1 and "the workflow sets no permissions" in done.stdout
    assert "expired on 2020-01-01" in done.stderr


@pytest.mark.parametrize("text, field", [
    ('version = 1\n[[finding]]\nrule = "ac:1"\nfingerprint = "zz"\nreason = "r"\n', "finding.0.fingerprint"),
    ('version = 1\n[[finding]]\nrule = "ac:1"\nfingerprint = "0123456789abcdef0123"\nreason = "r"\nextra = 1\n',
     "finding.0.extra"),
    ('version = 2\n', "version"),
    ('[[finding]]\nrule = 1\nfingerprint = "0123456789abcdef0123"\nreason = "r"\n', "finding.0.rule"),
])
def test_a_hostile_baseline_is_one_clear_error(tmp_path: Path, text: str, field: str):
    (tmp_path / "rules.baseline.toml").write_text(text)
    with pytest.raises(UserError) as raised:
        baseline.read(tmp_path)
    assert raised.value.field == field and str(raised.value.file).endswith("rules.baseline.toml")


def test_agent_only_rules_never_refuse_a_person(adopted: Path):
    write(adopted, {"docs/guide.md": "# Guide\n\nMore.\n"})
    git(adopted, "add", "-A")
    message = adopted / ".git" / "COMMIT_EDITMSG"
    message.write_text("Fix the guide\n")
    human = run(adopted, "checks", "change=staged", f"message={message}")
    assert human.returncode == 0, human.stdout + human.stderr
    assert "ac:3 in .: judges only an agent's work" in human.stdout
    agent = run(adopted, "checks", "change=staged", f"message={message}", env={**person(), "CLAUDECODE": "1"})
    assert agent.returncode == 1 and "commit has no attribution trailer: 'Fix the guide'" in agent.stdout
    message.write_text("Fix the guide\n\nCo-authored-by: Claude <noreply@anthropic.com>\n")
    assert run(adopted, "checks", "change=staged", f"message={message}",
               env={**person(), "CLAUDECODE": "1"}).returncode == 0


def test_the_base_export_holds_the_tree_and_nothing_else(adopted: Path, tmp_path: Path):
    from agent_constitution.checks.change_base import export_tree

    tree = git(adopted, "rev-parse", "HEAD^{tree}").strip()
    (adopted / "untracked.txt").write_text("not in the tree\n")
    files = export_tree(adopted, tree, tmp_path / "export")
    assert files == tuple(sorted(git(adopted, "ls-files").split()))
    assert (tmp_path / "export" / ".github/workflows/ci.yml").read_text() == CI
    assert not (tmp_path / "export" / "untracked.txt").exists()


def test_a_repository_scoped_rule_is_split_too(adopted: Path):
    rule = adopted / "rules" / "1.toml"
    rule.write_text(rule.read_text().replace('python = "r1"', 'scope = "repository"\npython = "r1"'))
    git(adopted, "add", "-A")
    git(adopted, "commit", "-qm", "Judge workflows once")
    write(adopted, {"docs/guide.md": "# Guide\n\nMore.\n"})
    git(adopted, "add", "-A")
    done = run(adopted, "checks", "change=staged")
    assert done.returncode == 0, done.stdout + done.stderr
