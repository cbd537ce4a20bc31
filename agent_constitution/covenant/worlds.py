"""Worlds: what one observation looks like to a declaration (POLYDEUKES §2.3, §2.4; hot path).

Every change of a dispatched call is one world keyed by the seven fixed source names; a shell call
that changes no file is one call world (subject `-`) holding its command line. A declaration's own
`sources` bindings are added per world: a repo file, the spawn sidecar channel, the transcript.
"""

from __future__ import annotations

import os
import posixpath

from agent_constitution.covenant.budget import FILE_LIMIT, read_regular

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

NO_SUBJECT = "-"


def repo_relative(path: str, root: str | Path) -> str | None:
    """The repo-relative POSIX path of a change, or None when it is outside the root (no world)."""
    if path.startswith("/"):
        base = _posix(root).rstrip("/") + "/"
        if not path.startswith(base):
            return None
        path = path[len(base) :]
    relative = posixpath.normpath(path)
    if relative == "." or relative == ".." or relative.startswith("../") or relative.startswith("/"):
        return None
    return relative


def _posix(root: str | Path) -> str:
    """`Path(root).as_posix()` of a str or a Path: the folder in POSIX form, `.` for an empty one."""
    text = os.fspath(root).replace(os.sep, "/")
    return posixpath.normpath(text) if text else "."


def command_of(call: dict[str, Any], shell: tuple[str, ...], command_args: tuple[str, ...]) -> str | None:
    """The command line of a shell call: the first string under a command-arg key of its args."""
    if call.get("name") not in shell:
        return None
    args = call.get("args")
    if not isinstance(args, dict):
        return None
    for key in command_args:
        if isinstance(args.get(key), str):
            return args[key]
    return None


def change_world(change: dict[str, Any], root: str | Path, common: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The world of one file change, with `common` (changes, command?, actor?) merged in."""
    path = repo_relative(change["path"], root)
    if path is None:
        return None
    world = dict(common)
    world["target.path"] = path
    kind = change["kind"]
    if kind == "modify":
        world["pre"], world["post"] = change["pre"], change["post"]
        world["state"] = {"pre": change["pre"], "post": change["post"]}
    elif kind == "create":
        world["post"] = change["post"]
    elif "pre" in change:
        world["pre"] = change["pre"]
    return path, world


def snapshot(session: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The transcript source: user turns and tool calls of the session, each with its ordinal."""
    messages = []
    for index, message in enumerate(session["userMessages"]):
        item = {"index": index, "text": message["text"]}
        if "timestampMs" in message:
            item["timestampMs"] = message["timestampMs"]
        messages.append(item)
    calls = []
    for index, call in enumerate(session["toolCalls"]):
        item = {"index": index, "name": call["name"]}
        for key in ("args", "succeeded"):
            if key in call:
                item[key] = call[key]
        calls.append(item)
    return {"observedAtMs": now_ms, "userMessages": messages, "toolCalls": calls}


def planned_files(declarations: list[dict[str, Any]]) -> list[str]:
    """Every repo file a declaration of this surface binds, once each, in first-use order."""
    paths: list[str] = []
    for declaration in declarations:
        for binding in declaration["sources"].values():
            if "file" in binding and binding["file"] not in paths:
                paths.append(binding["file"])
    return paths


def read_tree_file(root: str | Path, path: str) -> str | None:
    """A file source read from disk: text, or None (absent) when missing, a directory or binary."""
    target = os.path.join(root, path)
    try:
        if os.path.isdir(target):
            return None
        data = read_regular(target, FILE_LIMIT, "file source")  # Refused (a FIFO, too big) blocks
    except (FileNotFoundError, NotADirectoryError):
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")
