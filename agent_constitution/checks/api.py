"""What a python check sees and returns.

A check module in a source's `rules/checks/` imports only this module from agent-constitution. The
subject views are read-only: a check cannot change the repository it judges.
"""

from __future__ import annotations

import bisect
import functools
import os
import posixpath
import re
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

# The tool calls of a session record, as the transcript readers give them (re-exported: a check
# imports everything from this module).
from agent_constitution.checks.records import EDIT, READ, SEARCH, SHELL, ToolCall, read_tool_calls
# The external tool a check runs: from PATH, or the version its rule pins in [check.install].
from agent_constitution.checks.tools import ToolUnavailable, tool_command
# The one shell reader, the covenant judge's: a check splits scripts with it rather than with a
# second splitter of its own (shlex cut `$(cat .python-version)` into `$` and a command).
from agent_constitution.covenant.shell import inline_programs, tokenize as tokenize_shell

__all__ = ["EDIT", "READ", "SEARCH", "SHELL", "Change", "FileChange", "Finding", "Fix", "Record", "Repository",
           "ToolCall", "ToolUnavailable", "Undecidable", "Unfixed", "glob_regex", "inline_programs", "insert_lines",
           "line_ending", "match_files", "tokenize_shell", "tool_command"]

if TYPE_CHECKING:
    from agent_constitution.checks.contents import Contents


@dataclass(frozen=True)
class Finding:
    """One violation: where (as precisely as known) and why."""

    reason: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    # Where the problem ends, when the check knows (SARIF's endLine and endColumn: the column just
    # after its last character, 1-based like `column`).
    end_line: int | None = None
    end_column: int | None = None


@dataclass(frozen=True)
class Fix:
    """A mend of findings, returned by a check module's `fix(repo, findings)`: the whole new text of
    one file of the view (a new file when it does not exist yet). `unsafe`: the mend can change what
    the repository does (a narrowed permission, a pinned commit), so only `--unsafe-fixes` applies
    it; the rule's `[check] fix` names the highest tier its fixes have. `note`: what it did, for
    the user (`pinned actions/checkout@v4 to 11bd719…`)."""

    path: str
    text: str
    unsafe: bool = False
    note: str = ""


@dataclass(frozen=True)
class Unfixed:
    """A finding `fix()` could not mend, and why (`git ls-remote` could not reach the action's
    repository): printed, never an error; the finding stays."""

    reason: str
    path: str | None = None


def line_ending(text: str) -> str:
    """The line ending a file uses (its first line's), so an inserted line matches its neighbours."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def insert_lines(text: str, inserts: Sequence[tuple[int, str]]) -> str:
    """`text` with whole lines inserted before 0-based line numbers (`len(lines)`: at the end), each
    a text without its line ending; every byte of the original text is kept, in order. The
    byte-preserving edit the fixes of YAML, TOML and JSON files make, where a parser (ruamel's
    round trip, tomlkit) only located the place."""
    ending = line_ending(text)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")) and any(row >= len(lines) for row, _ in inserts):
        lines[-1] += ending
    for row, line in reversed(sorted(inserts, key=lambda item: item[0])):  # same row: given order
        lines.insert(row, line + ending)
    return "".join(lines)


class Undecidable(Exception):
    """Raised by a check that cannot decide; the reason reaches the reviewer."""


@dataclass(frozen=True)
class Repository:
    """The working tree: its root and the files a scan found (repo-relative, POSIX, .gitignore honoured).

    A segment's check sees the segment's folder as `root`, without the files of deeper segments;
    `folder` is that folder inside the repository ("" at the root) and `repository` the whole
    repository, every file included, for what a folder inherits from it (the root `.gitattributes`,
    the workspace a package belongs to). `in_force`: the ids of its own source's rules in force in
    the segment (empty where the runner does not know them)."""

    root: Path
    files: Sequence[str]
    folder: str = ""
    whole: "Repository | None" = field(default=None, repr=False, compare=False)
    contents: "Contents | None" = field(default=None, repr=False, compare=False)
    # The ids of the rules of the check's own source in force where it runs: a check whose tool
    # also judges what another rule does (zizmor's `unpinned-uses` is ac:31) leaves that to the rule.
    in_force: frozenset[int] = field(default=frozenset(), compare=False)

    @property
    def repository(self) -> "Repository":
        """The whole repository this view is part of (the view itself when it is the whole)."""
        return self.whole if self.whole is not None else self

    def exists(self, path: str) -> bool:
        return path in self._file_set

    def read_text(self, path: str) -> str:
        """The file as UTF-8 text (UnicodeDecodeError when it is not)."""
        return self.read_bytes(path).decode("utf-8")

    def read_bytes(self, path: str) -> bytes:
        """The file's bytes, read once per run and shared by every check of the run."""
        return self._contents.read_bytes(self._full(path))

    def digest(self, path: str) -> str:
        """The BLAKE2b digest of the file's content (hex), computed once per run."""
        return self._contents.digest(self._full(path))

    def text(self, path: str) -> str | None:
        """The file as text, or None when it is not text: over 4 MiB, a NUL byte in it, not UTF-8,
        not a file. Read and decoded once per run, however many checks ask."""
        return self._contents.text(self._full(path))

    def size(self, path: str) -> int | None:
        """The file's size in bytes, or None when it is not a file (a folder, a broken link, gone):
        `os.stat`, following links, once per run and shared by every check of the run (the input
        sets' signatures stat every file first)."""
        found = self._contents.identity(self._full(path))
        return None if found is None else found[0]

    def _full(self, path: str) -> str:
        """`os.fspath(self.root / path)`, the key of the run's shared contents. A path as the scan
        lists them (relative, POSIX, no empty or `.` part) is joined as a string: the `Path` made
        for every file by each check that reads every file was 6 µs a file, 0.4 s CPU a run over
        the 11,000 files of a clone of astral-sh/ruff."""
        if (os.sep != "/" or not path or path[0] == "/" or path[-1] == "/" or "//" in path or path == "."
                or path.startswith("./") or path.endswith("/.") or "/./" in path):
            return os.fspath(self.root / path)
        root = str(self.root)
        if root == ".":
            return path
        return f"{root}{path}" if root.endswith("/") else f"{root}/{path}"

    def link(self, path: str) -> str | None:
        """Where the symbolic link `path` leads, as a path of this view (`..` folded; it may start
        with `../` when it leads above the view's folder), or None when `path` is not a link. Two
        names of one file (`CLAUDE.md` → `AGENTS.md`) are one instruction file, not two copies."""
        full = self.root / path
        if not full.is_symlink():
            return None
        target = os.readlink(full)
        if os.path.isabs(target):
            inside = Path(os.path.realpath(full))
            try:
                return inside.relative_to(Path(os.path.realpath(self.root))).as_posix()
            except ValueError:
                return target
        return posixpath.normpath(posixpath.join(posixpath.dirname(path), target))

    def same_file(self, a: str, b: str) -> bool:
        """Whether `a` and `b` are one file: one links to the other, or both lead to a third."""
        if self.link(a) is None and self.link(b) is None:
            return False
        return os.path.realpath(self.root / a) == os.path.realpath(self.root / b)

    def locate(self, path: str) -> str | None:
        """A path of this view (one that may climb out of a segment's folder with `../`, such as a
        `tsconfig.json` `extends`) as a path of the whole repository (`self.repository`), or None
        when it leads outside the repository."""
        joined = posixpath.normpath(posixpath.join(self.folder, path)) if self.folder else posixpath.normpath(path)
        if joined == ".." or joined.startswith("../") or posixpath.isabs(joined):
            return None
        return "" if joined == "." else joined

    def enclosing(self, *patterns: str) -> list[str]:
        """The files matching `patterns` in every folder above this view's, up to the repository root,
        nearest folder first, as paths of the whole repository (`self.repository`): what a tool run in
        a package finds above it (ruff's and pytest's configuration, cargo's workspace and
        `deny.toml`, the lint scripts of a workspace's root `package.json`). Empty for the whole
        repository's own view, which has nothing above it."""
        if not self.folder:
            return []
        whole = self.repository
        parts = self.folder.strip("/").split("/")
        found: list[str] = []
        for depth in range(len(parts) - 1, -1, -1):
            prefix = "/".join(parts[:depth])
            prefix = prefix + "/" if prefix else ""
            for pattern in patterns:
                found += whole.glob(prefix + pattern)
        return list(dict.fromkeys(found))

    @property
    def _contents(self) -> "Contents":
        if self.contents is not None:
            return self.contents
        from agent_constitution.checks.contents import Contents  # lazy: a view made without the run's contents makes its own

        return self._cache("contents", Contents)

    def glob(self, pattern: str) -> list[str]:
        """Files matching a glob where `*` stays within a folder, `**/` spans folders and a final
        `/**` takes everything below, in sorted order. Answers are cached: the checks of one run
        share this view, so a pattern several checks use is matched once."""
        cache = self._cache("glob", dict)
        found = cache.get(pattern)
        if found is None:
            found = cache[pattern] = match_files(self._cache("sorted", lambda: tuple(sorted(self.files))), pattern,
                                                 self._file_set)
        return list(found)

    @property
    def _file_set(self) -> frozenset[str]:
        return self._cache("set", lambda: frozenset(self.files))

    def _cache(self, name: str, make):
        # The view is frozen; what it derives from its files is computed once and kept beside them.
        key = f"_cached_{name}"
        if key not in self.__dict__:
            object.__setattr__(self, key, make())
        return self.__dict__[key]


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
        import difflib  # lazy: only a change's added lines need it

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
    """A session record: the tool calls of one agent session, read from its transcript.

    `format` names the transcript format ("claude-code", "codex", "gemini-cli"; see
    agent_constitution/checks/records.py). A record nobody can read has `unreadable` set: asking it
    for its calls raises Undecidable with that reason, so every record check is undecidable."""

    path: Path
    format: str
    calls: Sequence[ToolCall] = ()
    unreadable: str | None = None

    @classmethod
    def read(cls, path: Path) -> "Record":
        reading = read_tool_calls(path)
        return cls(path, reading.format, reading.calls, reading.unreadable)

    def tool_calls(self) -> Iterator[ToolCall]:
        """Every tool call of the agent, in order."""
        if self.unreadable is not None:
            raise Undecidable(self.unreadable)
        yield from self.calls

    def shell_commands(self) -> Iterator[tuple[int | None, str]]:
        """(line, script) for every shell command the agent ran, in order."""
        for call in self.tool_calls():
            if call.tool == SHELL and isinstance(call.input.get("command"), str):
                yield call.line, call.input["command"]


def match_files(files: Sequence[str], pattern: str, file_set: Container[str] | None = None) -> tuple[str, ...]:
    """The files a glob matches (see `Repository.glob`). `files`: repo-relative POSIX paths, sorted,
    so that only the run of files under the pattern's literal folder prefix is looked at; `file_set`,
    the same files as a set, makes a pattern without wildcards a lookup."""
    if not any(char in pattern for char in "*?["):
        return (pattern,) if pattern in (files if file_set is None else file_set) else ()
    first_wildcard = min(index for index in map(pattern.find, "*?[") if index >= 0)
    prefix = pattern[: pattern.rfind("/", 0, first_wildcard) + 1]
    start = bisect.bisect_left(files, prefix)
    end = bisect.bisect_left(files, prefix + "\U0010ffff") if prefix else len(files)
    below = files[start:end]
    rest = pattern[len(prefix):]
    # The commonest inputs (`**`, `**/*`, `**/*.py`, `**/pyproject.toml`) decided as the expression
    # below decides them, by a name's ending, without running it on every file of the tree.
    if rest == "**":
        return tuple(path for path in below if "\n" not in path)  # `.*` stops at a line break
    name = rest[4:] if rest.startswith("**/*") else rest[3:] if rest.startswith("**/") else None
    if name is not None and not any(char in name for char in "*?[/"):
        if rest.startswith("**/*"):
            return tuple(path for path in below if path.endswith(name))
        return tuple(path for path in below if path.endswith("/" + name) or path == prefix + name)
    regex = glob_regex(pattern)
    return tuple(path for path in below if regex.fullmatch(path))


@functools.lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern:
    """A glob as a regular expression: `*`, `?` and `[...]` never cross `/`; `**/` is any number of
    folders; a trailing `**` is anything, folders included."""
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            parts.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i) and i + 2 == len(pattern):
            parts.append(".*")
            i += 2
        elif pattern[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            parts.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end].replace("/", "").replace("\\", "\\\\")
            if body[:1] in ("!", "^"):
                parts.append("[^/" + body[1:] + "]")
            else:
                parts.append("[" + body + "]")
            i = end + 1
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(parts))
