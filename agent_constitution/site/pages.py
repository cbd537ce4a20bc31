"""Render one page from its model: `render(path, model) -> str` (HTML, or the search index script).

Templates are Jinja2 (`templates/`), with autoescaping on: every title and text comes from a rule
source, and a template that forgot to escape one would be a bug no test sees. All links are relative
(`layout.relative`), so a page works wherever the folder is opened or served.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from agent_constitution.site import layout, markdown, search
from agent_constitution.site.models import ConstitutionPage, IndexPage, Page, Ref, RulePage, SearchPage, SiteInfo
from agent_constitution.site.strings import language_name, strings

TEMPLATES = Path(__file__).parent / "templates"
ASSETS = Path(__file__).parent / "assets"
STATUSES = ("draft", "trial", "active", "superseded", "repealed")


@cache
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def render(path: str, model: Page) -> str:
    if isinstance(model, SearchPage):
        return search.script(model)
    if isinstance(model, IndexPage):
        return _index(path, model)
    if isinstance(model, RulePage):
        return _rule(path, model)
    return _constitution(path, model)


def asset(name: str) -> bytes:
    """The bytes of `assets/<name>` (site.css, site.js): shipped with the package, nothing from the network."""
    return (ASSETS / name).read_bytes()


def _context(path: str, site: SiteInfo, language: str, switch: dict[str, str], current: str) -> dict:
    """What every template sees; `switch` maps each language to this page in that language."""
    t = strings(language)
    source_language = layout.source_language(site, language)

    def href(target: str) -> str:
        return layout.relative(path, target)

    # f-strings with escape(), not Markup.format: its escaping formatter is several times slower.
    def badge(status: str) -> Markup:
        return Markup(f'<span class="badge badge-{escape(status)}">{escape(t[status + "_status"])}</span>')

    def ref(node: Ref) -> Markup:
        if node.kind == "rule":
            link = escape(href(layout.rule(source_language, node.id)))
            return Markup(f'<a href="{link}"><span class="rule-id">{escape(node.id)}</span> {escape(node.title)}</a> '
                          f"{badge(node.status)}")
        if node.kind == "external":
            return escape(t["external"].format(id=node.id))
        link = escape(href(f"{layout.index(source_language)}#{node.kind}-{node.id}"))
        kind = escape(t[node.kind + "_of"])
        return Markup(f'<a href="{link}">{escape(node.title)}</a> <span class="kind">({kind})</span>')

    context = {
        "site": site,
        "language": language,
        "t": t,
        "href": href,
        "rule_page": lambda rule_id: layout.rule(source_language, rule_id),
        "index_page": layout.index(source_language),
        "current": current,
        # A badge and a link to a node are on every line of every list: functions, not macros, keep
        # 10,000 pages fast.
        "badge": badge,
        "ref": ref,
        "switch": [(code, language_name(code), target) for code, target in switch.items()],
        "nav": {"index": layout.index(source_language), "constitution": None, "agent": None},
        "constitution_page": None,
    }
    if site.constitution_languages:
        code = layout.constitution_language(site, language)
        context["nav"] |= {"constitution": layout.constitution(code), "agent": layout.constitution(code, agent=True)}
        context["constitution_page"] = layout.constitution(code)
    return context


def _index(path: str, page: IndexPage) -> str:
    site = page.site
    context = _context(path, site, page.language, {code: layout.index(code) for code in site.languages}, "index")
    t = context["t"]
    context |= {
        "title": t["rules_of"].format(name=site.name),
        "tree": page.tree,
        "search_script": layout.search_index(page.language),
        "rules_base": layout.relative(path, layout.rule(page.language, "")).removesuffix(".html"),
        "statuses": json.dumps({status: t[f"{status}_status"] for status in STATUSES}, ensure_ascii=False),
    }
    return _environment().get_template("index.html.j2").render(context)


def _rule(path: str, page: RulePage) -> str:
    site = page.site
    context = _context(path, site, page.language, {code: layout.rule(code, page.id) for code in site.languages}, "rule")
    t = context["t"]
    provisions = {item.anchor: item for item in page.cited}
    mentions = {ref.id: ref for ref in page.mentions}

    def resolve(reference: str) -> tuple[str, str | None]:
        if reference.startswith("rule:"):
            rule_id = reference.removeprefix("rule:")
            if rule_id not in mentions:  # another source's rule, or one this source does not have
                return t["external"].format(id=rule_id) if ":" in rule_id else t["rule_ref"].format(id=rule_id), None
            return t["rule_ref"].format(id=rule_id), layout.relative(path, layout.rule(page.language, rule_id))
        provision = provisions[reference]
        if provision.label is None:
            return reference, None
        return provision.label, layout.relative(path, f"{context['constitution_page']}#{reference}")

    context |= {
        "title": t["rule"].format(id=page.id) + ": " + page.title,
        "page": page,
        "text": Markup(markdown.rule_text(page.text, resolve)),
    }
    return _environment().get_template("rule.html.j2").render(context)


def _constitution(path: str, page: ConstitutionPage) -> str:
    site = page.site
    agent = page.edition_kind == "agent"
    switch = {code: layout.constitution(code, agent) for code in site.constitution_languages}
    context = _context(path, site, page.language, switch, page.edition_kind)
    cited = _environment().get_template("cited.html.j2")

    def below(anchor: str) -> str | None:
        rules = page.citations.get(anchor)
        return cited.render(context | {"rules": rules, "anchor": anchor}).strip() if rules else None

    title = page.markdown.split("\n", 1)[0].removeprefix("# ")
    if agent:
        title += " · " + context["t"]["agent_edition"]
    context |= {"title": title, "page": page, "body": Markup(markdown.constitution(page.markdown, below))}
    return _environment().get_template("constitution.html.j2").render(context)
