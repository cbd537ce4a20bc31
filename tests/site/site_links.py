"""A link checker over a built site: every internal href and src resolves, and so does its #anchor."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.headings: list[int] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if "id" in values:
            self.ids.add(values["id"])
        for name in ("href", "src"):
            if values.get(name) is not None:
                self.links.append(values[name])
        if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
            self.headings.append(int(tag[1]))


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> list[str]:
    """'page: href (why)' for every link that leaves the site or does not resolve inside it."""
    site = site.resolve()
    pages = {path: parse(path) for path in sorted(site.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                problems.append(f"{path.relative_to(site)}: {link} (leaves the site)")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file() or not target.is_relative_to(site.resolve()):
                problems.append(f"{path.relative_to(site)}: {link} (no such file)")
                continue
            if parts.fragment:
                ids = pages[target].ids if target in pages else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{path.relative_to(site)}: {link} (no such anchor)")
    return problems


def heading_skips(site: Path) -> list[str]:
    """Pages whose headings skip a level going down (h1 → h3), or that do not have exactly one h1."""
    problems = []
    for path in sorted(site.rglob("*.html")):
        levels = parse(path).headings
        if levels.count(1) != 1 or levels[0] != 1:
            problems.append(f"{path.relative_to(site)}: {levels[:3]}… (one h1, first)")
        for before, after in zip(levels, levels[1:]):
            if after > before + 1:
                problems.append(f"{path.relative_to(site)}: h{before} then h{after}")
                break
    return problems
