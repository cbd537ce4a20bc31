"""The files of one scan, read once per run and shared by everything that reads them.

The input-set tasks digest the files a check reads, and the checks read them again; many checks
read every text file (conflict markers, secrets, generated files). Each file is read from disk at
most once per process: its bytes, its content digest and its text (UTF-8, or None for a binary) are
kept under its absolute path, so a segment's view and the whole repository's share them. A python
check's worker is forked after the input sets are digested, so it inherits what was read.

Across runs, a file's digest is kept in an index (`cache/checks/index.json`) by its stat identity
(size, modification time in nanoseconds, inode), as git's index keeps a blob id: a file whose
identity is the kept one is not read to be digested. A time is trusted only once it is older than
`RACY_NS` when it was kept (git's racy-clean rule: a file rewritten in the same clock tick as it was
indexed keeps its size and time); a younger one is read again.

Memory is bounded: a file over `TEXT_LIMIT` is never kept (it is data, not text an agent wrote, and
the text scans skip it), and once `BUDGET` bytes are kept, further files are read each time.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_cached

INDEX = "index.json"  # under cache/checks/: the files' digests by stat identity
TEXT_LIMIT = 4 * 1024 * 1024
BUDGET = 512 * 1024 * 1024
RACY_NS = 2_000_000_000  # a file's size and time identify its content once it is this much older than its entry

Identity = tuple[int, int, int]  # (size, modification time in nanoseconds, inode)


class Contents:
    """Bytes, digests and texts of files, by absolute path, read at most once."""

    def __init__(self) -> None:
        self._bytes: dict[str, bytes] = {}
        self._digests: dict[str, str] = {}
        self._texts: dict[str, str | None] = {}
        self._identities: dict[str, Identity | None] = {}
        self._kept = 0
        self._index_path: Path | None = None
        self._index: dict[str, list] | None = None
        self._indexed: dict[str, list] = {}

    def keep_index(self, path: Path) -> None:
        """Keep the files' digests by stat identity in `path` across runs (without: this run's reads only)."""
        self._index_path, self._index = path, None

    def read_bytes(self, path: Path | str) -> bytes:
        key = os.fspath(path)
        data = self._bytes.get(key)
        if data is None:
            # One unbuffered read of the whole file, without a Path and a buffer for each: over the
            # 11,078 files of a clone of astral-sh/ruff 0.2 s CPU, against 0.5–0.8 s for Path.read_bytes.
            with open(key, "rb", buffering=0) as handle:
                data = handle.readall()
            if len(data) <= TEXT_LIMIT and self._kept + len(data) <= BUDGET:
                self._bytes[key] = data
                self._kept += len(data)
        return data

    def identity(self, path: Path | str) -> Identity | None:
        """The file's (size, mtime_ns, inode), stat'ed once per run; None when it is not a file."""
        key = os.fspath(path)
        if key not in self._identities:
            try:
                found = os.stat(key)
                self._identities[key] = ((found.st_size, found.st_mtime_ns, found.st_ino) if stat.S_ISREG(found.st_mode)
                                         else None)
            except OSError:
                self._identities[key] = None
        return self._identities[key]

    def digest(self, path: Path | str) -> str:
        """The BLAKE2b digest (160 bits, hex) of the file's content: from the index when the file's
        stat identity is the one kept there, else read."""
        key = os.fspath(path)
        found = self._digests.get(key)
        if found is None:
            identity = self.identity(key) if self._index_path is not None else None
            entry = self._kept_entry(key, identity)
            if entry is not None:
                found = entry[3]
            elif (identity[0] if identity is not None else os.stat(key).st_size) > TEXT_LIMIT:
                # large files are hashed as they stream by (the size from the run's stat, where it took one)
                with open(path, "rb") as handle:
                    found = hashlib.file_digest(handle, _blake2b).hexdigest()
            else:
                found = _blake2b(self.read_bytes(key)).hexdigest()
            if identity is not None:
                settled = identity[1] < time.time_ns() - RACY_NS
                self._indexed[key] = [identity[0], identity[1] if settled else None, identity[2], found]
            self._digests[key] = found
        return found

    def _kept_entry(self, key: str, identity: Identity | None) -> list | None:
        """The index's entry for the file when its identity is the one kept (and settled)."""
        entry = None if identity is None else self._loaded_index().get(key)
        valid = isinstance(entry, list) and len(entry) == 4 and isinstance(entry[3], str)
        return entry if valid and entry[1] is not None and tuple(entry[:3]) == identity else None

    def _loaded_index(self) -> dict:
        if self._index is None:
            try:
                data = json.loads(read_cached(self._index_path) or b"{}")
            except (OSError, ValueError):
                data = {}
            self._index = data if isinstance(data, dict) else {}
        return self._index

    def save_index(self) -> None:
        """Keep the digests this run took (with the entries it did not need: another input set's),
        when they changed."""
        if self._index_path is None or not self._indexed:
            return
        merged = {**(self._index or {}), **self._indexed}
        if merged != self._index:
            try:
                write_atomic(self._index_path, json.dumps(merged, separators=(",", ":")) + "\n")
            except (OSError, UserError):
                return  # an index that cannot be written (a full disk) only costs the next run its reads
            self._index = merged
        self._indexed = {}

    def text(self, path: Path | str) -> str | None:
        """The file as text: None when it is not a file, is over TEXT_LIMIT, holds a NUL byte or is
        not UTF-8."""
        key = os.fspath(path)
        if key in self._texts:
            return self._texts[key]
        text = None
        try:
            identity = self.identity(key)
            if identity is not None and identity[0] <= TEXT_LIMIT:
                data = self.read_bytes(key)
                if b"\0" not in data:
                    text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        if text is None or key in self._bytes:  # a text is kept only while its bytes are
            self._texts[key] = text
        return text


def _blake2b(data: bytes = b""):
    return hashlib.blake2b(data, digest_size=20)
