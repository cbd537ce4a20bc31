"""Markdown to HTML with markdown-it-py (CommonMark): rule texts and constitution editions.

Rule texts are rendered with raw HTML disabled (a source's text is shown, never executed); their
`{@rule:42}` and `{@must-ask}` references become links first. The constitution is rendered with raw
HTML on, so its `<a id="…"></a>` anchors come through unchanged; below each provision that rules cite,
a list of those rules is inserted into the token stream.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.token import Token

from agent_constitution.edition.references import REFERENCE

_RULE_TEXT = MarkdownIt("commonmark", {"html": False})
_CONSTITUTION = MarkdownIt("commonmark")
_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
_ESCAPE = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|~&])")


def rule_text(text: str, resolve: Callable[[str], tuple[str, str | None]]) -> str:
    """HTML of a rule's text; `resolve(reference)` gives the (label, href or None) of `{@reference}`."""

    def link(match: re.Match) -> str:
        label, href = resolve(match[1])
        shown = _ESCAPE.sub(r"\\\1", label)
        return f"[{shown}](<{href}>)" if href else shown

    return _RULE_TEXT.render(REFERENCE.sub(link, text))


def plain(text: str, resolve: Callable[[str], tuple[str, str | None]]) -> str:
    """The words of a rule's text, for the search index: references as their labels, no markup."""
    words = REFERENCE.sub(lambda match: resolve(match[1])[0], text)
    return " ".join(re.sub(r"`|\*\*?", "", words).split())


def constitution(markdown: str, below: Callable[[str], str | None]) -> str:
    """HTML of a generated edition; `below(anchor)` is the HTML placed at the end of that provision."""
    tokens = _CONSTITUTION.parse(markdown)
    out: list[Token] = []
    items: list[str | None] = []          # the anchor of each open list item (None: first line not seen yet)
    article: str | None = None
    for token in tokens:
        if token.type == "heading_open" and token.tag in ("h1", "h2"):
            _flush(out, below, article)
            article = None
        elif token.type == "list_item_open":
            items.append(None)
        elif token.type == "list_item_close":
            _flush(out, below, items.pop())
        elif token.type == "inline":
            match = _ANCHOR.match(token.content)
            anchor = match[1] if match else ""
            if items and items[-1] is None:
                items[-1] = anchor             # an item's first line names it; "" when it is no provision
            elif not items and anchor:
                article = anchor               # an article's heading
        out.append(token)
    _flush(out, below, article)
    return _CONSTITUTION.renderer.render(out, _CONSTITUTION.options, {})


def _flush(out: list[Token], below: Callable[[str], str | None], anchor: str | None) -> None:
    if not anchor:
        return
    html = below(anchor)
    if html:
        block = Token("html_block", "", 0)
        block.content = html + "\n"
        out.append(block)
