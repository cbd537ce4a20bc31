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
        if self.rename_from is not None and self.rename_to is not None:
            return self._renamed(self.rename_from, self.rename_to)
        deleted = self.deleted or (self.headers and self.new is None)
        path = self._path(deleted)
        if self.binary:
            return [{"name": "staged-delete" if deleted else "staged-write", "args": {"file_path": path}}]
        return [self._change(path, deleted)]

    def _change(self, path: str, deleted: bool) -> dict[str, Any]:
        if deleted:
            return _call("staged-delete", {"kind": "delete", "path": path, "pre": _join(self.minus)})
        if self.created or (self.headers and self.old is None):
            return _call("staged-write", {"kind": "create", "path": path, "post": _join(self.plus)})
        return _call("staged-write", {"kind": "modify", "path": path, "pre": _join(self.minus), "post": _join(self.plus)})

    def _renamed(self, source: str, target: str) -> list[dict[str, Any]]:
        gone = {"kind": "delete", "path": source}
        moved = {"kind": "modify", "path": target, "pre": _join(self.minus), "post": _join(self.plus)}
        return [_call("staged-delete", gone), _call("staged-write", moved)]

    def _path(self, deleted: bool) -> str:
        path = (self.old or self.git_old) if deleted else (self.new or self.git_new or self.old or self.git_old)
        if not path:
            raise DiffError("unified diff: a file block names no path")
        return path

    def take(self, body: str, old_left: int, new_left: int) -> tuple[int, int]:
        """Reads one line of a hunk's body; the old and new lines the header still declares."""
        # A line the declared counts leave no room for is a malformed hunk: judging the
        # lines that fit and dropping the rest would observe less than the input says.
        mark, rest = body[:1], body[1:]
        if mark == "-" and old_left > 0:
            self.minus.append(rest)
            return old_left - 1, new_left
        if mark == "+" and new_left > 0:
            self.plus.append(rest)
            return old_left, new_left - 1
        if mark in (" ", "") and old_left > 0 and new_left > 0:
            return old_left - 1, new_left - 1
        raise DiffError(f"unified diff: unknown hunk line: {body}")


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


def _call(name: str, change: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": {"file_path": change["path"]}, "fileChange": change}


def diff_to_input(text: str) -> dict[str, Any]:
    """The IR of a unified diff; DiffError with upstream's message when it is not translatable."""
    calls = _DiffReader(text.split("\n")).read()
    if not calls and text.strip():
        raise DiffError("unified diff: no file block recognized in the input")
    return {"toolCalls": calls, "subagentSpawns": [], "userMessages": []}


class _DiffReader:
    """One pass over a diff's lines: the calls of the file blocks closed so far, the block being
    read, and a `---` line waiting for its `+++`."""

    __slots__ = ("lines", "i", "calls", "block", "pending_old")

    def __init__(self, lines: list[str]) -> None:
        self.lines, self.i = lines, 0
        self.calls: list[dict[str, Any]] = []
        self.block: _Block | None = None
        self.pending_old: tuple[str | None, str] | None = None

    def read(self) -> list[dict[str, Any]]:
        while self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            self.line(line)
        if self.pending_old is not None:
            raise DiffError(f"unified diff: '---' line with no '+++' partner: {self.pending_old[1]}")
        self.close()
        return self.calls

    def close(self) -> None:
        if self.block is not None:
            self.calls.extend(self.block.calls())
        self.block = None

    def line(self, line: str) -> None:
        if self.pending_old is not None and not line.startswith("+++ "):
            raise DiffError(f"unified diff: '---' line with no '+++' partner: {self.pending_old[1]}")
        if line.startswith(("diff --cc ", "diff --combined ")):
            raise DiffError(f"unified diff: combined diffs are not translatable: {line}")
        read = next((read for prefix, read in _LINES if line.startswith(prefix)), None)
        if read is not None:
            read(self, line)
        elif self.block is not None:
            self.other(self.block, line)

    def other(self, block: _Block, line: str) -> None:
        if block.after_hunk and line[:1] in ("+", "-", " "):
            # past the counts a hunk line can only be one the header did not declare
            raise DiffError(f"unified diff: unknown hunk line: {line}")
        _extended_header(block, line.rstrip("\r"))

    def git_header(self, line: str) -> None:
        self.close()
        self.block = _Block()
        self.block.git_old, self.block.git_new = _git_paths(line[len("diff --git ") :].rstrip("\r"))

    def old_header(self, line: str) -> None:
        if self.block is None or self.block.headers:  # a header-less diff's next file
            self.close()
            self.block = _Block()
        self.pending_old = (_header_path(line[4:]), line[4:])

    def new_header(self, line: str) -> None:
        if self.pending_old is None or self.block is None:
            raise DiffError(f"unified diff: '+++' line with no '---' partner: {line}")
        self.block.old, self.block.new, self.block.headers = self.pending_old[0], _header_path(line[4:]), True
        self.pending_old = None

    def hunk(self, line: str) -> None:
        header = HUNK.match(line)
        block = self.block
        if block is None or not block.headers or header is None:
            raise DiffError(f"unified diff: hunk with no file header: {line}")
        block.hunks += 1
        old_left = int(header.group(2) or "1")
        new_left = int(header.group(4) or "1")
        while (old_left > 0 or new_left > 0) and self.i < len(self.lines):
            body = self.lines[self.i]
            self.i += 1
            if not body.startswith("\\"):
                old_left, new_left = block.take(body, old_left, new_left)
        block.after_hunk = True


# The lines that open a file block, its headers or a hunk, in the order they are tried.
_LINES = (("diff --git ", _DiffReader.git_header), ("--- ", _DiffReader.old_header),
          ("+++ ", _DiffReader.new_header), ("@@", _DiffReader.hunk))


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
