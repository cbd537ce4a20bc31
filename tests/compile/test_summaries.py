"""The kept summaries of the segments' resolutions (`ruleset.summary`): what each document says, read
from the kept file while the document is the one it was made from, made again from a rewritten one;
and the root index's nested segments found from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_constitution.compile.outputs.segment import nested_empty, nested_exclusions
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.ruleset import summary
from agent_constitution.ruleset.resolved import (
    VERSION, Resolved, ResolvedConstitution, ResolvedRule, ResolvedSkill, ResolvedSource, read_resolved, resolved_path,
)

TOOLS = {"python": "r", "tools": ["zizmor", "gofmt"], "install": {"zizmor": {"pypi": "zizmor==1.32.0"}}}


def _write(cache: Path, segment: str, rules: list[int], *, checks: dict | None = None) -> None:
    source = ResolvedSource(key="src", commit=None, digest=None, root="/sources/ac", trust=False, version=None,
                            language="en", aliases={}, nodes=(),
                            skills={"uv": ResolvedSkill((2,), "sha256:u"), "ruff": ResolvedSkill((9,), "sha256:r")})
    entries = tuple(
        ResolvedRule(source="ac", id=rule, revision=1, digest=f"sha256:{rule}", why="selected", status="active",
                     parent="d0", requires=(), title={"en": "t"}, text={"en": "x"}, check=(checks or {}).get(rule))
        for rule in rules
    )
    document = Resolved(version=VERSION, segment=segment, parent=None if segment == "." else ".",
                        constitution=ResolvedConstitution("ac", "2026-12", "0.2", "c", "/c"),
                        sources={"ac": source}, rules=entries)
    write_atomic(resolved_path(cache, segment), document.to_json())


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    (tmp_path / "resolved").mkdir()
    _write(tmp_path, ".", [1, 2])
    _write(tmp_path, "a", [1, 2, 3], checks={3: TOOLS})
    _write(tmp_path, "a/b", [1, 3])
    _write(tmp_path, "a/b/c", [1, 3])
    _write(tmp_path, "d", [2, 9])
    return tmp_path


SEGMENTS = (".", "a", "a/b", "a/b/c", "d")


def _forget(cache: Path) -> None:
    """As a new process starts: nothing held in memory."""
    for key in [key for key in summary._held if key[0] == cache]:
        del summary._held[key]


def test_a_summary_says_what_its_document_does_and_is_kept(cache, monkeypatch):
    found = summary.summaries(cache, SEGMENTS)
    assert found == {s: summary.Summary.of(read_resolved(resolved_path(cache, s))) for s in SEGMENTS}
    assert found["a"].selected == {("ac", 1), ("ac", 2), ("ac", 3)}
    assert found["a"].checks == (("ac:3", ("zizmor", "gofmt"), {"zizmor": {"pypi": "zizmor==1.32.0"}}),)
    assert [skill[2] for skill in found["d"].skills] == ["ruff", "uv"] and found["a/b"].skills == ()
    _forget(cache)

    def unread(path):
        raise AssertionError(f"read {path}")

    monkeypatch.setattr(summary, "read_resolved", unread)
    assert summary.summaries(cache, SEGMENTS) == found  # from the kept file alone


def test_a_rewritten_document_is_read_again(cache):
    summary.summaries(cache, SEGMENTS)
    _write(cache, "a/b", [1, 2, 3])
    assert summary.summaries(cache, SEGMENTS)["a/b"].selected == {("ac", 1), ("ac", 2), ("ac", 3)}
    _forget(cache)
    assert summary.summaries(cache, SEGMENTS)["a/b"].selected == {("ac", 1), ("ac", 2), ("ac", 3)}


@pytest.mark.parametrize("kept", [b"{not json", b'{"version": 1, "segments": {"a": {"document": 3}}}',
                                  b'{"version": 99, "segments": {}}', b"[]"])
def test_a_damaged_or_foreign_kept_file_is_as_none(cache, kept):
    expected = summary.summaries(cache, SEGMENTS)
    _forget(cache)
    (cache / summary.FILE).write_bytes(kept)
    assert summary.summaries(cache, SEGMENTS) == expected


def test_a_kept_entry_of_another_shape_is_made_again(cache):
    expected = summary.summaries(cache, SEGMENTS)
    _forget(cache)
    text = (cache / summary.FILE).read_text().replace('"selected":{"ac":[1,2]}', '"selected":{"ac":"x"}', 1)
    (cache / summary.FILE).write_text(text.replace('"selected": {"ac": [1, 2]}', '"selected": {"ac": "x"}', 1))
    assert summary.summaries(cache, SEGMENTS) == expected


def test_a_segment_without_a_document_is_the_readers_error(cache):
    resolved_path(cache, "d").unlink()
    with pytest.raises(UserError, match="not been resolved"):
        summary.summaries(cache, SEGMENTS)


def test_the_root_index_compares_a_nested_segment_with_its_nearest_enclosing_one(cache):
    # a/b leaves out ac:2 of a (not of the root, where it is in force too); a/b/c adds nothing to a/b.
    assert nested_empty(cache, SEGMENTS[1:]) == {"a/b", "a/b/c"}
    assert nested_exclusions(cache, SEGMENTS[1:]) == {"a/b": frozenset({("ac", 2)})}
