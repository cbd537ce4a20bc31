"""The last line of a compile that wrote something: the exact `git add` for what it wrote.

Each compile step records the paths it wrote or removed (`record`, one file per job under
`cache/written/`, so that doit's parallel workers do not share one); the summary step takes them
all (`take`) and prints `git add …` with every one git does not ignore. A folder git tracks no
file of and that holds nothing but what compile wrote (`.agents/` after the first compile) is named
once, with its trailing `/`. A removed path
counts only when git tracks it (`git add` then stages the deletion). Outside a git repository there
is no line.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterable
from pathlib import Path

from agent_constitution.fsio import write_atomic
from agent_constitution.layout import CACHE, WRITTEN


def record(root: Path, job: str, written: Iterable[str], removed: Iterable[str]) -> None:
    paths = {"written": sorted(written), "removed": sorted(removed)}
    if not paths["written"] and not paths["removed"]:
        return
    folder = root / CACHE / WRITTEN
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(job.encode("utf-8")).hexdigest()[:32] + ".json"
    previous = _load(folder / name)
    for key in paths:
        paths[key] = sorted(set(paths[key]) | set(previous.get(key, ())))
    write_atomic(folder / name, json.dumps(paths))


def pending(root: Path) -> bool:
    folder = root / CACHE / WRITTEN
    return folder.is_dir() and any(folder.glob("*.json"))


def take(root: Path) -> tuple[list[str], list[str]]:
    """(written, removed): every path the steps recorded since the last summary; the records are gone after."""
    folder = root / CACHE / WRITTEN
    written: set[str] = set()
    removed: set[str] = set()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        data = _load(path)
        written.update(p for p in data.get("written", ()) if isinstance(p, str))
        removed.update(p for p in data.get("removed", ()) if isinstance(p, str))
        path.unlink(missing_ok=True)
    return sorted(written), sorted(removed - written)


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def git_add_line(root: Path, written: Iterable[str], removed: Iterable[str] = ()) -> str | None:
    """`git add PATH …` for the paths (repository-relative) git does not ignore; None when there is
    none or `root` is not in a git working tree."""
    if not any((folder / ".git").exists() for folder in (root.resolve(), *root.resolve().parents)):
        return None  # no working tree holds it: pygit2, 35 ms to import, would find none either
    import pygit2

    try:
        repo = pygit2.Repository(str(root))
    except pygit2.GitError:
        return None
    if repo.workdir is None:
        return None
    workdir = Path(repo.workdir).resolve()
    base = root.resolve()
    if not base.is_relative_to(workdir):
        return None
    prefix = base.relative_to(workdir).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    tracked = {entry.path for entry in repo.index}
    # A skill folder is recorded as one output: its files are what git sees.
    written = [file for path in written for file in _files(root, path)]
    written = [path for path in written if not _ignored(repo, prefix + path)]
    whole = _new_folders(repo, root, prefix, tracked, set(written))
    shown: list[str] = []
    for path in written:
        top = path.split("/")[0]
        shown.append(top + "/" if top in whole else path)
    shown += [path for path in removed if prefix + path in tracked]
    shown = list(dict.fromkeys(shown))
    if not shown:
        return None
    dashes = "-- " if any(path.startswith("-") for path in shown) else ""
    return f"git add {dashes}" + " ".join(shlex.quote(path) for path in shown)


def _files(root: Path, path: str) -> list[str]:
    full = root / path
    if full.is_dir() and not full.is_symlink():
        return sorted(p.relative_to(root).as_posix() for p in full.rglob("*") if p.is_file() or p.is_symlink())
    return [path]


def _new_folders(repo, root: Path, prefix: str, tracked: set[str], written: set[str]) -> set[str]:
    """The top folders of `written` that git tracks nothing in and that hold only written files (or
    ignored ones): `git add FOLDER/` then adds exactly what compile wrote there."""
    found = set()
    for top in {path.split("/")[0] for path in written if "/" in path}:
        if any(path.startswith(prefix + top + "/") for path in tracked):
            continue
        files = [p.relative_to(root).as_posix() for p in (root / top).rglob("*") if p.is_file() or p.is_symlink()]
        if all(path in written or _ignored(repo, prefix + path) for path in files):
            found.add(top)
    return found


def _ignored(repo, path: str) -> bool:
    try:
        return bool(repo.path_is_ignored(path))
    except Exception:  # pygit2 raises for a path it cannot judge: name it, git will say
        return False
