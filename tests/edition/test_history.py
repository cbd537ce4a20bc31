"""Check 7 (`--base REF`) against real git repositories built in temporary folders."""

import subprocess
from pathlib import Path

import pytest

from agent_constitution.edition.build import build
from agent_constitution.edition.cli import main
from agent_constitution.edition.failures import ChecksFailed

from .support import copy_fixture, snapshot
from .test_checks import EDITION, MUST_ASK, STABLE, edit, move

INDEX = f"{EDITION}/index.toml"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit_all(root: Path, message: str = "c") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = copy_fixture("active", tmp_path)
    git(root, "init", "-q")
    commit_all(root, "base")
    return root


def revision(root: Path, value: str) -> None:
    edit(INDEX, 'revision = "3"', f'revision = "{value}"')(root)


def fails(root: Path, *expected: str) -> None:
    before = snapshot(root)
    with pytest.raises(ChecksFailed) as failed:
        build(root, base="HEAD")
    for part in expected:
        assert part in str(failed.value)
    assert snapshot(root) == before


def test_unchanged_text_and_revision_pass(repo: Path):
    result = build(repo, base="HEAD")
    assert result.notes == ()


def test_changed_text_needs_a_higher_revision(repo: Path):
    edit(STABLE, "Numbers never change", "Numbers do not change")(repo)
    fails(repo, f"{INDEX}:3: revision: check 7 (stable numbers): the text changed since HEAD", 'set revision = "4"')
    revision(repo, "4")
    assert build(repo, base="HEAD").notes == ()


def test_unchanged_text_keeps_its_revision(repo: Path):
    revision(repo, "4")
    fails(repo, "the text is unchanged since HEAD", "went from 3 to 4", 'set revision = "3"')


def test_formatting_is_not_text(repo: Path):
    edit(STABLE, 'id = "stable"', '# a comment\nid   =   "stable"')(repo)
    build(repo, base="HEAD")


def test_renumbered_section(repo: Path):
    move(STABLE, f"{EDITION}/articles/03-process/04-stable.toml")(repo)
    revision(repo, "4")
    fails(repo, "check 7 (stable numbers): section stable was number 02 at HEAD (", "now 04", "rename it back to 02-stable.toml")


def test_renumbered_article(repo: Path):
    move(f"{EDITION}/articles/04-authority", f"{EDITION}/articles/05-authority")(repo)
    revision(repo, "4")
    fails(repo, "article authority was number 04 at HEAD (", "now 05", "rename the folder back to 04-authority")


def test_section_moved_to_another_article(repo: Path):
    move(STABLE, f"{EDITION}/articles/01-purpose/03-stable.toml")(repo)
    revision(repo, "4")
    fails(repo, "section stable moved from article process (at HEAD (", "to article purpose",
          f"move it back to {EDITION}/articles/03-process/02-stable.toml")


def test_renumbered_and_deleted_items(repo: Path):
    text = (repo / MUST_ASK).read_text(encoding="utf-8")
    start = text.index('[[items]]\nid = "publish"')
    (repo / MUST_ASK).write_text(text[:start].replace('number = "4"', 'number = "5"'), encoding="utf-8")
    edit(f"{EDITION}/articles/04-authority/02-decide-yourself.toml", "{@must-ask.publish}", "{@must-ask.hiring}")(repo)
    edit(f"{EDITION}/articles/04-authority/02-decide-yourself.toml", "{@must-ask.publish}", "{@must-ask.hiring}")(repo)
    revision(repo, "4")
    fails(repo, "item secrets was number 4 at HEAD (", "now 5", 'set number = "4"', "item publish (number 7 at HEAD (")


def test_deleted_section(repo: Path):
    order = f"{EDITION}/articles/01-purpose/02-order.toml"
    (repo / order).unlink()
    revision(repo, "4")
    fails(repo, f"section order ({order} at HEAD (", ") is gone", 'set status = "repealed" instead')


def test_active_never_returns_to_draft(tmp_path: Path):
    root = copy_fixture("draft", tmp_path)
    sources = list((root / "constitution/2026-12").rglob("*.toml"))
    for path in sources:
        path.write_text(path.read_text(encoding="utf-8").replace('"draft"', '"active"'), encoding="utf-8")
    edit("constitution/2026-12/index.toml", 'revision = "0.2"', 'revision = "1"')(root)
    git(root, "init", "-q")
    commit_all(root)
    for path in sources:
        path.write_text(path.read_text(encoding="utf-8").replace('"active"', '"draft"'), encoding="utf-8")
    edit("constitution/2026-12/index.toml", 'revision = "1"', 'revision = "0.3"')(root)
    with pytest.raises(ChecksFailed, match="an approved edition never becomes a draft again"):
        build(root, base="HEAD")


def _draft_repo(tmp_path: Path) -> Path:
    root = copy_fixture("draft", tmp_path)
    git(root, "init", "-q")
    commit_all(root)
    return root


def test_a_draft_base_compares_the_revision_but_not_numbers(tmp_path: Path, capsys):
    root = _draft_repo(tmp_path)
    article = root / "constitution/2026-12/articles/01-basics"
    (article / "01-ask.toml").rename(article / "02-ask.toml")
    with pytest.raises(ChecksFailed, match=r'the text changed since HEAD .*\n  fix: set revision = "0.3"'):
        build(root, base="HEAD")
    edit("constitution/2026-12/index.toml", 'revision = "0.2"', 'revision = "0.3"')(root)
    assert main(["--root", str(root), "--base", "HEAD"]) == 0
    out = capsys.readouterr().out
    assert "check 7: the edition was a draft at HEAD (" in out and "numbers not compared" in out


def test_approval_from_a_draft(tmp_path: Path):
    root = _draft_repo(tmp_path)
    for path in (root / "constitution/2026-12").rglob("*.toml"):
        path.write_text(path.read_text(encoding="utf-8").replace('"draft"', '"active"'), encoding="utf-8")
    edit("constitution/2026-12/index.toml", 'revision = "0.2"', 'revision = "1"')(root)
    assert "numbers not compared" in build(root, base="HEAD").notes[0]


def test_a_new_edition_is_not_compared(repo: Path):
    move(EDITION, "constitution/2027-02")(repo)
    edit("constitution/2027-02/index.toml", 'edition = "2026-10"', 'edition = "2027-02"')(repo)
    edit("constitution/2027-02/index.toml", 'revision = "3"', 'revision = "1"')(repo)
    move("constitution/2027-02/articles/04-authority", "constitution/2027-02/articles/05-authority")(repo)
    notes = build(repo, base="HEAD").notes
    assert notes == (f"check 7: HEAD ({git(repo, 'rev-parse', 'HEAD')[:12]}) has edition 2026-10, "
                     "this is a new edition 2027-02: numbers not compared",)


def test_a_base_without_a_constitution(tmp_path: Path):
    (tmp_path / "README").write_text("x")
    git(tmp_path, "init", "-q")
    commit_all(tmp_path)
    copy_fixture("active", tmp_path)
    assert "has no constitution/ folder: a new constitution, nothing compared" in build(tmp_path, base="HEAD").notes[0]


def test_a_project_in_a_subfolder_of_the_repository(tmp_path: Path):
    root = copy_fixture("active", tmp_path / "sub" / "project")
    git(tmp_path, "init", "-q")
    commit_all(tmp_path)
    edit(STABLE, "Numbers never change", "Numbers do not change")(root)
    with pytest.raises(ChecksFailed, match="the text changed since HEAD"):
        build(root, base="HEAD")


def test_an_older_base_by_commit_id(repo: Path):
    base = git(repo, "rev-parse", "HEAD")
    revision(repo, "4")
    edit(STABLE, "Numbers never change", "Numbers do not change")(repo)
    commit_all(repo)
    assert build(repo, base=base[:10]).notes == ()


def test_unknown_ref(repo: Path):
    fails_with = "check 7 (stable numbers): --base 'no-such-branch' names no commit"
    with pytest.raises(ChecksFailed, match="names no commit") as failed:
        build(repo, base="no-such-branch")
    assert fails_with in str(failed.value)


def test_not_a_repository(active: Path):
    with pytest.raises(ChecksFailed, match="is not in a git repository"):
        build(active, base="HEAD")
