"""Writes the judge cannot see through (issue 37, part 6), on every host with a shell tool.

Each reproduction of the issue runs through the real `pdks hook <host>` console script in a real
git repository whose protected files the command would rewrite; a sanity test runs the same
commands in bash to show that each one really does. Ordinary commands stay allowed. After the
fact, a protected file changed outside any judged call blocks the next hook call once, and the Stop
hook's comparison says so too.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.covenant import baseline
from agent_constitution.covenant.config import ConfigError, load
from agent_constitution.covenant.shell import tokenize

PDKS = Path(sys.executable).with_name("pdks")
FIXTURES = Path(__file__).parent / "fixtures"
CONFIG = """\
languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }
protectedPaths: ['.claude/settings.json', '.claude/hooks']
"""
HOOKED = '{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "pdks hook claude-code"}]}]}}\n'
UNHOOKED = '{"hooks": {}}\n'
SHELL_HOSTS = ("claude-code", "codex", "grok", "gemini-cli", "cursor", "copilot", "cline", "windsurf")

# The reproductions of the issue: each rewrites .claude/settings.json or deletes the guard.
REPRODUCTIONS = {
    "tar": "tar -xf evil.tar",
    "checkout": "git checkout other",
    "reset": "git reset --hard other",
    "xargs": "echo .claude/settings.json | xargs -I{} cp evil.json {}",
    "ansi-c": "cp evil.json $'\\x2eclaude/settings.json'",
    "find": "find . -name guard.sh -delete",
    "python": "python3 -c \"open('.cla'+'ude/settings.json','w').write('{}')\"",
}
MORE = {  # the other shapes of part 6
    "unzip": "unzip -o evil.zip",
    "restore": "git restore --source=other .claude",
    "switch": "git switch other",
    "stash": "git stash pop",
    "find-exec": "find . -name settings.json -exec cp evil.json {} \\;",
    "cp-onto-parent": "cp -r evil/. .",
    "rsync-onto-parent": "rsync -a evil/ .",
    "node": "node -e \"require('f'+'s').writeFileSync('.cla'+'ude/settings.json', '{}')\"",
    "perl": "perl -e 'open(F, \">\" . \".cla\" . \"ude/settings.json\")'",
    "sh-c": "sh -c 'tar -xf evil.tar'",
    "sh-c-computed": 'bash -c "$PROGRAM"',
    "computed-operand": 'cp evil.json "$(printf .claude)/settings.json"',
    "computed-redirect": 'echo {} > "$TARGET"',
    "computed-command": "$WRITER evil/.claude/settings.json",
    "parallel": "parallel cp evil.json ::: .claude/settings.json",
}
ORDINARY = {
    "status": "git status",
    "new-branch": "git checkout -b new",
    "same-branch": "git checkout same",
    "list-archive": "tar -tf evil.tar",
    "extract-elsewhere": "tar -xf evil.tar -C {outside}",
    "list-zip": "unzip -l evil.zip",
    "find-print": "find . -name x -print",
    "find-delete-elsewhere": "find src -name '*.pyc' -delete",
    "find-exec-reader": "find . -name '*.ts' -exec grep -l x {} +",
    "python-print": "python3 -c \"print(1)\"",
    "python-import": "python3 -c \"import sys; print(sys.version)\"",
    "node-require": "node -e \"console.log(require('./package.json').version)\"",
    "xargs-reader": "git ls-files | xargs grep -l TODO",
    "copy-tree-elsewhere": "cp -r evil src/",
    "reset-mixed": "git reset other",
    "restore-staged": "git restore --staged src/a.ts",
    "sh-c-literal": "sh -c 'echo hi'",
    "ansi-c-reader": "cat $'\\x2eclaude/settings.json'",
}


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _tar(path: Path, members: dict[str, str]) -> None:
    with tarfile.open(path, "w") as archive:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose gate is `.claude/settings.json` and `.claude/hooks/guard.sh`, with a branch
    `other` whose settings carry no hook, a branch `same` that differs only outside the gate, and
    an archive, a zip, a folder and a file that hold other settings."""
    root = tmp_path_factory.mktemp("unseen") / "proj"
    (root / ".claude" / "hooks").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(HOOKED)
    (root / ".claude" / "hooks" / "guard.sh").write_text("exit 0\n")
    (root / "src").mkdir()
    (root / "src" / "a.ts").write_text("x\n")
    (root / "package.json").write_text('{"version": "1.0.0"}\n')
    (root / "polydeukes.config.yaml").write_text(CONFIG)
    (root / ".gitignore").write_text(".polydeukes/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    git(root, "checkout", "-q", "-b", "other")
    (root / ".claude" / "settings.json").write_text(UNHOOKED)
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "-b", "same", "main")
    (root / "src" / "a.ts").write_text("y\n")
    git(root, "commit", "-qam", "same")
    git(root, "checkout", "-q", "main")
    (root / ".claude" / "settings.json").write_text(UNHOOKED)  # a stash holding other settings
    git(root, "stash", "-q")
    _tar(root / "evil.tar", {".claude/settings.json": UNHOOKED})
    with zipfile.ZipFile(root / "evil.zip", "w") as archive:
        archive.writestr(".claude/settings.json", UNHOOKED)
    (root / "evil" / ".claude").mkdir(parents=True)
    (root / "evil" / ".claude" / "settings.json").write_text(UNHOOKED)
    (root / "evil.json").write_text(UNHOOKED)
    return root


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(template, root, symlinks=True)
    return root


def gate(root: Path) -> str:
    digest = hashlib.sha256()
    for path in (root / ".claude" / "settings.json", root / ".claude" / "hooks" / "guard.sh"):
        digest.update(path.read_bytes() if path.exists() else b"\0absent")
    return digest.hexdigest()


def _fixture(folder: str, name: str, root: Path) -> dict:
    return json.loads((FIXTURES / folder / name).read_text().replace("{root}", str(root)).replace("{target}", "x"))


def payload(host: str, root: Path, command: str) -> dict:
    """The host's own pre-tool payload of its shell tool running `command` (fixtures: the hosts' docs)."""
    if host == "claude-code":
        return {"hook_event_name": "PreToolUse", "cwd": str(root), "tool_name": "Bash", "tool_input": {"command": command}}
    if host == "codex":
        return {"cwd": str(root), "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
                "session_id": "s", "tool_input": {"command": command}, "tool_name": "Bash", "tool_use_id": "u",
                "transcript_path": "/tmp/t.jsonl", "turn_id": "t"}
    if host == "grok":
        return {"toolName": "run_terminal_command", "toolInput": {"command": command}}
    if host == "gemini-cli":
        data = _fixture("gemini", "run_shell_command.json", root)
        data["tool_input"]["command"] = command
        return data
    if host == "cursor":
        data = _fixture("cursor", "before_shell_execution.json", root)
        data["command"] = command
        return data
    if host == "copilot":
        data = _fixture("copilot", "bash.json", root)
        data["toolArgs"] = json.dumps({"command": command, "description": "run"})
        return data
    if host == "cline":
        data = _fixture("cline", "execute_command.json", root)
        data["preToolUse"]["parameters"]["command"] = command
        return data
    assert host == "windsurf"
    data = _fixture("windsurf", "pre_run_command.json", root)
    data["tool_info"]["command_line"] = command
    return data


def hook(host: str, root: Path, command: str) -> tuple[bool, str]:
    """(blocked, what the host is told) for one shell call, the way each host reads the answer."""
    env = {key: value for key, value in os.environ.items() if key not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")}
    env.pop("POLYDEUKES_TELEMETRY_PATH", None)
    done = subprocess.run([str(PDKS), "hook", host], input=json.dumps(payload(host, root, command)),
                          capture_output=True, text=True, cwd=root, env=env, timeout=60)
    answer = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    denied = (done.returncode == 2 or answer.get("permissionDecision") == "deny" or answer.get("cancel") is True
              or answer.get("permission") == "deny" or answer.get("decision") == "block")
    told = done.stderr + " ".join(str(answer.get(k, "")) for k in ("permissionDecisionReason", "errorMessage",
                                                                    "userMessage", "agentMessage", "reason"))
    return denied, told


# --- the reproductions ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted({**REPRODUCTIONS, **MORE}))
def test_each_command_really_rewrites_the_gate(project: Path, case: str):
    """The commands are real attacks: run in bash, each changes a protected file."""
    command = {**REPRODUCTIONS, **MORE}[case]
    if case in ("node", "parallel", "unzip", "rsync-onto-parent") and shutil.which(command.split()[0]) is None:
        pytest.skip(f"{command.split()[0]} is not installed here")
    before = gate(project)
    env = {**os.environ, "PROGRAM": "tar -xf evil.tar", "TARGET": ".claude/settings.json", "WRITER": "cp -t .claude"}
    subprocess.run(["bash", "-c", command], cwd=project, env=env, capture_output=True)
    assert gate(project) != before, f"{command} changed nothing protected"


@pytest.mark.parametrize("host", SHELL_HOSTS)
@pytest.mark.parametrize("case", sorted(REPRODUCTIONS))
def test_a_reproduction_of_the_issue_is_blocked(project: Path, host: str, case: str):
    blocked, told = hook(host, project, REPRODUCTIONS[case])
    assert blocked, told
    assert ".claude/settings.json" in told or ".claude/hooks" in told


@pytest.mark.parametrize("case", sorted(MORE))
def test_every_shape_that_may_write_anywhere_is_blocked(project: Path, case: str):
    blocked, told = hook("claude-code", project, MORE[case])
    assert blocked, told
    assert "protected path" in told


@pytest.mark.parametrize("host", ["claude-code", "codex", "cursor", "copilot"])
@pytest.mark.parametrize("case", sorted(ORDINARY))
def test_an_ordinary_command_stays_allowed(project: Path, tmp_path: Path, host: str, case: str):
    blocked, told = hook(host, project, ORDINARY[case].replace("{outside}", str(tmp_path / "out")))
    assert not blocked, told


def test_the_reasons_name_what_was_not_seen(project: Path):
    expected = {
        "tar -xf evil.tar": "tar -x extracts an archive into the working folder, which holds protected path"
                            " .claude/settings.json",
        "git checkout other": "git checkout other rewrites protected path .claude/settings.json",
        "git reset --hard other": "git reset --hard other rewrites protected path .claude/settings.json",
        "echo .claude/settings.json | xargs -I{} cp evil.json {}": "xargs runs cp with arguments this layer does"
                                                                   " not read",
        "cp evil.json $'\\x2eclaude/settings.json'": "cp mentions protected path .claude/settings.json",
        "find . -name guard.sh -delete": "find -delete works under ., which holds protected path",
        "python3 -c \"open('.cla'+'ude/settings.json','w').write('{}')\"": "an inline python3 program can write"
                                                                           " through open",
        "cd src && tar -xf ../evil.tar": "tar -x extracts an archive into the folder a cd moved to",
    }
    for command, reason in expected.items():
        blocked, told = hook("claude-code", project, command)
        assert blocked and reason in told, (command, told)


def test_a_checkout_is_judged_by_what_differs_in_the_gate(project: Path):
    assert hook("claude-code", project, "git checkout same")[0] is False
    assert hook("claude-code", project, "git checkout other -- src")[0] is True  # conservative: the gate differs
    (project / ".claude" / "settings.json").write_text(UNHOOKED)  # now the working tree matches `other`
    assert hook("claude-code", project, "git status")[0] is True  # (that write is reported once)
    assert hook("claude-code", project, "git checkout other")[0] is False
    blocked, told = hook("claude-code", project, "git checkout main")
    assert blocked and "git checkout main rewrites protected path .claude/settings.json" in told
    blocked, told = hook("claude-code", project, "git checkout no-such-ref-anywhere")  # read as a path
    assert blocked and "git checkout no-such-ref-anywhere rewrites protected path" in told  # from the index


def test_checkout_dash_is_the_branch_before(project: Path):
    git(project, "checkout", "-q", "other")
    git(project, "checkout", "-q", "main")
    blocked, told = hook("claude-code", project, "git checkout -")  # `@{-1}` is other, not a path `-`
    assert blocked and "git checkout - rewrites protected path .claude/settings.json" in told


def test_a_checkout_outside_a_repository_cannot_be_judged_and_blocks(project: Path):
    shutil.rmtree(project / ".git")
    blocked, told = hook("claude-code", project, "git reset --hard other")
    assert blocked and "other names no commit here" in told


def test_unseen_writes_allow_lets_them_through(project: Path):
    (project / "polydeukes.config.yaml").write_text(CONFIG + "unseenWrites: allow\n")
    for command in ("tar -xf evil.tar", "find . -name guard.sh -delete", "git stash pop"):
        assert hook("claude-code", project, command)[0] is False, command
    # what the words name is still judged
    assert hook("claude-code", project, "cp evil.json $'\\x2eclaude/settings.json'")[0] is True


@pytest.mark.parametrize(("value", "message"), [
    ("maybe", "unseenWrites must be one of 'block', 'allow' (got \"maybe\")"),
    ("Block", "unseenWrites must be one of 'block', 'allow' (got \"Block\")"),
    ("true", "unseenWrites must be one of 'block', 'allow' (got true)"),
    ("[block]", "unseenWrites must be one of 'block', 'allow' (got list)"),
    ("", "unseenWrites must be one of 'block', 'allow' (got null)"),
])
def test_unseen_writes_is_validated_strictly(tmp_path: Path, value: str, message: str):
    path = tmp_path / "polydeukes.config.yaml"
    path.write_text(CONFIG + f"unseenWrites: {value}\n")
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert str(caught.value) == f"invalid config in polydeukes.config.yaml: {message}"


def test_a_refused_unseen_writes_fails_the_hook_closed(project: Path):
    (project / "polydeukes.config.yaml").write_text(CONFIG + "unseenWrites: off\n")
    blocked, told = hook("claude-code", project, "git status")
    assert blocked and "unseenWrites must be one of 'block', 'allow'" in told


# --- ANSI-C quoting -----------------------------------------------------------------------------

ESCAPES = st.sampled_from([
    "\\a", "\\b", "\\e", "\\E", "\\f", "\\n", "\\r", "\\t", "\\v", "\\\\", "\\'", '\\"', "\\?", "\\q", "\\x",
    "\\x2e", "\\x41", "\\x4", "\\x4g", "\\101", "\\1", "\\12", "\\0101", "\\u00e9", "\\u41", "\\U0001F600",
    "\\U41", "\\cA", "\\cz", "\\c?", "\\u", "\\U",
])
PLAIN = st.text(alphabet="abc./-_ ", max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(ESCAPES, PLAIN), min_size=1, max_size=6))
def test_ansi_c_quoting_decodes_as_bash_does(parts: list[str]):
    body = "".join(parts)
    line = f"printf %s $'{body}'"
    done = subprocess.run(["bash", "-c", line], capture_output=True, check=True)
    word = tokenize(line).commands[0].words[2]
    try:
        text = done.stdout.decode("utf-8")
    except UnicodeDecodeError:  # bytes that are no text (`\\xaa` alone): compared with no path
        assert word.opaque
    else:
        assert not word.opaque
        assert word.text == text


@pytest.mark.parametrize(("spelled", "text", "opaque"), [
    ("\\xc3\\xa9", "\u00e9", False), ("\\303\\251", "\u00e9", False), ("\\u00e9", "\u00e9", False),
    ("\\xaa", "\ufffd", True), ("\\xc3\\u00a9", "\ufffd\u00a9", True),
])
def test_byte_escapes_are_bytes_read_as_utf_8(spelled: str, text: str, opaque: bool):
    word = tokenize(f"cp x $'{spelled}'").commands[0].words[2]
    assert (word.text, word.opaque) == (text, opaque)


def test_a_payload_surrogate_beside_a_byte_escape_leaves_the_word_opaque():
    word = tokenize("cp x $'\\xaa\ud800'").commands[0].words[2]
    assert word.opaque


def test_a_nul_in_ansi_c_quoting_leaves_the_word_opaque():
    word = tokenize("cp x $'.claude\\0/settings.json'").commands[0].words[2]
    assert word.opaque


# --- after the fact -------------------------------------------------------------------------------


@pytest.mark.parametrize("host", SHELL_HOSTS)
def test_a_write_that_slipped_through_blocks_the_next_call_once(project: Path, host: str):
    assert hook(host, project, "git status")[0] is False  # the first call records the digests
    (project / ".claude" / "hooks" / "guard.sh").write_text("exit 0 # changed by a script\n")
    blocked, told = hook(host, project, "git status")
    assert blocked
    assert "protected path .claude/hooks changed since the judge last looked, and no judged call wrote it" in told
    assert hook(host, project, "git status")[0] is False  # reported once: the record holds the new state
    log = (project / ".polydeukes" / "roi.log").read_text()
    assert "\tblocked\tbaseline\t.claude/hooks\n" in log


def test_a_missing_record_is_the_first_call_and_a_corrupt_one_blocks_once(project: Path):
    assert hook("claude-code", project, "git status")[0] is False
    record = project / baseline.BASELINE
    assert set(json.loads(record.read_text())["entries"]) == {".claude/settings.json", ".claude/hooks",
                                                                "polydeukes.config.yaml"}
    record.unlink()
    assert hook("claude-code", project, "git status")[0] is False
    record.write_text("{not json")
    blocked, told = hook("claude-code", project, "git status")
    assert blocked and "is unreadable, so a change to them cannot be ruled out" in told
    assert hook("claude-code", project, "git status")[0] is False
    record.write_text('{"entries": [], "cutAt": 3}')
    assert hook("claude-code", project, "git status")[0] is True


def test_the_stop_comparison_reports_a_change_since_the_last_call(project: Path):
    from agent_constitution.checks.stop import covenant_drift

    assert covenant_drift(project) == []  # no record yet: this is the first look
    (project / ".claude" / "settings.json").write_text(UNHOOKED)
    lines = covenant_drift(project)
    assert len(lines) == 1 and lines[0].startswith(
        "agent-constitution: protected path .claude/settings.json changed since the judge last looked"
    )
    assert covenant_drift(project) == []
    (project / "polydeukes.config.yaml").unlink()
    assert covenant_drift(project) == []  # no covenant config: nothing of the judge's to compare


def test_a_change_a_person_witnessed_is_not_reported(project: Path):
    assert hook("claude-code", project, "git status")[0] is False
    log = project / ".polydeukes" / "roi.log"
    (project / ".claude" / "settings.json").write_text(UNHOOKED)
    with log.open("a") as handle:  # the row a witnessed call through the valve leaves
        handle.write("2999-01-01T00:00:00.000Z\twitnessed\tself-mod\t.claude/settings.json\n")
    assert hook("claude-code", project, "git status")[0] is False


# --- invariants -----------------------------------------------------------------------------------

VOCABULARY = st.sampled_from([
    "tar", "-xf", "-C", "x", "unzip", "-d", "git", "checkout", "reset", "--hard", "restore", "--source=x", "-b",
    "stash", "pop", "xargs", "-I{}", "cp", "-r", "mv", "rsync", "-a", "find", ".", "-delete", "-exec", ";", "{}",
    "python3", "-c", "node", "-e", "sh", "bash", "eval", "sudo", "env", "A=1", "$X", "$(y)", "*", ".claude",
    ".claude/settings.json", "src", "/tmp", "..", "-", "--", "'open(p)'", "7z", "cpio", "-i", "ar", "parallel",
    ":::", "timeout", "5", "perl", "-i", "sed", ">", "&&", "|", "cd",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(VOCABULARY, min_size=1, max_size=9))
def test_unseen_writes_never_raise_and_name_a_protected_path(tmp_path: Path, words: list[str]):
    from agent_constitution.covenant.meta import Reach, judge_shell_mod, unseen_of

    protected = (".claude/settings.json", ".claude/hooks", "polydeukes.config.yaml", ".polydeukes")
    reach = Reach(str(tmp_path), protected)
    line = " ".join(words)
    for command in tokenize(line).commands:
        found = unseen_of(command, protected, reach, True)
        assert found is None or (found[0] in protected and isinstance(found[1], str) and found[1])
    call = {"name": "Bash", "args": {"command": line}}
    reason = judge_shell_mod([call], protected, ("Bash",), ("command",), reach)
    assert reason is None or isinstance(reason, str)
    allowed = Reach(str(tmp_path), protected, "allow")
    assert all(unseen_of(c, protected, allowed, True) is None for c in tokenize(line).commands)
