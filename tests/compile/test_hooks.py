"""Hook configuration: merged into what a repository has, validated by the tools' own rules."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

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
    assert commands == ["say done", hooks.stop_command(tmp_path)]
    hooks.validate_settings(path)
    assert not hooks.write_claude_settings(tmp_path)  # idempotent: nothing to write the second time
    assert hooks.remove_claude_settings(tmp_path)
    assert json.loads(path.read_text()) == THEIRS


def test_covenant_hook_when_the_repo_has_a_covenant(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "agent-constitution"\n')
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    hooks.write_claude_settings(tmp_path)
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    pre = data["hooks"]["PreToolUse"]
    # A uv project holding the package: the same command on every machine, so it can be committed.
    assert pre[0]["hooks"][0]["command"] == hooks.covenant_command(tmp_path)
    assert "uv run --quiet pdks hook claude-code" in pre[0]["hooks"][0]["command"]
    assert "uv run --quiet python -m agent_constitution.checks.stop" in data["hooks"]["Stop"][0]["hooks"][0]["command"]
    # A git hook's PATH need not hold the project's environment: a uv project runs its tools through uv.
    hooks.write_pre_commit(tmp_path)
    entries = [hook["entry"] for hook in YAML(typ="safe").load((tmp_path / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]]
    # `agent-constitution check`, not `doit check`: a uv project that added the package has no
    # dodo.py unless `init --doit` wrote one, and `doit check` there fails every commit.
    assert entries == ["uv run agent-constitution check change=staged",
                       """sh -c 'uv run agent-constitution check change=staged message="$1"' --""",
                       "uv run pdks covenant check --diff --staged"]
    (tmp_path / "polydeukes.config.yaml").unlink()
    hooks.write_claude_settings(tmp_path)
    assert "PreToolUse" not in json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    hooks.remove_claude_settings(tmp_path)
    assert not (tmp_path / ".claude" / "settings.json").exists()  # only ours were in it


def test_a_hand_chosen_covenant_command_is_left_alone(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    chosen = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "/opt/tools/pdks hook claude-code"}]}]}}
    path.write_text(json.dumps(chosen, indent=2) + "\n")
    hooks.write_claude_settings(tmp_path)
    assert json.loads(path.read_text())["hooks"]["PreToolUse"] == chosen["hooks"]["PreToolUse"]


def test_older_commands_are_replaced(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    old = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": 'cd "$CLAUDE_PROJECT_DIR" && uv run doit check'}]}],
                     "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "pdks hook claude-code"}]}]}}
    path.write_text(json.dumps(old, indent=2) + "\n")
    hooks.write_claude_settings(tmp_path)
    data = json.loads(path.read_text())
    assert [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]] == [hooks.stop_command(tmp_path)]
    assert [h["command"] for g in data["hooks"]["PreToolUse"] for h in g["hooks"]] == [hooks.covenant_command(tmp_path)]


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
    path_before = (
        "# our hooks\n"
        "repos:\n"
        "  - repo: https://github.com/pre-commit/pre-commit-hooks\n"
        "    rev: v4.6.0\n"
        "    hooks:\n"
        "      - id: trailing-whitespace  # keep\n"
    )
    path.write_text(path_before)
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    assert hooks.write_pre_commit(tmp_path)
    text = path.read_text()
    assert "# our hooks" in text and "# keep" in text
    # pre-commit installs the commit-msg hook too: the key is written before `repos:`, all else kept.
    assert text.startswith(path_before.replace(
        "repos:\n", f"default_install_hook_types: [pre-commit, commit-msg]{hooks.INSTALL_MARK}\n"
        f"default_stages: [{', '.join(s for s in hooks.PRE_COMMIT_STAGES if s != 'commit-msg')}]{hooks.STAGES_MARK}\n"
        "repos:\n", 1))
    assert hooks.git_command(tmp_path, "doit", "check") in text
    result = pre_commit_validate(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not hooks.write_pre_commit(tmp_path)
    assert hooks.remove_pre_commit(tmp_path)
    assert path.read_text() == path_before


def test_pre_commit_validates_only_what_compile_changed(tmp_path, monkeypatch):
    """A file compile leaves as it was is not handed to pre-commit again (`check` merges to compare
    on every run); one it changes is, and pre-commit's refusal is the compile's error."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    fake = bin_ / "pre-commit"
    fake.write_text(f"#!{sys.executable}\nimport os, sys\n"
                    f"open({str(bin_ / 'calls')!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
                    "sys.exit(int(os.environ.get('FAKE_STATUS', '0')))\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}{os.environ['PATH']}")
    repo = tmp_path / "repo"
    repo.mkdir()
    path = repo / ".pre-commit-config.yaml"
    path.write_text("repos: []\n")
    assert hooks.write_pre_commit(repo)
    assert not hooks.write_pre_commit(repo)
    assert (bin_ / "calls").read_text() == f"validate-config -- {path}\n"
    path.write_text("repos: []\n")
    monkeypatch.setenv("FAKE_STATUS", "1")
    with pytest.raises(UserError, match="pre-commit rejects the file"):
        hooks.write_pre_commit(repo)


GENERATED = [
    ("AGENTS.md", True), ("AGENTS.tests.md", True), ("svc/AGENTS.md", True), ("svc/CLAUDE.md", True),
    ("CLAUDE.md", True), (".claude/skills/uv/SKILL.md", True), (".agents/skills/uv/SKILL.md", True),
    ("docs/AGENTS.md", False), ("README.md", False), ("CLAUDE.local.md", False), ("svcx/AGENTS.md", False),
    ("GEMINI.md", False), ("src/AGENTS.md.bak", False),
]


@pytest.mark.parametrize(("name", "excluded"), GENERATED)
def test_the_exclude_names_what_compile_writes_and_nothing_else(name, excluded):
    """pre-commit matches `exclude` with `re.search` on the path from the repository's root."""
    pattern = hooks.generated_pattern(("agents-md", "claude-code"), (".", "svc"))
    assert bool(re.search(pattern, name)) is excluded


def test_the_exclude_is_written_once_kept_as_theirs_and_removed_exactly(tmp_path):
    path = tmp_path / ".pre-commit-config.yaml"
    before = "repos:\n  - repo: https://github.com/codespell-project/codespell\n    rev: v2.4.2\n    hooks:\n      - id: codespell\n"
    path.write_text(before)
    pattern = hooks.generated_pattern(("agents-md", "claude-code"), (".", "it's"))
    assert hooks.write_pre_commit(tmp_path, pattern)
    text = path.read_text()
    assert YAML(typ="safe").load(text)["exclude"] == pattern  # the quote in the segment survives YAML
    assert text.count("\nexclude: ") == 1 and hooks.exclude_note(tmp_path, pattern) is None
    assert pre_commit_validate(path).returncode == 0
    assert not hooks.write_pre_commit(tmp_path, pattern)
    other = hooks.generated_pattern(("agents-md",), (".",))
    assert hooks.write_pre_commit(tmp_path, other) and path.read_text().count("\nexclude: ") == 1
    assert hooks.remove_pre_commit(tmp_path)
    assert path.read_text() == before
    # A top-level `exclude` of the repository's own is theirs: kept, and compile says what to add.
    theirs = "exclude: ^vendor/\n" + before
    path.write_text(theirs)
    assert hooks.write_pre_commit(tmp_path, pattern)
    assert "exclude: ^vendor/\n" in path.read_text() and path.read_text().count("exclude: ") == 1
    assert pattern in hooks.exclude_note(tmp_path, pattern)
    assert hooks.remove_pre_commit(tmp_path)
    assert path.read_text() == theirs


def installed_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH finds this installation's programs by name, as after `uv tool install`: the name form."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")


def test_no_pre_commit_file_is_created(tmp_path, monkeypatch):
    """A repository that does not use pre-commit gets no config for it: compile says how to wire one."""
    installed_on_path(monkeypatch)
    assert not hooks.write_pre_commit(tmp_path)
    assert not (tmp_path / ".pre-commit-config.yaml").exists()
    hint = hooks.wiring_hint(tmp_path)
    assert "`agent-constitution check change=staged`" in hint and 'git-hook = "plain"' in hint


def test_a_plain_git_hook_on_request(tmp_path, monkeypatch):
    installed_on_path(monkeypatch)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert hooks.write_plain_hook(tmp_path)
    path = tmp_path / ".git" / "hooks" / "pre-commit"
    assert path.stat().st_mode & 0o111 and "\nout=$(agent-constitution check change=staged 2>&1) || {" in path.read_text()
    assert not hooks.write_plain_hook(tmp_path)
    message = tmp_path / ".git" / "hooks" / "commit-msg"
    assert hooks.write_plain_hook(tmp_path, ".git/hooks/commit-msg")
    assert '\nout=$(agent-constitution check change=staged message="$1" 2>&1) || {' in message.read_text()
    assert hooks.remove_plain_hook(tmp_path, ".git/hooks/commit-msg") and not message.exists()
    assert hooks.remove_plain_hook(tmp_path) and not path.exists()
    path.write_text("#!/bin/sh\nmake lint\n")
    with pytest.raises(UserError) as caught:
        hooks.write_plain_hook(tmp_path)  # somebody else's hook is never overwritten
    assert caught.value.file == path and path.read_text() == "#!/bin/sh\nmake lint\n"


def test_the_plain_hooks_are_quiet_when_the_commit_passes_and_say_everything_when_it_fails(tmp_path, monkeypatch):
    """As pre-commit shows a hook's output only when it fails: a real git commit through the plain
    hooks, with a stand-in `agent-constitution` that prints what the check prints on every run."""
    installed_on_path(monkeypatch)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert hooks.write_plain_hook(repo) and hooks.write_plain_hook(repo, ".git/hooks/commit-msg")
    fake = tmp_path / "bin" / "agent-constitution"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "2 findings were there before"\necho "1 check not run"\n'
                    'echo "review queue: 0"\necho "checked: $*" >&2\nexit "${FAKE_STATUS:-0}"\n')
    fake.chmod(0o755)

    def commit(message: str, status: str) -> subprocess.CompletedProcess:
        (repo / "a.txt").write_text(message)
        subprocess.run(["git", "-C", str(repo), "add", "a.txt"], check=True)
        env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}", "FAKE_STATUS": status,
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
        return subprocess.run(["git", "-C", str(repo), "commit", "-qm", message], env=env,
                              capture_output=True, text=True)

    passed = commit("first", "0")
    assert (passed.returncode, passed.stdout, passed.stderr) == (0, "", "")
    failed = commit("second", "1")
    assert failed.returncode != 0
    shown = failed.stdout + failed.stderr
    assert "2 findings were there before\n1 check not run\nreview queue: 0\nchecked: check change=staged\n" in shown
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%s"], capture_output=True, text=True, check=True)
    assert log.stdout == "first\n"


def test_lefthook_merge(tmp_path):
    path = tmp_path / "lefthook.yml"
    path.write_text("pre-commit:\n  commands:\n    lint:\n      run: ruff check\n")
    assert lefthook_file(tmp_path) == path
    hooks.write_lefthook(path, tmp_path)
    data = YAML(typ="safe").load(path.read_text())
    assert data["pre-commit"]["commands"]["lint"] == {"run": "ruff check"}
    assert data["pre-commit"]["commands"]["agent-constitution-check"] == {
        "run": hooks.git_command(tmp_path, "doit", "check change=staged")}
    assert data["commit-msg"]["commands"] == {
        "agent-constitution-message": {"run": hooks.git_command(tmp_path, "doit", "check change=staged message={1}")}}
    # lefthook's own validator (the lefthook wheel ships the binary) accepts what we wrote.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # lefthook validates only inside a repository
    tool = Path(sys.executable).parent / "lefthook"
    result = subprocess.run([str(tool), "validate"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0 and "All good" in result.stdout, result.stdout + result.stderr
    hooks.remove_lefthook(path)
    assert path.read_text() == "pre-commit:\n  commands:\n    lint:\n      run: ruff check\n"


def test_a_removed_hook_entry_is_an_error_under_locked(tmp_path):
    from tests.compile.steps import hook_file

    hook_file(tmp_path, hooks.SETTINGS, locked=False)
    path = tmp_path / hooks.SETTINGS
    path.write_text('{"hooks": {}}\n')
    with pytest.raises(UserError) as caught:
        hook_file(tmp_path, hooks.SETTINGS, locked=True)
    assert caught.value.file == path
    assert path.read_text() == '{"hooks": {}}\n'
    assert hook_file(tmp_path, hooks.SETTINGS, locked=False).written == (hooks.SETTINGS,)


def test_the_repositorys_hooks_run_once_per_commit_after_compile_adds_commit_msg(tmp_path):
    """pre-commit runs a hook without `stages` at every installed hook type: once compile installs
    commit-msg for its message check, the repository's own hooks would run twice at each commit
    unless `default_stages` keeps them where they were."""
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "T")
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(
        "repos:\n"
        "  - repo: local\n"
        "    hooks:\n"
        "      - id: count\n"
        "        name: count\n"
        "        entry: sh -c 'echo run >> runs.log'\n"
        "        language: system\n"
        "        pass_filenames: false\n"
        "        always_run: true\n"
    )
    text = hooks.with_install_types(config.read_text(), ["pre-commit", "commit-msg"], config)
    config.write_text(text)
    (tmp_path / ".gitignore").write_text("runs.log\n")
    env = {**__import__("os").environ, "PRE_COMMIT_HOME": str(tmp_path / ".pc")}
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=tmp_path, check=True, capture_output=True,
                   env=env)
    assert (tmp_path / ".git" / "hooks" / "commit-msg").exists()
    git("add", ".pre-commit-config.yaml", ".gitignore")
    subprocess.run(["git", "commit", "-qm", "first"], cwd=tmp_path, check=True, capture_output=True, env=env)
    assert (tmp_path / "runs.log").read_text() == "run\n"


def test_an_added_local_repo_takes_the_files_list_style_at_every_level(tmp_path):
    path = tmp_path / ".pre-commit-config.yaml"
    before = (
        "repos:\n"
        "  - repo: https://github.com/pre-commit/pre-commit-hooks\n"
        "    rev: v4.6.0\n"
        "    hooks:\n"
        "      - id: trailing-whitespace\n"
    )
    path.write_text(before)
    assert hooks.write_pre_commit(tmp_path)
    added = path.read_text().split("  - repo: local\n", 1)[1]
    assert added.startswith("    hooks:\n      - id: agent-constitution-check\n        name:")
    assert pre_commit_validate(path).returncode == 0
