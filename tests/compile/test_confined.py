"""Compile writes and deletes only inside the repository: links that lead out and hostile stamps are refused."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from agent_constitution.compile import skills
from tests.compile.steps import (
    claude_shim,
    hook_file,
    install_skills,
    remove_segment,
    segment_files,
)
from agent_constitution.compile.layout import SegmentJob, Settings
from agent_constitution.errors import UserError
from agent_constitution.fsio import confine, remove, write_atomic
from tests.compile.support import make_repo, resolve_into_cache

SKILLS = {"uv-project": [3]}


def tree(folder):
    """Every path below `folder` with its bytes (a folder: None), to show that nothing changed."""
    return {
        path.relative_to(folder).as_posix(): None if path.is_dir() else path.read_bytes()
        for path in sorted(folder.rglob("*"))
    }


@pytest.fixture
def repo(tmp_path):
    root = make_repo(tmp_path / "repo", skills=SKILLS)
    resolve_into_cache(root)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the repository's\n")
    return root, outside


def test_confine_names_the_link_that_leads_out(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "out").mkdir()
    os.symlink(tmp_path / "out", tmp_path / "repo" / "link")
    os.symlink("inside", tmp_path / "repo" / "near")  # a link that stays inside is fine
    assert confine(tmp_path / "repo" / "near" / "x", tmp_path / "repo") == tmp_path / "repo" / "near" / "x"
    with pytest.raises(UserError) as caught:
        write_atomic(tmp_path / "repo" / "link" / "deep" / "f.txt", "x", within=tmp_path / "repo")
    assert f"through the symbolic link {tmp_path / 'repo' / 'link'}" in caught.value.message
    assert "replace the link" in caught.value.fix
    assert list((tmp_path / "out").iterdir()) == []  # not even the folder was created
    with pytest.raises(UserError, match="is outside"):
        remove(tmp_path / "repo" / ".." / "out", within=tmp_path / "repo")
    assert (tmp_path / "out").is_dir()


def test_a_segment_folder_linked_elsewhere_receives_nothing(repo):
    root, outside = repo
    shutil.rmtree(root / "svc")
    os.symlink(outside, root / "svc")
    before = tree(outside)
    with pytest.raises(UserError) as caught:
        segment_files(root, root / "cache", SegmentJob("svc", ".", ()), Settings(), locked=False)
    assert caught.value.file == root / "svc" / "AGENTS.md"
    assert f"symbolic link {root / 'svc'}" in caught.value.message
    with pytest.raises(UserError):
        claude_shim(root, "svc", Settings(), locked=False)
    with pytest.raises(UserError):
        remove_segment(root, "svc")
    assert tree(outside) == before


def test_an_agents_file_linked_elsewhere_is_neither_read_nor_written(repo):
    root, outside = repo
    os.symlink(outside / "keep.txt", root / "AGENTS.md")
    with pytest.raises(UserError, match="symbolic link to .*, outside the repository"):
        segment_files(root, root / "cache", SegmentJob(".", None, ("svc",)), Settings(), locked=False)
    assert (outside / "keep.txt").read_text() == "not the repository's\n"


def test_a_claude_folder_linked_elsewhere_gets_no_skill_and_no_settings(repo):
    root, outside = repo
    os.symlink(outside, root / ".claude")
    before = tree(outside)
    with pytest.raises(UserError) as caught:
        install_skills(root, root / "cache", [".", "svc"], locked=False)
    assert f"symbolic link {root / '.claude'}" in caught.value.message
    with pytest.raises(UserError, match="symbolic link"):
        hook_file(root, ".claude/settings.json", locked=False)
    assert tree(outside) == before


def test_a_stamp_entry_that_leads_out_deletes_nothing(repo, tmp_path):
    root, outside = repo
    install_skills(root, root / "cache", [".", "svc"], locked=False)
    target = root / ".claude" / "skills" / "uv-project"
    stamp = json.loads((target / skills.STAMP).read_text())
    victim = "../" * 4 + "elsewhere/keep.txt"
    assert (target / victim).resolve() == (outside / "keep.txt").resolve()
    stamp["files"][victim] = "0" * 64
    (target / skills.STAMP).write_text(json.dumps(stamp))
    for attempt in (lambda: skills.remove(target, root=root),
                    lambda: skills.install(root / "src" / "rules" / "skills" / "uv-project", target, "ac",
                                           root=root, locked=False, trusted=True)):
        with pytest.raises(UserError) as caught:
            attempt()
        assert caught.value.file == target / skills.STAMP
        assert repr(victim) in caught.value.message
    assert (outside / "keep.txt").read_text() == "not the repository's\n"
    assert (target / "SKILL.md").exists()  # refused before anything was deleted


@pytest.mark.parametrize("entry", ["/etc/hostname", "a/../../x", "", "./SKILL.md", ".agent-constitution.json"])
def test_every_odd_stamp_entry_is_refused(repo, entry):
    root, _ = repo
    install_skills(root, root / "cache", [".", "svc"], locked=False)
    target = root / ".agents" / "skills" / "uv-project"
    stamp = json.loads((target / skills.STAMP).read_text())
    stamp["files"][entry] = "0" * 64
    (target / skills.STAMP).write_text(json.dumps(stamp))
    with pytest.raises(UserError, match="stamp"):
        skills.remove(target, root=root)


def test_a_link_inside_the_skill_folder_that_leads_out_is_refused(repo):
    root, outside = repo
    install_skills(root, root / "cache", [".", "svc"], locked=False)
    target = root / ".claude" / "skills" / "uv-project"
    shutil.rmtree(target / "scripts")
    os.symlink(outside, target / "scripts")
    (outside / "run.sh").write_text("theirs\n")
    with pytest.raises(UserError, match="symbolic link"):
        skills.remove(target, root=root)
    assert (outside / "run.sh").read_text() == "theirs\n"


def test_a_compile_that_fails_late_leaves_the_lock_and_the_root_index_as_they_were(tmp_path):
    from tests.compile.test_doit import doit

    root = make_repo(tmp_path / "repo")
    doit(root, "compile")
    manifest = root / "rules.toml"
    lock, index = (root / "rules.lock").read_bytes(), (root / "AGENTS.md").read_bytes()
    # A new selection changes the lock; the hook file compile would merge into is not JSON.
    manifest.write_text(manifest.read_text().replace('rules = ["ac:1",', 'rules = ["ac:7", "ac:1",', 1))
    (root / ".claude" / "settings.json").write_text("{not json\n")
    failed = doit(root, "compile", check=False)
    assert failed.returncode != 0 and ".claude/settings.json:1: not valid JSON" in failed.stdout + failed.stderr
    assert "rules.lock is put back as it was before this run" in failed.stderr
    assert (root / "rules.lock").read_bytes() == lock and (root / "AGENTS.md").read_bytes() == index
    assert doit(root, "compile", check=False).returncode != 0  # the lock is written again, and put back again
    assert (root / "rules.lock").read_bytes() == lock
    (root / ".claude" / "settings.json").write_text("{}\n")
    doit(root, "compile")
    assert (root / "rules.lock").read_bytes() != lock and b"ac:7" in (root / "AGENTS.md").read_bytes()

    # The lock stays; a smaller token budget splits the files, and a part file in svc/ is in the way.
    lock, index = (root / "rules.lock").read_bytes(), (root / "AGENTS.md").read_bytes()
    manifest.write_text(manifest.read_text().replace("\n[[segment]]", "\n[compile]\nmax-tokens = 60\n\n[[segment]]", 1))
    (root / "svc" / "AGENTS.python.md").write_text("mine\n")
    failed = doit(root, "compile", check=False)
    assert failed.returncode != 0 and "AGENTS.python.md" in failed.stdout + failed.stderr
    assert (root / "AGENTS.md").read_bytes() == index and (root / "rules.lock").read_bytes() == lock
    assert (root / "svc" / "AGENTS.python.md").read_text() == "mine\n"


def test_only_the_run_that_replaced_the_lock_puts_it_back(tmp_path, monkeypatch):
    from agent_constitution.compile import undo

    root, cache = tmp_path, tmp_path / "cache"
    (root / "rules.lock").write_text("new\n")
    monkeypatch.setenv(undo.RUN, "one")
    undo.remember(cache, b"old\n")
    monkeypatch.setenv(undo.RUN, "two")  # a later run finds the record of an earlier one
    assert not undo.put_back(root, cache)
    assert (root / "rules.lock").read_text() == "new\n" and not (cache / undo.RECORD).exists()
    undo.remember(cache, None)  # this run created the lock: putting it back removes it
    assert undo.put_back(root, cache) and not (root / "rules.lock").exists()
    assert not undo.put_back(root, cache)


def test_a_failed_compile_puts_back_the_segment_files_it_had_rewritten(tmp_path):
    from tests.compile.test_doit import doit

    root = make_repo(tmp_path / "repo")
    doit(root, "compile")
    segment = (root / "svc" / "AGENTS.md").read_bytes()
    lock = (root / "rules.lock").read_bytes()
    # Rule 4 is in svc's delta: its new text rewrites svc/AGENTS.md; the hook file is not JSON.
    rule = root / "src" / "rules" / "4.toml"
    rule.write_text(rule.read_text().replace("Text of rule 4.", "The new text of rule 4.").replace("revision = 1", "revision = 2"))
    (root / ".claude" / "settings.json").write_text("{not json\n")
    failed = doit(root, "compile", check=False)
    assert failed.returncode != 0 and "not valid JSON" in failed.stdout + failed.stderr
    assert (root / "svc" / "AGENTS.md").read_bytes() == segment
    assert (root / "rules.lock").read_bytes() == lock
    (root / ".claude" / "settings.json").write_text("{}\n")
    doit(root, "compile")
    assert b"The new text of rule 4." in (root / "svc" / "AGENTS.md").read_bytes()


def test_a_failed_first_compile_leaves_no_folder_it_created(tmp_path):
    from tests.compile.test_doit import doit

    root = make_repo(tmp_path / "repo", skills=SKILLS)
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().replace(
        "\n[[segment]]", '\n[compile]\nagents = ["agents-md", "claude-code", "windsurf"]\nclaude = "link"\n'
        'over-limit = "error"\n\n[[segment]]', 1))
    # The root index, written last, cannot fit the 32 KiB of a chain beside this hand-written text,
    # and the manifest makes that an error.
    (root / "AGENTS.md").write_text("# Notes\n\n" + "Hand-written notes of the team. " * 1100 + "\n")
    before = {path: data for path, data in tree(root).items() if not path.startswith("cache")}
    failed = doit(root, "compile", check=False)
    assert failed.returncode != 0 and "load at most 32768 bytes" in failed.stdout + failed.stderr
    assert "created .windsurf/skills/uv-project" in failed.stdout  # the skills were installed before it failed
    assert {path: data for path, data in tree(root).items() if not path.startswith("cache")} == before
    (root / "AGENTS.md").write_text("# Notes\n")
    doit(root, "compile")  # nothing left behind is taken for a hand-made skill folder
    assert (root / ".claude" / "skills" / "uv-project" / skills.STAMP).is_file()


def test_a_journal_naming_the_repository_or_a_folder_outside_removes_nothing(tmp_path, monkeypatch):
    from agent_constitution.compile import undo

    root, cache = tmp_path / "repo", tmp_path / "repo" / "cache"
    (root / "empty").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    monkeypatch.setenv(undo.RUN, "one")
    journal = cache / undo.JOURNAL / "one"
    journal.mkdir(parents=True)
    for number, created in enumerate([".", "", "..", "../outside", "/tmp"]):
        (journal / f"{number}.json").write_text(json.dumps({"path": f"new{number}.txt", "bytes": None, "created": created}))
    try:
        undo.put_back_files(root, cache)
    except UserError:
        pass
    assert (root / "empty").is_dir() and (tmp_path / "outside").is_dir()
