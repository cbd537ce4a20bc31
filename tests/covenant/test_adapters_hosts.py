"""Windsurf's pre-hooks, and every host's stop hook as compile and `pdks init` wire it.

The Windsurf fixtures (tests/covenant/fixtures/windsurf/) are written from
https://docs.windsurf.com/windsurf/cascade/hooks (the common fields `agent_action_name`,
`trajectory_id`, `execution_id`, `timestamp`, `tool_info`). The wired commands are taken from the
host's own file and run as the host runs them: `sh -c` with a PATH that holds no virtual environment.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_constitution.compile import hooks
from agent_constitution.hosts import judge_hooks
from agent_constitution.hosts import launcher, stop_hooks
from agent_constitution.covenant.adapters import windsurf
from agent_constitution.covenant.adapters.common import Refusal
from agent_constitution.hosts import HOSTS
from agent_constitution.covenant.init import scaffold

FIXTURES = Path(__file__).parent / "fixtures" / "windsurf"
BARE_PATH = "/usr/bin:/bin"
CONFIG = "languages:\n  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }\nprotectedPaths: ['gate']\n"
STOPS = [name for name, spec in HOSTS.items() if spec.stop is not None and name != "claude-code"]


def fixture(name: str, root: Path, target: str) -> str:
    return (FIXTURES / name).read_text().replace("{root}", str(root)).replace("{target}", target)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The tool where PATH does not find it (`uv run pytest` puts it there): the hooks name it by path.
    monkeypatch.setenv("PATH", BARE_PATH)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("a\n")
    (tmp_path / "gate").mkdir()
    (tmp_path / "gate" / "inner.txt").write_text("a\n")
    (tmp_path / "polydeukes.config.yaml").write_text(CONFIG)
    return tmp_path


def run(command: str, root: Path, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", command], input=stdin, capture_output=True, text=True, cwd=root,
                          env={"PATH": BARE_PATH, "HOME": str(root)})


# --- Windsurf ------------------------------------------------------------------------------------


def test_windsurf_write_code_carries_the_change_the_edits_make(root: Path):
    create = windsurf.translate(fixture("pre_write_code.json", root, "src/new.ts"), root)
    assert create["toolCalls"][0]["fileChange"] == {"kind": "create", "path": f"{root}/src/new.ts", "post": "hello\n"}
    edit = windsurf.translate(fixture("pre_write_code_edit.json", root, "gate/inner.txt"), root)
    assert edit["toolCalls"][0]["fileChange"] == {"kind": "modify", "path": f"{root}/gate/inner.txt",
                                                  "pre": "a\n", "post": "b\n"}
    assert "session" not in edit and edit["tools"]["mutating"] == ["write_code"]


def test_windsurf_edits_that_do_not_say_the_result_carry_no_change():
    assert windsurf.edited("a a\n", [{"old_string": "a", "new_string": "b"}]) is None  # twice: not documented
    assert windsurf.edited("a\n", [{"old_string": "x", "new_string": "b"}]) is None
    assert windsurf.edited(None, [{"old_string": "a", "new_string": "b"}]) is None
    assert windsurf.edited("a\nb\n", [{"old_string": "a", "new_string": "c"}, {"old_string": "b", "new_string": "d"}]) == "c\nd\n"


def test_windsurf_commands_and_mcp_tools(root: Path):
    shell = windsurf.translate(fixture("pre_run_command.json", root, "gate/inner.txt"), root)
    assert shell["toolCalls"] == [{"name": "run_command", "args": {"command_line": "echo x >> gate/inner.txt",
                                                                   "cwd": str(root)}}]
    mcp = windsurf.translate(fixture("pre_mcp_tool_use.json", root, "gate/x"), root)
    assert mcp["toolCalls"] == [{"name": "mcp__filesystem__write_file", "args": {"path": "gate/x", "content": "x"}}]
    with pytest.raises(Refusal, match="post_write_code event, not one of pre_write_code"):
        windsurf.translate(json.dumps({"agent_action_name": "post_write_code", "tool_info": {}}), root)
    with pytest.raises(Refusal, match="not a PreToolUse envelope"):
        windsurf.translate(json.dumps({"agent_action_name": "pre_run_command"}), root)


def test_windsurf_is_wired_where_it_looks_and_blocks_with_exit_2(root: Path):
    scaffold(root, "windsurf", None)
    data = json.loads((root / ".windsurf" / "hooks.json").read_text())
    assert set(data) == {"hooks"} and list(data["hooks"]) == ["pre_write_code", "pre_run_command", "pre_mcp_tool_use"]
    entry = data["hooks"]["pre_write_code"][0]
    assert entry["show_output"] is True and set(entry) == {"command", "show_output"}
    blocked = run(entry["command"], root, fixture("pre_write_code.json", root, "gate/new.txt"))
    assert blocked.returncode == 2 and "gate" in blocked.stderr
    passed = run(entry["command"], root, fixture("pre_write_code.json", root, "src/new.ts"))
    assert passed.returncode == 0, passed.stderr
    shell = run(entry["command"], root, fixture("pre_run_command.json", root, "gate/inner.txt"))
    assert shell.returncode == 2
    assert run(entry["command"], root, "{not json").returncode == 2  # fails closed
    from ruamel.yaml import YAML

    protected = YAML(typ="safe").load((root / "polydeukes.config.yaml").read_text())["protectedPaths"]
    assert protected == ["gate", ".windsurf/hooks.json"]  # the gate protects itself


# --- the stop hooks, as compile and `pdks init` wire them ------------------------------------------


def stop_command(root: Path, host: str) -> str:
    spec = HOSTS[host]
    path = root / spec.stop_file
    if spec.script:
        return path.read_text().splitlines()[-1]
    entries = json.loads(path.read_text())["hooks"][spec.stop.event]
    return (entries[0]["hooks"][0] if spec.grouped else entries[0])[spec.command_key]


def test_compile_wires_every_stop_event_only_in_a_repository_with_a_manifest(root: Path):
    assert hooks.write_host_hooks(root, STOPS) == [HOSTS[h].file for h in STOPS]  # no manifest: the judge only
    assert not any(stop_hooks.runs((root / HOSTS[h].file).read_text()) for h in STOPS if not HOSTS[h].script)
    (root / "rules.toml").write_text("rules = []\n")
    changed = hooks.write_host_hooks(root, STOPS)
    assert changed == [".codex/hooks.json", ".gemini/settings.json", ".cursor/hooks.json", ".github/hooks/covenant.json",
                       ".clinerules/hooks/TaskComplete"]
    assert hooks.write_host_hooks(root, STOPS) == []  # idempotent
    codex = json.loads((root / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(codex) == {"PreToolUse", "Stop"} and "matcher" not in codex["Stop"][0]
    gemini = json.loads((root / ".gemini" / "settings.json").read_text())["hooks"]["AfterAgent"][0]["hooks"][0]
    assert gemini["timeout"] == 60000 and gemini["type"] == "command"
    cursor = json.loads((root / ".cursor" / "hooks.json").read_text())
    assert cursor["version"] == 1 and set(cursor["hooks"]["stop"][0]) == {"command"}  # no failClosed at stop
    copilot = json.loads((root / ".github" / "hooks" / "covenant.json").read_text())["hooks"]["agentStop"][0]
    assert copilot["type"] == "command" and copilot["timeoutSec"] == 60 and "checks.stop copilot" in copilot["bash"]
    script = root / ".clinerules" / "hooks" / "TaskComplete"
    assert script.stat().st_mode & 0o111 and "checks.stop cline" in script.read_text()
    for host in STOPS:
        assert stop_hooks.ours(host, stop_command(root, host)), host
    for name in changed:  # taking ours out leaves the judge's hook, and the file, in place
        judge_hooks.remove_host_hook(root, name)
    assert not script.exists() and not (root / ".codex" / "hooks.json").exists()


@pytest.mark.parametrize("host", STOPS)
def test_the_wired_stop_command_runs_the_checks(root: Path, host: str):
    (root / "rules.toml").write_text("rules = [\n")  # a manifest that does not load: the checks cannot judge
    hooks.write_host_hooks(root, [host])
    done = run(stop_command(root, host), root, json.dumps({"cwd": str(root), "workspace_roots": [str(root)],
                                                           "workspaceRoots": [str(root)]}))
    if host in ("codex", "gemini-cli"):
        assert done.returncode == 2 and "could not run the checks" in done.stderr
    else:
        assert done.returncode == 0 and "could not run the checks" in done.stdout


@pytest.mark.parametrize("host", ["copilot", "cursor", "cline"])
def test_a_stop_check_that_cannot_start_still_answers_the_hosts_way(root: Path, host: str):
    crashing = root / "crash.sh"
    crashing.write_text("#!/bin/sh\nexit 1\n")
    crashing.chmod(0o755)
    done = run(launcher._with_path(stop_hooks.program(host), str(crashing)), root, "{}")
    assert done.returncode == 0 and "failed with status 1" in done.stderr
    answer = json.loads(done.stdout)
    assert "could not run" in (answer.get("reason") or answer.get("followup_message") or answer["contextModification"])


def test_init_wires_the_stop_event_beside_the_judge_in_a_repository_with_a_manifest(root: Path):
    (root / "rules.toml").write_text("rules = []\n")
    created, _ = scaffold(root, "cline", None)
    assert ".clinerules/hooks/PreToolUse" in created and ".clinerules/hooks/TaskComplete" in created
    created, _ = scaffold(root, "codex", None)
    assert created.count(".codex/hooks.json") == 1
    assert set(json.loads((root / ".codex" / "hooks.json").read_text())["hooks"]) == {"PreToolUse", "Stop"}
    _, skipped = scaffold(root, "codex", None)
    assert ".codex/hooks.json" in skipped


def test_stop_hook_files_of_ours_show_no_agent_and_a_judge_hook_does(root: Path):
    from agent_constitution.hosts import agents

    (root / "polydeukes.config.yaml").unlink()
    (root / "rules.toml").write_text("rules = []\n")
    assert hooks.write_host_hooks(root, ["codex", "cursor", "cline"]) == [
        ".codex/hooks.json", ".cursor/hooks.json", ".clinerules/hooks/TaskComplete"]
    assert agents.detect(root) == ("agents-md", "claude-code")  # compile's own outputs, like the others
    (root / ".codex" / "config.toml").write_text("model = 'x'\n")  # the user's own Codex settings
    assert agents.detect(root) == ("agents-md", "claude-code", "codex")
    (root / "polydeukes.config.yaml").write_text(CONFIG)
    scaffold(root, "cursor", None)  # the judge, asked for: Cursor is used
    assert agents.detect(root) == ("agents-md", "claude-code", "codex", "cursor")


# --- Kiro CLI --------------------------------------------------------------------------------------
# tests/covenant/fixtures/kiro/fs_write.json is written from https://kiro.dev/docs/cli/hooks: the
# documented fields; the argument names inside `tool_input` are not documented there and are read
# by nothing but the judge's search for a protected path among the arguments.


def test_kiro_calls_are_judged_on_their_arguments(root: Path):
    from agent_constitution.covenant.adapters import kiro

    raw = (Path(__file__).parent / "fixtures" / "kiro" / "fs_write.json").read_text()
    ir = kiro.translate(raw.replace("{root}", str(root)).replace("{target}", "gate/new.txt"), root)
    assert ir["toolCalls"] == [{"name": "fs_write", "args": {"path": "gate/new.txt", "text": "hello\n"}}]
    with pytest.raises(Refusal, match="postToolUse event, not PreToolUse"):
        kiro.translate(json.dumps({"hook_event_name": "postToolUse", "tool_name": "x", "tool_input": {}}), root)


def test_kiro_gets_a_hooks_file_of_its_own_and_a_write_into_the_gate_is_blocked(root: Path):
    from agent_constitution.hosts import agents

    scaffold(root, "kiro", None)
    data = json.loads((root / ".kiro" / "hooks" / "covenant.json").read_text())
    assert data["version"] == "v1" and [h["trigger"] for h in data["hooks"]] == ["PreToolUse"]
    hook = data["hooks"][0]
    assert hook["matcher"] == "fs_write" and hook["timeout"] == 60 and hook["action"]["type"] == "command"
    raw = (Path(__file__).parent / "fixtures" / "kiro" / "fs_write.json").read_text().replace("{root}", str(root))
    blocked = run(hook["action"]["command"], root, raw.replace("{target}", "gate/new.txt"))
    assert blocked.returncode == 2 and "gate" in blocked.stderr
    assert run(hook["action"]["command"], root, raw.replace("{target}", "src/new.ts")).returncode == 0
    assert agents.detect(root) == ("agents-md", "claude-code", "kiro")  # the judge, asked for: Kiro is used
    mine = root / ".kiro" / "hooks" / "covenant.json"
    mine.write_text('{"version": "v1", "hooks": [{"name": "lint", "trigger": "PostFileSave"}]}')
    scaffold(root, "kiro", None)
    assert "lint" in mine.read_text()  # somebody's own file is never overwritten
    assert not judge_hooks.remove_host_hook(root, ".kiro/hooks/covenant.json") and mine.exists()
