"""Moving sources forward (`upgrade`, `outdated`) and replacing superseded rules (`replace`).

`plan_upgrade(root, only=None, rule=None)` resolves twice: as locked, and with the sources (all, the
one named, or the one a rule reference comes from) free to move. A branch or default-branch source
moves to its head; a source followed by a `version` range (or only declared by other sources) to
the newest version every declaration accepts (`ruleset.versions`). A source pinned by `tag` or `rev`
in rules.toml moves its pin: the tag to the newest version tag (PEP 440 order; a pre-release only
from a pre-release), the rev to the newest commit of the default branch; the new rules.toml is
written by editing that one value through tomlkit, every other byte as it was. The `Upgrade` lists
each source that moved, each pin edited, the constitution when it moved, each rule that changed
(`ruleset.changes`: revision, summary, the diff of its file and check code) and, for `outdated`, one
row per source (locked, what upgrade takes, the newest version beyond its range); it carries the
new lock text, byte-identical to the old one when nothing moved.
`outdated` is the same plan, printed and not written; `ruleset.pull_request` puts it on a branch.

`replace_superseded(root)` rewrites, in `rules.toml`, every reference to a superseded rule with its
final successor (following the chain), through tomlkit so comments and layout stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_constitution import ids
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_text
from agent_constitution.refs import format_ref, parse_ref
from agent_constitution.wiring import command
from agent_constitution.ruleset.changes import RuleChange, rule_changes
from agent_constitution.ruleset.lock import lock_text
from agent_constitution.ruleset.lockfile import read_lock
from agent_constitution.ruleset.manifest import Declared
from agent_constitution.ruleset.models import SourceSpec
from agent_constitution.ruleset.resolve import LOCKFILE, MANIFEST, Resolution, resolve
from agent_constitution.ruleset.versions import Tag, newest, not_versions, tag_versions, version_of
from agent_constitution.sources import list_tags, newest_commit, tags_listed_once, version_tags


@dataclass(frozen=True)
class SourceMove:
    name: str
    old: str  # "v1.0.0 (abc123def456)" or the short commit
    new: str


@dataclass(frozen=True)
class PinEdit:
    """A `tag` or `rev` in rules.toml [sources] that the upgrade moves."""

    name: str  # the source's name in rules.toml
    field: str  # "tag" or "rev"
    old: str
    new: str

    def report(self) -> str:
        return f"{MANIFEST}: [sources.{self.name}] {self.field} {self.old} → {self.new}"


@dataclass(frozen=True)
class Row:
    """One line of `outdated`: a source, what it follows, where it is, where upgrade takes it, the newest."""

    name: str
    request: str  # "tag v1.0.0", "version >=1.2, <2", "branch main", "default branch", "folder"
    locked: str
    upgrade: str  # what `upgrade` moves it to; equal to `locked` when it stays
    newest: str  # the newest version tag, when upgrade stays below it (beyond the range); else ""


@dataclass(frozen=True)
class Upgrade:
    sources: tuple[SourceMove, ...]
    rules: tuple[RuleChange, ...]
    lock: str  # the new lock text
    pinned: tuple[str, ...] = ()  # notes: pins upgrade cannot edit, tags no range reads, a constitution held back
    constitution: SourceMove | None = None  # the bound constitution, when its text or revision moved
    edits: tuple[PinEdit, ...] = ()
    manifest: str | None = None  # the new rules.toml text, when a pin moved
    rows: tuple[Row, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.sources or self.rules or self.edits)

    def report(self) -> str:
        notes = list(self.pinned)
        if not self.changed:
            return "\n".join(["everything is up to date", *notes])
        lines = [f"{move.name}: {move.old} → {move.new}" for move in self.sources]
        lines += [edit.report() for edit in self.edits]
        if self.constitution is not None:
            lines.append(f"constitution ({self.constitution.name}): {self.constitution.old} → {self.constitution.new}")
        lines += [change.report() for change in self.rules]
        return "\n".join([*lines, *notes])

    def table(self) -> str:
        """The `outdated` table: every source, aligned columns."""
        header = Row("source", "follows", "locked", "upgrade", "newest")
        rows = [header, *self.rows]
        widths = [max(len(getattr(row, column)) for row in rows) for column in ("name", "request", "locked", "upgrade")]
        lines = []
        for row in rows:
            upgrade = row.upgrade if row is header or row.upgrade != row.locked else "="
            cells = [row.name, row.request, row.locked, upgrade]
            lines.append("  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)) + "  " + (row.newest or "-"))
        return "\n".join(line.rstrip() for line in lines)


def plan_upgrade(root: Path, only: str | None = None, rule: str | None = None) -> Upgrade:
    lock = read_lock(root)
    if lock is None:
        raise UserError(f"{LOCKFILE} does not exist", fix="run `doit lock` first")
    names = {source.name for source in lock.source}
    if rule:
        only = _source_of(lock, rule, only)
    move = frozenset({only} if only else names)
    with tags_listed_once():
        old = resolve(root, lock)
        # Every source the table shows a newest version for is asked for its tags below, one after the
        # other: ask them all at once first.
        list_tags((item.declared.spec.url, item.declared.spec.path, item.declared.base_dir)
                  for item in old.fetched.values() if _lists_tags(item.declared.spec))
        edits, notes = _pin_moves(old, move)
        manifest = _edited(root, edits) if edits else None
        new = resolve(root, lock, move, manifest_text=manifest)
        notes += _not_versions(new, move) + _constitution_note(new)
        rows = _rows(old, new)
    return Upgrade(
        _moves(old, new), rule_changes(old, new), lock_text(new, command(root)), tuple(notes), _constitution_move(old, new),
        tuple(edits), manifest, rows,
    )


def _source_of(lock, rule: str, only: str | None) -> str:
    """`--rule name:id` moves the one source the rule comes from (a source has one version)."""
    name, colon, body = rule.partition(":")
    number = ids.rule_number(body)
    selected = set(lock.rules)  # every rule the lock records, once
    if not colon or number is None or f"{name}:{number}" not in selected:
        raise UserError(
            f"{rule!r} is not a rule the lock selects",
            file=LOCKFILE,
            fix="name a locked rule as `name:id`, e.g. `--rule ac:7` (`doit outdated` lists what would move)",
        )
    if only and only != name:
        raise UserError(f"--rule {rule} comes from source {name}, not {only}", fix="give --source or --rule, not both")
    return name


def _lists_tags(spec: SourceSpec) -> bool:
    """Whether the plan reads the source's tags: a git source that follows a tag, a rev or a range."""
    return spec.url is not None and spec.branch is None and spec.requested is not None


def _listed_tags(declared: Declared) -> list[tuple[str, str]]:
    """A source's tags (listed once per plan: `tags_listed_once`)."""
    spec = declared.spec
    return version_tags(url=spec.url, path=spec.path, base_dir=declared.base_dir)


def _tag_versions(declared: Declared) -> list[Tag]:
    return tag_versions(_listed_tags(declared))


def _pin_moves(resolution: Resolution, move: frozenset[str]) -> tuple[list[PinEdit], list[str]]:
    """The tag and rev pins of rules.toml that move, and notes for the pins upgrade cannot edit."""
    edits, notes = [], []
    root_file = resolution.effective.inputs[0]
    for key, declared in sorted(resolution.effective.sources.items(), key=lambda item: item[1].name):
        spec, name = declared.spec, resolution.world.names[key]
        if name not in move or spec.url is None or (spec.tag is None and spec.rev is None):
            continue
        if spec.tag is not None:
            current = version_of(spec.tag)
            if current is None:
                notes.append(f"{name} follows tag {spec.tag}, which is not a PEP 440 version: upgrade leaves it")
                continue
            found = newest(_tag_versions(declared), prereleases=current.is_prerelease)
            if found is None or found.version <= current:
                continue
            edit = PinEdit(declared.name, "tag", spec.tag, found.name)
        else:
            head = newest_commit(url=spec.url, base_dir=declared.base_dir)
            if head == resolution.fetched[key].snapshot.commit:
                continue
            edit = PinEdit(declared.name, "rev", spec.rev, head)
        if declared.file != root_file:
            notes.append(f"{name} is pinned at {edit.field} {edit.old} in {declared.file}; newer: {edit.new}"
                         f" (set {edit.field} = \"{edit.new}\" there to move it)")
            continue
        edits.append(edit)
    return edits, notes


def _edited(root: Path, edits: list[PinEdit]) -> str:
    """rules.toml with each moved pin's value replaced; every other byte stays as it was."""
    import tomlkit  # only when a pin moves (or for `replace`): most plans edit nothing

    text = read_text(root / MANIFEST, MANIFEST)
    document = tomlkit.parse(text)
    for edit in edits:
        document["sources"][edit.name][edit.field] = edit.new
    return tomlkit.dumps(document)


def _not_versions(resolution: Resolution, move: frozenset[str]) -> list[str]:
    """A note for each moving source whose version-like tags are not PEP 440 (ranges and upgrades skip them)."""
    notes = []
    for key, item in sorted(resolution.fetched.items(), key=lambda kv: resolution.world.names[kv[0]]):
        name, spec = resolution.world.names[key], item.declared.spec
        if name not in move or spec.url is None or (spec.tag is None and item.version is None and spec.version is None):
            continue
        skipped = not_versions(_listed_tags(item.declared))
        if skipped:
            shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
            notes.append(f"{name}: tags {shown} are not PEP 440 versions and are ignored (e.g. write v1.2.3rc1, not v1.2.3-rc.x)")
    return notes


def _constitution_move(old: Resolution, new: Resolution) -> SourceMove | None:
    before, after = old.constitution, new.constitution
    if (before.digest, before.edition, before.revision) == (after.digest, after.edition, after.revision):
        return None

    def label(bound) -> str:
        return f"{bound.edition} revision {bound.revision} ({bound.commit.removeprefix('sha256:')[:12]})"

    return SourceMove(after.source, label(before), label(after))


def _constitution_note(resolution: Resolution) -> list[str]:
    """An upgrade moves rules, never the constitution binding: say so when the source publishes another."""
    held_back = resolution.constitution.held_back()
    return [held_back] if held_back else []


def _rows(old: Resolution, new: Resolution) -> tuple[Row, ...]:
    rows = []
    for key, before in sorted(old.fetched.items(), key=lambda kv: old.world.names[kv[0]]):
        after = new.fetched.get(key, before)
        spec = after.declared.spec
        requested = before.declared.spec.requested
        if spec.path is not None:
            request = "folder"
        elif requested is None:
            request = "default branch" if key in old.effective.sources else "any version"
        else:
            request = f"{requested[0]} {requested[1]}"
        newest_tag = ""
        if spec.url is not None and spec.branch is None and (requested is not None or after.version is not None):
            found = newest(_tag_versions(after.declared))
            shown = _label(after).split(" ")[0]
            if found is not None and found.name != shown and found.commit != after.snapshot.commit:
                newest_tag = found.name
        rows.append(Row(old.world.names[key], request, _label(before), _label(after), newest_tag))
    return tuple(rows)


def apply_upgrade(root: Path, upgrade: Upgrade) -> None:
    if upgrade.manifest is not None:
        write_atomic(root / MANIFEST, upgrade.manifest)
    write_atomic(root / LOCKFILE, upgrade.lock)


def replace_superseded(root: Path) -> list[tuple[str, str]]:
    """Rewrite superseded refs in rules.toml to their successors; returns (old, new) pairs."""
    import tomlkit

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
    version = fetched.version or fetched.declared.spec.tag
    return f"{version} ({commit})" if version else commit
