"""The typed resolution every stage after the lock reads: `cache/resolved/<segment-key>.json`.

The lock stage resolves the manifest once (`agent_constitution.ruleset.lock.sync_lock`) and writes,
beside `rules.lock`, one small document per segment and an index of the segments. Compile, the
checks, the user tier and `verify` read them through `read_resolved` and never resolve or parse a
rule file again for what is in them; a task's doit `file_dep` on its segment's document is what
decides whether it runs. A document changes only when something it holds changes: a one-rule edit
rewrites only the documents of the segments that enable the rule.

Documents are canonical JSON (keys sorted, no spaces, UTF-8, one line), machine-local build state
(they hold absolute paths into the user cache). Schema (`version` 4):

    {
      "version": 4,
      "segment": "web",                 # the segment path ("." for the root)
      "parent": ".",                    # the segment its file is nested under (null for ".")
      "constitution": {"source": "ac", "edition": "2026-10", "revision": "0.1",
                       "commit": "<hex, or sha256:… of constitution/<edition>/ for a plain folder>",
                       "root": "<absolute path of constitution/<edition>/>"},
      "sources": {"ac": {"key": "<normalized url or folder>", "commit": "<hex>|null",
                         "digest": "sha256:…|null",          # null for a plain folder
                         "root": "<absolute path of the tree>", "trust": true,
                         "version": "v1.2.0|null", "language": "en",
                         "aliases": {"<name in its source.toml [sources]>": "<source name>"},
                         "nodes": [{"id": "python", "parent": null, "title": {"en": "…"}}, …],
                         "skills": {"uv": {"implements": [42], "digest": "sha256:…"}}}},
      "rules": [{"source": "ac", "id": 42, "revision": 1, "digest": "sha256:…",
                 "why": "selected", "status": "active", "parent": "python", "requires": [7, "ci"],
                 "title": {"en": "…"}, "text": {"en": "…"}, "check": {…}|null}, …],
      "warnings": ["…"]
    }

`rules` are in source-name order, then parent-tree order; `why` is `selected`, `required-by
name:id` or `package name:node`; `check` is the rule's `[check]` table with its defaults filled in.
A source's `nodes` are its domains (in source.toml order, `parent` null) and then its choice groups
(in tree order): with the rules' `parent` and `requires`, what compile needs of the tree to render a
segment, so that compile reads no rule file of a source. Its `skills` are every skill of the source
(`rules/skills/<name>/`) with the rules it implements and the digest of its folder's files
(`sources.digest.files_digest`): which skills compile installs, and whether an installed one is
current, without opening a file of the source.
`cache/resolved/index.json` lists the segments and holds the root manifest's `[compile]` settings,
`[review]` groups and `[[waive]]` entries, validated, the sources `rules.lock` pins (name, url and
commit, what the check reports link a rule to), and what compile needs of the constitution in
force (`{"version": 4, "segments": [".", …], "compile": {"max-tokens": 8000, …}, "review": [[group,
{…}], …], "waive": […], "locked": [["ac", "https://…", "<hex>"|null], …], "constitution":
{"languages": ["en", …], "text": {"en": "<the agent edition>"}, "labels": {"en": {"<anchor>": "Art. IV §1"}},
"problem": null}}`,
the groups in the manifest's order; `ruleset.agent_edition`); it is rewritten on every run of the lock stage: its modification time says when the
documents were last brought in step with the inputs (what `doit check` needs when it creates its
tasks, before any task has run).

Standard library only: the Stop hook reads these documents and must not pay for pydantic.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.readers import read_cached
from agent_constitution.ruleset.layout import ROOT_SEGMENT, segment_key

VERSION = 4
FOLDER = "resolved"
INDEX = "index.json"


@dataclass(frozen=True)
class ResolvedConstitution:
    source: str
    edition: str
    revision: str
    commit: str
    root: str


@dataclass(frozen=True)
class ResolvedNode:
    """A domain (`parent` None) or a choice group of a source, with its title per language."""

    id: str
    parent: int | str | None
    title: Mapping[str, str]


@dataclass(frozen=True)
class ResolvedSkill:
    """A skill of a source: the rules it implements, and the digest of its folder's files."""

    implements: tuple[int, ...]
    digest: str


@dataclass(frozen=True)
class ResolvedSource:
    key: str
    commit: str | None
    digest: str | None
    root: str
    trust: bool
    version: str | None
    language: str  # the source's first language (what checks show a rule in)
    aliases: Mapping[str, str]  # a name in its source.toml [sources] → that source's name here
    nodes: tuple[ResolvedNode, ...]  # its domains in order, then its groups in tree order
    skills: Mapping[str, ResolvedSkill]  # by name


@dataclass(frozen=True)
class ResolvedRule:
    source: str
    id: int
    revision: int
    digest: str
    why: str
    status: str
    parent: int | str  # a rule id, or a domain or group id
    requires: tuple[int | str, ...]  # as the rule file writes them
    title: Mapping[str, str]
    text: Mapping[str, str]
    check: Mapping | None

    @property
    def ref(self) -> str:
        return f"{self.source}:{self.id}"

    @classmethod
    def of(cls, source: str, rule, digest: str, why: str = "") -> "ResolvedRule":
        """The entry of `rule` (a `ruleset.models.Rule`) of the source named `source`."""
        return cls(
            source=source, id=rule.id, revision=rule.revision, digest=digest, why=why, status=rule.status,
            parent=rule.parent, requires=tuple(rule.requires), title=dict(rule.title), text=dict(rule.text),
            check=None if rule.check is None else rule.check.model_dump(mode="json"),
        )


# Frozen records of plain dicts and tuples: they are built from JSON and written back as JSON;
# nothing mutates them after `from_json` or `documents` made them.
@dataclass(frozen=True)
class Resolved:
    version: int
    segment: str
    parent: str | None
    constitution: ResolvedConstitution
    sources: Mapping[str, ResolvedSource]
    rules: tuple[ResolvedRule, ...]
    warnings: tuple[str, ...] = ()

    @property
    def selected(self) -> frozenset[tuple[str, int]]:
        return frozenset((rule.source, rule.id) for rule in self.rules)

    def to_json(self) -> str:
        # Shallow `vars`, not `asdict` (which deep-copies), and no indent: json's C encoder then
        # writes it, about 20 times faster; the bytes are still canonical (keys sorted).
        data = {
            **vars(self),
            "constitution": vars(self.constitution),
            "sources": {name: {**vars(item), "nodes": [vars(node) for node in item.nodes],
                               "skills": {skill: {"implements": list(found.implements), "digest": found.digest}
                                          for skill, found in item.skills.items()}}
                        for name, item in self.sources.items()},
            "rules": [vars(rule) for rule in self.rules],
            "warnings": list(self.warnings),
        }
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, data: Mapping) -> "Resolved":
        """Raises KeyError, TypeError or ValueError on a document of another shape."""
        if data["version"] != VERSION:
            raise ValueError(f"version {data['version']!r}, not {VERSION}")
        sources = {
            name: ResolvedSource(**{**item, "nodes": tuple(ResolvedNode(**node) for node in item["nodes"]),
                                    "skills": {skill: ResolvedSkill(tuple(found["implements"]), found["digest"])
                                               for skill, found in item["skills"].items()}})
            for name, item in data["sources"].items()
        }
        rules = tuple(ResolvedRule(**{**rule, "requires": tuple(rule["requires"])}) for rule in data["rules"])
        return cls(
            version=data["version"],
            segment=data["segment"],
            parent=data["parent"],
            constitution=ResolvedConstitution(**data["constitution"]),
            sources=sources,
            rules=rules,
            warnings=tuple(data["warnings"]),
        )


def parent_segment(path: str, paths) -> str | None:
    """The segment a segment is nested under: the nearest enclosing one of `paths` (None for the root)."""
    if path == ROOT_SEGMENT:
        return None
    above = [p for p in paths if p != ROOT_SEGMENT and p != path and path.startswith(p + "/")]
    return max(above, key=len) if above else ROOT_SEGMENT


def resolved_path(cache: Path, segment: str) -> Path:
    return cache / FOLDER / f"{segment_key(segment)}.json"


def index_path(cache: Path) -> Path:
    return cache / FOLDER / INDEX


def read_resolved(path: Path) -> Resolved:
    """The one reader of a segment's document (memoized by modification time and size: a nested
    segment's build reads its parent's document too)."""
    try:
        status = path.stat()
    except OSError:
        status = None
    return _read(path, status.st_mtime_ns if status else 0, status.st_size if status else 0)


@lru_cache(maxsize=1024)
def _read(path: Path, mtime: int, size: int) -> Resolved:
    if not os.path.lexists(path):
        raise UserError("the segment has not been resolved", file=path, fix="run `doit compile` (it locks first)")
    try:
        data = read_cached(path)
        if data is None:
            raise ValueError("not a regular file that can be read")
        return Resolved.from_json(json.loads(data))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise UserError(
            f"not a resolution this version writes ({error})", file=path, fix="delete the file and run `doit compile`"
        ) from None


@dataclass(frozen=True)
class AgentEdition:
    """What compile needs of the constitution in force (`ruleset.agent_edition`): the edition's
    languages (the first is its own), the agent edition's text per language, and the provision
    labels per language, by anchor."""

    languages: tuple[str, ...]
    text: Mapping[str, str]
    labels: Mapping[str, Mapping[str, str]]
    # Why the edition could not be read (a UserError's message, file, line, field and fix), or None:
    # the lock does not need the text, so what is wrong with it is compile's to report (`checked`).
    problem: Mapping | None = None

    def label(self, anchor: str, language: str) -> str | None:
        """The label of the provision `anchor` in `language` (English for a language the renderer does not know)."""
        return (self.labels.get(language) or self.labels.get("en") or {}).get(anchor)

    def checked(self) -> "AgentEdition":
        """This edition, or the UserError that kept it from being read."""
        if self.problem is not None:
            raise UserError(**self.problem)
        return self

    @classmethod
    def unreadable(cls, error: UserError) -> "AgentEdition":
        problem = {"message": error.message, "file": None if error.file is None else str(error.file),
                   "line": error.line, "field": error.field, "fix": error.fix}
        return cls((), {}, {}, problem)

    def as_json(self) -> dict:
        return {"languages": list(self.languages), "text": dict(self.text),
                "labels": {code: dict(labels) for code, labels in self.labels.items()}, "problem": self.problem}

    @classmethod
    def from_json(cls, data: Mapping) -> "AgentEdition":
        problem = data["problem"]
        return cls(tuple(data["languages"]), dict(data["text"]), {code: dict(labels) for code, labels in data["labels"].items()},
                   None if problem is None else {key: problem[key] for key in ("message", "file", "line", "field", "fix")})


@dataclass(frozen=True)
class Index:
    """`cache/resolved/index.json`: the segments, the root manifest's settings the checks need, and
    what compile needs of the constitution in force."""

    segments: tuple[str, ...]  # "." first, then the manifest's order
    review: Mapping[str, Mapping]  # reviewer group → its [review.<group>] table, defaults filled in
    waive: tuple[Mapping, ...]  # the [[waive]] entries: rule, paths, reason, until (ISO date or null)
    constitution: AgentEdition
    compile: Mapping  # the [compile] table, its defaults filled in (`agents` null: detected)
    # (name, url, commit) of each source `rules.lock` pins, in its order: what a check report links a rule to
    locked: tuple[tuple[str, str | None, str | None], ...]

    def to_json(self) -> str:
        # The groups as [name, table] pairs: sort_keys keeps the tables canonical, and the pairs keep the
        # manifest's order, which decides a rule's group (the first group that matches, seed 000).
        data = {"version": VERSION, "segments": list(self.segments),
                "review": [[name, table] for name, table in self.review.items()], "waive": list(self.waive),
                "constitution": self.constitution.as_json(), "compile": dict(self.compile),
                "locked": [list(source) for source in self.locked]}
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_index(cache: Path) -> Index | None:
    """The index of the last resolution, or None when there is none (or it is damaged)."""
    try:
        data = json.loads(read_cached(index_path(cache)) or b"null")
        if data["version"] != VERSION:
            return None
        if not isinstance(data["review"], list):
            return None  # an older writer's groups, in name order: resolved again
        return Index(tuple(data["segments"]), {name: table for name, table in data["review"]}, tuple(data["waive"]),
                     AgentEdition.from_json(data["constitution"]), dict(data["compile"]),
                     tuple((name, url, commit) for name, url, commit in data["locked"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
