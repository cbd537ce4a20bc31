"""The compile jobs of every segment run in one task per output (`agents:segments`, `agents:shims`),
and every segment's resolution in one task (`resolution`): what each up-to-date check decides.

An edit rebuilds exactly the segments that show it, a no-op writes nothing, a deleted output is
written again, and a new `[compile]` setting (or a new version of compile's code, which enters the
same way) reruns every job of a group, with the same bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.compile.support import make_repo
from tests.compile.test_doit import doit, ran

# Two more segments: web shows rule 7 as svc does, api shows neither 7 nor svc's rule 4 alone.
SEGMENTS = """
[[segment]]
path = "web"
rules = ["ac:7"]

[[segment]]
path = "api"
rules = ["ac:4"]
exclude = ["ac:3", "ac:6"]

[segment.choices]
"ac:pm" = "ac:4"
"""


def statuses(repo: Path) -> dict[str, tuple[int, int, int]]:
    """Every file outside the caches, by inode, modification time and size."""
    found = {}
    for path in repo.rglob("*"):
        relative = path.relative_to(repo).as_posix()
        if path.is_file() and not relative.startswith(("cache/", "src/", "__pycache__/")):
            status = path.stat()
            found[relative] = (status.st_ino, status.st_mtime_ns, status.st_size)
    return found


@pytest.fixture
def built(tmp_path):
    repo = make_repo(tmp_path / "repo")
    with (repo / "rules.toml").open("a") as manifest:
        manifest.write(SEGMENTS)
    for folder in ("web", "api"):
        (repo / folder).mkdir()
    first = doit(repo, "compile")
    return repo, first


def test_the_segments_jobs_are_one_task_per_output(built):
    repo, first = built
    listed = doit(repo, "list", "--all", "agents", "resolution").stdout.split()
    assert {"agents:segments", "agents:shims", "agents:AGENTS.md", "resolution"} <= set(listed)
    assert not any(name.startswith(("agents:svc/", "agents:web/", "resolution:")) for name in listed)
    # The first build ran every job, each named by its mark.
    assert {"agents:AGENTS.md", "agents:svc/AGENTS.md", "agents:web/AGENTS.md", "agents:api/AGENTS.md",
            "agents:svc/CLAUDE.md", "agents:web/CLAUDE.md", "agents:api/CLAUDE.md"} <= set(ran(first))
    assert "agents:segments" not in ran(first) and "agents:shims" not in ran(first)


def test_a_no_op_writes_nothing(built):
    repo, _ = built
    before = statuses(repo)
    again = doit(repo, "compile")
    assert ran(again) == []
    assert "-- agents:segments" in again.stdout and "-- resolution" in again.stdout
    assert statuses(repo) == before


def test_an_edit_rebuilds_exactly_the_segments_that_show_it(built):
    repo, _ = built
    before = statuses(repo)
    rule = repo / "src" / "rules" / "7.toml"
    rule.write_text(rule.read_text().replace("Text of rule 7.", "Text of rule 7, reworded."))
    done = doit(repo, "compile")
    rebuilt = [name for name in ran(done) if name.endswith("/AGENTS.md") or name == "agents:AGENTS.md"]
    assert rebuilt == ["agents:svc/AGENTS.md", "agents:web/AGENTS.md"]
    assert {"resolution:svc", "resolution:web"} <= {line[3:] for line in done.stdout.splitlines()
                                                    if line.startswith(".  resolution:")}
    after = statuses(repo)
    changed = {path for path in after if after[path] != before.get(path)}
    assert changed == {"svc/AGENTS.md", "web/AGENTS.md", "rules.lock"}
    assert "Text of rule 7, reworded." in (repo / "web" / "AGENTS.md").read_text()
    assert "Text of rule 7, reworded." not in (repo / "api" / "AGENTS.md").read_text()
    # The root kept the new resolution files' stamp without a run of its job: the next run runs nothing.
    again = doit(repo, "compile")
    assert ran(again) == [] and statuses(repo) == after


def test_a_deleted_output_is_written_again(built):
    repo, _ = built
    shim = repo / "web" / "CLAUDE.md"
    region = repo / "api" / "AGENTS.md"
    kept = shim.read_bytes(), region.read_bytes()
    shim.unlink()
    region.unlink()
    done = doit(repo, "compile")
    assert sorted(name for name in ran(done) if name not in ("agents:chains", "agents:readback")) == [
        "agents:api/AGENTS.md", "agents:web/CLAUDE.md"]
    assert (shim.read_bytes(), region.read_bytes()) == kept


def test_a_new_compile_setting_reruns_every_job_with_the_same_bytes(built):
    repo, _ = built
    files = {path: path.read_bytes() for path in repo.glob("*/AGENTS.md")}
    manifest = repo / "rules.toml"
    # A larger token budget changes no text here (every file is within both): only the settings every
    # job is configured with.
    manifest.write_text(manifest.read_text().replace("\n[[segment]]", "\n[compile]\nmax-tokens = 9000\n\n[[segment]]", 1))
    done = doit(repo, "compile")
    assert {"agents:svc/AGENTS.md", "agents:web/AGENTS.md", "agents:api/AGENTS.md", "agents:svc/CLAUDE.md",
            "agents:web/CLAUDE.md", "agents:api/CLAUDE.md", "agents:AGENTS.md"} <= set(ran(done))
    assert {path: path.read_bytes() for path in repo.glob("*/AGENTS.md")} == files
    assert ran(doit(repo, "compile")) == []


def test_the_read_back_proves_again_only_what_changed_under_a_segment(built):
    repo, _ = built
    kept = json.loads((repo / "cache" / "readback.json").read_text())
    assert set(kept["segments"]) == {".", "svc", "web", "api"}
    # A hand-written CLAUDE.md in web/ that imports nothing: Claude Code misses web's rules there.
    shim = repo / "web" / "CLAUDE.md"
    written = shim.read_bytes()
    shim.unlink()
    shim.write_text("Hand-written notes, no import.\n")
    done = doit(repo, "compile")
    assert "web/CLAUDE.md is hand-written and does not import @AGENTS.md" in done.stderr
    assert "misses" in done.stderr and "segment web" in done.stderr
    again = json.loads((repo / "cache" / "readback.json").read_text())
    assert again["segments"]["svc"] == kept["segments"]["svc"]
    assert again["segments"]["web"] != kept["segments"]["web"]
    # Put back as compile writes it: the proof holds again, and the kept proof says so.
    shim.unlink()
    doit(repo, "compile")
    assert shim.read_bytes() == written
    final = doit(repo, "compile")
    assert "segment web" not in final.stderr


def test_the_read_back_proves_again_the_segments_whose_resolution_changed(built):
    """A segment's kept proof is keyed by its resolution file's status (the lock stage renames a new file into place)."""
    repo, _ = built
    before = json.loads((repo / "cache" / "readback.json").read_text())["segments"]
    rule = repo / "src" / "rules" / "7.toml"
    rule.write_text(rule.read_text().replace("Text of rule 7.", "Text of rule 7, reworded."))
    assert "agents:readback" in ran(doit(repo, "compile"))
    after = json.loads((repo / "cache" / "readback.json").read_text())["segments"]
    for segment in ("svc", "web"):
        document = os.stat(repo / "cache" / "resolved" / f"{segment}.json")
        assert after[segment]["document"] == [document.st_ino, document.st_mtime_ns, document.st_size]
        assert after[segment]["document"] != before[segment]["document"]
    assert after["api"] == before["api"]
