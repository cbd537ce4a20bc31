"""The three forms of a hook command (uv, by name, by path), which one a repository gets, and what
each does when the host's PATH lacks the program: blocks, never exit 127."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.wiring import spoken
from agent_constitution.compile import hooks
from agent_constitution.hosts import launcher, stop_hooks
from agent_constitution.compile.outputs import hook_files

BARE_PATH = "/usr/bin:/bin"
INSTALLED = Path(sys.executable).parent  # where this installation's console scripts are
UV_LOCK = '[[package]]\nname = "agent-constitution"\nversion = "0.1.0"\n'


def fake_programs(folder: Path, body: str = "exit 0") -> Path:
    """A folder of executables named like ours, each running `body` (another installation's)."""
    folder.mkdir()
    for name in launcher.SCRIPTS:
        script = folder / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    return folder


def sh(command: str, path: str, stdin: str = "{}", root: Path | None = None) -> subprocess.CompletedProcess:
    """`command` as a host runs it: through the shell, with the host's PATH, in the project."""
    env = {"PATH": path, "HOME": "/nonexistent", **({"CLAUDE_PROJECT_DIR": str(root)} if root else {})}
    return subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True, env=env, cwd=root)


# --- the choice ------------------------------------------------------------------------------------


def test_an_installation_on_path_gets_the_name_form(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{INSTALLED}:{BARE_PATH}")
    assert launcher.form(tmp_path) == launcher.NAME


def test_links_into_the_installation_count_as_on_path(tmp_path, monkeypatch):
    """`uv tool install` and pipx put links to the tool's scripts in a bin folder on PATH."""
    links = tmp_path / "bin"
    links.mkdir()
    for name in launcher.SCRIPTS:
        (links / name).symlink_to(INSTALLED / name)
    monkeypatch.setenv("PATH", f"{links}:{BARE_PATH}")
    assert launcher.form(tmp_path) == launcher.NAME


def test_an_installation_off_path_gets_the_path_form(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", BARE_PATH)
    assert launcher.form(tmp_path) == launcher.PATH
    assert launcher.command(tmp_path, launcher.covenant_hook("claude-code")).startswith(
        f"p='{INSTALLED / 'pdks'}'; ")


def test_another_installation_on_path_is_not_this_one(tmp_path, monkeypatch):
    """PATH finds programs named like ours that are not the ones compile runs from: by path, since
    the name would run another version."""
    monkeypatch.setenv("PATH", f"{fake_programs(tmp_path / 'other')}:{INSTALLED}:{BARE_PATH}")
    assert launcher.form(tmp_path) == launcher.PATH


def test_one_script_missing_from_path_keeps_every_hook_on_the_path_form(tmp_path, monkeypatch):
    links = tmp_path / "bin"
    links.mkdir()
    (links / "pdks").symlink_to(INSTALLED / "pdks")
    monkeypatch.setenv("PATH", f"{links}:{BARE_PATH}")
    assert launcher.form(tmp_path) == launcher.PATH


def test_a_uv_project_holding_the_package_stays_on_uv_first(tmp_path, monkeypatch):
    (tmp_path / "uv.lock").write_text(UV_LOCK)
    for path in (f"{INSTALLED}:{BARE_PATH}", BARE_PATH):
        monkeypatch.setenv("PATH", path)
        assert launcher.form(tmp_path) == launcher.UV
        assert "uv run --quiet python -m agent_constitution.checks.stop; " in hooks.stop_command(tmp_path)


# --- the name form ---------------------------------------------------------------------------------


def test_the_name_form_of_each_program(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{INSTALLED}:{BARE_PATH}")
    judge = launcher.command(tmp_path, launcher.covenant_hook("claude-code"))
    assert judge.startswith('command -v pdks >/dev/null 2>&1 || { echo "agent-constitution: pdks is not on the PATH')
    assert "; pdks hook claude-code; s=$?; " in judge and "/" not in judge.split("; pdks hook")[1].split('"')[0]
    stop = hooks.stop_command(tmp_path)
    assert stop.startswith("command -v agent-constitution-stop ") and "; agent-constitution-stop; s=$?" in stop
    assert "; agent-constitution-stop cursor; s=$?" in stop_hooks.command(tmp_path, "cursor")
    assert str(INSTALLED) not in judge + stop  # nothing of this machine


def test_the_name_form_without_the_program_blocks_with_the_fix():
    command = launcher.wrapped(launcher.covenant_hook("claude-code"), launcher.NAME)
    run = sh(command, BARE_PATH)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("agent-constitution: pdks is not on the PATH of this hook; install agent-constitution "
                          f"({launcher.INSTALL}) or {launcher.FIX}\n")


@pytest.mark.parametrize(("host", "status"), [("cursor", 2), ("copilot", 0), ("cline", 0)])
def test_the_name_form_without_the_program_answers_the_json_hosts_deny(host, status):
    run = sh(launcher.wrapped(launcher.covenant_hook(host), launcher.NAME), BARE_PATH)
    assert run.returncode == status and "pdks is not on the PATH of this hook" in run.stderr
    assert json.loads(run.stdout) == json.loads(launcher.deny(host)[0])


def test_the_stop_check_by_name_without_its_script_warns_or_blocks_by_policy(tmp_path):
    # `warn` (the default): a teammate without the tool is told, and the session ends.
    run = sh(launcher.wrapped(stop_hooks.program("cursor"), launcher.NAME), BARE_PATH)
    assert run.returncode == 0 and run.stdout == "" and "agent-constitution-stop is not on the PATH" in run.stderr
    run = sh(launcher.wrapped(launcher.stop_hook(), launcher.NAME), BARE_PATH)
    assert run.returncode == 0 and "this session cannot be judged here" in run.stderr
    # `block`: the host's blocking answer, once.
    run = sh(launcher.wrapped(stop_hooks.program("cursor", "block"), launcher.NAME), BARE_PATH)
    assert run.returncode == 0 and "agent-constitution-stop is not on the PATH" in run.stderr
    assert json.loads(run.stdout) == json.loads(stop_hooks.deny("cursor")[0])
    run = sh(launcher.wrapped(launcher.stop_hook(missing="block"), launcher.NAME), BARE_PATH)
    assert run.returncode == 2 and "agent-constitution-stop is not on the PATH" in run.stderr
    run = sh(launcher.wrapped(launcher.stop_hook(missing="block"), launcher.NAME), BARE_PATH, '{"stop_hook_active": true}')
    assert run.returncode == 0 and "this repeated stop ends the session" in run.stderr


@pytest.mark.parametrize("status", [0, 2])
def test_the_name_form_passes_the_programs_answer_through(tmp_path, status):
    fakes = fake_programs(tmp_path / "bin", f'cat; echo "args: $*" >&2; exit {status}')
    run = sh(launcher.wrapped(launcher.covenant_hook("claude-code"), launcher.NAME), f"{fakes}:{BARE_PATH}", "payload")
    assert (run.returncode, run.stdout, run.stderr) == (status, "payload", "args: hook claude-code\n")
    run = sh(launcher.wrapped(launcher.stop_hook(), launcher.NAME), f"{fakes}:{BARE_PATH}", "")
    assert (run.returncode, run.stderr) == (status, "args: \n")


def test_the_name_form_turns_a_crash_into_a_block(tmp_path):
    fakes = fake_programs(tmp_path / "bin", "exit 1")
    run = sh(launcher.wrapped(launcher.covenant_hook("claude-code"), launcher.NAME), f"{fakes}:{BARE_PATH}")
    assert run.returncode == 2 and "pdks hook claude-code failed with status 1" in run.stderr
    run = sh(launcher.wrapped(launcher.covenant_hook("cursor"), launcher.NAME), f"{fakes}:{BARE_PATH}")
    assert run.returncode == 2 and json.loads(run.stdout)["permission"] == "deny"


def test_the_real_judge_by_name_with_the_installation_on_the_hosts_path(tmp_path, monkeypatch):
    """What a team gets: compile writes the name form, the host's PATH has the tool's bin folder."""
    from agent_constitution.covenant.init import scaffold

    monkeypatch.setenv("PATH", f"{INSTALLED}:{BARE_PATH}")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    scaffold(tmp_path, "claude-code", None)
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    command = data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    # In the words of a repository not wired for doit: its user runs `agent-constitution compile`.
    assert command == spoken(launcher.wrapped(launcher.covenant_hook("claude-code"), launcher.NAME), tmp_path)
    assert "run agent-constitution compile in this repository" in command and "doit compile" not in command

    def write(relative: str) -> str:
        return json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(tmp_path),
                           "tool_input": {"file_path": str(tmp_path / relative), "content": "{}"}})

    host_path = f"{INSTALLED}:{BARE_PATH}"
    assert sh(command, host_path, write("notes.txt"), tmp_path).returncode == 0
    blocked = sh(command, host_path, write(".claude/settings.json"), tmp_path)
    assert blocked.returncode == 2 and "is not on the PATH" not in blocked.stderr  # the judge's verdict
    without = sh(command, BARE_PATH, write("notes.txt"), tmp_path)  # a teammate without the tool: blocked
    assert without.returncode == 2 and "pdks is not on the PATH of this hook" in without.stderr


# --- recognising our own entries -------------------------------------------------------------------


@pytest.mark.parametrize("program", [launcher.covenant_hook("claude-code"), launcher.covenant_hook("cursor"),
                                     launcher.stop_hook(), stop_hooks.program("copilot")])
def test_every_form_is_ours_on_any_machine(program):
    assert launcher.generated(program, launcher.wrapped(program, launcher.UV))
    assert launcher.generated(program, launcher.wrapped(program, launcher.NAME))
    assert launcher.generated(program, launcher.wrapped(program, launcher.PATH))
    assert launcher.generated(program, launcher._with_path(program, "/home/someone/.local/bin/x"))
    assert launcher.generated(program, program.shown)  # what older versions wrote
    assert not launcher.generated(program, program.by_name + " --verbose")  # somebody's own form


def test_a_settings_file_moves_between_forms_without_a_second_entry(tmp_path, monkeypatch):
    settings = tmp_path / ".claude" / "settings.json"
    (tmp_path / "polydeukes.config.yaml").write_text("disciplines: []\n")
    for path in (BARE_PATH, f"{INSTALLED}:{BARE_PATH}", BARE_PATH):
        monkeypatch.setenv("PATH", path)
        assert hooks.write_claude_settings(tmp_path)
        assert not hooks.write_claude_settings(tmp_path)  # the same form again: not rewritten
        data = json.loads(settings.read_text())
        assert [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]] == [hooks.stop_command(tmp_path)]
        assert [h["command"] for g in data["hooks"]["PreToolUse"] for h in g["hooks"]] == [
            hooks.covenant_command(tmp_path)]


# --- git hooks -------------------------------------------------------------------------------------


def test_git_hook_commands_in_each_form(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{INSTALLED}:{BARE_PATH}")
    assert hooks.git_command(tmp_path, "doit", "check change=staged") == "agent-constitution check change=staged"
    assert hooks.git_command(tmp_path, "pdks", "covenant check") == "pdks covenant check"
    monkeypatch.setenv("PATH", BARE_PATH)
    assert hooks.git_command(tmp_path, "doit", "check") == f"{INSTALLED / 'agent-constitution'} check"
    (tmp_path / "uv.lock").write_text(UV_LOCK)
    assert hooks.git_command(tmp_path, "doit", "check") == "uv run agent-constitution check"


def test_the_hook_task_state_follows_the_form(tmp_path, monkeypatch):
    states = {}
    for name, path in (("name", f"{INSTALLED}:{BARE_PATH}"), ("path", BARE_PATH)):
        monkeypatch.setenv("PATH", path)
        states[name] = hook_files._state(tmp_path)
        assert hook_files._state(tmp_path) == states[name]
    assert states["name"] != states["path"]
    monkeypatch.setenv("PATH", BARE_PATH)
    monkeypatch.setattr(launcher, "program_path", lambda tool: f"/elsewhere/{tool}")
    assert hook_files._state(tmp_path) != states["path"]  # another installation's paths
