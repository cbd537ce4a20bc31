"""What a failed compile puts back: `rules.lock` and every file its steps rewrote, as they were.

`doit compile` runs `lock` before the steps that write what agents read, and any of those can still
fail (a part file in the way, a hook file that is not JSON, a rule naming a provision the
constitution lacks, a link out of the repository). The lock must then stay as it was. So the lock
task keeps the bytes it replaced in `cache/lock-before.json`, tagged with the run (an id each doit
process sets when it loads the compile tasks, which its workers inherit), and a compile step that
fails puts them back; a record of another run is never used. The root `AGENTS.md` (the index of
every other file) is written after every other step succeeded. Each other step journals, before
its first change to a file of the repository, what the file held (`journal`, under
`cache/undo/<run>/`, one record per file, kept by whichever step changed it first): a step that
fails puts back every journaled file of the run, so a segment's `AGENTS.md`, a `CLAUDE.md` shim, a
skill or a hook file written before the failure is as it was too. The journal keeps the old bytes
as a hard link to the file being replaced (no second copy of them), a copy only where the file
system makes no links; a file whose bytes do not change is neither written nor journaled. Staging every output and renaming
them at the end would need every up-to-date check to read through the staging area; a journal keeps
each step writing its own outputs, as doit expects.

Standard library only: the lock task imports it while doit creates tasks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
from pathlib import Path

from agent_constitution.fsio import confine, remove, write_atomic, write_if_changed
from agent_constitution.layout import LOCKFILE

RUN = "AGENT_CONSTITUTION_RUN"
RECORD = "lock-before.json"
JOURNAL = "undo"


def start_run() -> None:
    """A new id for this doit run, inherited by the worker processes it forks (random bytes, as the
    check runner's token: uuid imports `platform`, 4 ms of a no-op compile, which imports no pydantic)."""
    os.environ[RUN] = os.urandom(16).hex()


def remember(cache: Path, before: bytes | None) -> None:
    """Called by the lock task before it replaces rules.lock: what was there (None: no lock yet)."""
    text = None if before is None else before.decode("utf-8", errors="surrogateescape")
    write_atomic(cache / RECORD, json.dumps({"run": os.environ.get(RUN), "lock": text}) + "\n", within=cache)


def journal(root: Path, cache: Path):
    """The hook a compile step runs under (`fsio.watching`): keeps, once per file, what a file of the
    repository (not of the cache) held before this run first changed it."""
    run = os.environ.get(RUN)
    folder = cache / JOURNAL / run if run else None
    top, inside_cache = root.resolve(), cache.resolve()
    made: list[Path] = []

    def keep(path: Path) -> None:
        if folder is None:
            return
        full = Path(os.path.abspath(path))
        if not full.is_relative_to(top) or full.is_relative_to(inside_cache):
            return
        relative = full.relative_to(top).as_posix()
        name = hashlib.sha256(relative.encode()).hexdigest()[:32]
        record = folder / f"{name}.json"
        if record.exists():
            return  # an earlier change of this run kept what the file held before the run
        entry = {"path": relative, "bytes": None, "created": _first_missing(full, top)}
        if not made:
            confine(folder, cache)  # once per run: the records go nowhere else
            os.makedirs(folder, exist_ok=True)
            made.append(folder)
        if full.is_file() and not full.is_symlink() and _linked(full, folder / f"{name}.bytes"):
            entry["link"] = f"{name}.bytes"
        else:
            try:
                entry["bytes"] = base64.b64encode(full.read_bytes()).decode() if full.is_file() else None
            except OSError:
                pass
        # Not confined again: the folder was, once, and a rename into it never writes through a link
        # (resolving the paths of each record was a third of the journal's cost at 1,000 segments).
        write_atomic(record, json.dumps(entry) + "\n")

    return keep


def _linked(path: Path, target: Path) -> bool:
    """Keep the file's bytes as a second name of the same file (a hard link), not a copy: every writer
    of the outputs replaces a file by renaming a new one into place (`fsio.write_atomic`) and every
    deleter unlinks it, so the old file, and the bytes under the second name, are never written
    again. False where links cannot be made (another device, a file system without them): then the
    journal keeps a copy."""
    try:
        if os.path.lexists(target):
            os.unlink(target)
        os.link(path, target)
    except OSError:
        return False
    return True


def _first_missing(path: Path, top: Path) -> str | None:
    """The outermost folder on the way to `path` that does not exist yet (relative to `top`): the
    one writing `path` creates, which putting the file back takes out again."""
    for folder in reversed(path.parents):
        if folder.is_relative_to(top) and folder != top and not folder.is_dir():
            return folder.relative_to(top).as_posix()
    return None


_forgotten: tuple[Path, str | None] | None = None  # (cache, run) already cleared in this process


def forget_other_runs(cache: Path) -> None:
    """Journals of earlier runs are never used again: removed when a run starts writing (once per
    run and process: every compile step calls this, and listing the folder 2,000 times was 9 % of
    a full compile at 1,000 segments)."""
    global _forgotten
    run = os.environ.get(RUN)
    if _forgotten == (cache, run):
        return
    _forgotten = (cache, run)
    for stale in (cache / JOURNAL).glob("*") if (cache / JOURNAL).is_dir() else ():
        if stale.name != run and stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)


def put_back_files(root: Path, cache: Path) -> int:
    """Restore every file this run's steps journaled; returns how many."""
    run = os.environ.get(RUN)
    folder = cache / JOURNAL / run if run else None
    if folder is None or not folder.is_dir():
        return 0
    restored, created = 0, set()
    for record in sorted(folder.glob("*.json")):
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            relative, kept = data["path"], data["bytes"]
            if isinstance(data.get("link"), str) and "/" not in data["link"]:
                kept = (folder / data["link"]).read_bytes()
            elif kept is not None:
                kept = base64.b64decode(kept)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        target = root / relative
        if kept is None:
            remove(target, within=root, missing_ok=True)
            if isinstance(data.get("created"), str):
                created.add(data["created"])
        elif not write_if_changed(target, kept, within=root):
            continue  # a step put it back itself (a hook file under --locked): its mtime stays
        restored += 1
    for relative in sorted(created, reverse=True):
        _remove_empty(root, root / relative)
    shutil.rmtree(folder, ignore_errors=True)
    return restored


def _remove_empty(root: Path, top: Path) -> None:
    """Take out a folder the failed run created, with its empty subfolders; a file anyone else put
    there since keeps it (and the folders above that file)."""
    if top.is_symlink() or not top.is_dir() or os.path.realpath(top) == os.path.realpath(root):
        return  # the journal is in the cache, which anyone can edit: never the repository itself
    confine(top, root)
    for directory, _, _ in os.walk(top, topdown=False):
        path = Path(directory)
        if not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()


def put_back(root: Path, cache: Path) -> bool:
    """Restore the lock this run replaced, if it replaced one; returns whether it did."""
    try:
        data = json.loads((cache / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    remove(cache / RECORD, within=cache)
    if not isinstance(data, dict) or not os.environ.get(RUN) or data.get("run") != os.environ[RUN]:
        return False
    before = data.get("lock")
    if before is None:
        remove(root / LOCKFILE, within=root, missing_ok=True)
    else:
        write_atomic(root / LOCKFILE, before.encode("utf-8", errors="surrogateescape"), within=root)
    return True
