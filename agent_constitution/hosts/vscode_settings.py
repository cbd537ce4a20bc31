"""The one key compile may own in the repository's `.vscode/settings.json`: `"chat.useClaudeMdFile":
false`, which stops Copilot in VS Code reading the root `CLAUDE.md` a second time when that file is
`AGENTS.md` (`[compile] claude = "link"`; hosts/loaders/copilot.py).

Ownership is read from the file itself, like every other output's banner: the member compile adds
carries a comment on its line (`NOTE`, or `CREATED` when compile created the file), so a fresh clone
knows it too, and a key without that exact comment is the user's, whatever its value: compile never
adds a second one, changes it or takes it out. The member goes first in the top-level object (no
other member's comma to touch), on a line of its own where the `{` ends its line, and taking it out
removes exactly the bytes adding it put in: every other byte (comments, trailing commas, order,
indentation) stays the user's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent_constitution.errors import UserError
from agent_constitution.hosts import json_edit, jsonc

FILE = ".vscode/settings.json"
KEY = "chat.useClaudeMdFile"
_ENTRY = json.dumps(KEY) + ": false"
NOTE = 'agent-constitution: CLAUDE.md is AGENTS.md (claude = "link"), so Copilot reads it once'
CREATED = NOTE + "; compile created this file"
EMPTY = "{\n}\n"  # what compile's own file holds once its member is out


@dataclass(frozen=True)
class Found:
    """What the file holds of the key: `owner` is "compile", "user" or None (absent); `span`, the
    bytes compile's member took up, with `created` when compile created the file."""

    owner: str | None
    span: tuple[int, int] = (0, 0)
    created: bool = False


def _forms(note: str) -> tuple[str, str]:
    return " // " + note, " /* " + note + " */ "


def find(text: str) -> Found:
    """Where the key is in `text` (a `.vscode/settings.json`), and whose it is; a UserError when the
    file is not JSON with comments holding an object."""
    jsonc.loads(text, FILE)  # the error names the line
    root = json_edit.parse(jsonc.blank(text))
    if root.kind != "object":
        raise UserError("expected an object ({ ... }) holding the settings", file=FILE, line=1,
                        fix="put the settings between { and }, as VS Code writes the file")
    if KEY not in root.keys:
        return Found(None)
    index = len(root.keys) - 1 - root.keys[::-1].index(KEY)  # VS Code, like json.loads, keeps the last
    start, end = root.spans[index]
    if text[start:end] == _ENTRY:
        after = end + (text[end:end + 1] == ",")
        for note in (CREATED, NOTE):
            line, block = _forms(note)
            close = after + len(line)
            line_end = text.find("\n", close)
            if text.startswith(line, after) and not text[close:len(text) if line_end < 0 else line_end].strip():
                opening = text.rfind("\n", 0, start)
                if opening > 0 and text[opening - 1] == "\r":  # the line break compile wrote was the file's
                    opening -= 1
                if opening >= 0 and not text[opening:start].strip():
                    return Found("compile", (opening, close), note == CREATED)
            if text.startswith(block, after):
                return Found("compile", (start, after + len(block)), note == CREATED)
    return Found("user")


def added(text: str | None) -> str:
    """`text` (None: no file) with compile's member first in its object; `text` itself when the key is there."""
    if text is None:
        return "{" + "\n    " + _ENTRY + _forms(CREATED)[0] + "\n}\n"
    if find(text).owner is not None:
        return text
    root = json_edit.parse(jsonc.blank(text))
    brace = root.start + 1
    comma = "," if root.keys else ""
    line_end = text.find("\n", brace)
    if text[brace:len(text) if line_end < 0 else line_end].strip():  # more on the `{`'s line: a block comment
        return text[:brace] + _ENTRY + comma + _forms(NOTE)[1] + text[brace:]
    outer = json_edit.indent_of(text, root.start)
    own_line = root.keys and text.rfind("\n", 0, root.spans[0][0]) > root.start
    inner = json_edit.indent_of(text, root.spans[0][0]) if own_line else outer + "    "
    newline = "\r\n" if "\r\n" in text else "\n"
    return text[:brace] + newline + inner + _ENTRY + comma + _forms(NOTE)[0] + text[brace:]


def removed(text: str) -> str | None:
    """`text` without compile's member (None: the file compile created, nothing else left in it)."""
    found = find(text)
    if found.owner != "compile":
        return text
    start, end = found.span
    rest = text[:start] + text[end:]
    return None if found.created and rest == EMPTY else rest
