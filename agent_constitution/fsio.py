"""Writing files so that a crash or a concurrent reader never sees half of one.

Standard library only and no `tempfile`: the covenant judge writes through this on every agent
tool call, where each import counts.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` to `path` through a temp file in the same folder and a rename.

    A new file gets the mode a plain `open()` would give it (0666 less the umask); an existing one
    keeps its mode.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        keep = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        keep = None
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if keep is not None:
                os.fchmod(handle.fileno(), keep)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, data: bytes | str) -> bool:
    """Write only when the bytes differ, so an unchanged output keeps its mtime. Returns whether it wrote."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomic(path, data)
    return True
