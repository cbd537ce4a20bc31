"""The scan: what the checks see of the working tree."""

from __future__ import annotations

import subprocess

from agent_constitution.checks.scan import scan


def test_the_projects_own_cache_is_not_judged_unless_git_tracks_it(tmp_path):
    # A manifest written by hand has no cache/.gitignore: the build state must still stay out of the tree.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "cache" / "resolved").mkdir(parents=True)
    (tmp_path / "cache" / "resolved" / "_root.json").write_text("{}")
    (tmp_path / "cache" / "kept.txt").write_text("tracked on purpose")
    (tmp_path / "src" / "cache").mkdir(parents=True)
    (tmp_path / "src" / "cache" / "module.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "cache/kept.txt"], cwd=tmp_path, check=True)
    files = scan(tmp_path).files
    assert "cache/resolved/_root.json" not in files
    assert "cache/kept.txt" in files  # tracked: part of the repository
    assert "src/cache/module.py" in files  # only the root's cache/ is the project's


def test_outside_git_the_walk_leaves_out_the_cache_too(tmp_path):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "report.json").write_text("{}")
    (tmp_path / "a.txt").write_text("a")
    assert scan(tmp_path).files == ("a.txt",)
