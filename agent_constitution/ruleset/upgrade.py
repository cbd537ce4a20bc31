"""Moving sources forward (`upgrade`, `outdated`) and replacing superseded rules (`replace`).

`plan_upgrade(root, only=None)` resolves twice: as locked, and with the sources (all, or the one
named) free to move to the newest commit their request allows (a branch's head, the newest version
tag inside every range; a tag stays where it is). The `Upgrade` lists each source that moved, the
constitution when it moved, and each rule that changed (`ruleset.changes`: revision, summary, the
diff of its file and check code), and carries the new lock text.
`outdated` is the same plan, printed and not written; `ruleset.pull_request` puts it on a branch.

`replace_superseded(root)` rewrites, in `rules.toml`, every reference to a superseded rule with its
final successor (following the chain), through tomlkit so comments and layout stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tomlkit
from packaging.version import InvalidVersion, Version

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_text
from agent_constitution.refs import format_ref, parse_ref
from agent_constitution.ruleset.changes import RuleChange, rule_changes
from agent_constitution.ruleset.lock import lock_text, read_lock
from agent_constitution.ruleset.resolve import LOCKFILE, MANIFEST, Resolution, resolve
from agent_constitution.sources import newest_commit, version_tags


@dataclass(frozen=True)
class SourceMove:
    name: str
    old: str  # "v1.0.0 (abc123def456)" or the short commit
    new: str


@dataclass(frozen=True)
class Upgrade:
    sources: tuple[SourceMove, ...]
    rules: tuple[RuleChange, ...]
    lock: str  # the new lock text
    pinned: tuple[str, ...] = ()  # sources held by a tag or rev that have something newer
    constitution: SourceMove | None = None  # the bound constitution, when its text or revision moved

    def report(self) -> str:
        notes = list(self.pinned)
        if not self.sources and not self.rules:
            return "\n".join(["everything is up to date", *notes])
        lines = [f"{move.name}: {move.old} → {move.new}" for move in self.sources]
        if self.constitution is not None:
            lines.append(f"constitution ({self.constitution.name}): {self.constitution.old} → {self.constitution.new}")
        lines += [change.report() for change in self.rules]
        return "\n".join([*lines, *notes])


def plan_upgrade(root: Path, only: str | None = None) -> Upgrade:
    lock = read_lock(root)
    if lock is None:
        raise UserError(f"{LOCKFILE} does not exist", fix="run `doit lock` first")
    names = {source.name for source in lock.source}
    move = frozenset({only} if only else names)
    old = resolve(root, lock)
    new = resolve(root, lock, move)
    return Upgrade(
        _moves(old, new), rule_changes(old, new), lock_text(new), _newer_pins(new, move) + _constitution_note(new),
        _constitution_move(old, new),
    )


def _constitution_move(old: Resolution, new: Resolution) -> SourceMove | None:
    before, after = old.constitution, new.constitution
    if (before.digest, before.edition, before.revision) == (after.digest, after.edition, after.revision):
        return None

    def label(bound) -> str:
        return f"{bound.edition} revision {bound.revision} ({bound.commit.removeprefix('sha256:')[:12]})"

    return SourceMove(after.source, label(before), label(after))


def _constitution_note(resolution: Resolution) -> tuple[str, ...]:
    """An upgrade moves rules, never the constitution binding: say so when the source publishes another."""
    held_back = resolution.constitution.held_back()
    return (held_back,) if held_back else ()


def _newer_pins(resolution: Resolution, move: frozenset[str]) -> tuple[str, ...]:
    """Sources that follow a tag or a rev do not move; name the newer version tags they could follow,
    or the default branch's newest commit when it is not the rev (init's starter pins a rev)."""
    notes = []
    for declared in sorted(resolution.effective.sources.values(), key=lambda item: item.name):
        spec = declared.spec
        if declared.name not in move:
            continue
        if spec.rev is not None and spec.url is not None:
            head = newest_commit(url=spec.url, base_dir=declared.base_dir)
            if not head.startswith(spec.rev):
                notes.append(f"{declared.name} is pinned at rev {spec.rev[:12]}; its default branch is at {head}"
                             " (set rev to it in rules.toml to move it)")
            continue
        if spec.tag is None:
            continue
        current = _version(spec.tag)
        tags = version_tags(url=spec.url, path=spec.path, base_dir=declared.base_dir)
        newer = [tag for tag, _ in tags if current is not None and (v := _version(tag)) is not None and v > current]
        if newer:
            notes.append(
                f"{declared.name} follows tag {spec.tag}; newer: {', '.join(sorted(newer, key=_version))}"
                " (change the tag in rules.toml to move it)"
            )
    return tuple(notes)


def _version(tag: str) -> Version | None:
    try:
        return Version(tag.removeprefix("v"))
    except InvalidVersion:
        return None


def apply_upgrade(root: Path, upgrade: Upgrade) -> None:
    write_atomic(root / LOCKFILE, upgrade.lock)


def replace_superseded(root: Path) -> list[tuple[str, str]]:
    """Rewrite superseded refs in rules.toml to their successors; returns (old, new) pairs."""
    lock = read_lock(root)
    resolution = resolve(root, lock)
    path = root / MANIFEST
    text = read_text(path, MANIFEST)  # resolve() above has parsed it: tomlkit only keeps its layout
    document = tomlkit.parse(text)
    replaced: list[tuple[str, str]] = []
    successors = _successors(resolution)

    def swap(text: str) -> str:
        ref = parse_ref(text, packages=True)
        if ref is not None and isinstance(ref.node, int) and (ref.source, ref.node) in successors:
            new = format_ref(ref.source, successors[(ref.source, ref.node)], ref.package)
            replaced.append((text, new))
            return new
        return text

    _rewrite_refs(document, swap)
    for segment in document.get("segment", []):
        _rewrite_refs(segment, swap)
    if replaced:
        write_atomic(path, tomlkit.dumps(document))
    return replaced


def _rewrite_refs(table, swap) -> None:
    for key in ("rules", "exclude"):
        items = table.get(key)
        if items is not None:
            for index, value in enumerate(list(items)):
                new = swap(str(value))
                if new != value:
                    items[index] = new
    choices = table.get("choices")
    if choices is not None:
        for group in list(choices):
            new = swap(str(choices[group]))
            if new != choices[group]:
                choices[group] = new
    tiers = table.get("tiers")
    if tiers is not None:
        for ref in list(tiers):
            new = swap(ref)
            if new != ref:
                tiers[new] = tiers[ref]
                del tiers[ref]


def _successors(resolution: Resolution) -> dict[tuple[str, int], int]:
    """(name, id) of each superseded rule of the manifest's sources → its final successor."""
    found = {}
    for key, source in resolution.world.sources.items():
        name = resolution.world.names[key]
        for rule_id, rule in source.rules.items():
            if rule.status != "superseded":
                continue
            target, seen = rule_id, {rule_id}
            while source.rules[target].superseded_by is not None:
                target = source.rules[target].superseded_by
                if target in seen:
                    break
                seen.add(target)
            found[(name, rule_id)] = target
    return found


def _moves(old: Resolution, new: Resolution) -> tuple[SourceMove, ...]:
    moves = []
    for key, item in sorted(new.fetched.items(), key=lambda kv: new.world.names[kv[0]]):
        before = old.fetched.get(key)
        if before is None or before.snapshot.commit == item.snapshot.commit:
            continue
        moves.append(SourceMove(new.world.names[key], _label(before), _label(item)))
    return tuple(moves)


def _label(fetched) -> str:
    commit = (fetched.snapshot.commit or fetched.snapshot.digest.removeprefix("sha256:"))[:12]
    return f"{fetched.version} ({commit})" if fetched.version else commit
