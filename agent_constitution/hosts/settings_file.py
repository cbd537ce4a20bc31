"""The one reader and writer of an agent host's JSON settings file (`.claude/settings.json`,
`.codex/hooks.json`, `.gemini/settings.json`, `.cursor/hooks.json`, a `.grok/hooks/*.json`), shared
by compile and `pdks init`.

The file belongs to the user: a writer edits only the handlers it owns, in the text itself
(`json_edit`), so compact arrays, the indentation (spaces or a tab), the key order, the escaping of
non-ASCII text and the final newline outside our entries keep every byte, and taking our entries
out again gives back the bytes the file had before. A file compile creates is laid out as
`json.dumps(..., indent=2)` lays it out. These files have no comments (JSON has none) to keep.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError
from agent_constitution.hosts import json_edit
from agent_constitution.fsio import remove, write_atomic
from agent_constitution.readers import parse_json, read_text

FIX = "repair the JSON by hand, then run the command again; the file is never overwritten"
_INDENT = re.compile(r"\n([ \t]+)\S")
NEW_FILE = "{}\n"  # what a file compile creates starts from


@dataclass(frozen=True)
class Layout:
    """How new entries are written: the file's indentation unit (None: the file is on one line) and
    whether it escapes non-ASCII text."""

    indent: str | None = "  "
    ascii: bool = False


def layout_of(text: str) -> Layout:
    found = _INDENT.search(text.strip())
    escaped = "\\u" in text and not any(ord(char) > 127 for char in text)
    return Layout(found.group(1) if found else None if text.strip() else "  ", escaped)


def read(path: Path) -> tuple[dict[str, Any], str]:
    """The settings object and the file's text; an absent or blank file is `{}` and `""`."""
    if not os.path.lexists(path):
        return {}, ""
    try:  # a folder, FIFO or device, bytes that are not UTF-8, JSON too deep: one message each
        text = read_text(path)
        if not text.strip():
            return {}, text
        data = parse_json(text, path)
    except UserError as error:
        error.fix = error.fix or FIX
        raise
    if not isinstance(data, dict):
        raise UserError("a settings file is a JSON object", file=path, fix=FIX)
    return data, text


def _document(path: Path, text: str) -> json_edit.Document:
    if not text.strip():
        return json_edit.Document(NEW_FILE, indent=Layout().indent, ascii=False)
    layout = layout_of(text)
    try:
        return json_edit.Document(text, indent=layout.indent, ascii=layout.ascii)
    except RecursionError:
        raise UserError("values are nested too deeply to edit", file=path, fix=FIX) from None


def _check_shape(data: dict[str, Any], event: str, path: Path) -> None:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise UserError("'hooks' is not an object", file=path, field="hooks", fix=FIX)
    if not isinstance(hooks.get(event, []), list):
        raise UserError(f"'hooks.{event}' is not a list", file=path, field=f"hooks.{event}", fix=FIX)


def _handlers(groups: list, grouped: bool = True, key: str = "command") -> list[tuple[tuple[int, ...], dict[str, Any]]]:
    """The handlers under one event with their places in it: inside matcher groups (`{matcher,
    hooks: [...]}`: Claude Code, Codex, Grok, Gemini CLI), or listed under the event itself
    (Cursor, Copilot)."""
    if not grouped:
        return [((i,), h) for i, h in enumerate(groups) if isinstance(h, dict) and isinstance(h.get(key), str)]
    return [
        ((i, "hooks", j), handler)
        for i, group in enumerate(groups)
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for j, handler in enumerate(group["hooks"])
        if isinstance(handler, dict) and isinstance(handler.get(key), str)
    ]


def merge_hook(
    path: Path,
    event: str,
    handler: dict[str, Any],
    *,
    matcher: str | None,
    runs: Callable[[str], bool],
    ours: Callable[[str], bool],
    force: bool = False,
    grouped: bool = True,
    key: str = "command",
    top: dict[str, Any] | None = None,
    retired: tuple[str, ...] = (),
) -> bool:
    """Make `hooks.<event>` hold `handler`; True when the file was written.

    `runs(command)`: the handler runs our program (any form); `ours(command)`: in a form we wrote,
    which may be replaced. A handler that runs the program in another form is the user's choice
    and is kept as it is, unless `force` (the user just named a command: `pdks init --command`).
    `grouped`: the file nests handlers in matcher groups; otherwise they are listed under the
    event, the matcher on the handler. `key`: the handler's command key; `top`: keys the file needs
    at its top level (`version: 1`), added when missing and never changed; `retired`: keys an older
    version wrote on our handler, taken off it.
    """
    data, text = read(path)
    _check_shape(data, event, path)
    document = _document(path, text)
    for name, value in (top or {}).items():
        if name not in data:
            document.add((), value, name)
    if grouped:
        entry: dict[str, Any] = {"matcher": matcher} if matcher is not None else {}
        entry["hooks"] = [handler]
    else:
        entry = {**handler, **({"matcher": matcher} if matcher is not None else {})}
    groups = data.get("hooks", {}).get(event)
    found = [(place, h) for place, h in _handlers(groups or [], grouped, key) if runs(h[key])]
    mine = [(place, h) for place, h in found if force or ours(h[key]) or h[key] == handler[key]]
    if found and not mine:
        return False  # somebody chose another command for our program: theirs to keep
    if mine:
        place, current = mine[0]
        at = ("hooks", event, *place)
        for name in reversed([name for name in current if name in retired]):
            document.delete((*at, name))
        for name, value in handler.items():  # the user's other keys on our handler (an `if`, say) stay
            if name not in current:
                document.add(at, value, name)
            elif current[name] != value:
                document.replace((*at, name), value)
    elif "hooks" not in data:
        document.add((), {event: [entry]}, "hooks")
    elif groups is None:
        document.add(("hooks",), [entry], event)
    else:
        document.add(("hooks", event), entry)
    if document.text == text:
        return False
    write_atomic(path, document.text)
    return True


def remove_hooks(path: Path, ours: Callable[[str], bool], *, grouped: bool = True, key: str = "command",
                 top: dict[str, Any] | None = None) -> bool:
    """Take every handler whose command is ours out of the file, with the group, event and `hooks`
    object that held only ours; delete the file when nothing of the user's is left (the `top` keys
    compile added are not the user's). True when it changed."""
    if not path.exists():
        return False
    data, text = read(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        return False
    doomed: list[tuple[str | int, ...]] = []
    emptied = 0
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        places = [place for place, h in _handlers(groups, grouped, key) if ours(h[key])]
        gone = {place[0] for place in places if not grouped or len(groups[place[0]]["hooks"]) == sum(
            1 for other in places if other[0] == place[0])}
        if places and len(gone) == len(groups):
            doomed.append(("hooks", event))
            emptied += 1
            continue
        doomed += [("hooks", event, i) for i in sorted(gone)]
        doomed += [("hooks", event, *place) for place in places if place[0] not in gone]
    if not doomed:
        return False
    rest = {name: value for name, value in data.items() if name != "hooks" or emptied < len(hooks)}
    if not rest or rest == (top or {}):
        remove(path, within=path.parent)  # through fsio: a compile that fails later puts it back
        return True
    if emptied == len(hooks):
        doomed = [("hooks",)]
    document = _document(path, text)
    for place in sorted(doomed, key=lambda place: document.node(place).start, reverse=True):
        document.delete(place)
    write_atomic(path, document.text)
    return True
