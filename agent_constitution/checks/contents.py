"""The files of one scan, read once per run and shared by everything that reads them.

The input-set tasks digest the files a check reads, and the checks read them again; many checks
read every text file (conflict markers, secrets, generated files). Each file is read from disk at
most once per process: its bytes, its content digest and its text (UTF-8, or None for a binary) are
kept under its absolute path, so a segment's view and the whole repository's share them. A python
check's worker is forked after the input sets are digested, so it inherits what was read.

Memory is bounded: a file over `TEXT_LIMIT` is never kept (it is data, not text an agent wrote, and
the text scans skip it), and once `BUDGET` bytes are kept, further files are read each time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

TEXT_LIMIT = 4 * 1024 * 1024
BUDGET = 512 * 1024 * 1024


class Contents:
    """Bytes, digests and texts of files, by absolute path, read at most once."""

    def __init__(self) -> None:
        self._bytes: dict[str, bytes] = {}
        self._digests: dict[str, str] = {}
        self._texts: dict[str, str | None] = {}
        self._kept = 0

    def read_bytes(self, path: Path) -> bytes:
        key = str(path)
        data = self._bytes.get(key)
        if data is None:
            data = Path(path).read_bytes()
            if len(data) <= TEXT_LIMIT and self._kept + len(data) <= BUDGET:
                self._bytes[key] = data
                self._kept += len(data)
        return data

    def digest(self, path: Path) -> str:
        """The BLAKE2b digest (160 bits, hex) of the file's content."""
        key = str(path)
        found = self._digests.get(key)
        if found is None:
            if Path(path).stat().st_size > TEXT_LIMIT:  # large files are hashed as they stream by
                with open(path, "rb") as handle:
                    found = hashlib.file_digest(handle, _blake2b).hexdigest()
            else:
                found = _blake2b(self.read_bytes(path)).hexdigest()
            self._digests[key] = found
        return found

    def text(self, path: Path) -> str | None:
        """The file as text: None when it is not a file, is over TEXT_LIMIT, holds a NUL byte or is
        not UTF-8."""
        key = str(path)
        if key in self._texts:
            return self._texts[key]
        text = None
        try:
            if Path(path).is_file() and Path(path).stat().st_size <= TEXT_LIMIT:
                data = self.read_bytes(path)
                if b"\0" not in data:
                    text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        if text is None or key in self._bytes:  # a text is kept only while its bytes are
            self._texts[key] = text
        return text


def _blake2b(data: bytes = b""):
    return hashlib.blake2b(data, digest_size=20)
