"""Gather what every page shows: `gather(root) -> {site path: page model}`.

Reads the rule source in `root` (`load_source`), the constitution it publishes (`constitution/`,
rendered in memory by the constitution compiler, so the site always matches the sources) and the
git history of each rule file. A page model holds the titles and statuses of the rules it links to,
but not their text, so editing a rule's text changes only its own page and the search index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_constitution import ids
from agent_constitution.edition.checks import source_checks
from agent_constitution.edition.failures import ChecksFailed
from agent_constitution.edition.languages import LANGUAGES
from agent_constitution.edition.models import Edition
from agent_constitution.edition.references import REFERENCE, Target, label, targets
from agent_constitution.edition.render import file_names, outputs
from agent_constitution.edition.files import CONSTITUTION, load, read_worktree
from agent_constitution.ruleset.models import Rule
from agent_constitution.ruleset.source import Node, RuleSource, load_source
from agent_constitution.site import layout
from agent_constitution.site.history import rule_histories
from agent_constitution.site.models import (
    RETIRED,
    CheckInfo,
    ConstitutionPage,
    IndexPage,
    Page,
    Provision,
    Ref,
    RulePage,
    SearchEntry,
    SearchPage,
    SiteInfo,
    TreeNode,
)

RULE_REFERENCE = "rule:"


@dataclass(frozen=True)
class _Constitution:
    edition: Edition
    targets: dict[str, Target]
    markdown: dict[str, str]   # generated file name → its text


def gather(root: Path) -> dict[str, Page]:
    """Every page of the site for the source in `root`, by its site path (see `layout`)."""
    source = load_source(root)
    constitution = _load_constitution(root)
    site = _site_info(source, constitution)
    histories = rule_histories(root)
    links = _Links(source)
    # A rule page does not show the constitution's revision: a new revision leaves it alone.
    rule_site = site.model_copy(update={"edition": None, "revision": None, "draft": False})
    pages: dict[str, Page] = {}
    for language in site.languages:
        pages[layout.index(language)] = IndexPage(
            site=site, language=language, tree=tuple(_tree(source, node, language) for node in source.domains)
        )
        pages[layout.search_index(language)] = SearchPage(
            language=language,
            entries=tuple(
                SearchEntry(id=rule.id, title=rule.title[language], text=rule.text[language], status=rule.status)
                for rule in source.rules.values()
            ),
        )
        provisions = _Provisions(site, constitution, language)
        for rule_id in source.rules:
            pages[layout.rule(language, rule_id)] = _rule_page(
                source, rule_site, links, provisions, histories.get(rule_id, ()), rule_id, language
            )
    if constitution is not None:
        for language in site.constitution_languages:
            full, agent = file_names(language)
            pages[layout.constitution(language)] = ConstitutionPage(
                site=site, language=language, edition_kind="full",
                markdown=_from_title(constitution.markdown[full]),
                citations=_citations(source, constitution, layout.source_language(site, language)),
            )
            pages[layout.constitution(language, agent=True)] = ConstitutionPage(
                site=site, language=language, edition_kind="agent", markdown=_from_title(constitution.markdown[agent])
            )
    return pages


def _load_constitution(root: Path) -> _Constitution | None:
    if not (root / CONSTITUTION).is_dir():
        return None
    edition = load(read_worktree(root))
    errors = source_checks(edition)
    if errors:
        raise ChecksFailed(errors)
    markdown = {name: data.decode("utf-8") for name, data in outputs(edition).items() if name.endswith(".md")}
    return _Constitution(edition, targets(edition), markdown)


def _site_info(source: RuleSource, constitution: _Constitution | None) -> SiteInfo:
    if constitution is None:
        return SiteInfo(name=source.name, languages=source.config.languages)
    index = constitution.edition.index
    return SiteInfo(
        name=source.name,
        languages=source.config.languages,
        constitution_languages=tuple(index.languages),
        edition=index.edition,
        revision=index.revision,
        draft=index.status == "draft",
    )


def _from_title(markdown: str) -> str:
    """The generated Markdown without its do-not-edit banner: the page states edition and revision."""
    start = markdown.find("\n# ")
    return markdown[start + 1:] if start >= 0 else markdown


class _Links:
    """The reverse edges of the source: who requires, conflicts with and supersedes each rule."""

    def __init__(self, source: RuleSource):
        self.source = source
        self.required_by: dict[int, list[int]] = {}
        self.conflicts: dict[int, set[int]] = {}
        self.successors: dict[int, set[int]] = {}
        self.predecessors: dict[int, set[int]] = {}
        self.made: dict[tuple[Node, str], Ref] = {}
        for rule in source.rules.values():
            for target in rule.requires:
                if isinstance(target, int):
                    self.required_by.setdefault(target, []).append(rule.id)
            for other in rule.conflicts:
                self.conflicts.setdefault(rule.id, set()).add(other)
                self.conflicts.setdefault(other, set()).add(rule.id)
            if rule.supersedes is not None:
                self.successors.setdefault(rule.supersedes, set()).add(rule.id)
                self.predecessors.setdefault(rule.id, set()).add(rule.supersedes)
            if rule.superseded_by is not None:
                self.successors.setdefault(rule.id, set()).add(rule.superseded_by)
                self.predecessors.setdefault(rule.superseded_by, set()).add(rule.id)

    def ref(self, node: Node, language: str) -> Ref:
        # Each rule is listed on several pages: make its ref once per language.
        key = (node, language)
        if key not in self.made:
            self.made[key] = self._make(node, language)
        return self.made[key]

    def _make(self, node: Node, language: str) -> Ref:
        # model_construct: the values come from the validated source, and a page shows many refs.
        source = self.source
        if isinstance(node, int):
            rule = source.rules[node]
            return Ref.model_construct(kind="rule", id=str(node), title=rule.title[language], status=rule.status)
        if ":" in node:
            return Ref.model_construct(kind="external", id=node, title="", status="")
        table = source.config.domains.get(node) or source.groups[node]
        return Ref.model_construct(kind=source.kind(node), id=node, title=table.title[language], status="")

    def refs(self, nodes: Iterable[Node], language: str) -> tuple[Ref, ...]:
        return tuple(self.ref(node, language) for node in nodes)


class _Provisions:
    """Provision anchors → links, labelled in the language of the constitution page they point to."""

    def __init__(self, site: SiteInfo, constitution: _Constitution | None, language: str):
        self.constitution = constitution
        self.language = LANGUAGES[layout.constitution_language(site, language)] if constitution else None
        self.found: dict[str, Provision] = {}

    def get(self, anchor: str) -> Provision:
        if anchor not in self.found:
            target = self.constitution.targets.get(anchor) if self.constitution else None
            text = label(target, self.language, False) if target is not None else None
            self.found[anchor] = Provision(anchor=anchor, label=text)
        return self.found[anchor]


def _rule_page(source: RuleSource, site: SiteInfo, links: _Links, provisions: _Provisions, history, rule_id: int,
               language: str) -> RulePage:
    rule: Rule = source.rules[rule_id]
    path: list[Node] = []
    node: Node = rule_id
    while node in source.parents:
        node = source.parents[node]
        path.append(node)
    group = rule.parent if isinstance(rule.parent, str) and source.kind(rule.parent) == "group" else None
    references = [match[1] for match in REFERENCE.finditer(rule.text[language])]
    cited = dict.fromkeys(reference for reference in references if not reference.startswith(RULE_REFERENCE))
    mentioned = dict.fromkeys(
        number for reference in references
        if (number := ids.rule_number(reference.removeprefix(RULE_REFERENCE))) is not None and number in source.rules
    )
    return RulePage(
        site=site,
        language=language,
        id=rule_id,
        title=rule.title[language],
        text=rule.text[language],
        revision=rule.revision,
        status=rule.status,
        tier=rule.tier,
        default=rule.default,
        # Empty for no bound: the page says "any revision" in its own language.
        constitution=str(rule.constitution) if rule.constitution.min or rule.constitution.max else "",
        created=rule.created.isoformat() if rule.created else None,
        check=_check(rule),
        path=links.refs(reversed(path), language),
        children=links.refs(source.children[rule_id], language),
        requires=links.refs(rule.requires, language),
        required_by=links.refs(links.required_by.get(rule_id, ()), language),
        conflicts=links.refs(sorted(links.conflicts.get(rule_id, ())), language),
        group=links.ref(group, language) if group else None,
        alternatives=links.refs((other for other in source.children[group] if other != rule_id), language)
        if group else (),
        authority=tuple(provisions.get(anchor) for anchor in rule.authority),
        cited=tuple(provisions.get(anchor) for anchor in cited),
        mentions=links.refs(mentioned, language),
        superseded_by=links.ref(min(links.successors[rule_id]), language) if rule_id in links.successors else None,
        supersedes=links.refs(sorted(links.predecessors.get(rule_id, ())), language),
        history=tuple(history),
    )


def _check(rule: Rule) -> CheckInfo | None:
    check = rule.check
    if check is None:
        return None
    if check.python is not None:
        kind, detail = "python", f"rules/checks/{check.python}.py"
    else:
        kind, detail = "command", " ".join(check.command or ())
    return CheckInfo(kind=kind, detail=detail, subject=check.subject, inputs=check.inputs, tools=check.tools,
                     timeout=check.timeout)


def _tree(source: RuleSource, node: Node, language: str) -> TreeNode:
    kind = source.kind(node)
    children = tuple(_tree(source, child, language) for child in source.children[node])
    if kind == "rule":
        rule = source.rules[node]
        return TreeNode(kind="rule", id=str(node), title=rule.title[language], status=rule.status, children=children)
    table = source.config.domains.get(node) or source.groups[node]
    description = table.description[language] if table.description else ""
    return TreeNode(kind=kind, id=node, title=table.title[language], description=description, children=children)


def _citations(source: RuleSource, constitution: _Constitution, language: str) -> dict[str, tuple[Ref, ...]]:
    """Anchor → the current (not superseded or repealed) rules whose `authority` cites it."""
    found: dict[str, list[Ref]] = {}
    for rule in source.rules.values():
        if rule.status in RETIRED:
            continue
        for anchor in dict.fromkeys(rule.authority):
            if anchor in constitution.targets:
                found.setdefault(anchor, []).append(
                    Ref(kind="rule", id=str(rule.id), title=rule.title[language], status=rule.status)
                )
    return {anchor: tuple(refs) for anchor, refs in found.items()}
