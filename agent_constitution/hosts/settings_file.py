"""The one reader and writer of an agent host's JSON settings file (`.claude/settings.json`,
`.codex/hooks.json`, a `.grok/hooks/*.json`), shared by compile and `pdks init`.

The file belongs to the user: a writer changes only the handlers it owns and leaves the file's
bytes alone when nothing of ours changed. When it must write, it writes with the indentation found
in the file (spaces or a tab), the same escaping of non-ASCII text and the same final newline, so a
file that was laid out the way `json.dumps` lays out JSON (what every host and editor writes)
differs only in our entries. These files have no comments (JSON has none) to keep.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic

FIX = "repair the JSON by hand, then run the command again; the file is never overwritten"
_INDENT = re.compile(r"\{\s*?\n([ \t]+)\S")


@dataclass(frozen=True)
class Layout:
    """How the file is written: what `json.dumps` needs to write it back the same way."""

    indent: str = "  "
    ascii: bool = False
    newline: bool = True


def layout_of(text: str) -> Layout:
    found = _INDENT.match(text.lstrip("\ufeff"))
    escaped = "\\u" in text and not any(ord(char) > 127 for char in text)
    return Layout(found.group(1) if found else "  ", escaped, text.endswith("\n") or not text)


def dumps(data: Any, layout: Layout) -> str:
    return json.dumps(data, indent=layout.indent, ensure_ascii=layout.ascii) + ("\n" if layout.newline else "")


def read(path: Path) -> tuple[dict[str, Any], Layout]:
    """The settings object and its layout; an absent or empty file is `{}`."""
    from agent_constitution.readers import parse_json, read_text

    if not os.path.lexists(path):
        return {}, Layout()
    try:  # a folder, FIFO or device, bytes that are not UTF-8, JSON too deep: one message each
        text = read_text(path)
        if not text.strip():
            return {}, layout_of(text)
        data = parse_json(text, path)
    except UserError as error:
        error.fix = error.fix or FIX
        raise
    if not isinstance(data, dict):
        raise UserError("a settings file is a JSON object", file=path, fix=FIX)
    return data, layout_of(text)


def _groups(data: dict[str, Any], event: str, path: Path, create: bool) -> list | None:
    hooks = data.setdefault("hooks", {}) if create else data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise UserError("'hooks' is not an object", file=path, field="hooks", fix=FIX)
    groups = hooks.setdefault(event, []) if create else hooks.get(event)
    if groups is not None and not isinstance(groups, list):
        raise UserError(f"'hooks.{event}' is not a list", file=path, field=f"hooks.{event}", fix=FIX)
    return groups


def _handlers(groups: list, grouped: bool = True, key: str = "command") -> list[dict[str, Any]]:
    """The handlers under one event: inside matcher groups (`{matcher, hooks: [...]}`: Claude Code,
    Codex, Grok, Gemini CLI), or listed under the event itself (Cursor, Copilot)."""
    if not grouped:
        return [h for h in groups if isinstance(h, dict) and isinstance(h.get(key), str)]
    return [
        handler
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
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
) -> bool:
    """Make `hooks.<event>` hold `handler`; True when the file was written.

    `runs(command)`: the handler runs our program (any form); `ours(command)`: in a form we wrote,
    which may be replaced. A handler that runs the program in another form is the user's choice
    and is kept as it is, unless `force` (the user just named a command: `pdks init --command`).
    `grouped`: the file nests handlers in matcher groups; otherwise they are listed under the
    event, the matcher on the handler. `key`: the handler's command key; `top`: keys the file needs
    at its top level (`version: 1`), added when missing and never changed.
    """
    data, layout = read(path)
    before = dumps(data, layout)
    for name, value in (top or {}).items():
        data.setdefault(name, value)
    groups = _groups(data, event, path, create=True)
    found = [h for h in _handlers(groups, grouped, key) if runs(h[key])]
    mine = [h for h in found if force or ours(h[key]) or h[key] == handler[key]]
    if found and not mine:
        return False  # somebody chose another command for our program: theirs to keep
    if mine:
        mine[0].update(handler)  # the user's other keys on our handler (an `if`, say) stay
    elif not grouped:
        groups.append({**handler, **({"matcher": matcher} if matcher is not None else {})})
    else:
        group: dict[str, Any] = {"matcher": matcher} if matcher is not None else {}
        group["hooks"] = [handler]
        groups.append(group)
    after = dumps(data, layout)
    if after == before:
        return False
    write_atomic(path, after)
    return True


def remove_hooks(path: Path, ours: Callable[[str], bool], *, grouped: bool = True, key: str = "command",
                 top: dict[str, Any] | None = None) -> bool:
    """Take every handler whose command is ours out of the file; delete the file when nothing of
    the user's is left (the `top` keys compile added are not the user's). True when it changed."""
    if not path.exists():
        return False
    data, layout = read(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        return False
    changed = False
    for event in list(hooks):
        groups = hooks[event] if isinstance(hooks[event], list) else []
        if not grouped:
            kept = [h for h in groups if not (isinstance(h, dict) and isinstance(h.get(key), str) and ours(h[key]))]
            changed = changed or len(kept) != len(groups)
            groups[:] = kept
        for group in list(groups) if grouped else ():
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            kept = [h for h in group["hooks"] if not (isinstance(h, dict) and isinstance(h.get("command"), str)
                                                     and ours(h["command"]))]
            if len(kept) != len(group["hooks"]):
                changed = True
                if kept:
                    group["hooks"] = kept
                else:
                    groups.remove(group)
        if isinstance(hooks[event], list) and not hooks[event]:
            del hooks[event]
    if not changed:
        return False
    if not hooks:
        data.pop("hooks", None)
    if not data or data == (top or {}):
        path.unlink()
    else:
        write_atomic(path, dumps(data, layout))
    return True
