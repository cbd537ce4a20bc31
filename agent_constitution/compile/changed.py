"""The word compile prints for each file it changed: `created`, `updated` or `removed`.

A step reports the files it wrote and the ones it took its entries out of; whether a written file is
new is known only before its first write, so `watch` notes, through `fsio.watching` (whose hooks
every write and delete of `fsio` calls), each file that did not exist when it was first changed. A
file a step "removed" its entries from but that is still there (a hook file holding the user's own
hooks) was updated, not removed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_constitution import fsio


@contextmanager
def watch() -> Iterator[set[str]]:
    """Inside the block: the absolute paths of the files (and folders) that did not exist before it
    changed them: a skill is written as a folder of files."""
    absent: set[str] = set()
    seen: set[str] = set()

    def note(path: Path | str) -> None:
        full = os.path.abspath(path)
        if full not in seen:
            seen.add(full)
            while not os.path.lexists(full) and full not in absent:  # the file, and the folders it makes
                absent.add(full)
                full = os.path.dirname(full)

    with fsio.watching(note):
        yield absent


def lines(root: Path, written: Iterable[str | Path], removed: Iterable[str | Path], absent: set[str]) -> list[str]:
    """`created a`, `updated b`, `removed c`: one line per file, `root` being what the paths are under."""
    said = []
    for path in written:
        said.append(f"{'created' if os.path.abspath(root / path) in absent else 'updated'} {path}")
    for path in removed:
        said.append(f"{'updated' if os.path.lexists(root / path) else 'removed'} {path}")
    return said
