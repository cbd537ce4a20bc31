"""The rendered editions byte for byte (UPDATE_GOLDEN=1 rewrites the golden files; review the diff).

Where the `active` fixture exercises each row of seed 001's rendering table (both languages, both
editions): title — index.toml; article heading — every article; section — all; item —
must-ask.capital …; references to an article, a section, an item — decide-yourself, front, intro;
suffixes — section 02a-inserted, item must-ask.contracts (2a) and references to both; repealed section
— retired (also maintainers, so no star); repealed item — must-ask.legal; repealed article — 02-old-rules;
short forms after each connector (en or/to/,/and, zh 或/至/、/和) for items and sections, and the
cases that keep the full path — decide-yourself. Also: maintainers section (amendments) and item
(must-ask.secrets), front headings with stars, nested lists and blank lines in section (scope), item
(must-ask.hiring) and lead-in (escalate) content. The `draft` fixture: (draft)/(草案), the draft agent
note, a full edition without starred parts. test_seed_table.py checks each of the seed's literal
examples on a constitution laid out as the seed's example is.
"""

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from agent_constitution.edition.build import build
from agent_constitution.edition.languages import LANGUAGES

from .support import GOLDEN, copy_fixture

NAMES = ["constitution.en.md", "constitution.en.agent.md", "constitution.zh.md", "constitution.zh.agent.md", "manifest.json"]


@pytest.mark.parametrize("fixture", ["active", "draft"])
def test_outputs_match_golden_files(fixture: str, tmp_path: Path):
    root = copy_fixture(fixture, tmp_path)
    result = build(root)
    generated = root / result.edition.generated
    assert sorted(path.name for path in generated.iterdir()) == sorted(NAMES)
    for name in NAMES:
        data = (generated / name).read_bytes()
        golden = GOLDEN / fixture / name
        if os.environ.get("UPDATE_GOLDEN"):
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_bytes(data)
        assert data == golden.read_bytes(), name
        assert data.endswith(b"\n") and b"\r" not in data
        data.decode("utf-8")


def test_identical_sources_give_identical_bytes_and_a_second_build_writes_nothing(active: Path, tmp_path_factory):
    first = build(active)
    assert len(first.written) == 5
    assert build(active).written == ()
    other = copy_fixture("active", tmp_path_factory.mktemp("again"))
    build(other)
    for name in NAMES:
        assert (other / first.edition.generated / name).read_bytes() == (active / first.edition.generated / name).read_bytes()


def test_a_dropped_language_loses_its_files(active: Path):
    build(active)
    index = active / "constitution/2026-10/index.toml"
    index.write_text(index.read_text(encoding="utf-8").replace('languages = ["en", "zh"]', 'languages = ["en"]'), encoding="utf-8")
    for path in (active / "constitution/2026-10").rglob("*.toml"):
        text = path.read_text(encoding="utf-8")
        # Drop every zh table entry: the fixture writes them as `zh = '''…'''` or `zh = "…"`.
        text = re.sub(r"^zh = '''.*?'''\n", "", text, flags=re.S | re.M)
        text = re.sub(r'^zh = ".*"\n', "", text, flags=re.M)
        path.write_text(text, encoding="utf-8")
    result = build(active)
    assert "constitution/2026-10/generated/constitution.zh.md" in result.written
    assert sorted(p.name for p in (active / result.edition.generated).iterdir()) == [
        "constitution.en.agent.md", "constitution.en.md", "manifest.json"]


def test_a_third_language_is_one_entry_plus_keys(draft: Path, monkeypatch):
    monkeypatch.setitem(LANGUAGES, "fr", replace(LANGUAGES["en"], title="{title} (édition {edition})", section="art. {s}{sx}"))
    index = draft / "constitution/2026-12/index.toml"
    index.write_text(index.read_text(encoding="utf-8").replace('["en", "zh"]', '["en", "zh", "fr"]'), encoding="utf-8")
    for path in (draft / "constitution").rglob("*.toml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r'^en = (".*")$', r"en = \1\nfr = \1", text, flags=re.M), encoding="utf-8")
    result = build(draft)
    french = (draft / result.edition.generated / "constitution.fr.md").read_text(encoding="utf-8")
    assert "# Team Constitution (édition 2026-12)" in french
    assert '-   <a id="ask"></a>**art. 1** Ask before you act on:' in french
    assert (draft / result.edition.generated / "constitution.fr.agent.md").is_file()


def test_every_front_heading_carries_the_star():
    """Seed 001: '在完整版里，其中的每个标题 (## Preamble) 后面都带星号' — every heading of [front], in either
    Markdown form: ATX with a closing sequence (`### How to read it ###`, whose closing hashes would read
    as heading text if the star followed them) and setext (`Where it comes from` over `---`)."""
    full = (GOLDEN / "active" / "constitution.en.md").read_text(encoding="utf-8")
    star = '<sup class="omitted">*</sup>'
    assert f"## Preamble{star}\n" in full
    assert f"### How to read it{star}\n" in full and "###" + star not in full
    assert f"Where it comes from{star}\n-------------------\n" in full
    assert f"它从哪里来{star}\n==========\n" in (GOLDEN / "active" / "constitution.zh.md").read_text(encoding="utf-8")
