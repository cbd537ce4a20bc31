"""`agent-constitution agents` (doit `readback`): the proof as a table, `--explain PATH`, and the
exit status: 0 when every enabled agent loads every rule in force, 1 when one misses a rule, 2 on
bad input."""

from __future__ import annotations

import subprocess

from agent_constitution import cli
from tests.compile.support import make_repo


def compiled(tmp_path, monkeypatch, compile: str = ""):
    root = make_repo(tmp_path / "repo", compile=compile)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    monkeypatch.chdir(root)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    assert cli.main(["compile", "-q"]) == 0
    return root


def test_the_table_and_its_exit_status(tmp_path, capsys, monkeypatch):
    compiled(tmp_path, monkeypatch, '\n[compile]\nagents = ["codex", "gemini"]\nclaude = "link"\n')
    capsys.readouterr()
    assert cli.main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "| svc | codex | Codex CLI, session started in svc/ |" in out
    assert "every agent loads every rule in force in every segment" in out


def test_an_agent_that_misses_rules_is_a_finding(tmp_path, capsys, monkeypatch):
    compiled(tmp_path, monkeypatch)  # claude = "import": a session started in svc/ misses the root's rules
    capsys.readouterr()
    assert cli.main(["agents", "--agent", "claude-code"]) == 1
    captured = capsys.readouterr()
    # one line for every segment where a session started in a folder misses rules, the first named
    assert "error: claude-code (Claude Code, session started in a subfolder) misses 6 of the rules in force in the " \
           "root segment (and 1 more segment)" in captured.err
    assert "| svc | claude-code | Claude Code, session started in svc/ | " in captured.out
    assert "fix: set claude = \"link\" under [compile] in rules.toml" in captured.err


def test_explain_shows_one_agents_view_of_one_file(tmp_path, capsys, monkeypatch):
    compiled(tmp_path, monkeypatch)
    capsys.readouterr()
    assert cli.main(["agents", "--explain", "svc/app.py", "--agent", "codex"]) == 0
    out = capsys.readouterr().out
    assert "codex: Codex CLI, session started in svc/, working on svc/app.py" in out
    assert "  AGENTS.md: " in out and "  svc/AGENTS.md: " in out and "every rule in force here is loaded" in out
    assert "source: https://developers.openai.com/codex/guides/agents-md (read 2026-12-02)" in out


def test_bad_input_exits_2(tmp_path, capsys, monkeypatch):
    compiled(tmp_path, monkeypatch)
    assert cli.main(["agents", "--agent", "nope"]) == 2
    assert "error: unknown agent 'nope'" in capsys.readouterr().err
    assert cli.main(["agents", "--explain", "../outside.py"]) == 2
    assert "is not a path inside the repository" in capsys.readouterr().err
