"""One bad input per check: the build fails with that check's message and writes nothing."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_constitution.edition.build import build
from agent_constitution.edition.cli import main
from agent_constitution.edition.failures import ChecksFailed

from .support import snapshot

EDITION = "constitution/2026-10"
MUST_ASK = f"{EDITION}/articles/04-authority/01-must-ask.toml"
STABLE = f"{EDITION}/articles/03-process/02-stable.toml"
RETIRED = f"{EDITION}/articles/03-process/03-retired.toml"


def edit(path: str, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        file = root / path
        text = file.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {path}"
        file.write_text(text.replace(old, new, 1), encoding="utf-8")
    return change


def write(path: str, text: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return change


def move(old: str, new: str) -> Callable[[Path], None]:
    return lambda root: (root / old).rename(root / new)


def draft(root: Path) -> None:
    edit(f"{EDITION}/index.toml", 'status = "active"', 'status = "draft"')(root)
    edit(f"{EDITION}/index.toml", 'revision = "3"', 'revision = "0.1"')(root)


def both(*changes: Callable[[Path], None]) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        for one in changes:
            one(root)
    return change


CASES = {
    # 1: edition discovery
    "no constitution folder": (lambda root: shutil.rmtree(root / "constitution"), ["check 1 (edition)", "no constitution/ folder"]),
    "no index.toml": (lambda root: (root / EDITION / "index.toml").unlink(), ["check 1 (edition)", "no edition folder"]),
    "two editions": (write("constitution/2027-01/index.toml", ""), ["check 1 (edition)", "several edition folders",
                                                                   "constitution/2026-10, constitution/2027-01"]),
    # 2: schema
    "unknown key": (edit(STABLE, 'status = "active"', 'status = "active"\nweight = 3'),
                    [f"{STABLE}:3: weight: check 2 (schema): unknown key", "fix: remove it; the keys here are: id, status"]),
    "unknown item key": (edit(MUST_ASK, 'number = "7"', 'number = "7"\ncolour = "red"'),
                         ["items[5].colour: check 2 (schema): unknown key", "keys here are: id, number"]),
    "missing key": (edit(f"{EDITION}/articles/01-purpose/article.toml", 'id = "purpose"\n', ""),
                    ["01-purpose/article.toml: id: check 2 (schema): required key is missing", "fix: add id"]),
    "bad toml": (edit(STABLE, 'status = "active"', "status = active"), [f"{STABLE}:2: check 2 (schema): not valid TOML"]),
    "bad month": (edit(f"{EDITION}/articles/02-old-rules/article.toml", '"2026-11"', '"2026-13"'),
                  ["repealed: check 2 (schema): '2026-13' is not a month written YYYY-MM"]),
    "bad id": (edit(STABLE, 'id = "stable"', 'id = "Stable_Numbers"'), ["id: check 2 (schema): 'Stable_Numbers' is not lower-case words"]),
    "bad audience": (edit(STABLE, 'status = "active"', 'status = "active"\naudience = "humans"'),
                     ["audience: check 2 (schema): 'humans' is not one of 'maintainers'"]),
    "number for a string": (edit(f"{EDITION}/index.toml", 'revision = "3"', "revision = 3"),
                            ["index.toml:3: revision: check 2 (schema): 3 is not a string",
                             'fix: write it in quotes, e.g. revision = "3"']),
    "byte order mark": (lambda root: (root / STABLE).write_bytes(b"\xef\xbb\xbf" + (root / STABLE).read_bytes()),
                        [f"{STABLE}: check 2 (schema): the file starts with a UTF-8 byte order mark (BOM)",
                         "fix: save the file as UTF-8 without a BOM"]),
    "a language that is not a string": (edit(f"{EDITION}/index.toml", '["en", "zh"]', '["en", 1]'),
                                        ["languages[1]: check 2 (schema): 1 is not a string",
                                         'fix: write every entry of languages in quotes, e.g. "1"']),
    "items that are not tables": (edit(STABLE, 'status = "active"', 'status = "active"\nitems = ["x"]'),
                                  ["items[0]: check 2 (schema): 'x' is not an item", "as an [[items]] table"]),
    "content that is not a table": (edit(f"{EDITION}/articles/01-purpose/02-order.toml",
                                         '[content]\nen = "Where two provisions conflict, the earlier one wins."\n'
                                         'zh = "两条条文冲突时，以在前的为准。"', 'content = "x"'),
                                    ["content: check 2 (schema): 'x' is not a table", "as a table [content]"]),
    "title of two lines": (edit(f"{EDITION}/articles/01-purpose/article.toml", 'en = "Purpose"', 'en = "Pur\\npose"'),
                           ["01-purpose/article.toml:4: title.en: check 2 (schema): 'Pur\\npose' is not one line of text"]),
    "title with a trailing space": (edit(f"{EDITION}/index.toml", '"Agent Constitution"', '"Agent Constitution "'),
                                    ["title.en: check 2 (schema): 'Agent Constitution ' is not one line of text"]),
    "stray file": (write(f"{EDITION}/README.md", "notes"), [f"{EDITION}/README.md: check 2 (schema): not a constitution source file"]),
    "no article.toml": (lambda root: (root / EDITION / "articles/01-purpose/article.toml").unlink(),
                        ["check 2 (schema): the article folder has no article.toml"]),
    # 3: id = name
    "article id differs": (edit(f"{EDITION}/articles/01-purpose/article.toml", 'id = "purpose"', 'id = "aim"'),
                           ["check 3 (id = name): id 'aim' differs from the folder name's 'purpose'", "rename the folder to 01-aim"]),
    "section id differs": (edit(STABLE, 'id = "stable"', 'id = "steady"'),
                           ["check 3 (id = name): id 'steady' differs from the file name's 'stable'", "02-steady.toml"]),
    "edition differs from the folder": (edit(f"{EDITION}/index.toml", 'edition = "2026-10"', 'edition = "2026-11"'),
                                        ["index.toml:2: edition: check 3 (id = name): edition '2026-11' differs from the folder name",
                                         "rename the folder to constitution/2026-11"]),
    # 4: unique ids
    "section id equals an article id": (
        both(move(STABLE, f"{EDITION}/articles/03-process/02-purpose.toml"),
             edit(f"{EDITION}/articles/03-process/02-purpose.toml", 'id = "stable"', 'id = "purpose"')),
        ["check 4 (unique ids): id 'purpose' is already used by", "share one namespace"]),
    "item ids repeat": (edit(MUST_ASK, 'id = "publish"', 'id = "capital"'),
                        ["items[5].id: check 4 (unique ids): id 'capital' is already used by items[0]"]),
    # 5: numbering
    "section number twice": (write(f"{EDITION}/articles/03-process/02-twice.toml",
                                   'id = "twice"\nstatus = "active"\n[content]\nen = "x"\nzh = "x"\n'),
                             ["check 5 (numbering): number 2 is used twice in article process"]),
    "item number twice": (edit(MUST_ASK, 'number = "7"', 'number = "2a"'), ["number 2a is used twice in section must-ask"]),
    "bad section file name": (move(STABLE, f"{EDITION}/articles/03-process/2-stable.toml"),
                              ["2-stable.toml: check 5 (numbering): the name does not carry a number", "<NN>[a-z]-<id>.toml"]),
    "article suffix": (move(f"{EDITION}/articles/04-authority", f"{EDITION}/articles/04a-authority"),
                       ["check 5 (numbering): article folder '04a-authority' has a suffix letter"]),
    "number zero": (move(STABLE, f"{EDITION}/articles/03-process/00-stable.toml"), ["check 5 (numbering): numbers start at 01"]),
    "article number beyond Roman numerals": (move(f"{EDITION}/articles/04-authority", f"{EDITION}/articles/4000-authority"),
                                             ["4000-authority: check 5 (numbering): number 4000 is larger than 3999"]),
    "item number beyond Roman numerals": (edit(MUST_ASK, 'number = "7"', 'number = "4000"'),
                                          ["items[5].number: check 5 (numbering): number 4000 is larger than 3999",
                                           "fix: use a number from 1 to 3999"]),
    "bad item number": (edit(MUST_ASK, 'number = "7"', 'number = "07"'),
                        ["items[5].number: check 5 (numbering): item number '07' is not an integer from 1"]),
    "suffix in a draft": (both(draft, lambda root: [p.write_text(p.read_text(encoding="utf-8").replace('"active"', '"draft"').replace(
        'status = "repealed"', 'status = "draft"'), encoding="utf-8") for p in (root / EDITION).rglob("*.toml")]),
        ["check 5 (numbering): number 2a has a suffix letter, but the edition is a draft"]),
    # 6: status and revision
    "active provision in a draft": (draft, ["check 6 (status and revision): status 'active' in an edition whose status is 'draft'",
                                            "check 6 (status and revision): a draft repeals nothing"]),
    "draft provision when active": (edit(STABLE, 'status = "active"', 'status = "draft"'),
                                    [f"{STABLE}:2: status: check 6 (status and revision): status 'draft' in an edition whose status is",
                                     "'active'"]),
    "repealed without month": (edit(STABLE, 'status = "active"', 'status = "repealed"'),
                               ["repealed: check 6 (status and revision): repealed is present exactly when", 'add repealed = "YYYY-MM"']),
    "month without repeal": (edit(STABLE, 'status = "active"', 'status = "active"\nrepealed = "2026-11"'),
                             ["repealed: check 6 (status and revision): repealed is present exactly when"]),
    "draft revision when active": (edit(f"{EDITION}/index.toml", 'revision = "3"', 'revision = "0.4"'),
                                   ["revision: check 6 (status and revision): revision '0.4' of an active edition is not an integer"]),
    "integer revision in a draft": (both(draft, edit(f"{EDITION}/index.toml", 'revision = "0.1"', 'revision = "2"')),
                                    ["check 6 (status and revision): revision '2' of a draft is not 0.<n>"]),
    "section of a repealed article in force": (
        edit(f"{EDITION}/articles/02-old-rules/01-legacy.toml", 'status = "repealed"\nrepealed = "2026-11"', 'status = "active"'),
        ["check 6 (status and revision): the article is repealed, so this provision is too"]),
    "no content": (write(STABLE, 'id = "stable"\nstatus = "active"\n'), ["content: check 6 (status and revision): content is missing"]),
    # 8: languages
    "missing language": (edit(STABLE, 'zh = "同一版内编号不变。"', ""), ["content.zh: check 8 (languages): no 'zh' text"]),
    "extra language": (edit(STABLE, 'zh = "同一版内编号不变。"', 'zh = "同一版内编号不变。"\nfr = "x"'),
                       ["content.fr: check 8 (languages): 'fr' is not a language of this edition"]),
    "unknown language": (lambda root: [p.write_text(p.read_text(encoding="utf-8").replace("zh", "xx"), encoding="utf-8")
                                       for p in (root / EDITION).rglob("*.toml")],
                         ["languages: check 8 (languages): language 'xx' has no entry in the build's LANGUAGES table"]),
    "empty text": (edit(STABLE, 'en = "Numbers never change within an edition."', 'en = ""'),
                   ["content.en: check 8 (languages): the 'en' text is empty", 'repealed instead (status = "repealed")']),
    "whitespace-only text": (edit(f"{EDITION}/articles/01-purpose/article.toml", 'zh = "本条说明宪法为什么存在。"', "zh = '''\n   \n'''"),
                             ["intro.zh: check 8 (languages): the 'zh' text is empty", "or remove [intro] (it is optional)"]),
    "languages cite different provisions": (
        edit(STABLE, 'zh = "同一版内编号不变。"', 'zh = "同一版内编号不变 ({@must-ask})。"'),
        ["content.zh: check 8 (languages): the 'zh' text cites other provisions than the 'en' text: it adds {@must-ask}"]),
    # 9: references
    "unresolved reference": (both(edit(STABLE, "Numbers never change", "{@must-ask.capitol} Numbers never change"),
                                  edit(STABLE, "同一版内编号不变", "{@must-ask.capitol}同一版内编号不变")),
                             ["content.en: check 9 (references): {@must-ask.capitol} names no article, section or item",
                              "did you mean {@must-ask.capital}?"]),
    # Seed 001: a repealed article renders "nothing under it" and every link is `[<ref>]: #<ref>` to the
    # provision's own anchor, so a provision inside a repealed article or section cannot be linked.
    "reference into a repealed article": (
        both(edit(STABLE, "Numbers never change", "{@legacy} Numbers never change"),
             edit(STABLE, "同一版内编号不变", "{@legacy}同一版内编号不变")),
        ["content.en: check 9 (references): {@legacy} names a section of repealed article {@old-rules}, which renders as",
         "fix: refer to {@old-rules} instead"]),
    "reference to an item of a repealed section": (
        both(lambda root: (root / RETIRED).write_text((root / RETIRED).read_text(encoding="utf-8") +
                                                     '\n[[items]]\nid = "old"\nnumber = "1"\nstatus = "repealed"\n'
                                                     'repealed = "2027-03"\n', encoding="utf-8"),
             edit(STABLE, "Numbers never change", "{@retired.old} Numbers never change"),
             edit(STABLE, "同一版内编号不变", "{@retired.old}同一版内编号不变")),
        ["check 9 (references): {@retired.old} names an item of repealed section {@retired}", "refer to {@retired} instead"]),
    # A reference is `{@` and an id with nothing else: these would otherwise reach the output as text.
    "space after the @": (both(edit(STABLE, "Numbers never change", "{@ s01} Numbers never change"),
                              edit(STABLE, "同一版内编号不变", "{@ s01}同一版内编号不变")),
                         ["content.en: check 9 (references): {@ s01} is not a reference: it would appear as text"]),
    "space before the brace": (both(edit(STABLE, "Numbers never change", "{@s01 } Numbers never change"),
                                   edit(STABLE, "同一版内编号不变", "{@s01 }同一版内编号不变")),
                              ["check 9 (references): {@s01 } is not a reference"]),
    "space inside the id": (both(edit(STABLE, "Numbers never change", "{@must ask} Numbers never change"),
                                edit(STABLE, "同一版内编号不变", "{@must ask}同一版内编号不变")),
                           ["check 9 (references): {@must ask} is not a reference", "fix: write {@must-ask}"]),
    "reference in a title": (edit(f"{EDITION}/articles/01-purpose/article.toml", 'en = "Purpose"', 'en = "Purpose ({@authority})"'),
                             ["title.en: check 9 (references): a title holds no references, found {@authority}"]),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_fails_with_its_message_and_writes_nothing(case: str, active: Path, capsys):
    change, expected = CASES[case]
    change(active)
    before = snapshot(active)
    with pytest.raises(ChecksFailed) as failed:
        build(active)
    message = str(failed.value)
    for part in expected:
        assert part in message
    assert "Traceback" not in message
    assert "ItemEntry" not in message and "SectionFile" not in message, "a message names a class of the code"
    assert snapshot(active) == before
    # The command line says the same on stderr and exits non-zero.
    assert main(["--root", str(active)]) == 1
    assert capsys.readouterr().err.strip() == message
    assert snapshot(active) == before


def _built(root: Path) -> Path:
    build(root)
    return root / EDITION / "generated"


def test_check_10_missing_output(active: Path):
    (_built(active) / "constitution.zh.md").unlink()
    with pytest.raises(ChecksFailed, match=r"constitution.zh.md: check 10 \(generated files\): missing"):
        build(active, check=True)


def test_check_10_hand_edited_output(active: Path, capsys):
    generated = _built(active)
    with (generated / "constitution.en.agent.md").open("a", encoding="utf-8") as handle:
        handle.write("edited by hand\n")
    before = snapshot(active)
    assert main(["--root", str(active), "--check"]) == 1
    assert "constitution.en.agent.md: check 10 (generated files): out of date" in capsys.readouterr().err
    assert snapshot(active) == before


def test_check_10_stale_output(active: Path):
    (_built(active) / "constitution.fr.md").write_text("old\n", encoding="utf-8")
    with pytest.raises(ChecksFailed, match=r"constitution.fr.md: check 10 \(generated files\): not written by the build"):
        build(active, check=True)


def test_check_10_stale_source(active: Path):
    _built(active)
    edit(STABLE, "Numbers never change", "Numbers do not change")(active)
    with pytest.raises(ChecksFailed, match="constitution.en.md: check 10"):
        build(active, check=True)


def test_check_passes_and_writes_nothing(active: Path, capsys):
    generated = _built(active)
    before = snapshot(active)
    assert main(["--root", str(active), "--check"]) == 0
    assert capsys.readouterr().out == "constitution/2026-10: checks 1, 2, 3, 4, 5, 6, 8, 9, 10 passed\n"
    assert snapshot(active) == before
    assert generated.is_dir()


def test_every_failure_gets_its_own_message(active: Path):
    edit(STABLE, 'status = "active"', 'status = "draft"')(active)
    edit(MUST_ASK, 'number = "7"', 'number = "2a"')(active)
    with pytest.raises(ChecksFailed) as failed:
        build(active)
    assert len(failed.value.errors) == 2
    assert str(failed.value).count("error: ") == 2


def test_messages_carry_the_line_of_the_field():
    from agent_constitution.edition.files import _line

    lines = ['id = "x"', 'status = "active"', "", "[content]", 'en = "a"', "zh = '''", "b", "'''", "",
             "[[items]]", 'id = "one"', 'number = "1"', "[items.content]", 'en = "c"', "", "[[items]]", 'id = "two"']
    assert _line(lines, "status") == 2
    assert _line(lines, "content") == 4 and _line(lines, "content.zh") == 6
    assert _line(lines, "items[0]") == 10 and _line(lines, "items[0].number") == 12
    assert _line(lines, "items[0].content.en") == 14 and _line(lines, "items[1].id") == 17
    assert _line(lines, "repealed") is None and _line(lines, "items[2].id") is None and _line(lines, "items[1].content") is None


def test_references_to_repealed_provisions_warn(active: Path, capsys):
    """The fixture cites the repealed article old-rules, the repealed section retired and the repealed
    item must-ask.legal: the build passes and says so for each language."""
    warnings = [str(found) for found in build(active).warnings]
    decide = f"{EDITION}/articles/04-authority/02-decide-yourself.toml"
    for name in ("{@old-rules}", "{@retired}", "{@must-ask.legal}"):
        assert any(f"{decide}:5: content.en: check 9 (references): {name} names a repealed provision" in text
                   for text in warnings), name
    assert len(warnings) == 6
    assert main(["--root", str(active)]) == 0
    err = capsys.readouterr().err
    assert err.count("warning: ") == 6 and "error" not in err
