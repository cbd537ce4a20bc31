"""`doit lock`: the lock stage. Resolve rules.toml once, write rules.lock and the typed resolution.

It writes `rules.lock` when its bytes change and each segment's `cache/resolved/<key>.json` when it
changes (`agent_constitution.ruleset.resolved`), so the tasks after it (`verify`, `resolution`,
compile) run only for what the resolution changed: their up-to-date checks compare each document's status.
Whether the run may change the lock is `ruleset.locked.locked_run`: `--locked`, `locked=1` on the
command line (what `doit compile --locked` passes on) or CI set in the environment make it fail
instead, like `uv sync --locked`. When it changes the lock it keeps the bytes it replaced, so a
compile step of the same run that fails puts them back (`compile.undo`); its up-to-date check
compares the lock with what it wrote, so a lock put back is written again on the next run, and
checks that the sources the resolution names are still in the user cache. When only the text of a
path source's rules changed, the action takes the short way (`ruleset.relock`): it rewrites those
rules' entries without resolving, and after a full resolution it records what the next run needs
to tell.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

from doit import get_var

from agent_constitution import console
from agent_constitution.errors import UserError
from agent_constitution.readers import read_cached, read_text
from agent_constitution.ruleset.inputs import Status, input_statuses, manifest_inputs, task_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST, ROOT_SEGMENT
from agent_constitution.ruleset.locked import locked_run
from agent_constitution.ruleset.outline import outline
from agent_constitution.ruleset.resolved import index_path, read_index, read_resolved, resolved_path
from agent_constitution.tasks.actions import reported
from agent_constitution.wiring import spoken

NAME = "lock"
GROUPS = ("compile",)
PARAMS = [{"name": "locked", "long": "locked", "type": bool, "default": False,
           "help": "fail if rules.lock would change (implied when the environment sets CI)"}]


def tasks(project):
    # Without rules.toml there is nothing to do; a folder, FIFO or dangling link there is an error
    # the action reports (the other families wait for a manifest that is a file).
    if not os.path.lexists(project.root / MANIFEST):
        return
    documents = [str(resolved_path(project.cache, path)) for path in outline(project.root / MANIFEST).segments]
    yield {
        "basename": NAME,
        "doc": "Resolve rules.toml and write rules.lock; --locked (or CI set) fails instead of changing it",
        "actions": [(_lock, [project.root, project.cache])],
        "params": PARAMS,
        # No file_dep: the manifests and the path sources' files (5,000 for a large source) count
        # through one signature of their status (`_inputs_as_locked`), which doit stores as one
        # value, instead of one entry per file that doit stats twice and writes to its database.
        "uptodate": [(_inputs_as_locked, [project]), (_as_written, [project.root]), (_cached, [project.cache]),
                     (_policy_as_locked, [project.root])],
        "targets": [str(project.root / LOCKFILE), *documents, str(index_path(project.cache))],
        "verbosity": 2,
    }


def inputs_signature(statuses: dict[str, Status]) -> str:
    """sha256 over every input file's status: an edit, a new, removed or renamed file, and a touch
    change it; the lock stage then runs and rewrites only what changed (a touched file with the same
    bytes rewrites nothing)."""
    lines = [f"{path}\0missing" if status is None else f"{path}\0{status[0]}\0{status[1]}\0{status[2]}\0{status[3]}"
             for path, status in statuses.items()]
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


# project root → the inputs' statuses this process's up-to-date check took, for the action (taken
# before the action reads a file, so a change made while it runs shows up next time).
_statuses: dict[Path, dict[str, Status]] = {}


def _inputs_as_locked(task, values, project) -> bool:
    """Up to date only while the lock's input files have the status they had when it last ran; never in
    a locked run of a lock with a git source, which verifies its commits against their repositories
    each time (`ruleset.verify`: a tag may have moved since the last run)."""
    _statuses[project.root] = input_statuses(task_inputs(project))
    if _verifies(task, project.root):
        return False
    return values.get("inputs") == inputs_signature(_statuses[project.root])


# A [[source]] entry with a commit: a git source (a path source records none).
_GIT_SOURCE = re.compile(rb"^\[\[source\]\]\n(?:(?!\[)[^\n]*\n)*?commit = ", re.MULTILINE)


def _verifies(task, root: Path) -> bool:

    asked = bool((task.options or {}).get("locked"))
    if not locked_run(asked, get_var("locked"))[0]:
        return False
    return bool(_GIT_SOURCE.search(read_cached(root / LOCKFILE) or b""))


def _digest(root: Path) -> str | None:

    data = read_cached(root / LOCKFILE)  # a FIFO in its place: no lock, never a wait
    return None if data is None else hashlib.sha256(data).hexdigest()


def _as_written(task, values, root) -> bool | None:
    """Up to date only while rules.lock holds what this task last wrote (or found), and while it had
    nothing to warn about: a warning (a superseded rule in rules.toml, say) is printed on every run
    until it is dealt with, not only on the run that re-locked."""
    if values.get("warned"):
        return False
    return values["lock"] == _digest(root) if "lock" in values else None


def _cached(task, values, cache) -> bool:
    """Every source the resolution names is still in the user cache as it was resolved (the cache
    may have been cleared or altered since: then resolve, and fetch, again)."""
    _intact[cache] = _in_cache(cache)
    return _intact[cache]


# project cache → whether this process's up-to-date check found the resolved sources intact.
_intact: dict[Path, bool] = {}


def _in_cache(cache: Path) -> bool:
    from agent_constitution.sources.cache import intact  # lazy: platformdirs, not for `doit list`
    from agent_constitution.sources.parsed import user_key  # lazy: platformdirs, not for `doit list`

    try:
        sources = read_resolved(resolved_path(cache, ROOT_SEGMENT)).sources.values()
    except UserError:
        return False
    if read_index(cache) is None:  # written by another version, or damaged
        return False
    # The user's key lets a tree verified once be taken by its status (`sources.cache.intact`).
    secret = user_key() if any(item.commit is not None for item in sources) else None
    return all(
        Path(item.root).is_dir() if item.commit is None
        else intact(item.key, item.commit, item.digest, item.root, secret=secret)
        for item in sources
    )


@reported
def _lock(root, cache, locked):
    from agent_constitution.compile import undo  # lazy: the lock stage, when the action runs
    from agent_constitution.ruleset import relock  # lazy: the lock stage, when the action runs

    locked, because = locked_run(locked, get_var("locked"))
    # Under `doit -n N` the action runs in another process than the up-to-date check.
    statuses = _statuses.pop(root, None) or input_statuses(manifest_inputs(root))
    before = read_cached(root / LOCKFILE)  # none there (or a FIFO in its place): nothing to put back
    # A text edit of a path source's rules goes the short way when it can (`ruleset.relock`); the
    # sources in the user cache must be as resolved for it, else fetching them again is the full way's.
    # A locked run takes the full way: it verifies the lock's commits against the sources' repositories.
    intact = _intact.pop(cache, None) or _in_cache(cache)
    # Under an organisation policy every lock is a full resolution: the policy holds what it resolves to.
    from agent_constitution.policy.discover import specs  # lazy: not for `doit list`

    short = intact and not locked and not specs()
    wrote = relock.apply(root, cache, statuses, locked=locked, because=because) if short else None
    warnings: dict[str, None] = {}
    if wrote is None:
        from agent_constitution.ruleset.lock import sync_lock  # lazy: the stage (pydantic, resolvelib)

        from agent_constitution.policy.gate import locked_policy  # lazy: not for `doit list`

        resolution, wrote = sync_lock(root, locked=locked, because=because, cache=cache, policy=locked_policy)
        held_back = resolution.constitution.held_back()
        warnings = dict.fromkeys([*(w for segment in resolution.segments for w in segment.warnings), *filter(None, [held_back])])
        # Outside a locked run the full way wrote the lock's bytes, or found them written.
        relock.record(root, cache, resolution, statuses, warned=bool(warnings), canonical=not locked)
    for warning in warnings:
        print(spoken(f"warning: {warning}", root), file=sys.stderr)
    if wrote:
        undo.remember(cache, before)
        console.say(f"wrote {LOCKFILE}")
        from agent_constitution.compile import git_add  # lazy: the lock stage, when the action runs

        git_add.record(root, NAME, [LOCKFILE], [])  # for compile's `git add` line
    return {"lock": _digest(root), "warned": bool(warnings), "inputs": inputs_signature(statuses)}


_POLICY_LINE = re.compile(r'^policy = "(sha256:[0-9a-f]{64})"$', re.MULTILINE)


def _policy_as_locked(root) -> bool:
    """doit `uptodate`: the lock records the organisation policy in force (none: records none)."""
    from agent_constitution.policy.discover import discover, specs  # lazy: not for `doit list`

    try:
        # Newlines as text mode reads them: a lock checked out with CRLF endings still matches.
        text = read_text(root / LOCKFILE, LOCKFILE).replace("\r\n", "\n").replace("\r", "\n")
    except UserError:
        return False
    match = _POLICY_LINE.search(text)
    recorded = match.group(1) if match else None
    if not specs():
        return recorded is None
    try:
        return recorded == discover(root).digest
    except UserError:  # a broken policy is the action's to report, with its message
        return False
