import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from agent_constitution.errors import UserError
from agent_constitution.sources import cache, content, fetch

from .conftest import git


def _entries(user_cache: Path) -> list[Path]:
    return sorted((user_cache / "trees").glob("*/*"))


def test_each_commit_is_stored_once_and_reused(origin: Path, user_cache: Path):
    first = fetch(url="origin", base_dir=origin.parent)
    again = fetch(url=str(origin), tag="v1.0.0", base_dir=Path("/"))
    assert first == again
    assert [entry.name for entry in _entries(user_cache)] == [first.commit]


def test_a_corrupt_entry_is_fetched_again_with_a_warning(origin: Path, user_cache: Path, capsys):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    damaged = snapshot.root / "rules" / "1.toml"
    damaged.chmod(0o644)
    damaged.write_text("id = 666\n")
    again = fetch(url="origin", commit=snapshot.commit, base_dir=origin.parent)
    assert again == snapshot
    assert damaged.read_text() == "id = 1\n"
    assert "is corrupt" in capsys.readouterr().err


def test_an_entry_without_its_git_objects_is_refilled_quietly_offline(origin: Path, user_cache: Path, capsys):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    (snapshot.root.parent / cache.PROOF).unlink()
    capsys.readouterr()
    shutil.rmtree(origin)  # the mirror still has the commit
    assert fetch(url="origin", commit=snapshot.commit, base_dir=origin.parent) == snapshot
    assert (snapshot.root.parent / cache.PROOF).is_file()
    assert capsys.readouterr().err == ""


def test_losing_the_race_to_fill_an_entry_uses_the_winner(origin: Path, user_cache: Path):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    mirror = pygit2.Repository(str(cache.mirror_path(snapshot.key)))
    # The entry exists, so this build's rename fails, as it would for the slower of two builds.
    assert cache.store_tree(mirror, snapshot.key, snapshot.commit, display="origin") == (
        snapshot.root,
        snapshot.digest,
    )
    assert not [p for p in snapshot.root.parent.parent.iterdir() if p.name.startswith(".")]


def test_two_processes_fill_the_cache_at_once(origin: Path, user_cache: Path):
    for number in range(2, 30):
        (origin / "rules" / f"{number}.toml").write_text(f"id = {number}\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "more")
    script = (
        "import sys; from pathlib import Path; from agent_constitution.sources import fetch; "
        "s = fetch(url=sys.argv[1], base_dir=Path('.')); print(s.commit, s.digest, s.root)"
    )
    builds = [
        subprocess.Popen([sys.executable, "-c", script, str(origin)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [build.communicate()[0] for build in builds]
    assert [build.returncode for build in builds] == [0, 0]
    assert outputs[0] == outputs[1]
    commit, digest, root = outputs[0].split()
    assert [entry.name for entry in _entries(user_cache)] == [commit]
    leftovers = [p for p in (user_cache / "trees").rglob(".*")] + [p for p in (user_cache / "git").glob(".*")]
    assert leftovers == []
    assert fetch(url=str(origin), commit=commit, base_dir=origin.parent).digest == digest


def test_a_damaged_mirror_is_explained(origin: Path, user_cache: Path):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    shutil.rmtree(user_cache / "trees")
    mirror = cache.mirror_path(snapshot.key)
    for pack in (mirror / "objects").rglob("*"):
        if pack.is_file():
            pack.chmod(0o644)
            pack.write_bytes(b"garbage")
    with pytest.raises(UserError) as raised:
        fetch(url="origin", commit=snapshot.commit, base_dir=origin.parent)
    assert "the cache's copy is damaged: delete " + str(mirror) in str(raised.value)


def test_an_unexpected_git_failure_in_the_cache_is_explained(origin: Path, user_cache: Path, monkeypatch):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    shutil.rmtree(user_cache / "trees")

    def broken(*args, **kwargs):
        raise pygit2.GitError("object not found - no match for id")

    monkeypatch.setattr(content, "extract", broken)
    with pytest.raises(UserError) as raised:
        fetch(url="origin", commit=snapshot.commit, base_dir=origin.parent)
    text = str(raised.value)
    assert "the user cache's copy of origin is damaged" in text and str(cache.mirror_path(snapshot.key)) in text
