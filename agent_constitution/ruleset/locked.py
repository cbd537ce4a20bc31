"""Whether this run may change `rules.lock`: decided here, for `doit lock`, compile and the user tier.

A run is locked when it was asked to be (`--locked`, or `locked=1` on the doit command line, which
`doit compile --locked` hands to its members) or when the environment sets CI, like `uv sync
--locked`. Standard library only: the doit wiring asks before it imports anything else.
"""

from __future__ import annotations

import os

_YES = ("1", "true", "yes")


def locked_run(asked: bool = False, variable: str | None = None) -> tuple[bool, str]:
    """(locked, why): `asked` is a --locked flag, `variable` the doit command-line `locked=`."""
    if asked or (variable or "").lower() in _YES:
        return True, "--locked was given"
    if os.environ.get("CI"):
        return True, "CI is set in the environment"
    return False, ""
