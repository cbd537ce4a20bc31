"""Editing a JSON text in place: the bytes outside the edited entries stay as the user wrote them.

A host's settings file is the user's (`.claude/settings.json`, `.gemini/settings.json`, a Cursor
or Codex hooks file): compact arrays on one line, four spaces or a tab, their own key order. Loading
it with `json` and writing it back with `json.dumps` re-flows all of that, so the writers edit the
text instead, like `compile/yaml_edit.py` does for YAML: `parse` finds where each value starts and
ends, and each edit splices one value, member or item. An entry is added at the end of its object or
array, written in the layout of its neighbours (their line's indentation and separators; on one
line when its container is on one line), and deleting it takes out exactly the bytes adding it put
in, so adding our entries and removing them again gives back the original bytes.

The text is valid JSON before it reaches here (`readers.parse_json`), so the scanner below does not
diagnose; JSON has no comments to keep.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")
_LINE_INDENT = re.compile(r"[ \t]*")

Path = tuple[str | int, ...]  # keys and indices from the top-level value down


@dataclass(frozen=True)
class Node:
    """One value of the text: where it starts and ends, and its members or items with their spans
    (a member's span runs from its key to the end of its value)."""

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    keys: tuple[str, ...] = ()  # an object's keys, in the text's order
    spans: tuple[tuple[int, int], ...] = ()  # each member's or item's span
    children: tuple[Node, ...] = ()


def parse(text: str, at: int = 0) -> Node:
    """The value starting at `at` (after any whitespace)."""
    at = _SPACE.match(text, at).end()
    opener = text[at]
    if opener == '"':
        return Node(at, scanstring(text, at + 1)[1], "scalar")
    if opener not in "{[":
        return Node(at, _SCALAR.match(text, at).end(), "scalar")
    closer, keys, spans, children = "}" if opener == "{" else "]", [], [], []
    index = _SPACE.match(text, at + 1).end()
    while text[index] != closer:
        start = index
        if opener == "{":
            key, index = scanstring(text, index + 1)
            keys.append(key)
            index = _SPACE.match(text, index).end() + 1  # the colon
        child = parse(text, index)
        children.append(child)
        spans.append((start, child.end))
        index = _SPACE.match(text, child.end).end()
        if text[index] == ",":
            index = _SPACE.match(text, index + 1).end()
    kind = "object" if opener == "{" else "array"
    return Node(at, index + 1, kind, tuple(keys), tuple(spans), tuple(children))


def _position(node: Node, step: str | int) -> int:
    if node.kind == "object":
        # json.loads keeps the last of two equal keys: so does every edit
        return len(node.keys) - 1 - node.keys[::-1].index(step)
    return step if step >= 0 else len(node.children) + step


def indent_of(text: str, at: int) -> str:
    """The indentation of the line `at` is on."""
    return _LINE_INDENT.match(text, text.rfind("\n", 0, at) + 1).group()


class Document:
    """A JSON text and the edits made to it; `text` is the result."""

    def __init__(self, text: str, *, indent: str | None, ascii: bool) -> None:
        self.text, self.indent, self.ascii = text, indent, ascii
        self.root = parse(text)

    def node(self, path: Path) -> Node:
        node = self.root
        for step in path:
            node = node.children[_position(node, step)]
        return node

    def _render(self, value: Any, at: int, one_line: bool) -> str:
        if one_line or self.indent is None:
            return json.dumps(value, ensure_ascii=self.ascii)
        return json.dumps(value, indent=self.indent, ensure_ascii=self.ascii).replace("\n", "\n" + indent_of(self.text, at))

    def _splice(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self.root = parse(self.text)

    def replace(self, path: Path, value: Any) -> None:
        """Write `value` where the value at `path` is."""
        node = self.node(path)
        self._splice(node.start, node.end, self._render(value, node.start, "\n" not in self.text[node.start:node.end]))

    def add(self, path: Path, value: Any, key: str | None = None) -> None:
        """Add `value` at the end of the object (under `key`) or the array at `path`."""
        container = self.node(path)
        one_line = "\n" not in self.text[container.start:container.end]
        if container.spans:
            last_start, last_end = container.spans[-1]
            before = container.spans[-2][1] if len(container.spans) > 1 else container.start
            gap = self.text[before:last_start]  # the comma (or the bracket) and the whitespace after it
            gap = gap[gap.index(",") + 1:] if "," in gap else gap[1:]
            if not gap and one_line:  # one item on one line: space as the rest of the text does
                gap = "" if "," in self.text and ", " not in self.text else " "
            colon = self._colon(container)
            entry = json.dumps(key, ensure_ascii=self.ascii) + colon if key is not None else ""
            self._splice(last_end, last_end, "," + gap + entry + self._render(value, last_start, one_line))
            return
        entry = json.dumps(key, ensure_ascii=self.ascii) + ": " if key is not None else ""
        if self.indent is None:  # the whole text is on one line: so is the entry
            self._splice(container.start + 1, container.end - 1, entry + self._render(value, 0, True))
            return
        outer = indent_of(self.text, container.start)
        inner = outer + self.indent
        rendered = json.dumps(value, indent=self.indent, ensure_ascii=self.ascii).replace("\n", "\n" + inner)
        self._splice(container.start + 1, container.end - 1, "\n" + inner + entry + rendered + "\n" + outer)

    def _colon(self, container: Node) -> str:
        """What separates a key from its value in this object (`": "` by default)."""
        if container.kind != "object":
            return ": "
        start, _ = container.spans[-1]
        key_end = scanstring(self.text, start + 1)[1]
        return self.text[key_end:container.children[-1].start] or ":"

    def delete(self, path: Path) -> None:
        """Take the member or item at `path` out, with the separator adding it put in."""
        container = self.node(path[:-1])
        index = _position(container, path[-1])
        spans = container.spans
        if len(spans) == 1:
            self._splice(container.start + 1, container.end - 1, "")
        elif index > 0:
            self._splice(spans[index - 1][1], spans[index][1], "")
        else:
            self._splice(spans[0][0], spans[1][0], "")
