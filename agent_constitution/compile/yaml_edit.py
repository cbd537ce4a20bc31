"""Edits of a YAML file compile does not own, as text: every byte outside our entries stays.

A round-trip dump (ruamel.yaml) keeps comments but not the file's indentation, blank lines or list
style, so the file is edited the way a person would edit it: ruamel.yaml's round-trip loader only
says where things are (line and column of each key, value and list item), and our entries are
spliced into the text at those places, rendered with the indentation found in the file. A value of
ours that changed is replaced in its line; an entry of ours that is added goes after the last item
of its list (or key of its mapping), at the column of that list's dashes; one that is removed takes
its lines with it.

ruamel.yaml is imported by the functions that use it, not with the module: `compile.hooks` imports
this module to write any hook file, and a repository without a pre-commit or lefthook file would pay
22 ms of CPU for it (a thirtieth of a 50-rule compile, bench/bench_peers.py).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from agent_constitution.errors import UserError

if TYPE_CHECKING:  # the annotations' names; the functions import what they use
    from ruamel.yaml.comments import CommentedMap, CommentedSeq


def load(text: str, path) -> Any:
    from ruamel.yaml import YAML

    try:
        return YAML().load(text)
    except Exception as error:  # ruamel raises many types; the user needs the message only
        raise UserError(f"not valid YAML: {error}", file=path, fix="repair the file; compile never overwrites it") from None


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _meaningful(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def render(data: Any, column: int, *, sequence: int = 2, offset: int = 0, mapping: int = 2) -> str:
    """`data` (a list or a mapping) as block YAML, every line moved right by `column`.

    `sequence` and `offset` are ruamel's list indentation: the column of an item's content and of
    its dash, relative to the parent key."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(data, out)
    return "".join(" " * column + line if line.strip() else line for line in lines_of(out.getvalue()))


def scalar(value: Any) -> str:
    """How `value` is written after `key: ` (quoted when YAML needs it)."""
    return render({"k": value}, 0).removeprefix("k: ").rstrip("\n")


def dash_column(lines: list[str], seq: CommentedSeq, index: int) -> int:
    line, column = seq.lc.item(index)
    return lines[line][:column].rstrip().rfind("-") if "-" in lines[line][:column] else column


def item_lines(lines: list[str], seq: CommentedSeq, index: int) -> tuple[int, int]:
    """[start, end) of a block list item's lines, without the blank and comment lines after it."""
    start = seq.lc.item(index)[0]
    if index + 1 < len(seq):
        end = seq.lc.item(index + 1)[0]
    else:
        dash = dash_column(lines, seq, index)
        end = next((n for n in range(start + 1, len(lines)) if _meaningful(lines[n]) and _indent(lines[n]) <= dash),
                   len(lines))
    while end - 1 > start and not _meaningful(lines[end - 1]):
        end -= 1
    return start, end


def key_lines(lines: list[str], mapping: CommentedMap, key: str) -> tuple[int, int]:
    """[start, end) of one key of a block mapping, with its value."""
    keys = list(mapping)
    start, column = mapping.lc.key(key)
    position = keys.index(key)
    if position + 1 < len(keys):
        end = mapping.lc.key(keys[position + 1])[0]
    else:
        end = next((n for n in range(start + 1, len(lines)) if _meaningful(lines[n]) and _indent(lines[n]) <= column),
                   len(lines))
    while end - 1 > start and not _meaningful(lines[end - 1]):
        end -= 1
    return start, end


def set_value(lines: list[str], mapping: CommentedMap, key: str, value: Any) -> bool:
    """Replace a one-line scalar value in its line, keeping what follows it (a comment). False when
    the value is not a one-line scalar (the caller then replaces the whole entry)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(mapping[key], (CommentedMap, CommentedSeq)):
        return False
    line, column = mapping.lc.value(key)
    text = lines[line]
    rest = text[column:]
    end = _scalar_end(rest)
    if end is None:
        return False
    lines[line] = text[:column] + scalar(value) + rest[end:]
    return True


def _scalar_end(rest: str) -> int | None:
    """Where the scalar at the start of `rest` ends on its line; None when it continues."""
    if rest[:1] in ("'", '"'):
        quote, i = rest[0], 1
        while i < len(rest):
            if rest[i] == "\\" and quote == '"':
                i += 2
                continue
            if rest[i] == quote:
                if quote == "'" and rest[i + 1:i + 2] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        return None
    if rest[:1] in ("|", ">", "&", "*", "!", "[", "{"):
        return None
    body = rest.rstrip("\r\n")
    comment = body.find(" #")
    return len(body[:comment].rstrip()) if comment >= 0 else len(body.rstrip())


def block_list(seq: Any) -> bool:
    from ruamel.yaml.comments import CommentedSeq

    return isinstance(seq, CommentedSeq) and len(seq) > 0 and not seq.fa.flow_style()


def block_map(mapping: Any) -> bool:
    from ruamel.yaml.comments import CommentedMap

    return isinstance(mapping, CommentedMap) and len(mapping) > 0 and not mapping.fa.flow_style()


def mapping_step(mapping: CommentedMap, column: int) -> int:
    """How far the keys of the first nested mapping of `mapping` (at `column`) are indented; 2 if none."""
    from ruamel.yaml.comments import CommentedMap

    for value in mapping.values():
        if isinstance(value, CommentedMap) and len(value) and not value.fa.flow_style():
            return value.lc.key(next(iter(value)))[1] - column
    return 2


def list_style(lines: list[str], seq: CommentedSeq, key_column: int) -> tuple[int, int]:
    """(dash column, content column) of a block list whose key is at `key_column`, as ruamel's
    (offset, sequence) relative to that key."""
    dash = dash_column(lines, seq, 0)
    content = seq.lc.item(0)[1]
    return dash - key_column, content - key_column
