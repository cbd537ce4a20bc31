"""`doit compile` end to end in a temp repository: no-op runs, hand edits, clean, concurrency, incrementality."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.compile import hooks

from tests.compile.support import make_repo


# PATH finds this installation's programs (as after `uv tool install`): the hooks name them by name.
INSTALLED_PATH = f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"


def doit(repo: Path, *args: str, ci: bool = False, check: bool = True,
         path: str = INSTALLED_PATH) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(repo.parent / "user-cache")
    env["PATH"] = path
    if ci:
        env["CI"] = "1"
    result = subprocess.run([sys.executable, "-m", "doit", *args], cwd=repo, env=env, capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def ran(result: subprocess.CompletedProcess) -> list[str]:
    """The compile tasks doit executed (`.  agents:…`), but for the summary printing the `git add` line."""
    return [line[3:] for line in result.stdout.splitlines()
            if line.startswith(".  agents:") and line != ".  agents:git-add"]


def snapshot(repo: Path) -> dict[str, tuple[int, bytes]]:
    found = {}
    for path in repo.rglob("*"):
        if path.is_file() and "cache" not in path.relative_to(repo).parts and "__pycache__" not in path.parts:
            found[path.relative_to(repo).as_posix()] = (path.stat().st_mtime_ns, path.read_bytes())
    return found


PRE_COMMIT = """\
repos:
- repo: https://github.com/pre-commit/pre-commit-hooks
  rev: v4.6.0
  hooks: [{id: trailing-whitespace}]   # theirs
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    repo = make_repo(tmp_path_factory.mktemp("doit") / "repo", skills={"uv-project": [3], "poetry": [4], "signing": [7]})
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n')
    (repo / "AGENTS.md").write_text("# My project\n\nHand-written. Rules: rules.toml.\n")
    (repo / ".pre-commit-config.yaml").write_text(PRE_COMMIT)
    first = doit(repo, "compile")
    return repo, first


def test_first_compile_writes_every_output(built):
    repo, first = built
    assert {"agents:AGENTS.md", "agents:svc/AGENTS.md", "agents:CLAUDE.md", "agents:svc/CLAUDE.md", "agents:skills"} <= set(ran(first))
    text = (repo / "AGENTS.md").read_text()
    assert text.startswith("# My project\n\nHand-written. Rules: rules.toml.\n\n<!-- agent-constitution:begin -->")
    assert (repo / "CLAUDE.md").read_text().endswith("@AGENTS.md\n")
    # Skills of selected rules (3 at the root, 4 in svc; 7 too in svc); skill.toml stays in the source.
    for base in (".claude/skills", ".agents/skills"):
        assert sorted(p.name for p in (repo / base).iterdir()) == ["poetry", "signing", "uv-project"]
        assert not (repo / base / "uv-project" / "skill.toml").exists()
        assert os.access(repo / base / "uv-project" / "scripts" / "run.sh", os.X_OK)
    # Merged, not clobbered: the user's key and hook stay.
    settings = (repo / ".claude" / "settings.json").read_text()
    assert '"model": "opus"' in settings and "say done" in settings and "; agent-constitution-stop; " in settings
    pre_commit = (repo / ".pre-commit-config.yaml").read_text()
    # Every hook type compile adds is installed by `pre-commit install`; the user's lines follow as they were.
    assert pre_commit.startswith("default_install_hook_types: [pre-commit, commit-msg]  # agent-constitution")
    stages, _, rest = pre_commit.partition("\n")[2].partition("\n")
    assert stages.startswith("default_stages: [post-checkout,") and " commit-msg," not in stages
    # The repository's own hooks leave what compile writes alone (a fixer would make it "edited by hand").
    exclude, _, rest = rest.partition("\n")
    assert exclude == f"exclude: '{hooks.generated_pattern(('agents-md', 'claude-code'), ('.', 'svc'))}'{hooks.EXCLUDE_MARK}"
    assert rest.startswith(PRE_COMMIT)
    assert "run `pre-commit install` once more" in first.stderr
    assert "chain AGENTS.md → svc/AGENTS.md:" in first.stdout
    # A file whose bytes are within max-tokens fits without counting (the token table is not loaded).
    assert re.search(r"^svc/AGENTS\.md: \d+ bytes, within max-tokens 8000$", first.stdout, re.M)


def test_emitted_pre_commit_config_is_valid(built):
    repo, _ = built
    result = subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "validate-config", str(repo / ".pre-commit-config.yaml")],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_second_compile_runs_nothing_and_writes_nothing(built):
    repo, _ = built
    before = snapshot(repo)
    again = doit(repo, "compile")
    assert ran(again) == []
    assert snapshot(repo) == before


def test_edit_outside_the_region_is_kept_and_not_stale(built):
    repo, _ = built
    path = repo / "AGENTS.md"
    path.write_text(path.read_text().replace("Hand-written.", "Hand-written, edited."))
    result = doit(repo, "compile")
    assert "agents:AGENTS.md" not in ran(result)
    assert "Hand-written, edited." in path.read_text()


def test_hand_edit_is_an_error_under_ci_and_rewritten_otherwise(built):
    repo, _ = built
    path = repo / "svc" / "AGENTS.md"
    original = path.read_text()
    path.write_text(original.replace("Text of rule 4.", "Text of rule 4, edited."))
    failed = doit(repo, "compile", ci=True, check=False)
    assert failed.returncode != 0
    assert "svc/AGENTS.md" in failed.stdout + failed.stderr and "edited by hand" in failed.stdout + failed.stderr
    fixed = doit(repo, "compile")
    assert ran(fixed) == ["agents:svc/AGENTS.md"]
    assert path.read_text() == original


def test_hand_edited_skill_is_restored(built):
    repo, _ = built
    path = repo / ".agents" / "skills" / "poetry" / "SKILL.md"
    original = path.read_text()
    path.write_text(original + "extra\n")
    result = doit(repo, "compile")
    assert ran(result) == ["agents:skills"]
    assert path.read_text() == original


def test_one_rule_edit_rebuilds_only_segments_showing_it(built):
    repo, _ = built
    rule = repo / "src" / "rules" / "7.toml"  # selected in svc only
    rule.write_text(rule.read_text().replace("Text of rule 7.", "Text of rule 7, revised."))
    result = doit(repo, "compile")
    assert [task for task in ran(result) if task.endswith("AGENTS.md")] == ["svc/AGENTS.md".join(["agents:", ""])]
    assert "rule 7, revised" in (repo / "svc" / "AGENTS.md").read_text()


def test_concurrent_runs_leave_consistent_state(built):
    repo, _ = built
    rule = repo / "src" / "rules" / "1.toml"
    rule.write_text(rule.read_text().replace("Text of rule 1.", "Text of rule 1, concurrently."))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(repo.parent / "user-cache")
    runs = [
        subprocess.Popen([sys.executable, "-m", "doit", "compile"], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for run in runs:
        out, err = run.communicate()
        assert run.returncode == 0, out.decode() + err.decode()
    assert ran(doit(repo, "compile")) == []
    assert "rule 1, concurrently" in (repo / "AGENTS.md").read_text()
    assert not list(repo.rglob(".*.tmp"))


def test_clean_removes_exactly_what_compile_wrote(built):
    repo, _ = built
    doit(repo, "clean", "agents")
    assert (repo / "AGENTS.md").read_text() == "# My project\n\nHand-written, edited. Rules: rules.toml.\n"
    assert not (repo / "svc" / "AGENTS.md").exists()
    assert not (repo / "CLAUDE.md").exists() and not (repo / "svc" / "CLAUDE.md").exists()
    assert (repo / ".pre-commit-config.yaml").read_text() == PRE_COMMIT  # theirs: given back as it was
    assert not (repo / ".claude" / "skills").exists() and not (repo / ".agents").exists()
    settings = (repo / ".claude" / "settings.json").read_text()
    assert "say done" in settings and "agent_constitution.checks.stop" not in settings


def test_a_dropped_segment_is_pruned_on_a_fresh_clone(tmp_path):
    """No cache/ (a fresh clone): the outputs of a segment gone from the manifest are found by their banners."""
    repo = make_repo(tmp_path / "repo")
    doit(repo, "-n", "4", "compile")  # independent tasks in parallel: the same outputs as a serial build
    assert (repo / "svc" / "AGENTS.md").exists() and (repo / "svc" / "CLAUDE.md").exists()
    assert ran(doit(repo, "compile")) == []
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text().split("[[segment]]")[0])
    shutil.rmtree(repo / "cache")
    result = doit(repo, "compile")
    assert "removed svc/AGENTS.md" in result.stdout and "removed svc/CLAUDE.md" in result.stdout
    assert list((repo / "svc").iterdir()) == []
    assert "svc/AGENTS.md" not in (repo / "AGENTS.md").read_text()  # the root's index no longer names it
    assert ran(doit(repo, "compile")) == []


def test_creating_the_tasks_imports_no_compile_step(tmp_path):
    """Every doit command creates the compile tasks: that must not import ruamel.yaml, pydantic or tiktoken."""
    repo = make_repo(tmp_path / "repo")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from agent_constitution.project import Project\n"
        "from agent_constitution.tasks import agents\n"
        f"names = [task.get('name') for task in agents.tasks(Project(Path({str(repo)!r})))]\n"
        "assert 'segments' in names, names\n"  # svc/AGENTS.md is a job of the nested segments' task
        "heavy = [m for m in ('agent_constitution.compile.document', 'ruamel.yaml', 'pydantic', 'tiktoken') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_without_a_hook_runner_compile_says_how_once_or_writes_a_plain_hook(tmp_path):
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    first = doit(repo, "compile")
    assert "uses no git hook runner compile knows" in first.stderr
    assert not (repo / ".pre-commit-config.yaml").exists() and not (repo / ".git/hooks/pre-commit").exists()
    assert "uses no git hook runner compile knows" not in doit(repo, "compile").stderr  # said once
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text() + '\n[compile]\ngit-hook = "plain"\n')
    doit(repo, "compile")
    hook = repo / ".git" / "hooks" / "pre-commit"
    assert "\nout=$(agent-constitution check change=staged 2>&1) || {" in hook.read_text() and os.access(hook, os.X_OK)
    doit(repo, "clean", "agents")
    assert not hook.exists()


def test_a_change_of_form_rewrites_the_hook_files_and_then_nothing(tmp_path):
    """The tool moves off PATH (a plain virtual environment): compile rewrites the commands by path,
    the next compile does nothing, and back on PATH the name form returns."""
    repo = make_repo(tmp_path / "repo")
    settings = repo / ".claude" / "settings.json"
    doit(repo, "compile")
    named = settings.read_text()
    assert "; agent-constitution-stop; " in named and sys.executable not in named
    moved = doit(repo, "compile", path="/usr/bin:/bin")
    assert "agents:.claude/settings.json" in ran(moved)
    assert f"p='{sys.executable}'" in settings.read_text()
    before = snapshot(repo)
    assert ran(doit(repo, "compile", path="/usr/bin:/bin")) == [] and snapshot(repo) == before
    pathed = settings.read_text()
    locked = doit(repo, "compile", ci=True, check=False)  # CI, where PATH finds the tool: differs, fails
    assert locked.returncode != 0 and settings.read_text() == pathed
    doit(repo, "compile")
    assert settings.read_text() == named


REWRITING = """\
repos:
- repo: local
  hooks:
  - id: shout
    name: a fixer that rewrites markdown (as codespell --write-changes or a formatter does)
    entry: sed -i -e "s/ the / THE /g"
    language: system
    types: [markdown]
"""


def test_the_repositorys_fixers_leave_what_compile_wrote_alone(tmp_path):
    """A fixer hook of the repository's own, run by the real pre-commit at the adoption commit, does
    not rewrite AGENTS.md and the rest (compile's top-level `exclude`); without that line it does,
    and the commit fails."""
    repo = make_repo(tmp_path / "repo")
    (repo / ".pre-commit-config.yaml").write_text(REWRITING)
    (repo / "NOTES.md").write_text("Notes without that word.\n")
    (repo / ".gitignore").write_text("cache/\n")
    environ = {**{k: v for k, v in os.environ.items() if k != "CI"}, "PATH": INSTALLED_PATH,
               "PRE_COMMIT_HOME": str(tmp_path / "pc"), "AGENT_CONSTITUTION_CACHE": str(tmp_path / "user-cache"),
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=repo, env=environ,
                              capture_output=True, text=True, timeout=600)

    git("init", "-q")
    doit(repo, "compile")
    assert " the " in (repo / "AGENTS.md").read_text()
    installed = subprocess.run([str(Path(sys.executable).parent / "pre-commit"), "install"], cwd=repo, env=environ,
                               capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git("add", "-A")
    done = git("commit", "-qm", "Adopt the rules")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " THE " not in (repo / "AGENTS.md").read_text()
    # The same repository without the line: the fixer rewrites the rules and the commit is refused.
    config = repo / ".pre-commit-config.yaml"
    config.write_text("".join(line for line in config.read_text().splitlines(keepends=True)
                              if not line.startswith("exclude: ")))
    (repo / "AGENTS.md").write_text((repo / "AGENTS.md").read_text() + "\n")
    git("add", "-A")
    refused = git("commit", "-qm", "Drop the exclude")
    assert refused.returncode != 0 and " THE " in (repo / "AGENTS.md").read_text()


def test_a_path_source_compile_outside_git_loads_neither_pygit2_nor_the_token_table(tmp_path):
    """Fixed costs a full compile of plain folders does not pay (bench_peers.py): pygit2 (git sources
    and the `git add` line only), tiktoken's table (the bounds decide), markdown-it (no fence)."""
    repo = make_repo(tmp_path / "repo")
    code = (
        "import runpy, sys\n"
        "sys.argv = ['doit', 'compile']\n"
        "try:\n"
        "    runpy.run_module('doit', run_name='__main__')\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        "print('LOADED', sorted(m for m in ('pygit2', 'tiktoken', 'markdown_it') if m in sys.modules))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    result = subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (repo / "AGENTS.md").is_file()
    assert "LOADED []" in result.stdout, result.stdout


def test_the_stop_hooks_policy_comes_from_the_resolution_and_a_change_rewrites_it(tmp_path):
    """`[compile] stop-missing-tool` reaches the Stop hook compile writes through the resolution's
    validated `[compile]` table (`Settings`), not a second reading of rules.toml; changing it
    rewrites the hook, and a compile after that writes nothing."""
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    doit(repo, "compile")

    def stop_command() -> str:
        settings = json.loads((repo / ".claude" / "settings.json").read_text())
        return settings["hooks"]["Stop"][0]["hooks"][0]["command"]

    assert "AGENT_CONSTITUTION_STOP_MISSING:-warn" in stop_command()
    manifest = repo / "rules.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace("[compile]\n", '[compile]\nstop-missing-tool = "block"\n')
                        if "[compile]\n" in text else text + '\n[compile]\nstop-missing-tool = "block"\n')
    doit(repo, "compile")
    assert "AGENT_CONSTITUTION_STOP_MISSING:-block" in stop_command()
    assert "agents:.claude/settings.json" not in ran(doit(repo, "compile"))
