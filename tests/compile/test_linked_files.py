"""A symbolic-linked AGENTS.md / CLAUDE.md / GEMINI.md pair is one file: compile writes the region into
the link's target inside the repository, leaves the link a link, gives no advice about importing it,
and refuses a link that leaves the repository or leads nowhere. ac:4's check reads the pair as one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_constitution.checks.api import Repository
from tests.compile.support import make_repo
from tests.compile.test_doit import doit
from tests.rulechecks.subjects import check_module


def compiled(repo: Path, **options):
    return doit(repo, "compile", **options)


def link(path: Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def has_region(path: Path) -> bool:
    return "<!-- agent-constitution:begin -->" in path.read_text()


def test_agents_md_linked_to_claude_md(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    (repo / "CLAUDE.md").write_text("# My project\n\nHand-written.\n")
    link(repo / "AGENTS.md", "CLAUDE.md")
    result = compiled(repo)
    assert (repo / "AGENTS.md").is_symlink() and os.readlink(repo / "AGENTS.md") == "CLAUDE.md"
    text = (repo / "CLAUDE.md").read_text()
    assert text.startswith("# My project\n\nHand-written.\n") and has_region(repo / "CLAUDE.md")
    assert "updated CLAUDE.md" in result.stdout
    # No advice to import AGENTS.md into the file AGENTS.md is: it holds the rules itself.
    assert "@AGENTS.md" not in result.stdout + result.stderr
    again = compiled(repo)
    assert "updated" not in again.stdout  # fresh: nothing rewritten, the link left alone
    assert (repo / "AGENTS.md").is_symlink()


@pytest.mark.parametrize("name", ["CLAUDE.md", "GEMINI.md"])
def test_a_host_file_linked_to_agents_md(tmp_path: Path, name: str):
    repo = make_repo(tmp_path / "repo", compile='[compile]\nagents = ["agents-md", "claude-code", "gemini"]\n')
    (repo / "AGENTS.md").write_text("# Mine\n")
    link(repo / name, "AGENTS.md")
    result = compiled(repo)
    assert (repo / name).is_symlink() and os.readlink(repo / name) == "AGENTS.md"
    assert has_region(repo / "AGENTS.md") and not (repo / "AGENTS.md").is_symlink()
    # The advice would have written `@AGENTS.md` into AGENTS.md itself.
    assert "does not import @AGENTS.md" not in result.stdout + result.stderr


def test_a_link_in_a_segment_folder(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    (repo / "svc" / "CLAUDE.md").write_text("# The service\n")
    link(repo / "svc" / "AGENTS.md", "CLAUDE.md")
    compiled(repo)
    assert (repo / "svc" / "AGENTS.md").is_symlink() and has_region(repo / "svc" / "CLAUDE.md")
    assert (repo / "svc" / "CLAUDE.md").read_text().startswith("# The service\n")


def test_a_link_that_leaves_the_repository_is_an_error_with_a_fix(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# not yours\n")
    link(repo / "AGENTS.md", str(outside))
    result = compiled(repo, check=False)
    assert result.returncode != 0
    said = result.stdout + result.stderr
    assert "AGENTS.md is a symbolic link to" in said and "outside the repository" in said and "fix:" in said
    assert outside.read_text() == "# not yours\n" and (repo / "AGENTS.md").is_symlink()


def test_a_dangling_link_is_an_error_with_a_fix(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    link(repo / "AGENTS.md", "docs/AGENTS.md")
    result = compiled(repo, check=False)
    assert result.returncode != 0
    said = result.stdout + result.stderr
    assert "AGENTS.md is a symbolic link to docs/AGENTS.md, which does not exist" in said and "fix:" in said
    assert (repo / "AGENTS.md").is_symlink() and not (repo / "docs").exists()


def test_rule_4_reads_a_linked_pair_as_one_file(tmp_path: Path):
    check = check_module(4)
    root = tmp_path / "r"
    root.mkdir()
    (root / "CLAUDE.md").write_text("# rules, no import line\n")
    link(root / "AGENTS.md", "CLAUDE.md")
    (root / "pkg").mkdir()
    (root / "pkg" / "AGENTS.md").write_text("# pkg\n")
    link(root / "pkg" / "CLAUDE.md", "AGENTS.md")
    (root / "other").mkdir()
    (root / "other" / "AGENTS.md").write_text("# other\n")
    (root / "other" / "CLAUDE.md").write_text("# a copy\n")
    files = ["AGENTS.md", "CLAUDE.md", "other/AGENTS.md", "other/CLAUDE.md", "pkg/AGENTS.md", "pkg/CLAUDE.md"]
    findings = check.check(Repository(root, files))
    assert [finding.path for finding in findings] == ["other/CLAUDE.md"]
