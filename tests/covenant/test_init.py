"""`pdks init`: the starter config and the merged host hook (POLYDEUKES §8.2)."""

import json

import pytest
from ruamel.yaml import YAML

from agent_constitution.covenant.init import default_command, main, merge_hook_settings, starter_config
from agent_constitution.errors import UserError


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_scaffold_writes_upstreams_starter(project, capsys):
    assert main([]) == 0
    assert capsys.readouterr().out == "created polydeukes.config.yaml\ncreated .gitignore\n"
    config = YAML(typ="safe").load((project / "polydeukes.config.yaml").read_text())
    assert config["protectedPaths"] == [".claude/hooks", ".claude/settings.json", ".grok/hooks"]
    assert config["witness"] == {"token": "pdks witness", "ttlMinutes": 10}
    assert set(config) == {"languages", "protectedPaths", "witness"}
    assert (project / ".gitignore").read_text().endswith("\n.polydeukes/\n")
    assert not (project / ".claude").exists()


def test_rerun_skips_and_never_overwrites(project, capsys):
    (project / "polydeukes.config.yml").write_text("mine: true\n")
    (project / ".gitignore").write_text("node_modules")
    assert main([]) == 0
    assert capsys.readouterr().out == "created .gitignore\nskipped polydeukes.config.yml (already present)\n"
    assert (project / "polydeukes.config.yml").read_text() == "mine: true\n"
    assert (project / ".gitignore").read_text().startswith("node_modules\n# Polydeukes telemetry")
    assert main([]) == 0
    assert capsys.readouterr().out.endswith("skipped .gitignore (already present)\n")


def test_ambiguous_config_fails_before_any_write(project, capsys):
    (project / "polydeukes.config.yaml").write_text("")
    (project / "polydeukes.config.json").write_text("{}")
    assert main(["--host", "claude-code"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pdks init failed: ambiguous Polydeukes config in {project} — found "
                          "polydeukes.config.yaml and polydeukes.config.json; keep exactly one and re-run")
    assert not (project / ".gitignore").exists() and not (project / ".claude").exists()


def test_claude_hook_is_merged_into_existing_settings(project, capsys):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    existing = {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]}],
                                           "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}]}}
    settings.write_text(json.dumps(existing))
    assert main(["--host", "claude-code"]) == 0
    assert "created .claude/settings.json" in capsys.readouterr().out
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus" and merged["hooks"]["Stop"] == existing["hooks"]["Stop"]
    assert merged["hooks"]["PreToolUse"] == existing["hooks"]["PreToolUse"] + [
        {"matcher": "Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*",
         "hooks": [{"type": "command", "command": default_command(project, "claude-code")}]}]
    assert main(["--host", "claude-code"]) == 0
    assert "skipped .claude/settings.json (already present)" in capsys.readouterr().out
    assert json.loads(settings.read_text()) == merged


def test_our_hook_is_updated_in_place_not_duplicated(tmp_path):
    settings = tmp_path / "hooks.json"
    assert merge_hook_settings(settings, "codex", "pdks hook codex") is True  # what older versions wrote
    assert merge_hook_settings(settings, "codex", default_command(tmp_path, "codex")) is True
    groups = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert groups == [{"matcher": "apply_patch|Bash",
                       "hooks": [{"type": "command", "command": default_command(tmp_path, "codex")}]}]


def test_a_chosen_command_is_kept_until_the_user_names_another(tmp_path):
    """`--command` is a deliberate choice: the default (what compile writes) never replaces it."""
    settings = tmp_path / "hooks.json"
    assert merge_hook_settings(settings, "codex", "/opt/pdks hook codex --quiet", force=True) is True
    assert merge_hook_settings(settings, "codex", default_command(tmp_path, "codex")) is False
    assert "/opt/pdks hook codex --quiet" in settings.read_text()
    assert merge_hook_settings(settings, "codex", "/srv/pdks hook codex", force=True) is True
    assert json.loads(settings.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "/srv/pdks hook codex"


def test_grok_hook_file_and_timeout(project):
    assert main(["--host", "grok"]) == 0
    data = json.loads((project / ".grok" / "hooks" / "covenant-pretooluse.json").read_text())
    assert data == {"hooks": {"PreToolUse": [{"matcher": "write|search_replace|run_terminal_command",
                                              "hooks": [{"type": "command", "command": default_command(project, "grok"),
                                                         "timeout": 60}]}]}}


def test_codex_settings_join_the_starter_protection_list():
    assert "  - '.codex/hooks.json'\n" in starter_config("codex")
    assert ".codex" not in starter_config("claude-code")


@pytest.mark.parametrize("content", ["{not json", "[]", '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}'])
def test_a_settings_file_of_another_shape_is_never_clobbered(tmp_path, content):
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    with pytest.raises(UserError):
        merge_hook_settings(settings, "claude-code", "pdks hook claude-code")
    assert settings.read_text() == content


def test_usage_errors(project, capsys):
    assert main(["--host", "vim"]) == 2
    assert main(["--command", "x"]) == 2
    assert "needs --host" in capsys.readouterr().err


