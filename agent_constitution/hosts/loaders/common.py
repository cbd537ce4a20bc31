"""What every loader model shares: where a text came from, what an agent loaded, and the steps of
the documented algorithms (ancestor walks, `@` imports, globs, front matter, truncation).

A loader model answers one question: a session of this agent works on one file of the repository;
which instruction text reaches the model, and how much of it. It reads only the repository's files
(never the user's home: what a user keeps there is not the repository's to prove), follows links
only inside the repository, and never fails on what it reads: a file it cannot read or parse is a
file the agent would not load either, named in the view's `unknown` when the docs do not say.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath

from agent_constitution.errors import UserError
from agent_constitution.hosts import jsonc


@dataclass(frozen=True)
class Cite:
    """Where a behaviour is documented, and when that page or thread was read."""

    url: str
    read: str  # ISO date
    says: str  # the behaviour, in a line


@dataclass(frozen=True)
class Piece:
    """One file's contribution to what an agent loaded."""

    path: str  # relative to the repository root
    text: str  # the part the agent loads
    why: str  # why it is loaded ("ancestor of the working folder", "applyTo matches", ...)
    lost: int = 0  # bytes (or characters, per the view's limit) of the file the agent does not load


@dataclass(frozen=True)
class View:
    """What one agent (one product of a family) loads in one documented way of working on a file."""

    agent: str  # the compile agent name (`[compile] agents`)
    product: str  # the product modelled ("Copilot coding agent", "Claude Code")
    scenario: str  # "session in svc/", "session at the root, reading svc/x.py"
    pieces: tuple[Piece, ...]
    limit: str = ""  # the limit applied, in words ("32768 bytes over the chain")
    unknown: tuple[str, ...] = ()  # what the docs leave open, and the worst case taken
    cites: tuple[Cite, ...] = ()

    @property
    def text(self) -> str:
        return "\n\n".join(piece.text for piece in self.pieces)

    @property
    def size(self) -> int:
        return sum(len(piece.text.encode("utf-8")) for piece in self.pieces)

    @property
    def lost(self) -> int:
        return sum(piece.lost for piece in self.pieces)


@dataclass(frozen=True)
class Repo:
    """The repository a loader reads: its root, and a cache of the files read (one proof reads a file
    once for every agent and folder)."""

    root: Path
    _texts: dict = field(default_factory=dict, compare=False, repr=False)  # path (or listing) → what was read
    # What the loaders asked for since it was last emptied: ("text", path), ("dir", path), a listing
    # (the key `files`, or Cline's `cline-listed`). The read-back keeps each segment's proof by what it asked.
    asked: set = field(default_factory=set, compare=False, repr=False)

    def text(self, path: str) -> str | None:
        """The text of `path` (relative), links followed inside the repository; None when absent,
        unreadable, not UTF-8, or a link that leads out."""
        self.asked.add(("text", path))
        if path in self._texts:
            return self._texts[path]
        found = None
        # os.path rather than pathlib: a 200-segment proof asks for 16,000 paths (most of them hold
        # nothing, which one stat says), and building and resolving Paths was most of its time.
        full = os.path.join(self.root, path)
        self._texts[("status", path)] = found_status = status(full)  # before the read: a later change shows
        if found_status is not None:
            real = os.path.realpath(full)
            if real.startswith(self._inside) and os.path.isfile(real):
                try:
                    with open(real, "rb") as file:
                        found = file.read().decode("utf-8")
                except (OSError, ValueError):
                    found = None
        self._texts[path] = found
        return found

    @cached_property
    def _inside(self) -> str:
        """The prefix of every real path inside the repository."""
        return os.path.join(os.path.realpath(self.root), "")

    def status(self, path: str) -> list | None:
        """The status `text` took of `path` before reading it (`status`)."""
        return self._texts.get(("status", path))

    def is_dir(self, path: str) -> bool:
        self.asked.add(("dir", path))
        return (self.root / path).is_dir()

    def files(self, folder: str, suffix: str, recursive: bool = False) -> list[str]:
        """The files ending in `suffix` in `folder` (relative), sorted; none when it is absent."""
        key = ("files", folder, suffix, recursive)
        self.asked.add(key)
        if key not in self._texts:
            base = self.root / folder
            found = (base.rglob(f"*{suffix}") if recursive else base.glob(f"*{suffix}")) if base.is_dir() else ()
            self._texts[key] = sorted(p.relative_to(self.root).as_posix() for p in found if p.is_file())
        return self._texts[key]

    def rule_files(self, folder: str, suffix: str, recursive: bool = False) -> list[RuleFile]:
        """The rule files ending in `suffix` in `folder`, each parsed once per proof (front matter and body)."""
        key = ("rule-files", folder, suffix, recursive)
        if key not in self._texts:
            found = []
            for path in self.files(folder, suffix, recursive):
                text = self.text(path) or ""
                meta, body = front_matter(text)
                found.append(RuleFile(path, text, meta, body))
            self._texts[key] = found
        return self._texts[key]

    def candidates(self, folder: str, suffix: str, key: str, file: str, recursive: bool = False) -> list[RuleFile]:
        """The rule files of `folder` that may apply to `file` by their `key` globs, in order: those whose
        globs are all a folder's files (`svc/**`) only when `file` is in one of those folders (an index
        built once: a proof asks for every segment), every other one always."""
        index_key = ("rule-index", folder, suffix, key, recursive)
        if index_key not in self._texts:
            by_folder: dict[str, list[int]] = {}
            rest: list[int] = []
            rules = self.rule_files(folder, suffix, recursive)
            for number, rule in enumerate(rules):
                prefixes = [_folder(glob) for glob in rule.globs(key)]
                if prefixes and all(prefixes):
                    for prefix in prefixes:
                        by_folder.setdefault(prefix, []).append(number)
                else:
                    rest.append(number)
            self._texts[index_key] = (rules, by_folder, rest)
        rules, by_folder, rest = self._texts[index_key]
        parts = file.split("/")
        found = set(rest)
        for depth in range(1, len(parts)):
            found.update(by_folder.get("/".join(parts[:depth]) + "/", ()))
        return [rules[number] for number in sorted(found)]

    def yaml(self, path: str):
        """The YAML data of `path` (safe loader), parsed once per proof; None when absent or not YAML."""
        key = ("yaml", path)
        if key not in self._texts:
            text, data = self.text(path), None
            if text is not None:
                from ruamel.yaml import YAML

                try:
                    data = YAML(typ="safe", pure=True).load(text)
                except Exception:  # ruamel raises many types; the agent cannot read the file either
                    data = None
            self._texts[key] = data
        return self._texts[key]

    def jsonc(self, path: str):
        """The data of a JSON-with-comments file (VS Code's settings), parsed once per proof; None when
        absent or not parseable (then the editor's defaults apply, and the view says so)."""
        key = ("jsonc", path)
        if key not in self._texts:
            text, data = self.text(path), None
            if text is not None:
                try:
                    data = jsonc.loads(text, path)
                except UserError:  # not JSON with comments, or nested past reading: the defaults
                    data = None
            self._texts[key] = data
        return self._texts[key]


def status(path: Path | str) -> list | None:
    """[inode, modification time, size] of the file `path` leads to, or None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_ino, found.st_mtime_ns, found.st_size]


class RuleFile:
    """A rule file as a rules engine reads it: its text, front matter (None: none, or not a mapping),
    body, and the glob lists of its keys (parsed once)."""

    __slots__ = ("path", "text", "meta", "body", "_globs")

    def __init__(self, path: str, text: str, meta: dict | None, body: str) -> None:
        self.path, self.text, self.meta, self.body, self._globs = path, text, meta, body, {}

    def get(self, key: str):
        return (self.meta or {}).get(key)

    def globs(self, key: str) -> list[str]:
        if key not in self._globs:
            self._globs[key] = globs_of(self.get(key))
        return self._globs[key]

    def matches(self, key: str, file: str) -> bool:
        """Whether a glob of `key` matches `file`."""
        return any(glob_match(glob, file) for glob in self.globs(key))


def folders(file: str) -> list[str]:
    """The folders from the repository root down to the one holding `file`: `svc/a/x.py` →
    `["", "svc", "svc/a"]` ("" is the root)."""
    parts = PurePosixPath(file).parts[:-1]
    return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def shown(folder: str) -> str:
    return f"{folder}/" if folder else "the root"


def first(repo: Repo, folder: str, names: tuple[str, ...], nonempty: bool = False) -> str | None:
    """The first of `names` that exists in `folder` (and, with `nonempty`, holds more than blanks)."""
    for name in names:
        text = repo.text(join(folder, name))
        if text is not None and (not nonempty or text.strip()):
            return join(folder, name)
    return None


def cut_bytes(pieces: list[Piece], budget: int) -> list[Piece]:
    """Pieces held to `budget` bytes over all of them, in order: the piece that crosses it is cut at
    the byte (a split character dropped), the ones after it are dropped (`lost` = their bytes)."""
    kept: list[Piece] = []
    left = budget
    for piece in pieces:
        data = piece.text.encode("utf-8")
        if len(data) <= left:
            kept.append(piece)
            left -= len(data)
            continue
        head = data[: max(left, 0)].decode("utf-8", errors="ignore")
        kept.append(Piece(piece.path, head, piece.why, len(data) - len(head.encode("utf-8"))))
        left = 0
    return kept


def cut_chars(piece: Piece, limit: int) -> Piece:
    """A piece held to `limit` characters (a per-file limit)."""
    if len(piece.text) <= limit:
        return piece
    return Piece(piece.path, piece.text[:limit], piece.why, len(piece.text) - limit)


_FENCE = re.compile(r"^\s*(```|~~~)")
_IMPORT = re.compile(r"(?<![\w`])@((?:\.{1,2}/|~/|/)?[\w.\-/]+\.[\w]+)")


@lru_cache(maxsize=4096)  # one proof reads each file's imports once, not once per folder
def _imports(text: str) -> tuple[str, ...]:
    return tuple(_scan_imports(text))


def imports(text: str) -> list[str]:
    """The `@path` imports of a text outside code fences and code spans, in order."""
    return list(_imports(text))


def _scan_imports(text: str) -> list[str]:
    """The `@path` imports of a text outside code fences and code spans, in order."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        plain = re.sub(r"`[^`]*`", "", line)
        found += [m.group(1) for m in _IMPORT.finditer(plain)]
    return found


def resolve(base_folder: str, target: str) -> str | None:
    """An import's path relative to the repository root, or None when it leaves the repository (or is
    absolute or under `~`: outside what the proof reads)."""
    if target.startswith(("/", "~")):
        return None
    parts: list[str] = [p for p in base_folder.split("/") if p]
    for part in PurePosixPath(target).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


@lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern:
    """A glob as gitignore-style tools read it: `**` any number of folders, `*` and `?` within one,
    `{a,b}` alternatives; a pattern without `/` matches a file name in any folder."""
    pattern = pattern.strip().lstrip("/")
    if pattern.startswith("./"):
        pattern = pattern[2:]
    anywhere = "/" not in pattern
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif c == "*":
            out, i = out + "[^/]*", i + 1
        elif c == "?":
            out, i = out + "[^/]", i + 1
        elif c == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out += "(?:" + "|".join(re.escape(a) for a in pattern[i + 1:end].split(",")) + ")"
            i = end + 1
        else:
            out, i = out + re.escape(c), i + 1
    return re.compile(("(?:.*/)?" if anywhere else "") + out + r"\Z")


@lru_cache(maxsize=8192)
def _folder(pattern: str) -> str | None:
    """`svc/` for `svc/**` (a folder's files, the glob every layout writes), else None."""
    plain = pattern.endswith("/**") and pattern == pattern.strip() and not pattern.startswith(("/", "./"))
    return pattern[:-2] if plain and not any(c in pattern[:-3] for c in "*?{[") else None


def glob_match(pattern: str, path: str) -> bool:
    folder = _folder(pattern)
    if folder is not None:
        return path.startswith(folder)  # no regex for the common case: a proof matches it ~10^5 times
    return bool(pattern.strip()) and _glob_regex(pattern).match(path) is not None


@lru_cache(maxsize=8192)  # one proof parses each rule file once, not once per folder and product
def front_matter(text: str) -> tuple[dict | None, str]:
    """A Markdown file's YAML front matter (None when it has none or it does not parse as a mapping)
    and the body after it. Parsed with ruamel.yaml's safe loader; what it cannot parse the agents
    skip too, and the proof does not count it."""
    if not text.startswith("---"):
        return None, text
    lines = text.splitlines(keepends=True)
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            head, body = "".join(lines[1:index]), "".join(lines[index + 1:])
            if len(head) > 64 * 1024:
                return None, body
            simple = _simple_front(head)
            if simple is not None:
                return simple, body
            from ruamel.yaml import YAML, YAMLError

            try:
                data = YAML(typ="safe", pure=True).load(head)
            except (YAMLError, ValueError, TypeError):
                return None, body
            return (data if isinstance(data, dict) else None), body
    return None, text


_KEY = r"[A-Za-z][\w-]*"
_QUOTED = r'"[^"\\\x00-\x1f\x7f]*"'
_WORD = r"[A-Za-z][A-Za-z_-]*"  # a plain scalar that is a string (not a YAML 1.2 null or bool)
_SIMPLE_LINE = re.compile(rf"^({_KEY}): (?:({_QUOTED})|({_WORD}))$|^({_KEY}):$|^  - ({_QUOTED})$")
_NOT_STRINGS = {"true": True, "false": False, "True": True, "False": False, "TRUE": True, "FALSE": False}
_NULLS = {"null", "Null", "NULL"}


def _simple_front(head: str) -> dict | None:
    """The front matter compile writes (`key: "text"`, `key: word`, `key:` and `  - "text"` items),
    read without YAML's parser, which takes milliseconds per file; None for anything else (then
    YAML reads it: the two agree on every text this accepts, tests/hosts/test_loaders.py)."""
    data: dict = {}
    items: list | None = None
    for line in head.splitlines():
        match = _SIMPLE_LINE.match(line)
        if match is None:
            return None
        key, quoted, word, list_key, item = match.groups()
        if item is not None:
            if items is None:
                return None
            items.append(item[1:-1])
        elif list_key is not None:
            if list_key in data:
                return None
            items = data[list_key] = []
        else:
            if key in data:
                return None
            if word in _NULLS:
                return None
            data[key], items = (quoted[1:-1] if quoted is not None else _NOT_STRINGS.get(word, word)), None
    if not data or any(value == [] for value in data.values()):
        return None
    return data


def globs_of(value) -> list[str]:
    """A front-matter glob value: a comma-separated string or a list of strings."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [str(part).strip() for part in value if isinstance(part, str) and part.strip()]
    return []
