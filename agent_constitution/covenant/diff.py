"""The change-set surface's input: a unified diff translated into the IR (POLYDEUKES §4.3; hot path).

One toolCall per file block, in input order: `staged-write` (create/modify) or `staged-delete`.
A modify carries only its hunk lines (`-` lines as pre, `+` lines as post), a create its added
text, a delete its removed text; a binary block carries a path and no evidence.
"""

from __future__ import annotations

import re

from agent_constitution.covenant.ir import InputError

TYPE_CHECKING = False  # pre-commit path: importing `typing` costs every run about 3 ms
if TYPE_CHECKING:
    from typing import Any

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


class DiffError(InputError):
    """The diff cannot be translated; `str()` is the fail-closed message."""


def _unquote(text: str) -> str:
    """A git C-quoted path (`"…\\303\\251…"`) as text; octal escapes are UTF-8 bytes."""
    if not (len(text) >= 2 and text.startswith('"') and text.endswith('"')):
        return text
    out = bytearray()
    body, i = text[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(ch.encode())
        i += 1
    return out.decode("utf-8", errors="replace")


def _header_path(text: str) -> str | None:
    """A `---`/`+++` path: TAB-cut, unquoted, one `a/` or `b/` stripped; None for /dev/null."""
    text = text.split("\t", 1)[0]
    text = _unquote(text) if text.startswith('"') else text.rstrip("\r")
    if text == "/dev/null":
        return None
    return _strip_prefix(text)


def _strip_prefix(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


def _git_paths(rest: str) -> tuple[str | None, str | None]:
    """The two paths of `diff --git a/X b/Y`, spaces in paths recovered by the mid-point split."""
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        while end > 0 and rest[end - 1] == "\\":
            end = rest.find('" ', end + 1)
        if end > 0:
            return _strip_prefix(_unquote(rest[: end + 1])), _strip_prefix(_unquote(rest[end + 2 :]))
    if len(rest) % 2 == 1:
        half = len(rest) // 2
        left, right = rest[:half], rest[half + 1 :]
        if rest[half] == " " and _strip_prefix(left) == _strip_prefix(right):
            return _strip_prefix(left), _strip_prefix(right)
    split = rest.find(" b/")
    if split > 0:
        return _strip_prefix(rest[:split]), _strip_prefix(_unquote(rest[split + 1 :]))
    return None, None


class _Block:
    """One file block of the diff as it is read."""

    def __init__(self) -> None:
        self.git_old: str | None = None
        self.git_new: str | None = None
        self.old: str | None = None
        self.new: str | None = None
        self.headers = False
        self.created = False
        self.deleted = False
        self.rename_from: str | None = None
        self.rename_to: str | None = None
        self.binary = False
        self.hunks = 0
        self.after_hunk = False  # the last line read closed a hunk body
        self.minus: list[str] = []
        self.plus: list[str] = []

    def calls(self) -> list[dict[str, Any]]:
        created = self.created or (self.headers and self.old is None)
        deleted = self.deleted or (self.headers and self.new is None)
        if self.rename_from is not None and self.rename_to is not None:
            gone = {"kind": "delete", "path": self.rename_from}
            moved = {"kind": "modify", "path": self.rename_to, "pre": _join(self.minus), "post": _join(self.plus)}
            return [_call("staged-delete", gone), _call("staged-write", moved)]
        path = (self.old or self.git_old) if deleted else (self.new or self.git_new or self.old or self.git_old)
        if not path:
            raise DiffError("unified diff: a file block names no path")
        if self.binary:
            return [{"name": "staged-delete" if deleted else "staged-write", "args": {"file_path": path}}]
        if deleted:
            return [_call("staged-delete", {"kind": "delete", "path": path, "pre": _join(self.minus)})]
        if created:
            return [_call("staged-write", {"kind": "create", "path": path, "post": _join(self.plus)})]
        change = {"kind": "modify", "path": path, "pre": _join(self.minus), "post": _join(self.plus)}
        return [_call("staged-write", change)]


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


def _call(name: str, change: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": {"file_path": change["path"]}, "fileChange": change}


def diff_to_input(text: str) -> dict[str, Any]:
    """The IR of a unified diff; DiffError with upstream's message when it is not translatable."""
    calls: list[dict[str, Any]] = []
    block: _Block | None = None
    pending_old: tuple[str | None, str] | None = None  # a `---` line waiting for its `+++`
    lines = text.split("\n")
    i = 0

    def close() -> None:
        nonlocal block
        if block is not None:
            calls.extend(block.calls())
        block = None

    while i < len(lines):
        line = lines[i]
        i += 1
        if pending_old is not None and not line.startswith("+++ "):
            raise DiffError(f"unified diff: '---' line with no '+++' partner: {pending_old[1]}")
        if line.startswith(("diff --cc ", "diff --combined ")):
            raise DiffError(f"unified diff: combined diffs are not translatable: {line}")
        if line.startswith("diff --git "):
            close()
            block = _Block()
            block.git_old, block.git_new = _git_paths(line[len("diff --git ") :].rstrip("\r"))
        elif line.startswith("--- "):
            if block is None or block.headers:  # a header-less diff's next file
                close()
                block = _Block()
            pending_old = (_header_path(line[4:]), line[4:])
        elif line.startswith("+++ "):
            if pending_old is None or block is None:
                raise DiffError(f"unified diff: '+++' line with no '---' partner: {line}")
            block.old, block.new, block.headers = pending_old[0], _header_path(line[4:]), True
            pending_old = None
        elif line.startswith("@@"):
            header = HUNK.match(line)
            if block is None or not block.headers or header is None:
                raise DiffError(f"unified diff: hunk with no file header: {line}")
            block.hunks += 1
            old_left = int(header.group(2) or "1")
            new_left = int(header.group(4) or "1")
            while old_left > 0 or new_left > 0:
                if i >= len(lines):
                    break
                body = lines[i]
                i += 1
                if body.startswith("\\"):
                    continue
                # A line the declared counts leave no room for is a malformed hunk: judging the
                # lines that fit and dropping the rest would observe less than the input says.
                mark, rest = body[:1], body[1:]
                if mark == "-" and old_left > 0:
                    block.minus.append(rest)
                    old_left -= 1
                elif mark == "+" and new_left > 0:
                    block.plus.append(rest)
                    new_left -= 1
                elif mark in (" ", "") and old_left > 0 and new_left > 0:
                    old_left -= 1
                    new_left -= 1
                else:
                    raise DiffError(f"unified diff: unknown hunk line: {body}")
            block.after_hunk = True
        elif block is not None and block.after_hunk and line[:1] in ("+", "-", " "):
            # past the counts a hunk line can only be one the header did not declare
            raise DiffError(f"unified diff: unknown hunk line: {line}")
        elif block is not None:
            _extended_header(block, line.rstrip("\r"))
    if pending_old is not None:
        raise DiffError(f"unified diff: '---' line with no '+++' partner: {pending_old[1]}")
    close()
    if not calls and text.strip():
        raise DiffError("unified diff: no file block recognized in the input")
    return {"toolCalls": calls, "subagentSpawns": [], "userMessages": []}


def _extended_header(block: _Block, line: str) -> None:
    if line.startswith("new file mode"):
        block.created = True
    elif line.startswith("deleted file mode"):
        block.deleted = True
    elif line.startswith("rename from "):
        block.rename_from = _unquote(line[len("rename from ") :])
    elif line.startswith("rename to "):
        block.rename_to = _unquote(line[len("rename to ") :])
    elif line.startswith("GIT binary patch"):
        block.binary = True
    elif line.startswith("Binary files ") and line.endswith(" differ"):
        block.binary = True
        if line.endswith("and /dev/null differ"):
            block.deleted = True
        elif line.startswith("Binary files /dev/null and"):
            block.created = True
