"""The organisation policy file (`policy.toml`), as written: what every repository must keep.

A policy names rule sources by URL (`[sources]`, names local to the file, like a manifest's) and
says what no repository may loosen: the rules and packages it requires (`[require]`), the sources
it allows and trusts (`[allow]`), the rules whose findings may not be waived or baselined and how
far ahead an `until` may lie (`[waivers]`). Every key is optional; an unknown key is an error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictBool, StrictInt, StrictStr

from agent_constitution.ruleset.models import Model, NodeId

# `name:id` (a rule) or `name:group-or-domain` / `name:id/*` (a package: its whole subtree).
PolicyRef = Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[A-Za-z0-9][A-Za-z0-9_.-]*(/\*)?$")]
RuleRef = Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+$")]
# Matched (fnmatch) against a source's normalized URL: `github.com/acme/*`, no scheme, user or `.git`.
UrlPattern = Annotated[StrictStr, Field(min_length=1, max_length=400)]


class PolicySource(Model):
    """A source the policy's references name, by its git URL (matched by normalized URL)."""

    url: Annotated[StrictStr, Field(min_length=1, max_length=400)]


class Require(Model):
    # Rules and packages every segment enables; `exclude` in any manifest cannot remove them.
    rules: tuple[PolicyRef, ...] = ()
    # The lowest revision an enabled rule may be at: a lock pinning an older one fails.
    revisions: dict[RuleRef, Annotated[StrictInt, Field(ge=1)]] = {}


class Allow(Model):
    # None: any source; else a git source's normalized URL must match one of these patterns.
    sources: tuple[UrlPattern, ...] | None = None
    # None: `trust = true` as the repository says; else only for sources matching one of these.
    trust: tuple[UrlPattern, ...] | None = None
    # Whether a source may be on this machine: a `path` folder, or a `url` that is a local path.
    # `sources` patterns apply to every source but a `path` folder (the repository's own files).
    folders: StrictBool = True


class Waivers(Model):
    # Rules (or packages) whose findings no `[[waive]]` entry may suppress.
    forbid: tuple[PolicyRef, ...] = ()
    # Rules (or packages) with no entry allowed in rules.baseline.toml.
    baseline: tuple[PolicyRef, ...] = ()
    # Every waiver and baseline entry carries an `until` at most this many days ahead.
    max_days: Annotated[StrictInt, Field(ge=0, le=36_500)] | None = Field(None, alias="max-days")


class PolicyFile(Model):
    """`policy.toml`."""

    version: Annotated[StrictInt, Field(ge=1, le=1)] = 1
    sources: dict[NodeId, PolicySource] = {}
    require: Require = Require()
    allow: Allow = Allow()
    waivers: Waivers = Waivers()
