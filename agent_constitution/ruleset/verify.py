"""A locked run's check that `rules.lock` pins what the manifest asks for now, so that a lock rolled back
to an older commit (with that commit's digests) is not taken unseen.

A lock keeps a source at its commit; nothing in the repository says that commit is still what the
source's request names. So a locked run (`--locked`, or CI set) asks each git source's repository
(`sources.remote_refs`: fetched, no fallback to the cache) and holds every locked commit against it:

- `tag = "v1"`: the tag names the locked commit;
- `branch = "main"`, or no request (the default branch): the branch names the locked commit;
- `version = ">=1, <2"` (and a source only other sources declare, chosen among its version tags):
  the locked version's tag names the locked commit; a newer version the manifest's range admits is
  reported (a warning: the lock was rolled back, or made before that version, and `doit upgrade`
  takes it), never skipped silently;
- `rev`: not asked (a commit id names one commit for good; the content digest holds it).

A mismatch fails, naming the source, the request and both commits, and says which way it points (the
lock's commit older than the request's: a rollback, or the name moved on since; newer: the name was
moved back). A commit's content digest is held against the lock's in every run (`same_digests`).
A repository that cannot be reached fails the run as not verified, unless `AGENT_CONSTITUTION_OFFLINE`
is set, which turns it into a warning and asks no repository (docs/rules.md, Decisions).
"""

from __future__ import annotations

import os
import sys

from packaging.specifiers import SpecifierSet

from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.ruleset.layout import LOCKFILE
from agent_constitution.ruleset.models import Lockfile
from agent_constitution.ruleset.versions import admits, tag_versions, version_of
from agent_constitution.sources import descends, remote_refs

OFFLINE_ENV = "AGENT_CONSTITUTION_OFFLINE"
_YES = ("1", "true", "yes")


def offline() -> bool:
    return os.environ.get(OFFLINE_ENV, "").strip().lower() in _YES


def same_digests(current: Lockfile | None, resolution) -> None:
    """A commit's content is what git says it is: a lock recording another digest for it is never re-pinned."""
    names = resolution.world.names
    got = {names[key]: item for key, item in resolution.fetched.items()}
    for locked in current.source if current is not None else ():
        item = got.get(locked.name)
        snapshot = item.snapshot if item is not None else None
        if snapshot is None or locked.commit is None or snapshot.commit != locked.commit or snapshot.digest == locked.digest:
            continue
        raise UserError(
            f"the lock pins source {locked.name} ({_request(item)}) at commit {locked.commit} with digest"
            f" {locked.digest}, but that commit's content has digest {snapshot.digest}",
            file=LOCKFILE,
            fix="the lock was edited, or written from a damaged cache: look at its history (`git log -p rules.lock`);"
            f" to take the content git has for that commit, delete the [[source]] entry of {locked.name} from"
            " rules.lock and run `doit lock`",
        )


def verify_lock(resolution, because: str) -> list[str]:
    """Hold every git source's locked commit against what its request names now (module docstring).
    Raises one UserError listing every mismatch; returns the warnings (printed here too)."""
    problems: list[str] = []
    warnings: list[str] = []
    for key, item in sorted(resolution.fetched.items(), key=lambda kv: resolution.world.names[kv[0]]):
        commit = item.snapshot.commit
        spec = item.declared.spec
        requested = spec.requested
        if commit is None or (requested is not None and requested[0] == "rev"):
            continue
        name = resolution.world.names[key]
        if offline():
            warnings.append(f"source {name} was not verified against its repository ({OFFLINE_ENV} is set):"
                            f" the lock's commit {commit[:12]} is taken as {_request(item)}")
            continue
        try:
            refs = remote_refs(url=spec.url, path=spec.path, base_dir=item.declared.base_dir)
        except UserError as error:
            problems.append(f"source {name} ({_request(item)}) could not be verified: {error.message}")
            continue
        if item.version is not None and (requested is None or requested[0] == "version"):
            label, now = f"tag {item.version}", refs.tags.get(item.version)
            if requested is not None:
                newer = _newer_admitted(refs.tags, requested[1], item.version)
                if newer is not None:
                    warnings.append(
                        f"source {name} is locked at {item.version}, but its range {requested[1]} admits {newer}"
                        f" (newer): the lock was rolled back, or made before {newer}; `doit upgrade {name}` takes it")
        elif requested is not None and requested[0] == "tag":
            label, now = f"tag {requested[1]}", refs.tags.get(requested[1])
        elif requested is not None and requested[0] == "branch":
            label, now = f"branch {requested[1]}", refs.branches.get(requested[1])
        else:
            label, now = "the default branch", refs.head
        if now != commit:
            problems.append(_mismatch(name, item, label, commit, now))
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if problems:
        # Like a stale lock: what a locked run is there to find (exit 1), not bad input.
        raise OutOfDate(
            f"{LOCKFILE} does not pin what rules.toml asks for ({because}, so the lock is verified):\n  "
            + "\n  ".join(problems),
            file=LOCKFILE,
            fix="if rules.lock was changed by hand or in a pull request, restore it (`git log -p rules.lock`); if a"
            " source's tag or branch moved upstream, ask its maintainers why, then `doit upgrade NAME` locks what it"
            f" names now; to build where the repositories cannot be reached, set {OFFLINE_ENV}=1 (not verified)",
        )
    return warnings


def _mismatch(name: str, item, label: str, locked: str, now: str | None) -> str:
    head = f"source {name} ({_request(item)}): the lock pins commit {locked}"
    if now is None:
        return f"{head}, but the repository has no {label} now"
    spec, base_dir = item.declared.spec, item.declared.base_dir
    if descends(url=spec.url, path=spec.path, base_dir=base_dir, commit=now, ancestor=locked):
        how = f"an older commit than the one {label} names now: a rollback of the lock, or {label} moved on since"
    elif descends(url=spec.url, path=spec.path, base_dir=base_dir, commit=locked, ancestor=now):
        how = f"a newer commit than the one {label} names now: {label} was moved back"
    else:
        how = f"which is not in the history of the commit {label} names now"
    return f"{head}, {how} ({now})"


def _newer_admitted(tags: dict[str, str], spec: str, locked: str) -> str | None:
    version = version_of(locked)
    if version is None:
        return None
    found = next((tag for tag in tag_versions(tags.items()) if admits(SpecifierSet(spec), tag.version)), None)
    return found.name if found is not None and found.version > version else None


def _request(item) -> str:
    requested = item.declared.spec.requested
    if requested is None:
        return f"version {item.version}" if item.version is not None else "its default branch"
    kind, value = requested
    return f"version = {value!r}" if kind == "version" else f"{kind} = {value!r}"
