"""What the fixes of the workflow rules share: a workflow read by ruamel's round trip, which knows
the line and column of every key, so a fix inserts or rewrites whole lines and every other byte of
the file stays as it was (`agent_constitution.checks.api.insert_lines`)."""

from __future__ import annotations

from io import StringIO


def round_trip(text: str):
    """The YAML document with its positions (ruamel's round-trip types), or None when it does not
    parse as one document."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        documents = [data for data in YAML(typ="rt", pure=True).load_all(StringIO(text)) if data is not None]
    except YAMLError:
        return None
    return documents[0] if len(documents) == 1 else None


def key_place(mapping, key: str, lines: list[str]) -> tuple[int, int] | None:
    """(0-based line, column) where a sibling key can be inserted before `key` of a block mapping:
    its line, or the first of the comment lines right above it (they belong to it); None for a flow
    mapping or a key that shares its line with something else."""
    if not hasattr(mapping, "lc") or mapping.fa.flow_style():
        return None
    row, column = mapping.lc.key(key)
    if row >= len(lines) or lines[row][:column].strip():
        return None
    while row > 0 and lines[row - 1].strip().startswith("#") and _indent(lines[row - 1]) == column:
        row -= 1
    return row, column


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def mapping_indent(mapping, lines: list[str], default: int = 2) -> int:
    """How far the keys of a block mapping stand in from the mapping's own key (its first key's column)."""
    if not hasattr(mapping, "lc") or mapping.fa.flow_style() or not mapping:
        return default
    return mapping.lc.key(next(iter(mapping)))[1]


ATTRIBUTES = ".gitattributes"
# What a gitattributes pattern cannot hold literally (a space ends it; the rest are glob or comment signs).
_NOT_LITERAL = set(" \t\"'*?[]\\#!")


def attribute_pattern(path: str) -> str | None:
    """The `.gitattributes` pattern that names exactly `path` (anchored to the file's folder: `/a/b.txt`),
    or None when the path holds a character a pattern cannot hold literally."""
    return None if _NOT_LITERAL & set(path) else "/" + path


def with_lines(text: str | None, added: list[str]) -> str:
    """A file's text (None: a new file) with `added` lines at its end; every byte before them kept."""
    from agent_constitution.checks.api import insert_lines

    if not text:
        return "".join(line + "\n" for line in added)
    return insert_lines(text, [(len(text.splitlines()), line) for line in added])
