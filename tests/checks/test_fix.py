"""`agent-constitution check --fix / --unsafe-fixes / --diff` on real git repositories: a repository
that selects this project's own rules (a path source, trusted), and one whose source is not trusted
or whose fix does not mend. What is written, what is printed, the exit status, and a second run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_constitution import cli

from .conftest import MANIFEST, git, make_source, rule_toml, write

REPO = Path(__file__).resolve().parents[2]
OWN = f"""\
rules = ["ac:4", "ac:32", "ac:71", "ac:91"]
[constitution]
source = "ac"
edition = "2026-10"
revision = "0.3"
[sources]
ac = {{ path = "{REPO}", trust = {{trust}} }}
[choices]
"ac:ci-service" = "ac:28"
"""
CI = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest  # the runner\n    steps:\n      - run: echo hi\n"


@pytest.fixture
def own(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"rules.toml": OWN.replace("{trust}", "true"), ".github/workflows/ci.yml": CI,
                 "AGENTS.md": "# rules\n", "CLAUDE.md": "Read the rules.\n", "cache/.gitignore": "*\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "compiled")
    return root


def test_a_plain_check_says_what_a_fix_would_mend(own, capfd):
    assert cli.main(["check"]) == 1
    out = capfd.readouterr().out
    assert out.splitlines()[-1] == ("[*] 2 fixable with the `--fix` option (1 hidden fix can be enabled with the "
                                    "`--unsafe-fixes` option).")


def test_diff_prints_the_patch_and_writes_nothing(own, capfd):
    capfd.readouterr()
    assert cli.main(["check", "--diff"]) == 1
    out, err = capfd.readouterr()
    assert out == ("--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n"
                   "@@ -2,5 +2,6 @@\n jobs:\n   test:\n     runs-on: ubuntu-latest  # the runner\n"
                   "+    timeout-minutes: 360\n     steps:\n       - run: echo hi\n"
                   "--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@ -1 +1,3 @@\n+@AGENTS.md\n+\n Read the rules.\n")
    assert "Would fix 2 errors." in err and "1 hidden fix can be enabled with the `--unsafe-fixes` option." in err
    assert git(own, "status", "--porcelain") == ""


def test_fix_writes_the_safe_fixes_checks_again_and_a_second_fix_changes_nothing(own, capfd):
    capfd.readouterr()
    assert cli.main(["check", "--fix"]) == 1      # ac:32's fix is unsafe: one finding remains
    out = capfd.readouterr().out
    assert "ac:32 Workflows declare their permissions" in out and "ac:71" not in out.split("passed")[0]
    assert out.splitlines()[-2:] == ["Found 3 errors (2 fixed, 1 remaining).",
                                     "1 hidden fix can be enabled with the `--unsafe-fixes` option."]
    assert (own / "CLAUDE.md").read_text() == "@AGENTS.md\n\nRead the rules.\n"
    assert (own / ".github/workflows/ci.yml").read_text() == CI.replace("    steps:", "    timeout-minutes: 360\n    steps:")
    changed = git(own, "status", "--porcelain")
    assert cli.main(["check", "--diff"]) == 0      # idempotent: the safe fixes have nothing left to do
    assert git(own, "status", "--porcelain") == changed
    assert cli.main(["check", "--fix", "--unsafe-fixes"]) == 0
    assert capfd.readouterr().out.splitlines()[-1] == "Found 1 error (1 fixed, 0 remaining)."
    assert "permissions:\n  contents: read\njobs:" in (own / ".github/workflows/ci.yml").read_text()


def test_fix_mends_the_worktree_change_the_stop_hook_judges(own, capfd):
    write(own, {"src/app.js": "export function f() {\n  debugger;\n  return 1; debugger\n}\n"})
    capfd.readouterr()
    assert cli.main(["check", "--diff", "change=worktree", "rules=ac:91"]) == 1
    assert "-  debugger;\n" in capfd.readouterr().out
    assert cli.main(["check", "--fix", "change=worktree", "rules=ac:91"]) == 0
    assert (own / "src/app.js").read_text() == "export function f() {\n  return 1;\n}\n"


def test_fix_takes_no_other_change(own, capfd):
    assert cli.main(["check", "--fix", "change=staged"]) == 2
    assert "change=worktree" in capfd.readouterr().err


def test_an_untrusted_source_runs_no_fix(own, capfd):
    (own / "rules.toml").write_text(OWN.replace("{trust}", "false"))
    capfd.readouterr()
    assert cli.main(["check", "--diff"]) == 0
    out, err = capfd.readouterr()
    assert out == "" and "No errors would be fixed." in err


def test_the_stop_hook_names_the_fix_when_every_finding_has_one(own):
    import json
    import os
    import sys

    write(own, {"src/app.js": "debugger;\n"})
    run = subprocess.run([sys.executable, "-m", "agent_constitution.checks.stop"], input=json.dumps({}),
                         text=True, capture_output=True, env={**os.environ, "CLAUDE_PROJECT_DIR": str(own)})
    assert run.returncode == 2
    assert "`agent-constitution check --fix change=worktree`" in run.stderr


NOT_MENDING = '''\
from agent_constitution.checks.api import Finding, Fix

RULE = 1


def check(repo):
    return [] if repo.exists("README.md") else [Finding("README.md is missing")]


def fix(repo, findings):
    return [Fix("READ_ME.md", "hello\\n")]   # the wrong file: the finding stays
'''


def test_a_fix_that_does_not_mend_is_not_written(tmp_path, monkeypatch, capfd):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    source = tmp_path / "source"   # a source outside the repository, which publishes nothing itself
    make_source(source, {1: rule_toml(1, 'python = "r1"\nfix = "safe"')}, {"r1": NOT_MENDING})
    write(root, {"rules.toml": MANIFEST.format(name="ac", spec=f'{{ path = "{source}", trust = true }}')})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    monkeypatch.chdir(root)
    capfd.readouterr()
    assert cli.main(["check", "--fix"]) == 1
    out, err = capfd.readouterr()
    assert "ac:1: its fix did not mend its findings (a bug in the rule's fix); not applied" in err
    assert "Found 1 error (0 fixed, 1 remaining)." in out
    assert not (root / "READ_ME.md").exists()


ENDS = '''\
import json, pathlib, sys

found = []
for path in sorted(pathlib.Path(".").glob("*.txt")):
    lines = path.read_text().splitlines()
    if not lines or lines[-1] != "end":
        found.append({"reason": "does not end with `end`", "path": path.name, "line": 1,
                      "fix": {"edits": [{"line": len(lines) + 1, "insert": "end\\n"}]}})
print(json.dumps({"findings": found}))
sys.exit(1 if found else 0)
'''


def test_an_external_check_mends_with_the_edits_it_prints(tmp_path, monkeypatch, capfd):
    import sys

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    source = tmp_path / "source"
    check = f'command = ["{sys.executable}", "{{source}}/scripts/ends.py"]\nfix = "safe"'
    make_source(source, {1: rule_toml(1, check)}, {})
    write(source, {"scripts/ends.py": ENDS})
    write(root, {"rules.toml": MANIFEST.format(name="ac", spec=f'{{ path = "{source}", trust = true }}'),
                 "a.txt": "one\n# two\n", "b.txt": "end\n", "c.txt": "no newline"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    monkeypatch.chdir(root)
    capfd.readouterr()
    assert cli.main(["check", "--fix"]) == 0
    assert capfd.readouterr().out.splitlines()[-1] == "Found 2 errors (2 fixed, 0 remaining)."
    assert (root / "a.txt").read_text() == "one\n# two\nend\n"
    assert (root / "c.txt").read_text() == "no newline\nend\n"
    assert cli.main(["check", "--diff"]) == 0
