"""The one reader per file format: bytes, UTF-8 text, TOML and JSON, each failure one `UserError`.

Every file the tools did not write themselves (a manifest, a lock, a rule source, a constitution, a
reviewer's verdicts, `.claude/settings.json`, `pyproject.toml`) is read through these, so a hostile
or broken file gives a message naming it, the line where known and the fix, never a traceback:

- a missing file, a folder, a FIFO or device (refused without blocking on it), an unreadable file,
  a path with a NUL character or a name too long for the file system;
- bytes that are not UTF-8 (the line of the first bad byte);
- a TOML or JSON syntax error (its line); values nested deeper than the parser's recursion allows
  (a few thousand levels would otherwise raise RecursionError); integers of more than 4,300 digits
  (Python refuses to convert them: ValueError).

`shown` is how messages name the file (a repository-relative path, `name:path` in a source);
it defaults to the path. Standard library only: task creation reads manifests through this module.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError

# CPython's default limit on decimal digits in int(str) (sys.get_int_max_str_digits()).
_BIG_INT = re.compile(r"[0-9][0-9_]{4299,}")


def read_bytes(path: Path | str, shown: Path | str | None = None) -> bytes:
    """The bytes of the regular file at `path`."""
    shown = path if shown is None else shown
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UserError("file not found", file=shown) from None
    except ValueError:
        raise UserError("the path contains a NUL character", file=repr(str(shown)), fix="rename the path") from None
    except OSError as error:
        raise _os_error(error, shown) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise UserError("is a folder, expected a file", file=shown, fix="replace the folder by the file")
        raise UserError("is not a regular file (a FIFO, socket or device)", file=shown, fix="replace it by a plain file")
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read()
        except OSError as error:
            raise _os_error(error, shown) from None


def read_cached(path: Path | str) -> bytes | None:
    """Build state in a cache: the bytes of the regular file at `path`, opened without blocking; None
    when there is nothing to read (missing, unreadable, or not a regular file: a FIFO, socket, device
    or folder in its place). A cache is safe to ignore, so its readers take None as a miss."""
    try:
        return read_bytes(path)
    except UserError:
        return None


def _os_error(error: OSError, shown: Path | str) -> UserError:
    if error.errno == errno.ENAMETOOLONG:
        return UserError("the path is too long for the file system", file=shown, fix="use a shorter path")
    if error.errno == errno.ENOTDIR:
        return UserError("file not found (a folder on its path is a file)", file=shown)
    if error.errno == errno.EISDIR:
        return UserError("is a folder, expected a file", file=shown, fix="replace the folder by the file")
    return UserError(f"cannot read the file: {error.strerror}", file=shown, fix="check the file and its permissions")


def decode(data: bytes, shown: Path | str) -> str:
    """`data` as UTF-8 text."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise UserError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x})", file=shown, line=line, fix="save the file as UTF-8"
        ) from None


def read_text(path: Path | str, shown: Path | str | None = None) -> str:
    """The UTF-8 text of the regular file at `path`."""
    shown = path if shown is None else shown
    return decode(read_bytes(path, shown), shown)


def parse_toml(text: str, shown: Path | str) -> dict[str, Any]:
    """`text` parsed as TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"\(at line (\d+), column \d+\)", str(error))
        raise UserError(
            f"not valid TOML: {error}", file=shown, line=int(match.group(1)) if match else None
        ) from None
    except RecursionError:
        raise _too_deep(shown) from None
    except ValueError:
        raise _too_big(text, shown) from None


def read_toml(path: Path | str, shown: Path | str | None = None) -> dict[str, Any]:
    """The TOML file at `path`, parsed."""
    shown = path if shown is None else shown
    return parse_toml(read_text(path, shown), shown)


def parse_json(text: str | bytes, shown: Path | str) -> Any:
    """`text` parsed as JSON (bytes are decoded as UTF-8 first)."""
    if isinstance(text, bytes):
        text = decode(text, shown)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"not valid JSON: {error.msg} (column {error.colno})", file=shown, line=error.lineno) from None
    except RecursionError:
        raise _too_deep(shown) from None
    except ValueError:
        raise _too_big(text, shown) from None


def read_json(path: Path | str, shown: Path | str | None = None) -> Any:
    """The JSON file at `path`, parsed."""
    shown = path if shown is None else shown
    return parse_json(read_text(path, shown), shown)


def _too_deep(shown: Path | str) -> UserError:
    return UserError(
        "values are nested too deeply to read (more than about a thousand levels of arrays or tables)",
        file=shown,
        fix="flatten the nesting; no file agent-constitution reads needs more than a few levels",
    )


def _too_big(text: str, shown: Path | str) -> UserError:
    match = _BIG_INT.search(text)
    line = text.count("\n", 0, match.start()) + 1 if match else None
    return UserError(
        "an integer has more than 4,300 digits, more than Python reads", file=shown, line=line,
        fix="write a smaller number",
    )
