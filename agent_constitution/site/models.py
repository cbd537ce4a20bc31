"""Page models: what each page of the site shows, and nothing more.

A page task depends on its model's JSON file, so a page is rebuilt exactly when something it shows
changed. Rule ids are strings here (`"42"`) so that one `Ref` names a rule, a group, a domain or a
rule of another source (`"base:12"`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

RETIRED = ("superseded", "repealed")


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SiteInfo(Model):
    """What every page shows in its header and navigation."""

    name: str                              # the source's name hint
    languages: tuple[str, ...]             # the source's languages: index, rule pages, search
    constitution_languages: tuple[str, ...] = ()   # empty: the source publishes no constitution
    edition: str | None = None
    revision: str | None = None
    draft: bool = False


class Ref(Model):
    """A link to a node of the tree: `kind` rule | group | domain | external (another source's rule)."""

    kind: Literal["rule", "group", "domain", "external"]
    id: str
    title: str = ""
    status: str = ""

    @property
    def retired(self) -> bool:
        return self.status in RETIRED


class Provision(Model):
    """A constitution provision a rule cites; `label` is None when the constitution has no such anchor."""

    anchor: str
    label: str | None


class CheckInfo(Model):
    kind: Literal["python", "command"]
    detail: str                            # rules/checks/r42.py, or the command line
    subject: str
    inputs: tuple[str, ...]
    tools: tuple[str, ...] = ()
    timeout: int


class Commit(Model):
    id: str
    date: str                              # YYYY-MM-DD in the committer's time zone
    summary: str


class RulePage(Model):
    site: SiteInfo
    language: str
    id: int
    title: str
    text: str                              # Markdown with {@…} references
    revision: int
    status: str
    tier: str
    default: bool = True                   # in the default set: init keeps it with its package
    constitution: str                      # the compatible revision range; empty: any revision
    created: str | None = None
    check: CheckInfo | None = None
    path: tuple[Ref, ...]                  # domain first, down to the parent
    children: tuple[Ref, ...] = ()
    requires: tuple[Ref, ...] = ()
    required_by: tuple[Ref, ...] = ()
    conflicts: tuple[Ref, ...] = ()
    group: Ref | None = None               # the choice group it is an alternative of
    alternatives: tuple[Ref, ...] = ()     # the group's other children
    authority: tuple[Provision, ...] = ()
    cited: tuple[Provision, ...] = ()      # provisions referenced in the text
    mentions: tuple[Ref, ...] = ()         # rules of this source referenced in the text ({@rule:42})
    superseded_by: Ref | None = None
    supersedes: tuple[Ref, ...] = ()
    history: tuple[Commit, ...] = ()


class TreeNode(Model):
    kind: Literal["domain", "group", "rule"]
    id: str
    title: str
    description: str = ""
    status: str = ""
    children: tuple[TreeNode, ...] = ()

    @property
    def retired(self) -> bool:
        return self.status in RETIRED


class IndexPage(Model):
    site: SiteInfo
    language: str
    tree: tuple[TreeNode, ...]


class SearchEntry(Model):
    id: int
    title: str
    text: str                              # Markdown with {@…} references
    status: str


class SearchPage(Model):
    language: str
    entries: tuple[SearchEntry, ...]


class ConstitutionPage(Model):
    site: SiteInfo
    language: str
    edition_kind: Literal["full", "agent"]
    markdown: str                          # the generated Markdown, from its title on
    citations: dict[str, tuple[Ref, ...]] = {}   # anchor → the rules citing it (full edition)


Page = RulePage | IndexPage | SearchPage | ConstitutionPage
