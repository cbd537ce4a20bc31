"""The progress line of a fetch on a terminal: objects and bytes received, and the time it has taken.

`git fetch --progress` writes its progress to stderr, each update ending in a carriage return
(`Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s`, or `Unpacking objects: …` for a small fetch); `FetchProgress.feed` reads those
lines and keeps one line of its own up to date on the user's terminal, rewritten in place at most
every `EVERY` seconds, and `finish` leaves it as the fetch's result:

    fetched https://github.com/o/rules: 1000 objects, 1.20 MiB in 3.1 s

Off a terminal (CI logs, a pre-commit hook, an agent host) nothing is written: `wanted` says so.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

EVERY = 0.2  # seconds between two rewrites of the line
# "Unpacking objects" for a small fetch (fewer than fetch.unpackLimit objects), else "Receiving objects".
_RECEIVING = re.compile(r"(?:Receiving|Unpacking) objects:\s+\d+%\s+\((?P<done>\d+)/(?P<total>\d+)\)(?:,\s+(?P<size>[\d.]+ (?:bytes|[KMGT]iB)))?")
# The server's last word on what it sent: the count when the fetch was too small to show its progress.
_TOTAL = re.compile(r"remote: Total (?P<total>\d+)")
_CLEAR = "\r\x1b[K"


def wanted(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@dataclass
class FetchProgress:
    name: str  # the source as the user may see it (secrets hidden)
    stream: TextIO
    clock: Callable[[], float] = time.monotonic
    objects: int = 0
    total: int = 0
    size: str = ""
    started: float = field(init=False)
    shown: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()
        self.shown = self.started
        self._write(f"fetching {self.name} ...")

    def feed(self, line: str) -> None:
        """One progress line of git's (without its line end)."""
        match = _RECEIVING.search(line)
        if match is None:
            total = _TOTAL.search(line)
            if total and not self.objects:
                self.objects = self.total = int(total["total"])
            return
        self.objects, self.total = int(match["done"]), int(match["total"])
        self.size = match["size"] or self.size
        now = self.clock()
        if now - self.shown >= EVERY or self.objects == self.total:
            self.shown = now
            self._write(f"fetching {self.name}: {self._received()}, {now - self.started:.0f} s")

    def finish(self) -> None:
        got = self._received() if self.objects else "up to date"
        self._write(f"fetched {self.name}: {got} in {self.clock() - self.started:.1f} s\n")

    def _received(self) -> str:
        counted = f"{self.objects}/{self.total}" if self.objects != self.total else f"{self.total}"
        return f"{counted} objects" + (f", {self.size}" if self.size else "")

    def _write(self, text: str) -> None:
        self.stream.write(_CLEAR + text)
        self.stream.flush()


def lines(chunk: str, pending: str) -> tuple[list[str], str]:
    """git's progress output split at `\\r` and `\\n`: the complete lines, and what is left over."""
    parts = re.split(r"[\r\n]", pending + chunk)
    return parts[:-1], parts[-1]
