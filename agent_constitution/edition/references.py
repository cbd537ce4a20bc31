"""References `{@id}` to articles, sections and items, and their labels in each language.

A source always writes the full path (`{@must-ask.capital}`); the label is short (`(4)`, `§2`;
`第四项`, `第二款`) when exactly one connector of the language stands between it and the previous
reference, and that one names another item of the same section (or another section of the same
article).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agent_constitution.edition import REFERENCE
from agent_constitution.edition.languages import Language
from agent_constitution.edition.models import Article, Edition, Item, Section

# What a writer may have meant as a reference: `{@` up to the next `}` on the line (check 9 rejects
# every one that is not a REFERENCE, e.g. `{@ must-ask}`, so none reaches the output as text).
OPENING = re.compile(r"\{@[^}\n]*\}?")


@dataclass(frozen=True)
class Target:
    """A provision a reference can name; `anchor` is its ID (section.item for an item)."""

    anchor: str
    article: Article
    section: Section | None = None
    item: Item | None = None

    @property
    def rendered(self) -> bool:
        """Whether the full edition writes this provision's anchor: a repealed article renders one line
        without its sections, a repealed section one line without its items."""
        if self.item is not None and self.section.status == "repealed":
            return False
        return self.section is None or not self.article.repealed

    @property
    def repealed(self) -> bool:
        provision = self.item or self.section
        return bool(self.article.repealed) if provision is None else provision.status == "repealed"


def targets(edition: Edition) -> dict[str, Target]:
    found: dict[str, Target] = {}
    for article in edition.articles:
        found[article.id] = Target(article.id, article)
        for section in article.sections:
            found[section.id] = Target(section.id, article, section)
            for item in section.items:
                anchor = f"{section.id}.{item.id}"
                found[anchor] = Target(anchor, article, section, item)
    return found


def referenced(text: str) -> list[str]:
    """The IDs a text refers to, in order."""
    return REFERENCE.findall(text)


def label(target: Target, language: Language, short: bool) -> str:
    article = language.article_numeral(target.article.number.value)
    if target.section is None:
        return language.ref_article.format(a=article)
    s, sx = language.numeral(target.section.number)
    if target.item is None:
        if short:
            return language.short_section.format(s=s, sx=sx)
        return language.ref_section.format(a=article, s=s, sx=sx)
    i, ix = language.numeral(target.item.number)
    if short:
        return language.short_item.format(i=i, ix=ix)
    return language.ref_item.format(a=article, s=s, sx=sx, i=i, ix=ix)


def rewrite(text: str, language: Language, known: dict[str, Target], labels: dict[tuple[str, bool], str],
            link: Callable[[Target, str], str]) -> str:
    """Replace every reference by `link(target, label)`; every reference must resolve (check 9).
    `labels` caches this language's labels by (anchor, short)."""
    if "{@" not in text:
        return text
    parts = []
    position = 0
    previous: Target | None = None
    for match in REFERENCE.finditer(text):
        between = text[position:match.start()]
        target = known[match[1]]
        short = previous is not None and between.strip() in language.connectors and _siblings(previous, target)
        key = (target.anchor, short)
        if key not in labels:
            labels[key] = label(target, language, short)
        parts.append(between)
        parts.append(link(target, labels[key]))
        position = match.end()
        previous = target
    parts.append(text[position:])
    return "".join(parts)


def _siblings(previous: Target, target: Target) -> bool:
    """Two items of one section, or two sections (not items) of one article."""
    if target.item is not None:
        return previous.item is not None and previous.section is target.section and previous.item is not target.item
    if target.section is not None:
        return previous.item is None and previous.section is not None and previous.article is target.article \
            and previous.section is not target.section
    return False
