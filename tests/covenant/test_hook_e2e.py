"""`pdks hook claude-code|codex|grok` end to end: a recorded payload on stdin, exit code, stderr, telemetry.

Each test builds a project in a temp dir, fills the recorded fixture's placeholders (`{root}`,
`{transcript}`, the human message and its timestamp) and runs the real `pdks` console script.
"""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from seed_examples import NPM_VIEW

FIXTURES = Path(__file__).parent / "fixtures" / "claude"
PDKS = Path(sys.executable).with_name("pdks")
CONFIG = """\
languages:
  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }
protectedPaths: ['.claude/hooks', 'gate']
witness: { token: 'pdks witness', ttlMinutes: 10 }
"""


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".claude" / "hooks").mkdir(parents=True)
    (root / ".claude" / "hooks" / "guard.sh").write_text("#!/bin/sh\nexit 2\n")
    (root / "gate").mkdir()
    (root / "gate" / "inner.txt").write_text("secret\n")
    (root / "src").mkdir()
    (root / "polydeukes.config.yaml").write_text(CONFIG)
    return root


def transcript(root, first_message="please fix the parser", age=timedelta(minutes=1)):
    path = root.parent / "projects" / "4f1c2a9e-0b7d-4c55-9a1e-2f3b4c5d6e7f.jsonl"
    path.parent.mkdir(exist_ok=True)
    text = (FIXTURES / "transcript.jsonl").read_text()
    text = text.replace("{root}", str(root)).replace("{stamp}", iso(datetime.now(UTC) - age))
    path.write_text(text.replace("{first_message}", json.dumps(first_message)[1:-1]))
    return path


def hook(root, fixture=None, host="claude-code", raw=None, transcript_path=None):
    if raw is None:
        raw = (FIXTURES / fixture).read_text().replace("{root}", str(root))
        raw = raw.replace("{transcript}", str(transcript_path or transcript(root)))
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "HOME": str(root.parent)}
    env.pop("POLYDEUKES_TELEMETRY_PATH", None)
    return subprocess.run([str(PDKS), "hook", host], input=raw, capture_output=True, text=True, cwd=root, env=env)


def rows(root):
    """Telemetry rows without their timestamp; baseline observations are left out."""
    log = root / ".polydeukes" / "roi.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line.split("\t")[1:] for line in lines if line.split("\t")[2] != "baseline"]


def test_edit_of_a_hook_file_is_blocked(project):
    done = hook(project, "edit_hook_file.json")
    assert done.returncode == 2
    assert f"Edit would modify protected path {project}/.claude/hooks/guard.sh" in done.stderr
    assert rows(project) == [["blocked", "self-mod", ".claude/hooks"], ["passed", "shell-mod", ".claude/hooks"]]


def test_shell_append_into_a_protected_directory_is_blocked(project):
    done = hook(project, "bash_append_gate.json")
    assert done.returncode == 2
    assert "redirect-write targets protected path gate" in done.stderr
    assert rows(project) == [["passed", "self-mod", "gate"], ["blocked", "shell-mod", "gate"]]


def test_an_ordinary_write_passes(project):
    done = hook(project, "write_source.json")
    assert done.returncode == 0, done.stderr
    assert rows(project) == [["passed", "covenant-check", f"{project}/src/app.ts"]]


def test_the_config_protects_itself(project):
    done = hook(project, "write_config.json")
    assert done.returncode == 2
    assert f"Write would modify protected path {project}/polydeukes.config.yaml" in done.stderr
    assert ["blocked", "self-mod", "polydeukes.config.yaml"] in rows(project)


def test_a_fresh_witness_turns_the_block_into_witnessed(project):
    path = transcript(project, "pdks witness\n\nnow fix the hook file")
    done = hook(project, "edit_hook_file.json", transcript_path=path)
    assert done.returncode == 0, done.stderr
    assert rows(project)[0] == ["witnessed", "self-mod", ".claude/hooks"]


@pytest.mark.parametrize(
    ("message", "age"),
    [
        ("but when does `pdks witness` expire?", timedelta(minutes=1)),
        ("pdks witness", timedelta(minutes=11)),
    ],
)
def test_a_mention_or_a_stale_witness_keeps_the_block(project, message, age):
    done = hook(project, "edit_hook_file.json", transcript_path=transcript(project, message, age))
    assert done.returncode == 2
    assert rows(project)[0] == ["blocked", "self-mod", ".claude/hooks"]


def test_a_subagent_multi_edit_is_judged_on_its_computed_target(project):
    done = hook(project, "multiedit_subagent.json")
    assert done.returncode == 2
    assert f"MultiEdit would modify protected path {project}/gate/inner.txt" in done.stderr


def test_the_session_transcript_is_protected(project):
    path = transcript(project)
    done = hook(project, "bash_rm_transcript.json", transcript_path=path)
    assert done.returncode == 2
    assert f"rm names the session transcript {path} without read-only proof" in done.stderr
    assert ["blocked", "transcript-mod", str(path)] in rows(project)


def test_a_task_spawn_judges_nothing(project):
    done = hook(project, "task_spawn.json")
    assert done.returncode == 0, done.stderr
    assert rows(project) == []


def test_an_untranslatable_payload_fails_closed(project):
    done = hook(project, raw="{not json")
    assert done.returncode == 2
    assert done.stderr.startswith("adapter-claude-code failed before spawn: the payload is not JSON (")
    assert rows(project) == [["blocked", "covenant-check", "-"]]
    done = hook(project, raw='{"tool_name": "Edit"}')
    assert done.returncode == 2
    assert "the payload is not a PreToolUse envelope this adapter translates" in done.stderr


def test_codex_multi_file_patch_blocks_the_protected_half(project):
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Delete File: gate/inner.txt\n*** End Patch"
    payload = {"cwd": str(project), "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
               "session_id": "s", "tool_input": {"command": patch}, "tool_name": "apply_patch", "tool_use_id": "u",
               "transcript_path": "/nonexistent/t.jsonl", "turn_id": "t"}
    done = hook(project, host="codex", raw=json.dumps(payload))
    assert done.returncode == 2
    assert "apply_patch would modify protected path gate/inner.txt" in done.stderr


def test_grok_write_without_a_session(project):
    done = hook(project, host="grok", raw=json.dumps({"toolName": "write", "toolInput": {"file_path": "gate/new.txt", "content": "x"}}))
    assert done.returncode == 2
    assert "write would modify protected path gate/new.txt" in done.stderr
    assert hook(project, host="grok", raw=json.dumps({"toolName": "run_terminal_command", "toolInput": {"command": "ls src"}})).returncode == 0


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf gate", "rm mentions protected path gate without read-only proof"),
        ("echo x >> gate/inner.txt", "redirect-write targets protected path gate"),
    ],
)
def test_grok_terminal_command_into_a_protected_path_is_blocked(project, command, reason):
    done = hook(project, host="grok", raw=json.dumps({"toolName": "run_terminal_command", "toolInput": {"command": command}}))
    assert (done.returncode, done.stderr.splitlines()) == (2, [reason])
    assert ["blocked", "shell-mod", "gate"] in rows(project)


def test_usage(project):
    done = hook(project, host="vim", raw="{}")
    assert done.returncode == 2 and done.stderr.startswith("usage: pdks hook")


PRE_COMMIT = """\
#!/bin/sh
# .git/hooks/pre-commit: judge the staged change set; block the commit on exit 2.
git diff --cached --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ \\
  | "{pdks}" covenant check --diff --enforce block
"""


def git(root, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                          capture_output=True, text=True)


def test_documented_pre_commit_wiring_blocks_a_staged_protected_change(project):
    git(project, "init", "-q")
    git(project, "add", "-A")
    assert git(project, "commit", "-q", "-m", "base").returncode == 0
    hook_file = project / ".git" / "hooks" / "pre-commit"
    hook_file.write_text(PRE_COMMIT.replace("{pdks}", str(PDKS)))
    hook_file.chmod(0o755)
    (project / "src" / "ok.ts").write_text("export {};\n")
    git(project, "add", "src/ok.ts")
    assert git(project, "commit", "-q", "-m", "ordinary").returncode == 0
    (project / "gate" / "inner.txt").write_text("opened\n")
    git(project, "add", "gate/inner.txt")
    refused = git(project, "commit", "-q", "-m", "touch the gate")
    assert refused.returncode != 0
    assert "staged-write would modify protected path gate/inner.txt" in refused.stderr
    assert ["blocked", "self-mod", "gate"] in rows(project)
    assert git(project, "log", "--format=%s").stdout.split("\n")[0] == "ordinary"
    staged = subprocess.run([str(PDKS), "covenant", "check", "--diff", "--staged", "--enforce", "block"],
                            cwd=project, capture_output=True, text=True)
    assert staged.returncode == 2
    assert "staged-write would modify protected path gate/inner.txt" in staged.stderr


PRECEDENT = "sessionDisciplines:\n" + NPM_VIEW.replace("supply: { session: 'pass' }", "SUPPLY")


@pytest.mark.parametrize(
    ("supply", "code", "row"),
    [
        ("supply: { session: 'pass' }", 0, ["skipped", "dependency-needs-npm-view", "package.json", "supply-pass"]),
        ("", 2, ["blocked", "dependency-needs-npm-view", "package.json"]),
    ],
)
def test_grok_carries_no_session_so_transcript_readers_need_supply_pass(project, supply, code, row):
    (project / "polydeukes.config.yaml").write_text(CONFIG + PRECEDENT.replace("SUPPLY", supply))
    payload = {"toolName": "write", "toolInput": {"file_path": "package.json", "content": "{}\n"}}
    done = hook(project, host="grok", raw=json.dumps(payload))
    assert done.returncode == code, done.stderr
    assert row in rows(project)


def test_claude_precedent_reads_the_recorded_transcript(project):
    (project / "polydeukes.config.yaml").write_text(CONFIG + PRECEDENT.replace("SUPPLY", ""))
    path = transcript(project)
    with path.open("a") as handle:
        handle.write(json.dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "toolu_09", "name": "Bash", "input": {"command": "npm view left-pad version"}}]}}) + "\n")
        handle.write(json.dumps({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "toolu_09", "content": "1.3.0"}]}}) + "\n")
    payload = (FIXTURES / "write_source.json").read_text().replace("{root}/src/app.ts", "{root}/package.json")
    done = hook(project, raw=payload.replace("{root}", str(project)).replace("{transcript}", str(path)))
    assert done.returncode == 0, done.stderr
    assert ["passed", "dependency-needs-npm-view", "package.json"] in rows(project)
