"""The hook commands fail closed and speak to the model: run as a host runs them, with its PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.hosts import launcher
from agent_constitution.covenant.init import scaffold

BARE_PATH = "/usr/bin:/bin"  # what an agent host may give a hook: no virtual environment on it

ADVISE = """
disciplines:
  - id: 'no-todo-in-src'
    why: 'a TODO nobody owns is a decision deferred out of sight'
    declare:
      mechanism: 'added-only'
      scope: { source: 'target.path', include: ['^src/'] }
      supply: { pre: 'empty', post: 'empty' }
      extract:
        before:
          - { op: 'source', of: 'pre' }
          - { op: 'lines' }
          - { op: 'keyByPattern', re: '(TODO)' }
        after:
          - { op: 'source', of: 'post' }
          - { op: 'lines' }
          - { op: 'keyByPattern', re: '(TODO)' }
        added:
          - { op: 'onlyIn', of: 'after', notIn: 'before' }
      relate:
        - id: 'nothing-added'
          relation: { op: 'empty', of: 'added' }
          message: 'adds {key}: {value}'
    enforce: advise
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the covenant wired by `pdks init --host claude-code` (not a uv project),
    from an installation PATH does not find (`uv run pytest` puts it there): the path form."""
    monkeypatch.setenv("PATH", BARE_PATH)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    scaffold(tmp_path, "claude-code", None)
    return tmp_path


def pre_tool_command(root: Path) -> str:
    data = json.loads((root / ".claude" / "settings.json").read_text())
    return data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]


def run_hook(command: str, root: Path, payload: dict, path: str = BARE_PATH) -> subprocess.CompletedProcess:
    env = {"PATH": path, "CLAUDE_PROJECT_DIR": str(root), "HOME": str(root)}
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          env=env, cwd=root)


def write_payload(root: Path, relative: str, content: str, shape: str = "claude") -> dict:
    if shape == "grok":
        return {"toolName": "write", "toolInput": {"file_path": str(root / relative), "content": content}}
    return {"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(root),
            "tool_input": {"file_path": str(root / relative), "content": content}}


def test_a_protected_write_is_blocked_without_the_tool_on_path(repo: Path):
    assert shutil.which("pdks", path=BARE_PATH) is None
    command = pre_tool_command(repo)
    blocked = run_hook(command, repo, write_payload(repo, ".claude/settings.json", "{}"))
    assert blocked.returncode == 2, blocked.stderr
    allowed = run_hook(command, repo, write_payload(repo, "notes.txt", "hello"))
    assert allowed.returncode == 0, allowed.stderr


def test_a_missing_program_blocks_with_the_fix(repo: Path):
    from agent_constitution.wiring import spoken

    command = spoken(launcher._with_path(launcher.covenant_hook("claude-code"), str(repo / "gone" / "pdks")), repo)
    run = run_hook(command, repo, write_payload(repo, "notes.txt", "hello"))
    assert run.returncode == 2
    assert f"gone/pdks is missing; {spoken(launcher.FIX, repo)}" in run.stderr
    assert "compile in this repository" in run.stderr


def test_a_crash_before_a_verdict_blocks(repo: Path):
    crashing = repo / "crash"
    crashing.write_text("#!/bin/sh\nexit 1\n")
    crashing.chmod(0o755)
    command = launcher._with_path(launcher.covenant_hook("claude-code"), str(crashing))
    run = run_hook(command, repo, {})
    assert run.returncode == 2 and "failed with status 1" in run.stderr


def test_the_uv_form_blocks_when_uv_is_missing(repo: Path):
    command = launcher.wrapped(launcher.covenant_hook("claude-code"), launcher.UV)
    run = run_hook(command, repo, write_payload(repo, "notes.txt", "hello"), path=str(repo / "empty"))
    assert run.returncode == 2 and "uv is not on the PATH" in run.stderr


def test_a_grok_payload_through_the_claude_code_entry_is_judged_as_grok(repo: Path):
    command = pre_tool_command(repo)
    allowed = run_hook(command, repo, write_payload(repo, "notes.txt", "hello", shape="grok"))
    assert allowed.returncode == 0, allowed.stderr  # not refused for its shape
    blocked = run_hook(command, repo, write_payload(repo, ".claude/settings.json", "{}", shape="grok"))
    assert blocked.returncode == 2
    assert "adapter-claude-code failed" not in blocked.stderr


def test_an_advisory_reaches_the_model_as_additional_context(repo: Path):
    config = repo / "polydeukes.config.yaml"
    config.write_text(config.read_text() + ADVISE)
    run = run_hook(pre_tool_command(repo), repo, write_payload(repo, "src/a.py", "x = 1  # TODO\n"))
    assert run.returncode == 0, run.stderr
    output = json.loads(run.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse" and "TODO" in output["additionalContext"]


def test_compile_and_init_write_the_same_command(repo: Path):
    from agent_constitution.compile import hooks

    before = (repo / ".claude" / "settings.json").read_text()
    hooks.write_claude_settings(repo)
    data = json.loads((repo / ".claude" / "settings.json").read_text())
    assert [h["command"] for g in data["hooks"]["PreToolUse"] for h in g["hooks"]] == [pre_tool_command(repo)]
    assert json.loads(before)["hooks"]["PreToolUse"] == data["hooks"]["PreToolUse"]
    # No `onFailure`: SchemaStore's schema forbids it; the wrapper and the judge's budget fail closed.
    assert "onFailure" not in data["hooks"]["PreToolUse"][0]["hooks"][0]
    assert sys.executable in hooks.stop_command(repo) or os.path.realpath(sys.executable) in hooks.stop_command(repo)
