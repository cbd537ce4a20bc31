"""The hosts beyond Claude Code, Codex and Grok: Gemini CLI, Cursor, Copilot, Cline (payloads from their docs).

Adapter tests read each fixture payload (tests/covenant/fixtures/<host>/) into the IR; the end-to-end
tests wire the host with `pdks init --host`, take the command it wrote from the host's own settings
file and run it as the host does, through `sh -c` with a PATH that holds no virtual environment.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_constitution.compile import hooks
from agent_constitution.hosts import judge_hooks
from agent_constitution.hosts import launcher
from agent_constitution.covenant.adapters import cline, copilot, cursor, gemini_cli
from agent_constitution.covenant.adapters.common import Refusal
from agent_constitution.hosts import HOSTS
from agent_constitution.covenant.init import scaffold

FIXTURES = Path(__file__).parent / "fixtures"
BARE_PATH = "/usr/bin:/bin"
CONFIG = """\
languages:
  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }
protectedPaths: ['gate']
"""
NEW_HOSTS = ("gemini-cli", "cursor", "copilot", "cline")
FOLDER = {"gemini-cli": "gemini", "cursor": "cursor", "copilot": "copilot", "cline": "cline"}
JSON_ONLY = ("copilot", "cline")  # hosts that read only the JSON answer: a block exits 0


def payload(host: str, name: str, root: Path, target: str) -> str:
    text = (FIXTURES / FOLDER[host] / name).read_text()
    return text.replace("{root}", str(root)).replace("{target}", target)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The tool where PATH does not find it (`uv run pytest` puts it there): the hooks name it by path.
    monkeypatch.setenv("PATH", BARE_PATH)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("a a\n")
    (tmp_path / "gate").mkdir()
    (tmp_path / "gate" / "inner.txt").write_text("a\n")
    (tmp_path / "polydeukes.config.yaml").write_text(CONFIG)
    return tmp_path


# --- adapters ------------------------------------------------------------------------------------


def test_gemini_write_file_and_replace_carry_the_change(root: Path):
    write = gemini_cli.translate(payload("gemini-cli", "write_file.json", root, "src/new.ts"), root)
    assert write["toolCalls"][0]["fileChange"] == {"kind": "create", "path": f"{root}/src/new.ts", "post": "hello\n"}
    assert "session" not in write and write["tools"]["shell"] == ["run_shell_command"]
    replace = gemini_cli.translate(payload("gemini-cli", "replace.json", root, "src/a.ts"), root)
    assert replace["toolCalls"][0]["fileChange"] == {"kind": "modify", "path": f"{root}/src/a.ts",
                                                     "pre": "a a\n", "post": "b b\n"}


def test_gemini_replace_the_tool_would_refuse_proves_no_change(root: Path):
    raw = json.loads(payload("gemini-cli", "replace.json", root, "src/a.ts"))
    raw["tool_input"]["expected_replacements"] = 1  # two occurrences: Gemini CLI's replace fails
    call = gemini_cli.translate(json.dumps(raw), root)["toolCalls"][0]
    assert "fileChange" not in call and call["args"]["old_string"] == "a"


def test_gemini_refuses_another_event_and_another_shape(root: Path):
    with pytest.raises(Refusal, match="AfterTool event, not BeforeTool"):
        gemini_cli.translate(json.dumps({"hook_event_name": "AfterTool", "tool_name": "x", "tool_input": {}}), root)
    with pytest.raises(Refusal, match="not a PreToolUse envelope"):
        gemini_cli.translate(json.dumps({"toolName": "write_file"}), root)


def test_cursor_pre_tool_use_and_shell_execution(root: Path):
    write = cursor.translate(payload("cursor", "pre_tool_write.json", root, "src/new.ts"), root)
    assert write["toolCalls"][0]["fileChange"]["post"] == "hello\n"
    edit = cursor.translate(payload("cursor", "pre_tool_str_replace.json", root, "gate/inner.txt"), root)
    assert edit["toolCalls"][0]["fileChange"] == {"kind": "modify", "path": f"{root}/gate/inner.txt",
                                                  "pre": "a\n", "post": "b\n"}
    shell = cursor.translate(payload("cursor", "before_shell_execution.json", root, "gate/inner.txt"), root)
    assert shell["toolCalls"] == [{"name": "Shell", "args": {"command": "echo x >> gate/inner.txt"}}]
    with pytest.raises(Refusal, match="afterFileEdit event"):
        cursor.translate(json.dumps({"hook_event_name": "afterFileEdit", "file_path": "a"}), root)


def test_copilot_reads_tool_args_as_json_text_and_the_vs_code_form(root: Path):
    create = copilot.translate(payload("copilot", "create.json", root, "src/new.ts"), root)
    assert create["toolCalls"][0]["fileChange"] == {"kind": "create", "path": f"{root}/src/new.ts", "post": "hello\n"}
    edit = copilot.translate(payload("copilot", "edit.json", root, "gate/inner.txt"), root)
    assert edit["toolCalls"][0]["fileChange"]["post"] == "b\n"
    vscode = copilot.translate(payload("copilot", "vscode_pre_tool_use.json", root, "src/new.ts"), root)
    assert vscode["toolCalls"] == create["toolCalls"]
    with pytest.raises(Refusal, match="toolArgs is not JSON"):
        copilot.translate(json.dumps({"toolName": "bash", "toolArgs": "{half"}), root)


def test_cline_write_replace_and_command(root: Path):
    write = cline.translate(payload("cline", "write_to_file.json", root, "src/new.ts"), root)
    assert write["toolCalls"][0]["fileChange"] == {"kind": "create", "path": "src/new.ts", "post": "hello\n"}
    replace = cline.translate(payload("cline", "replace_in_file.json", root, "gate/inner.txt"), root)
    assert replace["toolCalls"][0]["fileChange"] == {"kind": "modify", "path": "gate/inner.txt", "pre": "a\n",
                                                     "post": "b\n"}
    shell = cline.translate(payload("cline", "execute_command.json", root, "gate/inner.txt"), root)
    assert shell["toolCalls"][0]["args"]["command"] == "echo x >> gate/inner.txt"
    with pytest.raises(Refusal, match="not a PreToolUse envelope"):
        cline.translate(json.dumps({"hookName": "PreToolUse"}), root)


def test_cline_search_replace_blocks():
    assert cline.blocks("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE") == [("x\n", "y\n")]
    assert cline.blocks("------- SEARCH\nx\n=======\n") is None  # unterminated
    assert cline.blocks("just text") is None


def test_every_host_of_the_catalogue_has_an_adapter():
    from agent_constitution.covenant.adapters import adapter

    for name in HOSTS:
        module = adapter(name)
        assert module.PREFIX == f"adapter-{name} failed before spawn:"
        assert callable(module.translate)


# --- end to end: wired by `pdks init --host`, run as the host runs it ----------------------------------


def wired_command(root: Path, host: str) -> str:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    scaffold(root, host, None)
    if HOSTS[host].script:
        return (root / HOSTS[host].file).read_text().splitlines()[-1]
    data = json.loads((root / HOSTS[host].file).read_text())
    event = HOSTS[host].events[0][0]
    entries = data["hooks"][event]
    handler = entries[0]["hooks"][0] if HOSTS[host].grouped else entries[0]
    return handler[HOSTS[host].command_key]


def run(command: str, root: Path, stdin: str) -> subprocess.CompletedProcess:
    env = {"PATH": BARE_PATH, "HOME": str(root)}
    return subprocess.run(["sh", "-c", command], input=stdin, capture_output=True, text=True, cwd=root, env=env)


@pytest.mark.parametrize(("host", "fixture"), [
    ("gemini-cli", "write_file.json"), ("cursor", "pre_tool_write.json"), ("copilot", "create.json"),
    ("cline", "write_to_file.json"),
])
def test_a_write_into_a_protected_path_is_blocked_the_way_the_host_reads_it(root: Path, host: str, fixture: str):
    command = wired_command(root, host)
    blocked = run(command, root, payload(host, fixture, root, "gate/new.txt"))
    passed = run(command, root, payload(host, fixture, root, "src/new.ts"))
    if host == "cline":  # the JSON answer, exit 0 either way
        assert blocked.returncode == 0 and json.loads(blocked.stdout)["cancel"] is True
        assert "gate" in json.loads(blocked.stdout)["errorMessage"]
        assert passed.returncode == 0 and json.loads(passed.stdout) == {"cancel": False}
    elif host == "copilot":  # only the JSON answer blocks
        assert blocked.returncode == 0
        assert json.loads(blocked.stdout)["permissionDecision"] == "deny"
        assert "gate" in json.loads(blocked.stdout)["permissionDecisionReason"]
        assert passed.returncode == 0 and passed.stdout == ""
    elif host == "cursor":  # exit 2 and the JSON answer, either blocks
        assert blocked.returncode == 2 and json.loads(blocked.stdout)["permission"] == "deny"
        assert passed.returncode == 0 and json.loads(passed.stdout) == {}
    else:  # Gemini CLI: exit 2, stderr the reason; stdout JSON only
        assert blocked.returncode == 2 and "gate" in blocked.stderr and blocked.stdout == ""
        assert passed.returncode == 0 and json.loads(passed.stdout) == {}
    assert passed.returncode == 0, passed.stderr
    log = (root / ".polydeukes" / "roi.log").read_text()
    assert "\tblocked\tself-mod\tgate\n" in log


@pytest.mark.parametrize(("host", "fixture"), [
    ("gemini-cli", "run_shell_command.json"), ("cursor", "before_shell_execution.json"), ("copilot", "bash.json"),
    ("cline", "execute_command.json"),
])
def test_a_shell_write_into_a_protected_path_is_blocked(root: Path, host: str, fixture: str):
    done = run(wired_command(root, host), root, payload(host, fixture, root, "gate/inner.txt"))
    assert "shell-mod" in (root / ".polydeukes" / "roi.log").read_text()
    assert done.returncode == (0 if host in JSON_ONLY else 2)
    if host in JSON_ONLY:
        answer = json.loads(done.stdout)
        assert answer.get("permissionDecision") == "deny" or answer.get("cancel") is True


@pytest.mark.parametrize("host", NEW_HOSTS)
def test_an_untranslatable_payload_fails_closed(root: Path, host: str):
    done = run(wired_command(root, host), root, "{not json")
    assert f"adapter-{host} failed before spawn: the payload is not JSON" in done.stderr
    assert done.returncode == (0 if host in JSON_ONLY else 2)
    if host in ("copilot", "cursor"):
        assert "deny" in done.stdout
    if host == "cline":
        assert json.loads(done.stdout)["cancel"] is True


@pytest.mark.parametrize("host", ("cursor", "copilot", "cline"))
def test_a_judge_that_cannot_run_still_answers_deny(root: Path, host: str):
    crashing = root / "crash.sh"
    crashing.write_text("#!/bin/sh\nexit 1\n")
    crashing.chmod(0o755)
    command = launcher._with_path(launcher.covenant_hook(host), str(crashing))
    done = run(command, root, "{}")
    assert "failed with status 1" in done.stderr
    answer = json.loads(done.stdout)
    assert (answer.get("permission") or answer.get("permissionDecision")) == "deny" or answer["cancel"] is True
    assert done.returncode == (0 if host in JSON_ONLY else 2)
    missing = run(launcher._with_path(launcher.covenant_hook(host), str(root / "gone")), root, "{}")
    assert "is missing" in missing.stderr and json.loads(missing.stdout) == answer


# --- wiring: init and compile --------------------------------------------------------------------------


def test_init_wires_each_host_where_it_looks_and_protects_the_file(root: Path):
    for host in NEW_HOSTS:
        wired_command(root, host)
    gemini = json.loads((root / ".gemini" / "settings.json").read_text())
    assert gemini["hooks"]["BeforeTool"][0]["matcher"] == "write_file|replace|run_shell_command"
    assert gemini["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 60000
    cursor_file = json.loads((root / ".cursor" / "hooks.json").read_text())
    assert cursor_file["version"] == 1 and set(cursor_file["hooks"]) == {"preToolUse", "beforeShellExecution"}
    assert all(entry["failClosed"] is True for entries in cursor_file["hooks"].values() for entry in entries)
    copilot_file = json.loads((root / ".github" / "hooks" / "covenant.json").read_text())
    assert copilot_file["version"] == 1 and copilot_file["hooks"]["preToolUse"][0]["type"] == "command"
    assert "pdks hook copilot" in copilot_file["hooks"]["preToolUse"][0]["bash"]
    script = root / ".clinerules" / "hooks" / "PreToolUse"
    assert script.stat().st_mode & 0o111 and script.read_text().startswith("#!/bin/sh\n")
    from ruamel.yaml import YAML

    protected = YAML(typ="safe").load((root / "polydeukes.config.yaml").read_text())["protectedPaths"]
    assert protected == ["gate", *(HOSTS[host].file for host in NEW_HOSTS)]  # the gate protects itself


def test_init_twice_converges_and_keeps_the_users_hooks(root: Path):
    cursor_file = root / ".cursor" / "hooks.json"
    cursor_file.parent.mkdir()
    cursor_file.write_text(json.dumps({"version": 1, "hooks": {"afterFileEdit": [{"command": "fmt.sh"}]}}))
    wired_command(root, "cursor")
    first = cursor_file.read_text()
    scaffold(root, "cursor", None)
    assert cursor_file.read_text() == first
    assert json.loads(first)["hooks"]["afterFileEdit"] == [{"command": "fmt.sh"}]


def test_compile_wires_the_detected_hosts_and_takes_the_hook_out_without_a_config(root: Path):
    from agent_constitution.hosts import agents
    from agent_constitution.compile.layout import agent_hook_files

    def detected_hosts(root: Path) -> list[str]:  # the hosts of the agents detected (the one detector)
        return [host for host in agents.hook_hosts(agents.detect(root)) if host != "claude-code"]

    (root / ".gemini").mkdir()
    (root / ".cursorrules").write_text("")
    (root / ".github").mkdir()
    (root / ".github" / "copilot-instructions.md").write_text("")
    (root / ".clinerules").mkdir()
    assert detected_hosts(root) == ["gemini-cli", "cursor", "copilot", "cline"]
    changed = hooks.write_host_hooks(root, detected_hosts(root))
    assert changed == [".gemini/settings.json", ".cursor/hooks.json", ".github/hooks/covenant.json",
                       ".clinerules/hooks/PreToolUse"]
    assert hooks.write_host_hooks(root, detected_hosts(root)) == []  # idempotent
    (root / "polydeukes.config.yaml").unlink()
    assert agent_hook_files(root, detected_hosts(root)) == changed  # left to clean
    assert hooks.write_host_hooks(root, detected_hosts(root)) == changed
    assert not any((root / name).exists() for name in changed)  # nothing of the user's was left


@pytest.mark.parametrize("name", ["polydeukes.config.yml", "polydeukes.config.json"])
def test_a_config_under_another_name_gets_its_hooks_too(tmp_path: Path, name: str):
    (tmp_path / name).write_text("{}\n")
    assert hooks.has_covenant(tmp_path)
    assert hooks.COVENANT_ID in [hook["id"] for hook in hooks.pre_commit_hooks(tmp_path)]
    hooks.write_claude_settings(tmp_path)
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    assert "PreToolUse" in settings["hooks"]


def test_a_hook_script_of_someone_elses_is_never_overwritten(root: Path):
    script = root / ".clinerules" / "hooks" / "PreToolUse"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\nmy-guard\n")
    scaffold(root, "cline", None)
    assert script.read_text() == "#!/bin/sh\nmy-guard\n"
    assert not judge_hooks.remove_host_hook(root, ".clinerules/hooks/PreToolUse") and script.exists()


def test_the_config_loader_and_the_catalogue_import_no_adapter():
    """`config.py` checks `adapters.<host>` against the catalogue: importing it loads no adapter
    (it used to import the adapters package, which imports the plan, which imports the config)."""
    import sys

    code = ("import sys, agent_constitution.covenant.config, agent_constitution.compile.hooks; "
            "print(sorted(m for m in sys.modules if m.startswith('agent_constitution.covenant.adapters')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_plan_load_past_the_budget_fails_closed(root: Path, monkeypatch, capsys):
    from agent_constitution.covenant.adapters import common
    from agent_constitution.covenant.budget import OverBudget

    def slow(_root):
        raise OverBudget("the judgment ran past its 10 s budget")

    monkeypatch.setattr(common, "load", slow)
    status = common.hook(gemini_cli.PREFIX, gemini_cli.translate, "{}", root, "gemini-cli", answer=gemini_cli.ANSWER)
    assert status == 2
    assert capsys.readouterr().err.startswith(f"{gemini_cli.PREFIX} the judgment ran past its 10 s budget\n")


def test_every_agent_with_a_hook_names_a_host_of_the_catalogue():
    from agent_constitution.hosts import AGENTS
    from agent_constitution.hosts import HOSTS

    named = [agent.hook for agent in AGENTS.values() if agent.hook]
    assert set(named) == set(HOSTS) and len(named) == len(set(named))
