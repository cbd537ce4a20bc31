"""Which lines of a Markdown text are inside a fenced code block: the walk every heading rewrite makes.

Both the agent edition (a star on each maintainers' heading) and compile (headings shifted under a
segment's document) change headings, and neither may touch a `#` line inside a code fence. The
fences are CommonMark's, as markdown-it-py finds them (its `fence` tokens and the lines they span),
rather than a line pattern of our own: a line such as "```python" inside a fence does not close it
(a closing fence has no info string), a fence inside a list item or a quote is one, and a fence left
open runs to the end of the text.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache


@lru_cache(maxsize=1)
def _parser():
    # Imported here: most texts hold no fence marker and never parse, and markdown-it costs a
    # compile 30 ms to import. Only the block rules that can hold or end a fence: the walk needs
    # no inline parsing.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable(["inline"], ignoreInvalid=True)


def fenced_lines(lines: list[str]) -> set[int]:
    """The numbers of the lines that belong to a code fence, its opening and closing lines included."""
    inside: set[int] = set()
    if not any("```" in line or "~~~" in line for line in lines):
        return inside  # no fence can open: the parse is not needed
    for token in _parser().parse("\n".join(lines)):
        if token.type == "fence" and token.map is not None:
            inside.update(range(token.map[0], token.map[1]))
    return inside


def fenced(lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """Each line with its number and whether it belongs to a code fence."""
    inside = fenced_lines(lines)
    for number, line in enumerate(lines):
        yield number, line, number in inside
