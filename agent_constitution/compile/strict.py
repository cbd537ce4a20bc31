"""What `--locked` (and CI) allows an output step: nothing that changes an output compile owns.

Each step makes the exact bytes it would write and hands them here with what the file holds; any
difference is an error naming the file, before anything is written or removed. The banner's digest
(a plain sha256 anyone can recompute after an edit) only chooses the message: "edited by hand" when
it no longer matches, else "differs from what compile writes", which is also what a resealed edit
gets (docs/compile.md, "Ownership"). Each is an `OutOfDate`: what a locked run is there to find
(exit 1), not bad input.
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.errors import OutOfDate

FIX_EDITED = "undo the edit (edit the rule sources instead) and run `doit compile`"
FIX_STALE = "run `doit compile` without --locked (outside CI) and commit what it writes"


def refuse_change(path: Path, current: str | bytes | None, wanted: str | bytes, *, locked: bool, edited: bool) -> None:
    """Under `locked`, an error naming `path` when what it holds is not `wanted`, byte for byte.

    `edited`: the banner's digest no longer matches (a hand edit that did not reseal it)."""
    if not locked or current == wanted:
        return
    if current is None:
        raise OutOfDate("this output of compile is missing (--locked / CI writes nothing)", file=path, fix=FIX_STALE)
    if edited:
        raise OutOfDate("this generated file was edited by hand", file=path, fix=FIX_EDITED)
    raise OutOfDate(
        "this output differs from what compile writes from the rule sources and rules.lock, whatever its"
        " banner's digest says (--locked / CI rewrites nothing)",
        file=path,
        fix=FIX_STALE + "; if nobody changed the sources, look at who edited the file",
    )


def refuse_removal(path: Path, *, locked: bool) -> None:
    """Under `locked`, the error for an output compile would take out."""
    if locked:
        raise OutOfDate("compile would remove this output it wrote (--locked / CI removes nothing)",
                        file=path, fix=FIX_STALE)
