"""Where every page of the site lives, and the relative link from one page to another.

Every URL is relative, so the site works from `file://` and from any static host at any path:

    index.html                       the index of the first language, at the site's root
    assets/site.css, assets/site.js
    <lang>/index.html                the parent tree as the table of contents, with the search box
    <lang>/search-index.js           the search index (a script: file:// forbids fetch())
    <lang>/rules/<id>.html           one page per rule, kept at this URL for good
    <lang>/constitution.html         the full edition, anchors as in the Markdown (#must-ask)
    <lang>/constitution.agent.html   the agent edition
"""

from __future__ import annotations

import posixpath
from functools import cache

from agent_constitution.site.models import SiteInfo

HOME = "index.html"
ASSETS = ("assets/site.css", "assets/site.js")


def index(language: str) -> str:
    return f"{language}/index.html"


def search_index(language: str) -> str:
    return f"{language}/search-index.js"


def rule(language: str, rule_id: int | str) -> str:
    return f"{language}/rules/{rule_id}.html"


def constitution(language: str, agent: bool = False) -> str:
    return f"{language}/constitution.agent.html" if agent else f"{language}/constitution.html"


def pages(site: SiteInfo, rule_ids: list[int]) -> list[str]:
    """Every page of the site (assets aside), in build order."""
    found = [HOME]
    for language in site.languages:
        found += [index(language), search_index(language)]
        found += [rule(language, rule_id) for rule_id in rule_ids]
    for language in site.constitution_languages:
        found += [constitution(language), constitution(language, agent=True)]
    return found


def model_of(site: SiteInfo, page: str) -> str:
    """The page whose model a page is rendered from: itself, except the home page."""
    return index(site.languages[0]) if page == HOME else page


def constitution_language(site: SiteInfo, language: str) -> str:
    """The constitution's language a page in `language` links to: its own when there is one."""
    return language if language in site.constitution_languages else site.constitution_languages[0]


def source_language(site: SiteInfo, language: str) -> str:
    return language if language in site.languages else site.languages[0]


def relative(page: str, target: str) -> str:
    """The href from `page` to `target` (both site paths; `target` may carry a #fragment)."""
    path, hash_, fragment = target.partition("#")
    folder, _, name = path.rpartition("/")
    return _climb(posixpath.dirname(page), folder) + name + hash_ + fragment


@cache
def _climb(start: str, folder: str) -> str:
    # A site has a handful of folders: computing each pair once keeps 10,000 pages fast.
    path = posixpath.relpath(folder or ".", start or ".")
    return "" if path == "." else path + "/"
