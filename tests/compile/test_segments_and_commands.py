"""Segments that add nothing cost nothing (no file; an exclusion-only one a line of the root index)
and no check reports them; compile ends with the `git add` line for what it wrote; outside a
repository wired for doit every banner, header and fix names `agent-constitution`."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution import wiring
from agent_constitution.checks.scan import scan
from tests.compile.support import MANIFEST, make_repo
from tests.compile.test_doit import INSTALLED_PATH, doit
from tests.rulechecks.subjects import check_module

# support.MANIFEST without its [compile] table and its segments: the root alone.
ROOT_ONLY = MANIFEST.split("{compile}")[0]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout


def cli(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`agent-constitution …` as a `uv tool install` user runs it (no doit wiring needed)."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(repo.parent / "user-cache")
    env["PATH"] = INSTALLED_PATH
    result = subprocess.run([sys.executable, "-m", "agent_constitution.cli", *args], cwd=repo, env=env,
                            capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def rule_5(repo: Path):
    return check_module(5).check(scan(repo).view())


@pytest.mark.parametrize("segment", [
    '[[segment]]\npath = "svc"\n',  # no delta at all
    '[[segment]]\npath = "svc"\nrules = ["ac:1"]\n',  # selects what the root already does
])
def test_a_segment_without_a_delta_writes_nothing_and_no_check_reports_it(tmp_path: Path, segment: str):
    repo = make_repo(tmp_path / "repo")
    (repo / "rules.toml").write_text(ROOT_ONLY + "\n" + segment)
    doit(repo, "compile")
    assert not (repo / "svc" / "AGENTS.md").exists() and not (repo / "svc" / "CLAUDE.md").exists()
    assert "svc" not in (repo / "AGENTS.md").read_text()
    assert rule_5(repo) == []


def test_an_exclusion_only_segment_costs_one_line_of_the_root_index(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    (repo / "rules.toml").write_text(ROOT_ONLY + '\n[[segment]]\npath = "svc"\nexclude = ["ac:6", "ac:8"]\n')
    doit(repo, "compile")
    assert not (repo / "svc" / "AGENTS.md").exists()
    text = (repo / "AGENTS.md").read_text()
    without = make_repo(tmp_path / "plain")
    (without / "rules.toml").write_text(ROOT_ONLY)
    doit(without, "compile")
    added = set(text.splitlines()) - set((without / "AGENTS.md").read_text().splitlines())
    # The index heading and the one line; the banner's digest line differs too.
    line = "- `svc/`: ac:6, ac:8 do not apply there."
    assert line in added and len([a for a in added if not a.startswith("<!--")]) == 2
    assert rule_5(repo) == []
    # A segment that adds a rule gets its file, and rule 5 wants it.
    (repo / "rules.toml").write_text(ROOT_ONLY + '\n[[segment]]\npath = "svc"\nrules = ["ac:7"]\nexclude = ["ac:6"]\n')
    doit(repo, "compile")
    assert (repo / "svc" / "AGENTS.md").is_file() and line not in (repo / "AGENTS.md").read_text()
    (repo / "svc" / "AGENTS.md").unlink()
    assert [finding.path for finding in rule_5(repo)] == ["svc/AGENTS.md"]


def test_compile_ends_with_the_git_add_line_for_what_it_wrote(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", skills={"uv-project": [3], "signing": [7]})
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("cache/\n")
    (repo / "svc" / "main.py").write_text("print('hi')\n")
    git(repo, "add", ".gitignore", "rules.toml", "src", "dodo.py", "svc/main.py")
    git(repo, "commit", "-qm", "start")
    first = doit(repo, "compile")
    lines = first.stdout.strip().splitlines()
    assert lines[-2] == "to commit what compile wrote:" and lines[-1].startswith("git add ")
    named = shlex.split(lines[-1])[2:]
    # A folder new to git that holds only what compile wrote is named once (`.agents/`); in a folder
    # git knows, each file.
    assert named == [".agents/", ".claude/", "AGENTS.md", "CLAUDE.md", "rules.lock", "svc/AGENTS.md", "svc/CLAUDE.md"]
    assert not any(path.startswith("cache") for path in named)
    # Following it leaves nothing compile wrote untracked.
    git(repo, "add", *named)
    untracked = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert [line for line in untracked if not line.startswith(("A ", "M "))] == []
    # A run that writes nothing prints no line.
    assert "git add" not in doit(repo, "compile").stdout


def test_outside_a_repository_wired_for_doit_banners_and_headers_name_agent_constitution(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    (repo / "dodo.py").unlink()
    assert wiring.command(repo) == "agent-constitution"
    cli(repo, "compile")
    assert "run `agent-constitution compile`. digest" in (repo / "AGENTS.md").read_text()
    assert (repo / "rules.lock").read_text().startswith("# Generated by `agent-constitution lock`")
    # A fix line says it the same way.
    path = repo / "svc" / "AGENTS.md"
    path.write_text(path.read_text().replace("Text of rule 4.", "Text of rule 4, edited."))
    env_ci = cli(repo, "compile", "--locked", check=False)
    assert env_ci.returncode != 0 and "run `agent-constitution compile`" in env_ci.stderr + env_ci.stdout
    assert "doit compile" not in env_ci.stderr + env_ci.stdout


def test_a_repository_wired_for_doit_keeps_doit(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    assert wiring.command(repo) == "doit"
    doit(repo, "compile")
    assert "run `doit compile`. digest" in (repo / "AGENTS.md").read_text()
    (repo / "dodo.py").unlink()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.doit]\nloader = "agent-constitution"\n')
    assert wiring.wired_for_doit(repo)
    (repo / "pyproject.toml").write_text('[tool.doit]\nloader = "mine"\n')
    assert not wiring.wired_for_doit(repo)
    (repo / "dodo.py").write_text("def task_x():\n    return {'actions': []}\n")  # doit, not our tasks
    assert not wiring.wired_for_doit(repo)


def test_spoken_rewrites_only_the_commands():
    text = ("run `doit compile`; `doit compile:user`; doit check change=staged; `doit clean` removes it;"
            " doit's database; the doit task; uv run doit lock")
    assert wiring.spoken(text, program="agent-constitution") == (
        "run `agent-constitution compile`; `agent-constitution compile:user`; agent-constitution check change=staged;"
        " `agent-constitution doit clean` removes it; doit's database; the doit task; uv run agent-constitution lock")
    assert wiring.spoken(text, program="doit") == text
