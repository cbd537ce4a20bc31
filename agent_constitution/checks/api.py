"""What a python check sees and returns.

A check module in a source's `rules/checks/` imports only this module from agent-constitution. The
subject views are read-only: a check cannot change the repository it judges.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Finding:
    """One violation: where (as precisely as known) and why."""

    reason: str
    path: str | None = None
    line: int | None = None
    column: int | None = None


class Undecidable(Exception):
    """Raised by a check that cannot decide; the reason reaches the reviewer."""


@dataclass(frozen=True)
class Repository:
    """The working tree: its root and the files a scan found (repo-relative, POSIX, .gitignore honoured)."""

    root: Path
    files: Sequence[str]

    def exists(self, path: str) -> bool:
        return path in self._file_set

    def read_text(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def glob(self, pattern: str) -> list[str]:
        """Files matching a glob where `*` stays within a folder and `**/` spans folders."""
        return [path for path in self.files if _match(path, pattern)]

    @property
    def _file_set(self) -> frozenset[str]:
        cached = self.__dict__.get("_files_cache")
        if cached is None:
            cached = frozenset(self.files)
            object.__setattr__(self, "_files_cache", cached)
        return cached


@dataclass(frozen=True)
class FileChange:
    """One file of a change: its path before and after (None when added or deleted) and its text."""

    old_path: str | None
    new_path: str | None
    old_text: str | None
    new_text: str | None

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    def added_lines(self) -> list[tuple[int, str]]:
        """(line number in the new text, line) for lines the change adds."""
        import difflib

        old = (self.old_text or "").splitlines()
        new = (self.new_text or "").splitlines()
        added: list[tuple[int, str]] = []
        for tag, _, _, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
            if tag in ("insert", "replace"):
                added.extend((j + 1, new[j]) for j in range(j1, j2))
        return added


@dataclass(frozen=True)
class Change:
    """A change: a git range or the staged set, with the commit messages it contains (empty for staged)."""

    root: Path
    files: Sequence[FileChange]
    messages: Sequence[str] = ()


@dataclass(frozen=True)
class Record:
    """A session record: the transcript's JSONL events, as Claude Code writes them, in order."""

    path: Path
    events: Sequence[Mapping] = field(default_factory=tuple)

    @classmethod
    def read(cls, path: Path) -> "Record":
        events = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise Undecidable(f"{path}:{number}: not a JSON line ({error.msg})") from None
        return cls(path, tuple(events))

    def tool_uses(self) -> Iterator[Mapping]:
        """Every `tool_use` block of the assistant's messages, in order."""
        for event in self.events:
            message = event.get("message")
            if event.get("type") != "assistant" or not isinstance(message, Mapping):
                continue
            content = message.get("content")
            if isinstance(content, list):
                yield from (block for block in content if isinstance(block, Mapping) and block.get("type") == "tool_use")


def _match(path: str, pattern: str) -> bool:
    if "**/" in pattern:
        head, _, tail = pattern.partition("**/")
        if not path.startswith(head):
            return False
        rest = path[len(head):]
        parts = rest.split("/")
        return any(_match("/".join(parts[i:]), tail) for i in range(len(parts)))
    if path.count("/") != pattern.count("/"):
        return False
    return fnmatch.fnmatchcase(path, pattern)
