"""Codex: `apply_patch` and `Bash` PreToolUse payloads into the input IR (§9.2).

A V4A patch (`*** Begin Patch` … `*** End Patch`) becomes one toolCall per file it touches, each
with the change it would make computed against the file on disk; `Bash` becomes one call with its
command. Paths resolve against the payload's `cwd` and must stay inside the project. Codex carries no
session and no actor in this IR.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_constitution.covenant.adapters.common import (
    Refusal,
    file_change,
    parse_payload,
    read_pre_state,
    with_mutating,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-codex failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()  # `mutatingTools` when the config names none
TOOLS = {"mutating": ["apply_patch"], "shell": ["Bash"], "commandArgs": ["command"]}
REQUIRED = (
    "cwd",
    "hook_event_name",
    "model",
    "permission_mode",
    "session_id",
    "tool_input",
    "tool_name",
    "tool_use_id",
    "transcript_path",
    "turn_id",
)


def _project_path(path: str, cwd: Path, root: Path) -> str:
    # both bases canonical: a cwd spelled through a symlink (macOS /tmp) is still inside the root
    absolute = Path(os.path.normpath(path if os.path.isabs(path) else os.path.realpath(cwd) / Path(path)))
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise Refusal(f"apply_patch names a path outside the project: {path}") from None


# Codex's own matcher tries each pass in turn over the whole file before relaxing to the next:
# exact, then ignoring trailing whitespace, then ignoring both ends, then with typographic
# punctuation read as ASCII. An anchor or a block the tool would find must be found here too, or
# the hook refuses patches the tool applies.
_TYPOGRAPHIC = str.maketrans(
    {**dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
     **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
     **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
     **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " ")}
)
_PASSES = (
    lambda line: line,
    str.rstrip,
    str.strip,
    lambda line: line.strip().translate(_TYPOGRAPHIC),
)


def seek(lines: list[str], pattern: list[str], start: int, at_end: bool = False) -> int | None:
    """Where `pattern` first occurs in `lines` at or after `start` under Codex's passes, or None.

    An empty pattern sits at `start`. `at_end` (a block closed by `*** End of File`) tries the
    file's last lines first."""
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if at_end else start
    for norm in _PASSES:
        wanted = [norm(line) for line in pattern]
        for i in range(first, len(lines) - len(pattern) + 1):
            if all(norm(lines[i + k]) == wanted[k] for k in range(len(pattern))):
                return i
    return None


def _apply_chunks(pre: str, chunks: list[tuple[str | None, list[str], bool]], path: str) -> str:
    lines = pre.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    at = 0
    for anchor, body, at_end in chunks:
        if anchor is not None:
            found = seek(lines, [anchor], at)
            if found is None:
                raise Refusal(f"apply_patch context '{anchor}' is not in {path}")
            at = found + 1
        found, old, new = _located(lines, body, at, at_end)
        if found is None:
            raise Refusal(f"apply_patch lines to change are not in {path}")
        lines[found : found + len(old)] = new
        at = found + len(new)
    return "\n".join(lines) + "\n"


def _located(lines: list[str], body: list[str], at: int, at_end: bool) -> tuple[int | None, list[str], list[str]]:
    """Where a chunk's old lines stand from `at` (None when nowhere), its old lines and its new ones."""
    old = [line[1:] for line in body if line[:1] in (" ", "-")]
    new = [line[1:] for line in body if line[:1] in (" ", "+")]
    found = seek(lines, old, at, at_end)
    if found is None and old and old[-1] == "":
        # Codex retries a block whose last old line is blank without it
        old = old[:-1]
        new = new[:-1] if new and new[-1] == "" else new
        found = seek(lines, old, at, at_end)
    return found, old, new


def parse_patch(text: str, cwd: Path, root: Path) -> list[dict[str, Any]]:
    """The file changes a V4A patch makes, in patch order (a move is a delete then a create)."""
    lines = text.replace("\r", "").strip().split("\n")
    if len(lines) < 2 or lines[0] != "*** Begin Patch" or lines[-1] != "*** End Patch":
        raise Refusal("apply_patch text is not enclosed in *** Begin Patch / *** End Patch")
    body = lines[1:-1]
    if body and body[0].startswith("*** Environment ID:"):
        body = body[1:]
    changes = _Patch(body, cwd, root).read()
    if not changes:
        # an envelope around no file proves no change: passing it would be an unrouted pass
        raise Refusal("the patch names no file to change")
    return changes


class _Patch:
    """One pass over a V4A patch's body: the line read next (`i`) and the changes so far."""

    __slots__ = ("body", "cwd", "root", "i", "changes")

    def __init__(self, body: list[str], cwd: Path, root: Path) -> None:
        self.body, self.cwd, self.root = body, cwd, root
        self.i = 0
        self.changes: list[dict[str, Any]] = []

    def read(self) -> list[dict[str, Any]]:
        while self.i < len(self.body):
            header = self.body[self.i]
            self.i += 1
            operation = next(((prefix, read) for prefix, read in _OPERATIONS if header.startswith(prefix)), None)
            if operation is None:
                raise Refusal(f"apply_patch line is not a file operation: {header}")
            prefix, read = operation
            read(self, _project_path(header[len(prefix) :], self.cwd, self.root))
        return self.changes

    def add(self, path: str) -> None:
        post = []
        while self.i < len(self.body) and not self.body[self.i].startswith("*** "):
            line = self.body[self.i]
            if not line.startswith("+"):
                raise Refusal(f"apply_patch Add File line does not start with '+': {line}")
            post.append(line[1:] + "\n")
            self.i += 1
        self.changes.append(file_change(path, None, "".join(post)))

    def delete(self, path: str) -> None:
        pre = read_pre_state(path, self.root)
        if pre is None:
            raise Refusal(f"apply_patch deletes a file that does not exist: {path}")
        self.changes.append({"kind": "delete", "path": path, "pre": pre})

    def update(self, path: str) -> None:
        target = path
        if self.i < len(self.body) and self.body[self.i].startswith("*** Move to: "):
            target = _project_path(self.body[self.i][len("*** Move to: ") :], self.cwd, self.root)
            self.i += 1
        chunks = self.chunks()
        pre = read_pre_state(path, self.root)
        if pre is None:
            raise Refusal(f"apply_patch updates a file that does not exist: {path}")
        post = _apply_chunks(pre, chunks, path)
        if target == path:
            self.changes.append(file_change(path, pre, post))
        else:
            self.changes.append({"kind": "delete", "path": path, "pre": pre})
            self.changes.append(file_change(target, read_pre_state(target, self.root), post))

    def chunks(self) -> list[tuple[str | None, list[str], bool]]:
        """An Update File's chunks: (anchor or None, lines, whether it ends at the end of the file)."""
        chunks: list[tuple[str | None, list[str], bool]] = []
        while self.i < len(self.body) and (not self.body[self.i].startswith("*** ") or self.body[self.i] == "*** End of File"):
            line = self.body[self.i]
            self.i += 1
            if line == "*** End of File":
                if chunks:
                    chunks[-1] = (chunks[-1][0], chunks[-1][1], True)
            elif line.startswith("@@"):
                # `@@ <text>`: the text as written (indentation included) is the anchor
                chunks.append((line[3:] if line.startswith("@@ ") else None, [], False))
            else:
                if not chunks:
                    chunks.append((None, [], False))
                chunks[-1][1].append(_hunk_line(line))
        return chunks


def _hunk_line(line: str) -> str:
    line = line or " "  # an empty line is an empty context line
    if line[:1] not in (" ", "-", "+"):
        raise Refusal(f"apply_patch hunk line is not context, removal or addition: {line}")
    return line


_OPERATIONS = (("*** Add File: ", _Patch.add), ("*** Delete File: ", _Patch.delete),
               ("*** Update File: ", _Patch.update))


ROSTER = ("apply_patch", "Bash")


def _pre_tool_use(event: Any) -> None:
    if event != "PreToolUse":
        shown = "null" if event is None else json.dumps(event) if not isinstance(event, str) else event
        raise Refusal(f"the payload is a {shown} event, not PreToolUse")


def _check_roster(name: str, mutating: tuple[str, ...]) -> None:
    roster = (*ROSTER, *(extra for extra in mutating if extra not in ROSTER))
    if name not in roster:
        raise Refusal(
            f"this adapter does not translate tool '{name}'; the roster is {', '.join(roster)} — "
            "see the package README, What this surface does not observe"
        )


def _envelope(payload: Any, mutating: tuple[str, ...]) -> tuple[str, str, Any]:
    """(cwd, tool name, command) of a Codex PreToolUse payload, or upstream's reason it is not one.

    Every value read is type-checked here: a wrong type deeper in would crash, and a crash must
    not be what decides the call."""
    if not isinstance(payload, dict):
        raise Refusal("the payload is not a non-null object")
    for key in REQUIRED:
        if key not in payload:
            raise Refusal(f"the payload is missing the required key '{key}'")
    _pre_tool_use(payload["hook_event_name"])
    if not isinstance(payload["cwd"], str):
        raise Refusal("the payload cwd is not a string")
    name = payload["tool_name"]
    if not isinstance(name, str):
        raise Refusal("the payload tool_name is not a string")
    _check_roster(name, mutating)
    if not isinstance(payload["tool_input"], dict):
        raise Refusal("the payload tool_input is not a non-null object")
    if name not in ROSTER:  # a configured mutating tool: judged on its arguments
        return payload["cwd"], name, payload["tool_input"]
    command = payload["tool_input"].get("command")
    if not isinstance(command, str):
        raise Refusal("the payload tool_input.command is not a string")
    return payload["cwd"], name, command


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    cwd, name, command = _envelope(parse_payload(raw), mutating)
    if name == "Bash":
        calls = [{"name": "Bash", "args": {"command": command}}]
    elif name == "apply_patch":
        changes = parse_patch(command, Path(cwd), root)
        calls = [{"name": "apply_patch", "fileChange": change} for change in changes]
    else:
        calls = [{"name": name, "args": command}]
    return {"toolCalls": calls, "subagentSpawns": [], "userMessages": [], "tools": with_mutating(TOOLS, mutating)}
