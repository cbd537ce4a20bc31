"""Check 7 (`--base REF`) against real git repositories built in temporary folders."""

import subprocess
from pathlib import Path

import pytest

from agent_constitution.edition.build import build
from agent_constitution.edition.cli import main
from agent_constitution.edition.failures import ChecksFailed

from .support import copy_fixture, snapshot
from .test_checks import EDITION, MUST_ASK, STABLE, edit, move, write

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


# Seed 001 on revisions: "草案是 0.<n>，每份草案的 <n> 都从 1 起算；一版第一次获批准的文本是 1，每采纳一次修正案就加一，
# 新的一版重新从 1 起算" (drafts 0.<n> from 1; the first approved text is 1; one more per amendment; a
# new edition starts again from 1).

def _approve(root: Path, revision: str, edition: str = "2026-12") -> None:
    for path in (root / "constitution").rglob("*.toml"):
        path.write_text(path.read_text(encoding="utf-8").replace('"draft"', '"active"'), encoding="utf-8")
    edit(f"constitution/{edition}/index.toml", 'revision = "0.2"', f'revision = "{revision}"')(root)


def test_the_first_approved_text_is_revision_1(tmp_path: Path):
    root = _draft_repo(tmp_path)
    _approve(root, "3")
    with pytest.raises(ChecksFailed, match=r"its first approved text is revision 1, not 3\n  fix: set revision = \"1\""):
        build(root, base="HEAD")
    edit("constitution/2026-12/index.toml", 'revision = "3"', 'revision = "1"')(root)
    build(root, base="HEAD")


def test_a_draft_approved_in_another_month_is_renamed_and_starts_at_1(tmp_path: Path):
    """'如果在别的月份批准，届时给这一版改名': the renamed draft is the same edition, so its first approved text is 1."""
    root = _draft_repo(tmp_path)
    _approve(root, "2")
    move("constitution/2026-12", "constitution/2027-01")(root)
    edit("constitution/2027-01/index.toml", 'edition = "2026-12"', 'edition = "2027-01"')(root)
    with pytest.raises(ChecksFailed, match="first approved text is revision 1, not 2"):
        build(root, base="HEAD")
    edit("constitution/2027-01/index.toml", 'revision = "2"', 'revision = "1"')(root)
    assert "numbers not compared" in build(root, base="HEAD").notes[0]


def test_an_amendment_adds_one(repo: Path):
    edit(STABLE, "Numbers never change", "Numbers do not change")(repo)
    revision(repo, "7")
    fails(repo, "the revision went from 3 to 7 since HEAD (", "it goes up by one", 'fix: set revision = "4"')


def test_a_new_draft_adds_one(tmp_path: Path):
    root = _draft_repo(tmp_path)
    edit("constitution/2026-12/articles/01-basics/01-ask.toml", "Ask before you act on:", "Always ask before you act on:")(root)
    edit("constitution/2026-12/index.toml", 'revision = "0.2"', 'revision = "0.5"')(root)
    with pytest.raises(ChecksFailed, match=r"went from 0.2 to 0.5 .*\n  fix: set revision = \"0.3\""):
        build(root, base="HEAD")


def _renamed(repo: Path, name: str, revision_: str) -> None:
    move(EDITION, f"constitution/{name}")(repo)
    edit(f"constitution/{name}/index.toml", 'edition = "2026-10"', f'edition = "{name}"')(repo)
    edit(f"constitution/{name}/index.toml", 'revision = "3"', f'revision = "{revision_}"')(repo)


def test_renaming_an_active_edition_does_not_free_its_numbers(repo: Path):
    """Renamed to the next month, still active at an amendment's revision, and renumbered: a new edition
    would start at revision 1, so this is the old edition renamed."""
    _renamed(repo, "2026-11", "4")
    move("constitution/2026-11/articles/04-authority", "constitution/2026-11/articles/05-authority")(repo)
    with pytest.raises(ChecksFailed) as failed:
        build(repo, base="HEAD")
    assert "check 7 (stable numbers): a new edition starts at revision 1, not 4; renaming edition 2026-10 does not make" \
        in str(failed.value)
    assert 'fix: set revision = "1"; to amend edition 2026-10 instead, keep its name and folder' in str(failed.value)
    # The note says what was not compared, although check 7 failed.
    assert failed.value.notes[0].endswith("this is a new edition 2026-11: numbers not compared")


def test_a_new_edition_as_a_draft_starts_at_0_1(tmp_path: Path):
    root = _draft_repo(tmp_path)
    _approve(root, "1")
    commit_all(root)
    for path in (root / "constitution/2026-12").rglob("*.toml"):
        path.write_text(path.read_text(encoding="utf-8").replace('"active"', '"draft"'), encoding="utf-8")
    move("constitution/2026-12", "constitution/2027-03")(root)
    edit("constitution/2027-03/index.toml", 'edition = "2026-12"', 'edition = "2027-03"')(root)
    edit("constitution/2027-03/index.toml", 'revision = "1"', 'revision = "0.2"')(root)
    fails(root, "a new edition starts at revision 0.1, not 0.2", 'set revision = "0.1"')
    edit("constitution/2027-03/index.toml", 'revision = "0.2"', 'revision = "0.1"')(root)
    build(root, base="HEAD")


def test_a_new_edition_comes_later(repo: Path):
    _renamed(repo, "2026-09", "1")
    fails(repo, "edition 2026-09 would come before edition 2026-10, which was in force at HEAD (")


def test_going_back_to_draft_suggests_no_draft_revision(tmp_path: Path):
    root = _draft_repo(tmp_path)
    _approve(root, "1")
    commit_all(root)
    for path in (root / "constitution/2026-12").rglob("*.toml"):
        path.write_text(path.read_text(encoding="utf-8").replace('"active"', '"draft"'), encoding="utf-8")
    edit("constitution/2026-12/index.toml", 'revision = "1"', 'revision = "0.3"')(root)
    with pytest.raises(ChecksFailed) as failed:
        build(root, base="HEAD")
    assert [str(error).split("\n")[0].split("check 7 (stable numbers): ")[1] for error in failed.value.errors] == [
        "the edition was active at HEAD (" + git(root, "rev-parse", "HEAD")[:12] + "); an approved edition never becomes a draft again"]
    assert "0.1" not in str(failed.value)


# Seed 001 on numbers: "条只会追加在末尾，不带后缀"; "只有在宪法的文本第一次获批准之后，插入的条文才带后缀" (articles are only
# appended at the end; once the text is approved, an inserted provision carries a suffix).

def _with_gap(repo: Path, old: str, new: str) -> None:
    """The base itself leaves a gap in the numbers (a draft's numbers need not be consecutive)."""
    move(old, new)(repo)
    commit_all(repo, "gap")


SECTION = 'id = "{id}"\nstatus = "active"\n\n[content]\nen = "New."\nzh = "新的。"\n'


def test_a_new_article_is_appended_not_inserted(repo: Path):
    _with_gap(repo, f"{EDITION}/articles/04-authority", f"{EDITION}/articles/05-authority")
    article = f"{EDITION}/articles/04-late"
    write(f"{article}/article.toml", 'id = "late"\n\n[title]\nen = "Late"\nzh = "晚"\n')(repo)
    write(f"{article}/01-rule.toml", SECTION.format(id="rule"))(repo)
    revision(repo, "4")
    fails(repo, "check 7 (stable numbers): article late is new since HEAD (", "numbered 04, before article 05:",
          "fix: rename its folder to 06-late")
    move(article, f"{EDITION}/articles/06-late")(repo)
    build(repo, base="HEAD")


def test_a_new_section_in_a_gap_needs_a_suffix(repo: Path):
    process = f"{EDITION}/articles/03-process"
    _with_gap(repo, f"{process}/03-retired.toml", f"{process}/05-retired.toml")
    write(f"{process}/04-gap.toml", SECTION.format(id="gap"))(repo)
    revision(repo, "4")
    fails(repo, "section gap is new since HEAD (", "takes number 04 before the last section of article process without a suffix",
          "fix: rename it to 02b-gap.toml")
    move(f"{process}/04-gap.toml", f"{process}/02b-gap.toml")(repo)
    write(f"{process}/06-end.toml", SECTION.format(id="end"))(repo)
    build(repo, base="HEAD")


def test_a_new_item_in_a_gap_needs_a_suffix(repo: Path):
    entry = '\n[[items]]\nid = "late"\nnumber = "{number}"\nstatus = "active"\n\n[items.content]\nen = "Late."\nzh = "晚。"\n'
    original = (repo / MUST_ASK).read_text(encoding="utf-8")
    (repo / MUST_ASK).write_text(original + entry.format(number="5"), encoding="utf-8")
    revision(repo, "4")
    fails(repo, "item late is new since HEAD (", "takes number 5 before the last item of section must-ask", 'set number = "4a"')
    for number in ("4a", "8"):
        (repo / MUST_ASK).write_text(original + entry.format(number=number), encoding="utf-8")
        build(repo, base="HEAD")


def test_the_not_compared_note_survives_another_failure(repo: Path, capsys):
    _renamed(repo, "2027-02", "1")
    assert main(["--root", str(repo), "--check", "--base", "HEAD"]) == 1   # check 10: generated/ is missing
    captured = capsys.readouterr()
    assert "this is a new edition 2027-02: numbers not compared" in captured.out
    assert "check 10 (generated files)" in captured.err
    edit(STABLE.replace(EDITION, "constitution/2027-02"), 'status = "active"', 'status = "draft"')(repo)
    assert main(["--root", str(repo), "--base", "HEAD"]) == 1
    captured = capsys.readouterr()
    assert "check 7: not run against HEAD, because the checks below failed" in captured.out
    assert "check 6 (status and revision)" in captured.err
