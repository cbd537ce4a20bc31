"""Hook configuration: merged into what a repository has, validated by the tools' own rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.compile import hooks
from agent_constitution.compile.layout import lefthook_file
from agent_constitution.errors import UserError

THEIRS = {
    "permissions": {"allow": ["Bash(ls)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "their-guard", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}


def pre_commit_validate(path: Path) -> subprocess.CompletedProcess:
    tool = Path(sys.executable).parent / "pre-commit"
    return subprocess.run([str(tool), "validate-config", str(path)], capture_output=True, text=True)


def test_settings_merge_keeps_everything_else(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(THEIRS))
    assert hooks.write_claude_settings(tmp_path)
    data = json.loads(path.read_text())
    assert data["permissions"] == THEIRS["permissions"]
    assert data["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    commands = [h["command"] for group in data["hooks"]["Stop"] for h in group["hooks"]]
    assert commands == ["say done", 'cd "$CLAUDE_PROJECT_DIR" && doit check']
    hooks.validate_settings(path)
    assert not hooks.write_claude_settings(tmp_path)  # idempotent: nothing to write the second time
    assert hooks.remove_claude_settings(tmp_path)
    assert json.loads(path.read_text()) == THEIRS


def test_covenant_hook_when_the_repo_has_a_covenant(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    (tmp_path / "uv.lock").write_text("")
    hooks.write_claude_settings(tmp_path)
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    pre = data["hooks"]["PreToolUse"]
    assert pre[0]["hooks"][0]["command"] == "pdks hook claude-code"
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"].endswith("uv run doit check")
    # A git hook's PATH need not hold the project's environment: a uv project runs its tools through uv.
    hooks.write_pre_commit(tmp_path)
    entries = [hook["entry"] for hook in hooks._read_yaml(tmp_path / ".pre-commit-config.yaml")["repos"][0]["hooks"]]
    assert entries == ["uv run doit check", "uv run pdks covenant check --diff --staged"]
    (tmp_path / "polydeukes.config.yaml").unlink()
    hooks.write_claude_settings(tmp_path)
    assert "PreToolUse" not in json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    hooks.remove_claude_settings(tmp_path)
    assert not (tmp_path / ".claude" / "settings.json").exists()  # only ours were in it


@pytest.mark.parametrize(
    "text, field",
    [
        ("[1]", None),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "shell"}]}]}}', "hooks.Stop.0.hooks.0.type"),
        ('{"hooks": {"Stpo": []}}', "hooks.Stpo"),
        ("{not json", None),
    ],
)
def test_settings_schema_rejects_bad_files(tmp_path, text, field):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(UserError) as caught:
        hooks.write_claude_settings(tmp_path)
    assert caught.value.field == field
    assert path.read_text() == text  # never overwritten


def test_pre_commit_merge_is_accepted_by_pre_commit(tmp_path):
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(
        "# our hooks\n"
        "repos:\n"
        "  - repo: https://github.com/pre-commit/pre-commit-hooks\n"
        "    rev: v4.6.0\n"
        "    hooks:\n"
        "      - id: trailing-whitespace  # keep\n"
    )
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    assert hooks.write_pre_commit(tmp_path)
    text = path.read_text()
    assert "# our hooks" in text and "# keep" in text
    assert "entry: doit check" in text and "entry: pdks covenant check --diff --staged" in text
    result = pre_commit_validate(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not hooks.write_pre_commit(tmp_path)
    assert hooks.remove_pre_commit(tmp_path)
    assert "agent-constitution" not in path.read_text() and "trailing-whitespace" in path.read_text()


def test_new_pre_commit_file_is_valid_and_removed_by_clean(tmp_path):
    hooks.write_pre_commit(tmp_path)
    result = pre_commit_validate(tmp_path / ".pre-commit-config.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    hooks.remove_pre_commit(tmp_path)
    assert not (tmp_path / ".pre-commit-config.yaml").exists()


def test_lefthook_merge(tmp_path):
    path = tmp_path / "lefthook.yml"
    path.write_text("pre-commit:\n  commands:\n    lint:\n      run: ruff check\n")
    assert lefthook_file(tmp_path) == path
    hooks.write_lefthook(path, tmp_path)
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(path.read_text())
    assert data["pre-commit"]["commands"]["lint"] == {"run": "ruff check"}
    assert data["pre-commit"]["commands"]["agent-constitution-check"] == {"run": "doit check"}
    # lefthook's own validator (the lefthook wheel ships the binary) accepts what we wrote.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # lefthook validates only inside a repository
    tool = Path(sys.executable).parent / "lefthook"
    result = subprocess.run([str(tool), "validate"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0 and "All good" in result.stdout, result.stdout + result.stderr
    hooks.remove_lefthook(path)
    assert YAML(typ="safe").load(path.read_text()) == {"pre-commit": {"commands": {"lint": {"run": "ruff check"}}}}


def test_a_removed_hook_entry_is_an_error_under_locked(tmp_path):
    from agent_constitution.compile.build import hook_file

    hook_file(tmp_path, hooks.SETTINGS, locked=False)
    path = tmp_path / hooks.SETTINGS
    path.write_text('{"hooks": {}}\n')
    with pytest.raises(UserError) as caught:
        hook_file(tmp_path, hooks.SETTINGS, locked=True)
    assert caught.value.file == path
    assert path.read_text() == '{"hooks": {}}\n'
    assert hook_file(tmp_path, hooks.SETTINGS, locked=False).written == (hooks.SETTINGS,)
