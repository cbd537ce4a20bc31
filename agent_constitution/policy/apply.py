"""Hold a resolution to the organisation policy: `enforce(resolution, found, today)`.

Each layer is checked on its own, so layers compose by intersection: what any layer requires is
required, what any layer forbids is forbidden, and no layer can grant what another withdrew. Every
breach names the repository's line (the `exclude`, `[sources.<name>]` or `[[waive]]` entry, or the
baseline's `[[finding]]`) and the policy's file and line; all breaches are reported at once.
"""

from __future__ import annotations

import datetime
import fnmatch
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.layout import BASELINE
from agent_constitution.policy.discover import Found, Layer
from agent_constitution.policy.model import PolicyFile
from agent_constitution.refs import parse_ref
from agent_constitution.sources import normalize_url

Node = tuple[str, int | str]


@dataclass(frozen=True)
class Breach:
    message: str  # what the repository does, and what the policy says (its file and line)
    file: str  # the repository's file
    line: int | None
    fix: str


def enforce(resolution, found: Found, today: datetime.date | None = None, baseline=None) -> None:
    """Raise one UserError listing every breach of `found` by `resolution` (and the baseline file's
    entries, `checks.baseline.BaselineFile`, when given); nothing when there is no policy."""
    if not found.layers:
        return
    today = today or datetime.date.today()
    breaches = [breach for layer, model in zip(found.layers, found.models, strict=True)
                for breach in _layer(resolution, layer, model, today, baseline)]
    if breaches:
        raise_breaches(breaches)


def raise_breaches(breaches: list[Breach]) -> None:
    first = breaches[0]
    message = first.message + "".join(
        f"\n  also: {b.file}{f':{b.line}' if b.line else ''}: {b.message}" for b in breaches[1:])
    raise UserError(f"the organisation policy forbids this: {message}", file=first.file, line=first.line,
                    fix=first.fix)


def _layer(resolution, layer: Layer, policy: PolicyFile, today: datetime.date, baseline) -> Iterator[Breach]:
    effective, world = resolution.effective, resolution.world
    manifest = effective.inputs[0]
    lines = _lines(resolution.project_root / manifest)
    keys = {name: normalize_url(source.url, base_dir=layer.base_dir) for name, source in policy.sources.items()}
    at = _Places(layer, keys)
    yield from _sources(resolution, policy, at, lines)
    local = {name: key for key, name in world.names.items()}
    enabled = {segment.path: {(local[rule.source], rule.id): rule.revision for rule in segment.rules}
               for segment in resolution.segments}
    for text in policy.require.rules:
        node, package = at.ref(text, "require.rules")
        if node[0] not in world.sources:
            yield Breach(f"it requires {text} from {node[0]}, a source {manifest} does not declare ({at.where(text)})",
                         manifest, None, f"declare the source in [sources] and select {text} in `rules`")
            continue
        for path, rules in enabled.items():
            yield from _required(resolution, path, rules, node, package, text, at, manifest, lines)
    for text, lowest in policy.require.revisions.items():
        node, _ = at.ref(text, "require.revisions")
        for path, rules in enabled.items():
            if rules.get(node, lowest) < lowest:
                name = world.names[node[0]]
                yield Breach(f"segment {path} enables {world.show(node)} at revision {rules[node]}; the policy requires"
                             f" revision {lowest} or later ({at.where(text)})", manifest,
                             _source_line(lines, name), f"move source {name!r} to a version with that revision"
                             " (`agent-constitution upgrade`)")
            if path == ".":
                break  # a rule has one revision in a lock: the root says it once
    forbidden = [at.covered(world, text, "waivers.forbid") for text in policy.waivers.forbid]
    for number, waiver in enumerate(effective.settings.waive):
        rule = _rule_node(waiver.rule, local)
        line = _table_line(lines, "waive", number)
        for text, covers in zip(policy.waivers.forbid, forbidden, strict=True):
            if rule is not None and covers(rule):
                yield Breach(f"[[waive]] of {waiver.rule} waives a rule the policy forbids waiving ({at.where(text)})",
                             manifest, line, "fix the findings instead, and remove the [[waive]] entry")
        yield from _until(waiver.until, f"[[waive]] of {waiver.rule}", policy, at, today, manifest, line)
    if baseline is not None:
        yield from _baseline(baseline, policy, at, world, local, today, resolution.project_root)


def _sources(resolution, policy: PolicyFile, at: "_Places", lines: list[str]) -> Iterator[Breach]:
    effective, world = resolution.effective, resolution.world
    allow = policy.allow
    for key in sorted(resolution.fetched, key=lambda k: world.names[k]):
        name = world.names[key]
        declared = effective.sources.get(key)
        where = declared.file if declared is not None else f"a rule source's source.toml ({name})"
        line = _source_line(lines, name) if declared is not None and declared.file == effective.inputs[0] else None
        plain = declared is not None and declared.spec.path is not None  # a folder, not a repository
        if (plain or key.startswith("/")) and not allow.folders:
            yield Breach(f"source {name!r} is a folder on this machine; the policy allows sources at git URLs only"
                         f" ({at.where_key('folders')})", where, line, "follow the source at a git URL and a tag")
        elif not plain and allow.sources is not None and not _matches(key, allow.sources):
            yield Breach(f"source {name!r} ({key}) is not among the sources the policy allows"
                         f" ({at.where_key('sources')}: {', '.join(allow.sources)})", where, line,
                         "use an allowed source, or ask the policy's owners to allow this one")
        trusted = key in effective.trusted and declared is not None and declared.spec.trust
        if trusted and allow.trust is not None and not _matches(key, allow.trust):
            yield Breach(f"source {name!r} is trusted (`trust = true`), which the policy allows only for"
                         f" {', '.join(allow.trust) or 'no source'} ({at.where_key('trust')})", where, line,
                         f"remove `trust = true` from source {name!r}: its checks are then undecidable, not run")


def _required(resolution, path: str, rules: Mapping[Node, int], node: Node, package: bool, text: str,
              at: "_Places", manifest: str, lines: list[str]) -> Iterator[Breach]:
    world = resolution.world
    source = world.sources[node[0]]
    if not source.has(node[1]):
        yield Breach(f"it requires {text}, which source {world.names[node[0]]!r} does not have ({at.where(text)})",
                     manifest, None, "ask the policy's owners: the source may have renamed or repealed it")
        return
    for needed in _needed(world, node, package, rules):
        if needed in rules:
            continue
        excluded = _excluder(resolution, path, needed)
        if excluded is not None:
            line = excluded.line if excluded.origin.startswith(manifest) else None
            yield Breach(f"segment {path} excludes {world.show(needed)} ({excluded.origin}: {excluded.text!r}); the"
                         f" policy requires {text} ({at.where(text)})", excluded.origin.split(" ")[0], line,
                         f"remove {excluded.text!r} from `exclude`: the policy's rules cannot be excluded")
        else:
            yield Breach(f"segment {path} does not enable {world.show(needed)}; the policy requires {text}"
                         f" ({at.where(text)})", manifest, _key_line(lines, "rules"),
                         f'add "{world.show(node if not package else needed)}" to `rules`')


def _needed(world, node: Node, package: bool, rules: Mapping[Node, int]) -> Iterator[Node]:
    """The rules a requirement asks for: the rule, or a package's rules that apply (active or trial,
    repository tier), entering a choice group through the alternative the repository chose."""
    if not package:
        yield node
        return
    stack = [node]
    while stack:
        current = stack.pop()
        kind = world.kind(current)
        children = world.children(current)
        if kind == "group":
            chosen = [child for child in children if child in rules]
            stack.extend(chosen or children[:1])  # none chosen: its first alternative is reported
            continue
        if kind == "rule":
            rule = world.rule(current)
            if rule.status in ("superseded", "repealed") or rule.tier != "repo":
                continue
            yield current
        stack.extend(reversed(children))


def _excluder(resolution, path: str, node: Node):
    world = resolution.world
    for ref in resolution.effective.segments[path].exclude:
        if ref.source != node[0]:
            continue
        if ref.node == node[1] or (ref.package and node in {(ref.source, n) for n in world.sources[ref.source].subtree(ref.node)}):
            return ref
    return None


def _baseline(baseline, policy: PolicyFile, at: "_Places", world, local, today, root: Path) -> Iterator[Breach]:

    lines = _lines(root / BASELINE)
    forbidden = [(text, at.covered(world, text, "waivers.baseline")) for text in policy.waivers.baseline]
    for number, entry in enumerate(baseline.finding):
        line = _table_line(lines, "finding", number)
        rule = _rule_node(entry.rule, local)
        for text, covers in forbidden:
            if rule is not None and covers(rule):
                yield Breach(f"a baseline entry accepts a finding of {entry.rule}, which the policy forbids baselining"
                             f" ({at.where(text)})", BASELINE, line, "fix the finding and remove its entry"
                             " (`agent-constitution baseline --prune`)")
        yield from _until(entry.until, f"the baseline entry of {entry.rule}", policy, at, today, BASELINE, line)


def _until(until, what: str, policy: PolicyFile, at: "_Places", today, file: str, line) -> Iterator[Breach]:
    days = policy.waivers.max_days
    if days is None:
        return
    latest = today + datetime.timedelta(days=days)
    if until is None or until > latest:
        said = "has no `until`" if until is None else f"lasts until {until}"
        yield Breach(f"{what} {said}; the policy allows at most {days} days, until {latest}"
                     f" ({at.where_key('max-days')})", file, line, f"set `until` to {latest} or earlier")


def _matches(key: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns)


def _rule_node(text: str, local: Mapping[str, str]) -> Node | None:
    name, _, number = text.partition(":")
    return (local[name], int(number)) if name in local and number.isdigit() else None


class _Places:
    """A policy layer's references as nodes, and where in the policy file each is written."""

    def __init__(self, layer: Layer, keys: Mapping[str, str]):
        self.layer, self.keys, self.lines = layer, keys, layer.text.splitlines()

    def ref(self, text: str, field: str) -> tuple[Node, bool]:
        ref = parse_ref(text, packages=True)
        if ref is None or ref.source not in self.keys:
            raise UserError(f"{text!r} does not start with a source name from the policy's [sources]",
                            file=self.layer.shown, line=self.line(text), field=field,
                            fix='declare the source: [sources.ac] url = "https://github.com/Luolc/agent-constitution"')
        node = ref.node
        package = ref.package or (isinstance(node, str) and not node.isdigit())
        return (self.keys[ref.source], int(node) if isinstance(node, str) and node.isdigit() else node), package

    def covered(self, world, text: str, field: str):
        node, package = self.ref(text, field)
        if not package:
            return lambda rule: rule == node
        if node[0] not in world.sources or not world.sources[node[0]].has(node[1]):
            return lambda rule: False
        inside = {(node[0], n) for n in world.sources[node[0]].subtree(node[1])}
        return inside.__contains__

    def line(self, text: str) -> int | None:
        return _find(self.lines, (f'"{text}"', f"'{text}'"))

    def where(self, text: str) -> str:
        line = self.line(text)
        return f"policy {self.layer.shown}{f':{line}' if line else ''}"

    def where_key(self, key: str) -> str:
        line = _find_key(self.lines, key)
        return f"policy {self.layer.shown}{f':{line}' if line else ''}"


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _find(lines: list[str], needles: tuple[str, ...]) -> int | None:
    return next((number for number, line in enumerate(lines, 1) if any(n in line for n in needles)), None)


def _find_key(lines: list[str], key: str) -> int | None:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    return next((number for number, line in enumerate(lines, 1) if pattern.match(line)), None)


def _key_line(lines: list[str], key: str) -> int | None:
    return _find_key(lines, key)


def _source_line(lines: list[str], name: str) -> int | None:
    table = re.compile(rf"^\s*\[\s*sources\s*\.\s*[\"']?{re.escape(name)}[\"']?\s*\]")
    found = next((number for number, line in enumerate(lines, 1) if table.match(line)), None)
    if found is not None:
        return found
    inline = re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*=")
    inside = False
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("["):
            inside = re.match(r"^\s*\[\s*sources\s*\]", line) is not None
        elif inside and inline.match(line):
            return number
    return None


def _table_line(lines: list[str], name: str, index: int) -> int | None:
    table = re.compile(rf"^\s*\[\[\s*{re.escape(name)}\s*\]\]")
    found = [number for number, line in enumerate(lines, 1) if table.match(line)]
    return found[index] if index < len(found) else None
