"""Moving the constitution binding: `plan_rebind(root, revision=None) -> Rebind` (`doit upgrade --constitution [REV]`).

A manifest is bound to one revision of its constitution (`[constitution]` in rules.toml) and the lock
keeps the commit that publishes it, so `doit upgrade` moves rules without moving the constitution
(seed 000: a manifest pinned to an old revision does not change when the constitution is amended).
Moving the binding is this separate step: the constitution's source moves to the newest commit its
request allows, the binding becomes the revision that commit publishes (or fails when `revision`
is given and the commit publishes another), and the plan carries

- the unified diff of the agent edition (what agents read) between the two bound texts,
- every enabled rule, in any segment, whose constitution range does not admit the new revision,
- the new rules.toml (its `[constitution] revision`, edited through tomlkit so layout stays) and
  the new lock text.

`apply_rebind` writes both files, and refuses while any enabled rule excludes the new revision.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from pathlib import Path

import tomlkit

from agent_constitution.edition.files import load, read_worktree
from agent_constitution.edition.render import file_names, outputs
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_text
from agent_constitution.refs import format_ref
from agent_constitution.wiring import command
from agent_constitution.ruleset.lock import lock_text
from agent_constitution.ruleset.lockfile import read_lock
from agent_constitution.ruleset.models import Lockfile
from agent_constitution.ruleset.resolve import LOCKFILE, MANIFEST, PUBLISHED, Constitution, Resolution, resolve
from agent_constitution.sources import fetch
from agent_constitution.sources.history import folder_at


@dataclass(frozen=True)
class Rebind:
    old: Constitution
    new: Constitution
    diff: str  # of the agent edition, every language
    excluded: tuple[str, ...]  # "ac:9 (segment .) admits >= 0.3": enabled rules whose range excludes `new`
    manifest: str  # the new rules.toml text
    lock: str  # the new rules.lock text

    @property
    def moved(self) -> bool:
        return (self.old.revision, self.old.commit) != (self.new.revision, self.new.commit)

    def report(self) -> str:
        old, new = self.old, self.new
        if not self.moved:
            return f"constitution: already bound to revision {old.revision} (commit {old.commit[:12]}), the newest source {old.source} publishes"
        lines = [
            f"constitution {new.source} edition {new.edition}: revision {old.revision} → {new.revision}"
            f" ({old.commit[:12]} → {new.commit[:12]})"
        ]
        lines.append(self.diff.rstrip("\n") if self.diff else "the agent edition's text is unchanged")
        if self.excluded:
            lines.append(f"enabled rules whose range excludes revision {new.revision}:")
            lines += [f"  {item}" for item in self.excluded]
        return "\n".join(lines)


def plan_rebind(root: Path, revision: str | None = None) -> Rebind:
    lock = read_lock(root)
    if lock is None:
        raise UserError(f"{LOCKFILE} does not exist", fix="run `doit lock` first")
    new = resolve(root, lock, frozenset({lock.constitution.source}), constitution=revision or PUBLISHED)
    old = _locked(lock, new)
    # The lock records the meaning of the manifest, which now binds the new revision.
    pin = replace(new.effective.constitution, revision=new.constitution.revision)
    relocked = replace(new, effective=replace(new.effective, constitution=pin))
    return Rebind(
        old,
        new.constitution,
        _agent_diff(old, new.constitution),
        _excluded(new),
        _manifest_text(root, new.constitution.revision),
        lock_text(relocked, command(root)),
    )


def _locked(lock: Lockfile, new: Resolution) -> Constitution:
    """The constitution the lock binds, read at its commit (a folder source: at the commit of the
    repository it is in that the lock names, else its current text)."""
    locked, item = lock.constitution, new.fetched[new.constitution.key]
    tree = item.snapshot.root
    if item.snapshot.commit is not None and not locked.commit.startswith("sha256:"):
        spec = item.declared.spec
        tree = fetch(url=spec.url, path=spec.path, commit=locked.commit, base_dir=item.declared.base_dir).root
    elif not locked.commit.startswith("sha256:"):
        tree = folder_at(tree, locked.commit, f"the source {locked.source}").root
    root = tree / "constitution" / locked.edition
    return Constitution(locked.source, new.constitution.key, locked.commit, locked.edition, locked.revision, locked.digest, root)


def apply_rebind(root: Path, rebind: Rebind) -> None:
    if rebind.excluded:
        raise UserError(
            f"{len(rebind.excluded)} enabled rule(s) exclude constitution revision {rebind.new.revision}: "
            + "; ".join(rebind.excluded),
            file=MANIFEST,
            field="constitution.revision",
            fix="stop selecting those rules (or replace them with `doit replace` when superseded), or wait for"
            " revisions of them that admit the new constitution, then run `doit upgrade --constitution` again",
        )
    write_atomic(root / MANIFEST, rebind.manifest)
    write_atomic(root / LOCKFILE, rebind.lock)


def _excluded(resolution: Resolution) -> tuple[str, ...]:
    revision = resolution.constitution.revision
    keys = {name: key for key, name in resolution.world.names.items()}
    found: dict[str, list[str]] = {}
    for segment in resolution.segments:
        for rule in segment.rules:
            allowed = resolution.world.rule((keys[rule.source], rule.id)).constitution
            if not allowed.contains(revision):
                found.setdefault(f"{format_ref(rule.source, rule.id)} admits {allowed}", []).append(segment.path)
    return tuple(f"{ref} (segment {', '.join(paths)})" for ref, paths in found.items())


def _manifest_text(root: Path, revision: str) -> str:
    """rules.toml with `[constitution] revision` set (a base's newer pin is left to that base)."""
    text = read_text(root / MANIFEST, MANIFEST)
    document = tomlkit.parse(text)
    if "constitution" not in document:
        raise UserError(
            "rules.toml has no [constitution]: its binding comes from the manifest it extends",
            file=MANIFEST,
            fix="move the binding in that base manifest, or bind here: add [constitution] with source, edition and revision",
        )
    document["constitution"]["revision"] = revision
    return tomlkit.dumps(document)


def _agent_diff(old: Constitution, new: Constitution) -> str:
    before, after = _agent_texts(old.root), _agent_texts(new.root)
    parts = []
    for name in sorted(set(before) | set(after)):
        parts.append("".join(difflib.unified_diff(
            before.get(name, "").splitlines(keepends=True),
            after.get(name, "").splitlines(keepends=True),
            f"a/{old.edition}@{old.revision}/{name}",
            f"b/{new.edition}@{new.revision}/{name}",
        )))
    return "".join(parts)


def _agent_texts(folder: Path) -> dict[str, str]:
    """The agent edition of a bound constitution, per file: generated/ when the source ships it, else rendered."""
    generated = sorted((folder / "generated").glob("constitution.*.agent.md"))
    if generated:
        return {path.name: read_text(path) for path in generated}
    prefix = f"constitution/{folder.name}/"
    edition = load({path: data for path, data in read_worktree(folder.parent.parent).items() if path.startswith(prefix)})
    rendered = outputs(edition)
    return {name: rendered[name].decode("utf-8") for code in edition.index.languages for name in [file_names(code)[1]]}
