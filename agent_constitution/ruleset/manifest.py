"""A manifest with its bases: `load_manifest(path, project_root, open_base) -> Effective`.

Names in a manifest are local to its file, so every reference is turned into a `Ref` carrying the
source *key* (the normalized URL or absolute folder from `agent_constitution.sources.normalize_url`)
as soon as its file is read. `extends` is applied recursively, base first: each manifest adds rules,
removes them (`exclude`) and chooses alternatives on top of what its base selected. A later layer's
`rules` entry cancels an equal `exclude` entry of an earlier layer, and the other way round; within
one layer `exclude` wins over `rules` (so "this package except that rule" works). Choices of a later
layer replace the earlier choice for the same group. Segments are layered on the root selection the
same way. A base cannot have segments (paths belong to one repository).

Constitution pins: the repository (source) and edition must agree across the chain; if the revisions
differ the newer one is used (seed 000), and `Pin.pinned_by` keeps every file's pin for messages.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from agent_constitution import ids
from agent_constitution.errors import UserError
from agent_constitution.refs import format_ref, parse_ref
from agent_constitution.ruleset.layout import ROOT_SEGMENT
from agent_constitution.ruleset.models import Manifest, SourceSpec, load, parse, revision_key
from agent_constitution.ruleset.personal import Person, is_set
from agent_constitution.sources import normalize_url

@dataclass(frozen=True)
class Ref:
    """A rule (`node` int), a group or domain (`node` str), or a package (`package`: the subtree)."""

    source: str
    node: int | str
    package: bool
    text: str = field(compare=False)  # as written, e.g. "ac:python"
    origin: str = field(compare=False)  # where it was written, e.g. "rules.toml `rules`"
    line: int | None = field(default=None, compare=False)  # its line in the root manifest, where known


@dataclass(frozen=True)
class Declared:
    """A source as one file declares it: the local name, the spec and the folder paths are relative to."""

    key: str
    name: str
    spec: SourceSpec
    base_dir: Path
    file: str


@dataclass(frozen=True)
class Selection:
    rules: tuple[Ref, ...]
    exclude: tuple[Ref, ...]
    choices: Mapping[Ref, Ref]  # group → chosen alternative


@dataclass(frozen=True)
class Pin:
    source: str  # key
    edition: str
    revision: str  # the newest revision any file of the chain pins
    pinned_by: tuple[tuple[str, str], ...]  # (file, revision), root manifest first


@dataclass(frozen=True)
class Effective:
    """The manifest after `extends`: what resolution reads."""

    file: Path
    settings: Manifest  # the root manifest as written ([compile], [review], strict)
    inputs: tuple[str, ...]  # files read, root first: repo-relative paths or `name:path`
    sources: Mapping[str, Declared]  # key → the declaration that wins (the root's over a base's)
    names: Mapping[str, str]  # key → the name messages and the lock use
    constitution: Pin
    strict: bool
    tiers: Mapping[tuple[str, int], str]
    segments: Mapping[str, Selection]  # "." (the root) first, then [[segment]] paths in file order
    trusted: frozenset[str] = frozenset()  # keys of the sources whose code may run (see `_trust`)

    def show(self, source: str, node: int | str) -> str:
        return format_ref(self.names[source], node)

    def digest(self) -> str:
        """The meaning of the manifest, independent of folder, comments and layout."""

        def refs(items) -> list[str]:
            return [f"{self.show(r.source, r.node)}{'/*' if r.package and isinstance(r.node, int) else ''}" for r in items]

        data = {
            "constitution": [self.names[self.constitution.source], self.constitution.edition, self.constitution.revision],
            "sources": {
                self.names[key]: portable_location(declared, self.file.parent)
                for key, declared in sorted(self.sources.items(), key=lambda item: self.names[item[0]])
            },
            "strict": self.strict,
            "tiers": sorted(f"{self.show(*key)}={tier}" for key, tier in self.tiers.items()),
            "segments": {
                path: {
                    "rules": refs(selection.rules),
                    "exclude": refs(selection.exclude),
                    "choices": sorted(
                        f"{a}={b}" for a, b in zip(refs(selection.choices), refs(selection.choices.values()), strict=True)
                    ),
                }
                for path, selection in self.segments.items()
            },
        }
        return "sha256:" + hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def portable_location(declared: Declared, project_root: Path) -> dict[str, str]:
    """`{"url": …}` as written, or `{"path": …}` relative to the project root (POSIX), plus the request
    (a `version` range is recorded as `range`: in the lock, `version` is the tag the range chose)."""
    spec = declared.spec
    if spec.url is not None:
        where = {"url": spec.url}
    else:
        folder = (declared.base_dir / spec.path).resolve()
        where = {"path": Path(os.path.relpath(folder, project_root.resolve())).as_posix()}
    requested = spec.requested
    if requested:
        where[_LOCKED_AS.get(requested[0], requested[0])] = requested[1]
    return where


_LOCKED_AS = {"version": "range"}


OpenSource = Callable[[Declared], Path]  # the root folder of a declared source at its chosen version


def load_manifest(path: Path, project_root: Path, open_source: OpenSource, text: str | None = None) -> Effective:
    """Read `path` and its bases; `open_source` gives the tree of a source a base lives in.

    `text`: the root manifest's content instead of the file's (what `upgrade` resolves with before it
    writes a moved tag or rev into rules.toml)."""
    layers, scopes = _chain(path, project_root, open_source, text)
    root_manifest, root_shown, _ = layers[-1][:3]
    sources: dict[str, Declared] = {}
    names: dict[str, str] = {}
    for _, _, declared, _ in layers:  # base first: the root's names and specs win
        for item in declared.values():
            sources[item.key] = item
    for _, _, declared, _ in reversed(layers):  # root first: its names win; a base's name is local to it
        for item in declared.values():
            if item.key not in names:
                names[item.key] = unique_name(item.name, set(names.values()))
    pin = _pin(layers, root_shown)
    selection = Selection((), (), MappingProxyType({}))
    tiers: dict[tuple[str, int], str] = {}
    root_lines = _lines_of(path, text)
    for manifest, shown, declared, _ in layers:
        resolve = _resolver(declared, shown)
        lines = root_lines if manifest is root_manifest else []
        selection = _layer(
            selection,
            [resolve(text, "rules", index) for index, text in enumerate(manifest.rules)],
            [dataclasses.replace(resolve(text, "exclude", index), line=entry_line(lines, None, text))
             for index, text in enumerate(manifest.exclude)],
            _choices(manifest.choices, resolve, "choices"),
        )
        for text, tier in manifest.tiers.items():
            ref = resolve(text, "tiers", text)
            if not isinstance(ref.node, int) or ref.package:
                raise UserError(f"{text!r} is not a rule", file=shown, field=f"tiers.{text}", fix="write `name:id`")
            tiers[(ref.source, ref.node)] = tier
    segments = {ROOT_SEGMENT: selection}
    resolve = _resolver(layers[-1][2], root_shown)
    for index, segment in enumerate(root_manifest.segment):
        where = f"segment.{index}"
        segments[segment.path] = _layer(
            selection,
            [resolve(text, f"{where}.rules", i) for i, text in enumerate(segment.rules)],
            [dataclasses.replace(resolve(text, f"{where}.exclude", i), line=entry_line(root_lines, index, text))
             for i, text in enumerate(segment.exclude)],
            _choices(segment.choices, resolve, f"{where}.choices"),
        )
    return Effective(
        file=path,
        settings=root_manifest,
        inputs=tuple(shown for _, shown, _, _ in reversed(layers)),
        sources=MappingProxyType(sources),
        names=MappingProxyType(names),
        constitution=pin,
        strict=root_manifest.strict,
        tiers=MappingProxyType(tiers),
        segments=MappingProxyType(segments),
        trusted=_trust(layers, scopes, project_root),
    )


def _lines_of(path: Path, text: str | None) -> list[str]:
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
    return text.splitlines()


_TABLE = re.compile(r"^\s*\[")
_SEGMENT_TABLE = re.compile(r"^\s*\[\[\s*segment\s*\]\]")


def entry_line(lines: list[str], segment: int | None, entry: str) -> int | None:
    """The line (from 1) holding the string `entry` in the `segment`-th `[[segment]]` table of a
    manifest's lines (None: before the first table), for messages that name the user's own line.
    A line scan, not a parser: the manifest has already parsed, and a miss only loses the number."""
    quoted = (f'"{entry}"', f"'{entry}'")
    start, count = 0, -1
    if segment is not None:
        for number, line in enumerate(lines):
            if _SEGMENT_TABLE.match(line):
                count += 1
                if count == segment:
                    start = number + 1
                    break
        else:
            return None
    for number in range(start, len(lines)):
        line = lines[number]
        if _TABLE.match(line) and (segment is None or _SEGMENT_TABLE.match(line)
                                   or not line.lstrip().startswith("[segment.")):
            return None  # the table ended: a sub-table `[segment.choices]` is still part of it
        if any(q in line for q in quoted):
            return number + 1
    return None


def _trust(layers: list[Layer], scopes: Mapping[str, Path | None], project_root: Path) -> frozenset[str]:
    """The keys of the sources whose code may run (docs/checks.md, "Trust").

    Only the repository's own manifests grant trust: `trust = true`, or a `path` source inside the
    repository. Any manifest of the chain, a base inside a source too, can take it away with an
    explicit `trust = false`; none other can give it.
    """
    granted, withdrawn = set(), set()
    inside = project_root.resolve()
    for _, shown, declared, _ in layers:
        own = scopes[shown] is None
        for item in declared.values():
            spec = item.spec
            if "trust" in spec.model_fields_set and not spec.trust:
                withdrawn.add(item.key)
            elif own and (spec.trust or (spec.path is not None and Path(item.key).is_relative_to(inside))):
                granted.add(item.key)
    return frozenset(granted - withdrawn)


def declare(name: str, spec: SourceSpec, base_dir: Path, file: str) -> Declared:
    return Declared(source_key(spec.url, spec.path, base_dir), name, spec, base_dir, file)


def source_key(url: str | None, path: str | None, base_dir: Path) -> str:
    """The key sources are matched by: the normalized URL, or the absolute folder of a path source."""
    if url is not None:
        return normalize_url(url, base_dir=base_dir)
    return str((base_dir / Path(path).expanduser()).resolve())


Layer = tuple[Manifest, str, dict[str, Declared], Path]


def _chain(
    path: Path, project_root: Path, open_source: OpenSource, text: str | None = None
) -> tuple[list[Layer], dict[str, Path | None]]:
    """The manifests from the most basic base to `path`, and each one's scope (shown name → scope).

    The scope is None for the repository's own manifests (the root manifest and the bases it reaches
    by local paths inside the repository); for a base inside a source, and every base that one reaches,
    it is that source's tree: paths such a manifest names must stay inside it.
    """
    layers: list[Layer] = []
    scopes: dict[str, Path | None] = {}
    seen: list[str] = []
    current: Path | None = path
    shown = _relative(path, project_root)
    base_dir = path.parent
    scope: Path | None = None
    while current is not None:
        if shown in seen:
            raise UserError(
                "manifests extend each other in a cycle: " + " → ".join([*seen, shown]),
                file=seen[0],
                field="extends",
                fix="remove one `extends` from the cycle",
            )
        seen.append(shown)
        if text is not None and not layers:
            manifest = parse(Manifest, tomllib.loads(text), shown)
        else:
            manifest = load(Manifest, current, shown)
        if layers and manifest.segment:
            raise UserError(
                "a base manifest cannot have [[segment]] tables; segments belong to one repository",
                file=shown,
                field="segment",
                fix="move the segments into the repository's own rules.toml",
            )
        if layers and is_set(manifest.person, manifest.machine):
            raise UserError(
                "a base manifest cannot set [person] or [machine]; they belong to one person",
                file=shown,
                field="person" if manifest.person != Person() else "machine",
                fix="move them into your user-level rules.toml (`doit compile:user` reads them)",
            )
        declared = {name: declare(name, spec, base_dir, shown) for name, spec in manifest.sources.items()}
        if scope is not None:
            for name, item in declared.items():
                _confined(item, scope, shown, name)
        layers.append((manifest, shown, declared, base_dir))
        scopes[shown] = scope
        current = None
        if manifest.extends is not None:
            current, shown, base_dir, scope = _base(
                manifest.extends, declared, shown, base_dir, project_root, open_source, scope
            )
    layers.reverse()
    return layers, scopes


def _confined(item: Declared, scope: Path, shown: str, name: str) -> None:
    """A base inside a source names local folders only inside that source's own tree."""
    folder = Path(item.key) if item.spec.path is not None or item.key.startswith("/") else None
    if folder is not None and not folder.is_relative_to(scope.resolve()):
        raise UserError(
            f"source {name!r} names the folder {folder}, outside the source this base manifest comes from;"
            " a source cannot point at files on your machine",
            file=shown,
            field=f"sources.{name}",
            fix="declare local folders in the repository's own rules.toml; a base inside a source names git URLs",
        )


def _base(
    extends: str,
    declared: dict[str, Declared],
    shown: str,
    base_dir: Path,
    project_root: Path,
    open_source: OpenSource,
    scope: Path | None,
) -> tuple[Path, str, Path, Path | None]:
    name, colon, rest = extends.partition(":")
    if colon and name in declared:
        root = open_source(declared[name])
        target = (root / rest).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            raise UserError(
                f"source {name!r} has no file {rest!r}",
                file=shown,
                field="extends",
                fix="a source publishes base manifests under manifests/, e.g. `name:manifests/base.toml`",
            )
        return target, f"{name}:{rest}", target.parent, root
    target = (base_dir / extends).resolve()
    if scope is not None and not target.is_relative_to(scope.resolve()):
        raise UserError(
            f"base manifest {extends!r} is outside the source it is named in",
            file=shown,
            field="extends",
            fix="a base inside a source extends files of that source, or names another source (`name:path`)",
        )
    if scope is None and not target.is_relative_to(project_root.resolve()):
        # A file elsewhere on this machine: not confined (the user put it there), but not the
        # repository's own either, so it grants no trust.
        scope = Path(target.anchor)
    if not target.is_file():
        hint = f" and {name!r} is not a name in [sources]" if colon else ""
        raise UserError(
            f"base manifest {extends!r} not found{hint}",
            file=shown,
            field="extends",
            fix="write `name:path` for a base inside a source, or a path relative to this file",
        )
    return target, _relative(target, project_root), target.parent, scope


def _relative(path: Path, project_root: Path) -> str:
    return Path(os.path.relpath(path.resolve(), project_root.resolve())).as_posix()


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `name-2`, `name-3`, … when another source already goes by it in messages and the lock."""
    candidate, counter = name, 1
    while candidate in taken:
        counter += 1
        candidate = f"{name}-{counter}"
    return candidate


def _pin(layers: list[Layer], root_shown: str) -> Pin:
    pins = []
    for manifest, shown, declared, _ in reversed(layers):  # root first
        if manifest.constitution is None:
            continue
        pin = manifest.constitution
        if pin.source not in declared:
            raise UserError(
                f"constitution source {pin.source!r} is not a name in [sources]",
                file=shown,
                field="constitution.source",
                fix="name the source that publishes the constitution, as declared in [sources]",
            )
        pins.append((shown, declared[pin.source].key, pin.edition, pin.revision))
    if not pins:
        raise UserError(
            "no [constitution] binding: a manifest names the constitution its rules refine",
            file=root_shown,
            field="constitution",
            fix='add [constitution] with source, edition and revision, e.g. source = "ac", edition = "2026-10", revision = "0.1"',
        )
    first_file, key, edition, _ = pins[0]
    for shown, other_key, other_edition, _ in pins[1:]:
        if (other_key, other_edition) != (key, edition):
            raise UserError(
                f"{shown} is bound to edition {other_edition} of {other_key}, but {first_file} to edition"
                f" {edition} of {key}; manifests bound to different constitutions are not used together",
                file=root_shown,
                field="constitution",
                fix="bind both to the same constitution repository and edition",
            )
    newest = max((pin[3] for pin in pins), key=revision_key)
    return Pin(key, edition, newest, tuple((shown, revision) for shown, _, _, revision in pins))


def _resolver(declared: dict[str, Declared], shown: str) -> Callable[[str, str, object], Ref]:
    def resolve(text: str, where: str, index: object) -> Ref:
        ref = parse_ref(text, packages=True)
        field = f"{where}.{index}" if not isinstance(index, str) else f"{where}.{index}"
        if ref is None or ref.source not in declared:
            raise UserError(
                f"{text!r} does not start with a source name from [sources]",
                file=shown,
                field=field,
                fix="write references as `name:id` or `name:group-or-domain`, with a name declared in [sources]",
            )
        node, package = ref.node, ref.package
        if isinstance(node, str) and not package and ids.is_node_id(node) and not node.isdigit():
            package = True  # a domain or group: its whole subtree (`01` is neither rule 1 nor a group)
        elif isinstance(node, str):
            raise UserError(
                f"{text!r} is not a rule, package or group reference",
                file=shown,
                field=field,
                fix="write `name:42` (a rule), `name:python` (a domain or group: its whole subtree) or `name:42/*` (rule 42 and its subtree)",
            )
        return Ref(declared[ref.source].key, node, package, text, f"{shown} `{where}`")

    return resolve


def _choices(table: Mapping[str, str], resolve, where: str) -> dict[Ref, Ref]:
    chosen = {}
    for group_text, alternative_text in table.items():
        group = resolve(group_text, where, group_text)
        alternative = resolve(alternative_text, where, group_text)
        chosen[Ref(group.source, group.node, False, group.text, group.origin)] = Ref(
            alternative.source, alternative.node, False, alternative.text, alternative.origin
        )
    return chosen


def _layer(base: Selection, rules: list[Ref], exclude: list[Ref], choices: dict[Ref, Ref]) -> Selection:
    added, removed = set(rules), set(exclude)
    merged_rules = [ref for ref in base.rules if ref not in removed] + [r for r in rules if r not in base.rules]
    merged_exclude = [ref for ref in base.exclude if ref not in added] + [r for r in exclude if r not in base.exclude]
    return Selection(
        tuple(dict.fromkeys(merged_rules)),
        tuple(dict.fromkeys(merged_exclude)),
        MappingProxyType({**base.choices, **choices}),
    )
