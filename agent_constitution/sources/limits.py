"""How big a source may be: a cap per file and per source, checked before anything is read or written.

A source is third-party data: a 2 GB "rule file" must not fill the disk of every machine that locks
it, nor be read into memory by each build. The defaults are far above any real source (this
project's own source is under 1 MB in all) and each can be raised with an environment variable:

    AGENT_CONSTITUTION_MAX_FILE     bytes of one file of a source (default 4M)
    AGENT_CONSTITUTION_MAX_SOURCE   bytes of one source's content, all files together (default 64M)

A value is a whole number of bytes with an optional suffix K, M or G (powers of 1024). The limits on
a source's shape (entries, depth, path length, tree objects) are in `shape`, read by `count_limit`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from agent_constitution.errors import UserError

FILE_ENV = "AGENT_CONSTITUTION_MAX_FILE"
SOURCE_ENV = "AGENT_CONSTITUTION_MAX_SOURCE"
_DEFAULTS = {FILE_ENV: 4 << 20, SOURCE_ENV: 64 << 20}
_SIZE = re.compile(r"^([0-9]{1,15})([KMG]?)$")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _limit(name: str) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return _DEFAULTS[name]
    match = _SIZE.match(text.upper())
    if match is None:
        raise UserError(
            f"the environment variable {name}={text!r} is not a size",
            fix=f"write a number of bytes with an optional K, M or G, e.g. {name}=16M",
        )
    return int(match[1]) * _UNITS[match[2]]


def count_limit(name: str, default: int) -> int:
    """The whole number the environment variable `name` sets (at least 1), else `default`."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 10**15:
        raise UserError(
            f"the environment variable {name}={text!r} is not a whole number",
            fix=f"write a positive whole number, e.g. {name}={default * 10}",
        )
    return int(text)


def _shown(size: int) -> str:
    for unit in ("G", "M", "K"):
        if size >= _UNITS[unit] and size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]}{unit}"
    return str(size)


@dataclass
class Budget:
    """The sizes counted so far for one source; `where` names the source (and commit) in messages."""

    where: str
    per_file: int
    per_source: int
    total: int = 0

    def add(self, path: str, size: int) -> None:
        if size > self.per_file:
            raise UserError(
                f"{self.where}: {path} is {size} bytes, over the limit of {_shown(self.per_file)} for one file of a source",
                fix=f"if the file is meant to be there, raise the limit: {FILE_ENV}={_shown(_next(size))}",
            )
        self.total += size
        if self.total > self.per_source:
            raise UserError(
                f"{self.where}: the source's files add up to more than {_shown(self.per_source)}"
                f" (the limit for one source), at {path}",
                fix=f"if the source is meant to be this big, raise the limit: {SOURCE_ENV}=<size>, e.g."
                f" {SOURCE_ENV}={_shown(_next(self.per_source * 2))}",
            )


def budget(where: str) -> Budget:
    return Budget(where, _limit(FILE_ENV), _limit(SOURCE_ENV))


def _next(size: int) -> int:
    """A round size (a whole number of MiB) above `size`, to suggest as the new limit."""
    mib = 1 << 20
    return (size // mib + 1) * mib
