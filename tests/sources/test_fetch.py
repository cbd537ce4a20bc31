import shutil
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.sources import fetch, newest_commit, read_at, tree_digest, version_tags

from .conftest import commit_files, git


def test_plain_folder_is_read_as_it_is(tmp_path: Path, user_cache: Path):
    folder = tmp_path / "dev"
    (folder / "rules").mkdir(parents=True)
    (folder / "rules" / "1.toml").write_text("id = 1\n")
    snapshot = fetch(path="dev", base_dir=tmp_path)
    assert snapshot.root == folder and snapshot.commit is None and snapshot.key == str(folder)
    (folder / "rules" / "1.toml").write_text("id = 1\nrevision = 2\n")
    assert fetch(path="dev", base_dir=tmp_path).digest != snapshot.digest
    assert not user_cache.exists()


def test_digest_covers_only_source_content(tmp_path: Path):
    (tmp_path / "rules" / "checks" / "__pycache__").mkdir(parents=True)
    (tmp_path / "rules" / "1.toml").write_text("id = 1\n")
    before = tree_digest(tmp_path)
    (tmp_path / "README.md").write_text("not content\n")
    (tmp_path / "rules" / "checks" / "__pycache__" / "r1.cpython-311.pyc").write_bytes(b"\0")
    assert tree_digest(tmp_path) == before
    for changed in ("constitution/2026-10/x.toml", "manifests/base.toml", "rules/2.toml"):
        (tmp_path / changed).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / changed).write_text("x\n")
        assert tree_digest(tmp_path) != before
        before = tree_digest(tmp_path)
    (tmp_path / "rules" / "2.toml").chmod(0o755)
    assert tree_digest(tmp_path) != before


def test_git_source_follows_default_branch_tag_branch_and_rev(origin: Path, user_cache: Path):
    first = git(origin, "rev-parse", "HEAD")
    second = commit_files(origin, {"rules/2.toml": "id = 2\n"})
    git(origin, "tag", "-a", "v1.1.0", "-m", "annotated")
    git(origin, "branch", "old", first)
    base = origin.parent
    assert fetch(url="origin", base_dir=base).commit == second
    assert fetch(url="origin", tag="v1.0.0", base_dir=base).commit == first
    assert fetch(url="origin", tag="v1.1.0", base_dir=base).commit == second
    assert fetch(url=f"file://{origin}", branch="old", base_dir=base).commit == first
    assert fetch(path="origin", rev=first[:10], base_dir=base).commit == first
    snapshot = fetch(url="origin", commit=first, base_dir=base)
    assert snapshot.key == str(origin)
    assert (snapshot.root / "rules" / "1.toml").read_text() == "id = 1\n"
    assert not (snapshot.root / "rules" / "2.toml").exists()
    assert (snapshot.root / "README.md").read_text() == "x\n"  # the whole tree is cached (external check scripts)


def test_git_snapshot_has_the_digest_of_the_same_plain_folder(origin: Path, user_cache: Path):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    assert snapshot.digest == fetch(path="origin", base_dir=origin.parent).digest
    assert snapshot.digest == tree_digest(snapshot.root)


def test_cached_files_are_read_only(origin: Path, user_cache: Path):
    snapshot = fetch(url="origin", base_dir=origin.parent)
    assert (snapshot.root / "rules" / "1.toml").stat().st_mode & 0o222 == 0


def test_branch_moves_are_fetched(origin: Path, user_cache: Path):
    fetch(url="origin", branch="main", base_dir=origin.parent)
    moved = commit_files(origin, {"rules/2.toml": "id = 2\n"})
    assert fetch(url="origin", branch="main", base_dir=origin.parent).commit == moved
    assert newest_commit(url="origin", base_dir=origin.parent) == moved


def test_version_tags_lists_every_tag_with_its_commit(origin: Path, user_cache: Path, capsys):
    # `git ls-remote --tags`: an annotated tag by the commit it points at; no mirror is made.
    first = git(origin, "rev-parse", "HEAD")
    second = commit_files(origin, {"rules/2.toml": "id = 2\n"})
    git(origin, "tag", "-a", "v2.0.0", "-m", "annotated")
    tree = git(origin, "rev-parse", "HEAD^{tree}")
    git(origin, "tag", "a-tree", tree)
    assert version_tags(url="origin", base_dir=origin.parent) == [("a-tree", tree), ("v1.0.0", first), ("v2.0.0", second)]
    assert "listing the tags of origin ..." in capsys.readouterr().err
    assert not (user_cache / "git").exists()
    # What a tag names is read from the mirror's objects, fetched on first use; a tree is no commit.
    assert read_at(url="origin", commit=first, name="rules/1.toml", base_dir=origin.parent) == b"id = 1\n"
    assert read_at(url="origin", commit=first, name="rules/2.toml", base_dir=origin.parent) is None
    with pytest.raises(UserError, match="is not a commit"):
        read_at(url="origin", commit=tree, name="rules/1.toml", base_dir=origin.parent)


def test_version_tags_offline_fall_back_to_the_mirror(origin: Path, user_cache: Path, capsys):
    fetch(url="origin", branch="main", base_dir=origin.parent)
    shutil.rmtree(origin)
    assert [name for name, _ in version_tags(url="origin", base_dir=origin.parent)] == ["v1.0.0"]
    assert "using the tags of origin fetched earlier" in capsys.readouterr().err


def test_pinned_commit_in_the_cache_needs_no_network(origin: Path, user_cache: Path):
    pinned = fetch(url="origin", tag="v1.0.0", base_dir=origin.parent)
    shutil.rmtree(origin)
    shutil.rmtree(user_cache / "git")  # not even the mirror is needed
    again = fetch(url="origin", tag="v1.0.0", commit=pinned.commit, base_dir=origin.parent)
    assert again == pinned


def test_offline_a_tag_resolves_from_the_mirror(origin: Path, user_cache: Path):
    pinned = fetch(url="origin", tag="v1.0.0", base_dir=origin.parent)
    shutil.rmtree(origin)
    assert fetch(url="origin", tag="v1.0.0", base_dir=origin.parent) == pinned


def test_offline_a_branch_falls_back_to_the_mirror_with_a_warning(origin: Path, user_cache: Path, capsys):
    pinned = fetch(url="origin", branch="main", base_dir=origin.parent)
    shutil.rmtree(origin)
    assert fetch(url="origin", branch="main", base_dir=origin.parent) == pinned
    warning = capsys.readouterr().err
    assert "warning: cannot reach the source origin" in warning and "fetched earlier" in warning


def test_a_url_naming_a_plain_folder_reads_it_as_it_is(tmp_path: Path, user_cache: Path):
    (tmp_path / "dev" / "rules").mkdir(parents=True)
    snapshot = fetch(url="./dev", base_dir=tmp_path)
    assert snapshot.commit is None and snapshot.root == tmp_path / "dev"


def test_a_symbolic_link_is_hashed_by_its_target(tmp_path: Path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "a.md").write_text("a")
    (tmp_path / "rules" / "b.md").write_text("b")
    (tmp_path / "rules" / "link").symlink_to("a.md")
    before = tree_digest(tmp_path)
    (tmp_path / "rules" / "a.md").write_text("changed")
    (tmp_path / "rules" / "link").unlink()
    (tmp_path / "rules" / "link").symlink_to("a.md")
    changed_target_content = tree_digest(tmp_path)
    (tmp_path / "rules" / "link").unlink()
    (tmp_path / "rules" / "link").symlink_to("b.md")
    assert len({before, changed_target_content, tree_digest(tmp_path)}) == 3
