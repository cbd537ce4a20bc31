"""Which lines of a Markdown text are inside a fenced code block: the walk every heading rewrite makes.

Both the agent edition (a star on each maintainers' heading) and compile (headings shifted under a
segment's document) change headings, and neither may touch a `#` line inside a code fence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")  # a fence opens or closes a code block (CommonMark 4.5)


def fenced(lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """Each line with its number and whether it belongs to a code fence (its opening and closing
    lines included). A fence closes at a line of the same character, at least as long."""
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened[1][0] == fence[0] and len(opened[1]) >= len(fence):
                fence = None
            yield number, line, True
        elif opened:
            fence = opened[1]
            yield number, line, True
        else:
            yield number, line, False
