"""The parsed TOML of a source's rule files, remembered across runs: `ParsedFiles(root)`.

Parsing TOML is most of what loading a source costs (about 0.2 ms per rule file, 1.1 s of CPU for
5,000), and a one-rule edit would otherwise parse every file of a path source again on every
writing run. Each rule file's (and `source.toml`'s) parsed table is kept in the user cache
(`parsed/`, one file per source root) with the sha256 of the file's bytes and the file's status
(size, modification and change times, inode). A file whose status is the one recorded is not read again, unless it changed
less than two seconds before the cache was written (an edit within the file system's time
resolution could leave the same status, as git's "racily clean" files); otherwise its bytes decide:
the same sha256 keeps the table, another one parses the file. The change time cannot be set back
by a tool (`touch -d`, `git checkout` and an editor all set it to now). Only the TOML parse is
skipped: the table is validated as a `Rule` as before, so messages and results are those of a
fresh parse (building the models without validation, pydantic's `model_construct`, measured slower
than validating: 0.08–0.12 s against 0.03–0.05 s for 5,000 rules).

The same status check lets a plain folder's content digest (`sources.content.folder_digest`) take
a vouched rule file's sha256 from the cache instead of reading the file; what it does read it hands
to the load that follows in the same process (`parsed_files`): the rule files, `source.toml`, the
check modules and every `skill.toml`, whose bytes the load parses and the rule digests cover
(`noted`). A run reads a changed file of `rules/` once, and a file it has read once never again.
The cache body is marshal data (a file per source root, `<sha256 of the root>.marshal`).

The cache file cannot change what is loaded. Its first line is an HMAC-SHA256 of the rest under a
random key kept in the user cache (`parsed/key`, readable by the user only); a file that does not
verify (cut short, damaged, written by another version, edited, or copied from another machine) is
ignored as a whole and every file is parsed again, then the cache is written anew. Tables that
the cache cannot give back equal (TOML dates and times, NaN) are never kept: their files are parsed
each time. When the user cache cannot be written, nothing is kept and every file is parsed.
"""

from __future__ import annotations

import hashlib
import hmac
import marshal
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from agent_constitution.layout import RULE_CHECKS, RULES, SKILLS
from agent_constitution.readers import decode, parse_toml, read_bytes, read_cached

VERSION = 2
FOLDER = "parsed"
SUFFIX = ".marshal"
# marshal, not JSON: reading and writing the tables of 5,000 rule files takes 0.016 s instead of
# 0.05 s, and every writing run after an edit does both. Its format may change between Python
# versions, so a cache names the version that wrote it.
_MARSHAL = 4
_PYTHON = "%d.%d" % sys.version_info[:2]
KEY = "key"
KEY_LENGTH = 64  # hex digits: 32 random bytes
# A file changed less than this before the cache was written is confirmed by its bytes next time:
# its size and times could be those of an edit made within the file system's time resolution.
_RACY_NS = 2_000_000_000


def parsed_files(root: Path | str) -> ParsedFiles:
    """The `ParsedFiles` of `root` for this process until its next `save`: the plain folder's digest
    (`sources.content.folder_digest`) and the source's load that follows it share what each file's
    status and bytes showed, so a run reads a changed rule file once."""
    found = _open.get(str(root))
    if found is None:
        found = _open[str(root)] = ParsedFiles(Path(root))
    return found


# path → (status, bytes) of the skills' files this process's folder digests read: compile copies
# them after the load has saved (`compile.skills`), so they outlive the `ParsedFiles` that read them.
_skills: dict[str, tuple[list, bytes]] = {}


def skill_bytes(path: str, status: os.stat_result) -> bytes | None:
    """The bytes of a skill's file at `path` as this process's folder digest read them, while its
    status (`status`, just taken) is the same; None otherwise."""
    found = _skills.get(path)
    return found[1] if found is not None and found[0] == _seen(status) else None


def noted(root: Path | str, path: str) -> bytes | None:
    """The bytes of the file at `path` as this process's folder digest of `root` read them
    (`ParsedFiles.noted`), or None (nothing of `root` open, not read, or changed since)."""
    found = _open.get(str(root))
    return None if found is None else found.noted(path)


class ParsedFiles:
    """The TOML tables of the files of one source root, reused by content digest."""

    def __init__(self, root: Path):
        self.root = str(root)
        # Only read here: reading a folder (`folder_digest`) does not create the user cache; `save` does.
        self._key = _existing_key()
        self._path = self._cache_path()
        self._written, self._kept = self._read()
        self._now: dict[str, list] = {}
        self._checked = False  # whether a kept table was confirmed by its file's bytes
        # path → (status, bytes) of the files of `rules/` this process read that a load reads again
        self._noted: dict[str, tuple[list, bytes]] = {}
        # path → (status, sha256 hex) of every file of `rules/` this process's folder digest read
        self._sums: dict[str, tuple[list, str]] = {}

    def _cache_path(self) -> Path | None:
        return None if self._key is None else _folder() / f"{hashlib.sha256(self.root.encode()).hexdigest()[:32]}{SUFFIX}"

    def known_digest(self, name: str, status: os.stat_result) -> str | None:
        """The sha256 (hex) of the bytes of the rule file `name`, when the cache vouches for them
        without a read: its status is the one kept, and it last changed well before the cache was written."""
        kept = self._kept.get(name)
        return kept[0] if kept is not None and self._vouched(kept, _seen(status)) else None

    @staticmethod
    def loaded_again(path: str) -> bool:
        """Whether the run reads the file at `path` (POSIX, from the source's root) after its folder
        digest did: the load a rule file or `source.toml`, a check module, a `skill.toml`; compile a
        skill's files."""
        head, _, name = path.rpartition("/")
        return (head == RULES and name.endswith(".toml")) or (head == RULE_CHECKS and name.endswith(".py")) or (
            head.startswith(SKILLS + "/"))

    def note(self, path: str, status: os.stat_result, data: bytes) -> None:
        """Keep the bytes just read of the file at `path` (with this status) for this process's load,
        and those of a skill's file for compile, which copies them (`skill_bytes`)."""
        if f"/{SKILLS}/" in path[len(self.root):] and not path.endswith("/skill.toml"):
            _skills[path] = (_seen(status), data)
        else:
            self._noted[path] = (_seen(status), data)

    def note_sum(self, path: str, status: os.stat_result, hexdigest: str) -> None:
        """Keep the sha256 of the file at `path` (with this status): the load digests skill folders by it."""
        self._sums[path] = (_seen(status), hexdigest)

    def noted_sum(self, path: str) -> str | None:
        """The sha256 (hex) `note_sum` kept of the file at `path`, while its status is the same."""
        found = self._sums.get(path)
        if found is None:
            return None
        try:
            return found[1] if found[0] == _seen(os.stat(path)) else None
        except OSError:
            return None

    def noted(self, path: str, status: os.stat_result | None = None) -> bytes | None:
        """The bytes of the file at `path` as this process read them, while its status is the same
        (`status`: the file's, when the caller has just taken it); None when they were not read."""
        found = self._noted.get(path)
        if found is None:
            return None
        try:
            seen = _seen(os.stat(path) if status is None else status)
        except OSError:
            return None
        return found[1] if found[0] == seen else None

    def _vouched(self, kept: list, seen: list | None) -> bool:
        # The file as it was when its table was kept, and last changed well before that (a change
        # within the file system's time resolution of the cache write could leave the same stat).
        bound = self._written - _RACY_NS
        return seen is not None and kept[2] == seen and seen[1] < bound and seen[2] < bound

    def table(self, path: str, name: str, shown: str, status: os.stat_result | None = None) -> dict[str, Any]:
        """The parsed TOML of the file `name` at `path` (errors name `shown`, as `readers.read_toml`);
        `status`: the file's, when the caller has just taken it."""
        kept = self._kept.get(name)
        try:
            seen = _seen(os.stat(path) if status is None else status)
        except OSError:
            seen = None  # read_bytes reports it
        if kept is not None and self._vouched(kept, seen):
            self._now[name] = kept
            return kept[1]
        noted = self._noted.get(path)
        if noted is not None and noted[0] == seen:  # read by this run's folder digest, unchanged since
            data = noted[1]
        else:
            data = read_bytes(path, shown)
            if seen is not None:
                self._noted[path] = (seen, data)
        digest = hashlib.sha256(data).hexdigest()
        if kept is not None and kept[0] == digest:
            self._now[name] = [digest, kept[1], seen]
            self._checked = True
            return kept[1]
        table = parse_toml(decode(data, shown), shown)
        try:
            _exact(table)
        except ValueError:
            return table  # dates, times or NaN: the cache would not give this table back
        self._now[name] = [digest, table, seen]
        return table

    def save(self) -> None:
        """Keep what this load parsed or reused (the files that went are dropped), if it changed; the
        next `parsed_files` of this root reads the cache anew."""
        if _open.get(self.root) is self:
            del _open[self.root]
        if self._now == self._kept and not self._checked:
            return
        if self._key is None:
            self._key = user_key()
            self._path = self._cache_path()
        if self._path is None:
            return
        body = marshal.dumps({"version": VERSION, "python": _PYTHON, "root": self.root, "written": time.time_ns(),
                              "files": self._now}, _MARSHAL)
        try:
            _write(self._path, seal(self._key, body) + b"\n" + body)
        except OSError:
            pass  # a cache that cannot be written only costs the next run a parse

    def _read(self) -> tuple[int, dict[str, list]]:
        """(when the cache was written, file name → [sha256, table, stat]), or (0, {})."""
        if self._path is None:
            return 0, {}
        data = read_cached(self._path)  # a FIFO or device at the key's path is a miss, never a wait
        if data is None:
            return 0, {}
        head, _, body = data.partition(b"\n")
        if not hmac.compare_digest(head, seal(self._key, body)):
            return 0, {}
        try:
            data = marshal.loads(body)
            if data["version"] != VERSION or data["python"] != _PYTHON or data["root"] != self.root:
                return 0, {}
            files = data["files"]
            # Sealed by this user's key, so written by this module: the shape check guards only
            # against a file of another version that happens to carry the same version number.
            if isinstance(data["written"], int) and all(
                isinstance(v, list) and len(v) == 3 and isinstance(v[1], dict) for v in files.values()
            ):
                return data["written"], files
        except (ValueError, EOFError, KeyError, TypeError, AttributeError):
            pass
        return 0, {}


def _exact(table: Any) -> None:
    """Raise ValueError unless the cache gives `table` back equal: no dates or times (marshal
    refuses them), no NaN (not equal to itself)."""
    marshal.dumps(table, _MARSHAL)
    stack = [table]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and item != item:
            raise ValueError("NaN")


# root → the ParsedFiles this process opened for it and has not saved yet (`parsed_files`).
_open: dict[str, ParsedFiles] = {}


def _seen(status: os.stat_result) -> list:
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]


def seal(key: bytes, body: bytes) -> bytes:
    """The first line of a sealed cache file: HMAC-SHA256 of the rest under this user's key."""
    return hmac.new(key, body, hashlib.sha256).hexdigest().encode()


def _folder() -> Path:
    from agent_constitution.sources.cache import cache_root  # lazy: task creation reads parsed rule files; the cache's git half (pygit2) loads on first use

    return cache_root() / FOLDER


def _existing_key() -> bytes | None:
    """This user's key when the user cache has one already (never made here)."""
    key = read_cached(_folder() / KEY)
    return key if key is not None and len(key) == KEY_LENGTH else None


def user_key() -> bytes | None:
    """This user's key for the cache (made on first use), or None when the user cache is not writable
    (read-only, or full); the lock stage's state (`ruleset.relock`) is sealed with it too."""
    path = _folder() / KEY
    key = read_cached(path)  # a FIFO in its place: no key, never a wait
    if key is not None:
        # Shorter while another process is still writing it: no cache this time, never a weak key.
        return key if len(key) == KEY_LENGTH else None
    made = secrets.token_hex(KEY_LENGTH // 2).encode()
    tmp = path.with_name(f".{KEY}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(made)
        # Linked into place whole (a full disk never leaves a short key behind), and only if no other
        # process made one first: then that one is the key.
        os.link(tmp, path)
    except FileExistsError:
        key = read_cached(path)
        return key if key is not None and len(key) == KEY_LENGTH else None
    except OSError:
        return None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return made


def _write(path: Path, data: bytes) -> None:
    # A temp file and a rename, so a reader sees a whole cache file or the one before (not
    # `fsio.write_atomic`: a compile step's undo journal has nothing to do with the user cache).
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    try:
        with open(tmp, "xb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
