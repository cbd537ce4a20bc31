"""Installing a source's skills into the folders agents read them from.

A skill of a source (`rules/skills/<name>/`) is installed when one of the rules it implements is
selected: its files (all but `skill.toml`, the source's metadata) are copied from the source's
locked tree, as much of them as the source's trust allows (`compile.skill_policy`: an untrusted
source's skill is data), into the skill folders the enabled agents read (`.claude/skills/<name>/`,
`.agents/skills/<name>/`, ...: `hosts.agents`). Each installed folder holds a stamp, `.agent-constitution.json`, listing
every file compile wrote with its sha256: that is how compile knows the folder is its own (on a
fresh clone too), notices a hand edit, and removes exactly what it wrote when the skill's rules are
all deselected. A skill whose tree holds a symbolic link (or whose folder is one) or a path
escaping its folder is rejected: its files are read without following any link.

The stamp is read from the repository, where anyone can edit it, so every entry is checked before
compile reads or deletes a file it names: a plain relative path inside the skill's folder, reached
through no link that leaves the repository (`fsio.confine`); any other entry (`../../x`, an
absolute path) fails the build, naming the stamp and the entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path, PurePosixPath

from agent_constitution.compile import skill_policy
from agent_constitution.compile.strict import FIX_STALE, refuse_change, refuse_removal
from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.fsio import confine, remove as remove_file, write_if_changed
from agent_constitution.readers import read_json
from agent_constitution.sources.parsed import skill_bytes

STAMP = ".agent-constitution.json"
SOURCE_ONLY = "skill.toml"  # the source's metadata (which rules it implements), not for agents


def skill_files(folder: Path) -> dict[str, bytes]:
    """Every file of a skill folder (relative POSIX path → bytes); rejects links and escaping paths.

    Nothing is followed: the skill's folder, `rules/skills/` and `rules/` must not be links either,
    and each file is opened without following a link (a source is copied as data).
    """
    for path in (folder.parent.parent, folder.parent, folder):  # rules/, rules/skills/, the skill
        if path.is_symlink():
            raise UserError(
                "a skill's folder (and rules/skills/, rules/) may not be a symbolic link",
                file=path,
                fix="replace the link by the folder it points to",
            )
    paths: dict[str, Path] = {}
    base = folder.resolve()
    for directory, subdirectories, files in os.walk(folder):
        for name in subdirectories + files:
            path = Path(directory) / name
            if path.is_symlink():
                raise UserError(
                    "a skill may not contain symbolic links",
                    file=path,
                    fix="replace the link by the file it points to",
                )
            if not path.resolve().is_relative_to(base):
                raise UserError("this path escapes the skill's folder", file=path)
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
        for name in files:
            if name.endswith(".pyc"):
                continue
            path = Path(directory) / name
            relative = path.relative_to(folder).as_posix()
            if relative == SOURCE_ONLY:
                continue
            if relative == STAMP:
                raise UserError(f"a skill may not contain a file named {STAMP}", file=path)
            paths[relative] = path
    # A run installs a skill into each agent's folder, and checks every skill before it installs
    # any: the files are read once while their status stays the same.
    statuses = {relative: _status(path) for relative, path in sorted(paths.items())}
    key = (str(folder), tuple((relative, _seen(status)) for relative, status in statuses.items()))
    found = _read.get(key)
    if found is None:
        if len(_read) >= 256:
            _read.clear()
        # As the lock stage's folder digest read them in this process, else from the file.
        found = _read[key] = {relative: _bytes(path, statuses[relative]) for relative, path in sorted(paths.items())}
    return dict(found)


# (folder, each file's status) → the files `skill_files` read there in this process.
_read: dict[tuple, dict[str, bytes]] = {}


def _bytes(path: Path, status: os.stat_result | None) -> bytes:
    known = None if status is None else skill_bytes(str(path), status)
    return _read_file(path) if known is None else known


def _status(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None  # reading it says what is wrong


def _seen(status: os.stat_result | None) -> tuple[int, int, int, int] | None:
    return None if status is None else (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def _read_file(path: Path) -> bytes:
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        raise UserError(f"cannot read this file of a skill ({error.strerror})", file=path) from None
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise UserError("a skill holds only files and folders (not a pipe, socket or device)", file=path)
        return file.read()


def _stamp(files: dict[str, bytes], origin: str) -> str:
    listing = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    return json.dumps({"generated-by": "agent-constitution", "from": origin, "files": listing}, indent=2) + "\n"


def read_stamp(target: Path) -> dict | None:
    """The stamp of an installed skill, its entries checked; None when the folder has none (not ours)."""
    try:
        data = read_json(target / STAMP)
    except UserError:
        return None
    if not (isinstance(data, dict) and isinstance(data.get("files"), dict)):
        return None
    for name in data["files"]:
        _check_entry(target, name)
    return data


def _check_entry(target: Path, name: str) -> None:
    path = PurePosixPath(name)
    if (not name or path.is_absolute() or ".." in path.parts or "\\" in name or "\0" in name
            or path.as_posix() != name or name == STAMP):
        raise UserError(
            f"the entry {name!r} of this skill's stamp is not a file inside the skill's folder,"
            " so compile deletes and reads nothing it names",
            file=target / STAMP,
            field="files",
            fix="delete the folder (compile installs the skill again) or restore the stamp from git",
        )
    confine(target / name, target)


def edited(target: Path) -> list[Path]:
    """The files of an installed skill that no longer hold the bytes its stamp lists (or are gone)."""
    stamp = read_stamp(target)
    if stamp is None:
        return [target / STAMP]
    changed = []
    for name, digest in stamp["files"].items():
        try:
            if hashlib.sha256((target / name).read_bytes()).hexdigest() != digest:
                changed.append(target / name)
        except FileNotFoundError:
            changed.append(target / name)
    return changed


def intact(target: Path) -> bool:
    return not edited(target)


def checked(source_folder: Path, target: Path, origin: str, *, root: Path, locked: bool,
            trusted: bool) -> tuple[skill_policy.Installed, dict | None]:
    """The skill's files as installed (`skill_policy`: what its source's trust lets it carry) and the
    stamp of its installed copy, once installing it is known to be allowed (an error otherwise);
    writes nothing. Under `locked` every installed file, its executable bit and the stamp must
    already be what compile would write: the stamp's digests are recomputed by anyone who edits a
    file, so they only show a careless hand edit."""
    files = skill_files(source_folder)
    executable = frozenset(name for name in files if os.access(source_folder / name, os.X_OK))
    installed = skill_policy.apply(files, executable, trusted=trusted, shown=source_folder)
    confine(target, root)
    stamp = read_stamp(target)
    if target.exists() and stamp is None:
        raise UserError(
            "compile would install a skill into this folder, which it did not create",
            file=target,
            fix="move the folder away (or rename your skill), then run `doit compile` again",
        )
    if locked:
        _refuse_change(target, installed, stamp, origin)
    return installed, stamp


def _refuse_change(target: Path, installed: skill_policy.Installed, stamp: dict | None, origin: str) -> None:
    by_hand = edited(target) if stamp is not None else []
    if by_hand:
        raise OutOfDate(
            "this file of an installed skill was edited by hand",
            file=by_hand[0],
            fix="undo the edit (edit the skill in its rule source instead) and run `doit compile`",
        )
    for name, data in installed.files.items():
        path = target / name
        refuse_change(path, _current(path), data, locked=True, edited=False)
        if (name in installed.executable) != os.access(path, os.X_OK):
            raise OutOfDate("this file of an installed skill has another executable bit than compile gives it",
                            file=path, fix=FIX_STALE)
    for name in (stamp or {}).get("files", {}):
        if name not in installed.files:
            raise OutOfDate("compile no longer installs this file of a skill (--locked / CI removes nothing)",
                            file=target / name, fix=FIX_STALE)
    refuse_change(target / STAMP, _current(target / STAMP), _stamp(installed.files, origin).encode("utf-8"),
                  locked=True, edited=False)


def _current(path: Path) -> bytes | None:
    try:
        return _read_file(path) if os.path.lexists(path) else None
    except UserError:
        return b""  # a link or a folder where a file belongs: differs from any file compile writes


def install(source_folder: Path, target: Path, origin: str, *, root: Path, locked: bool,
            trusted: bool) -> bool:
    """Copy a skill into `target` (`<skill folder>/<name>`) as its source's trust allows
    (`skill_policy`; `checked` says what it drops); returns whether anything was written."""
    installed, stamp = checked(source_folder, target, origin, root=root, locked=locked, trusted=trusted)
    changed = False
    for name, data in installed.files.items():
        path = target / name
        changed = write_if_changed(path, data, within=target) or changed
        executable = name in installed.executable
        if executable != os.access(path, os.X_OK):
            path.chmod(0o755 if executable else 0o644)
            changed = True
    for name in (stamp or {}).get("files", {}):
        if name not in installed.files:
            remove_file(target / name, within=target, missing_ok=True)
            changed = True
    _prune_empty(target)
    return write_if_changed(target / STAMP, _stamp(installed.files, origin), within=target) or changed


def remove(target: Path, *, root: Path, locked: bool = False) -> bool:
    """Delete what compile installed in `target`; files it did not write stay."""
    confine(target, root)
    stamp = read_stamp(target)
    if stamp is None:
        return False
    refuse_removal(target, locked=locked)
    for name in stamp["files"]:
        remove_file(target / name, within=target, missing_ok=True)
    remove_file(target / STAMP, within=target)
    _prune_empty(target)
    if target.is_dir() and not any(target.iterdir()):
        target.rmdir()
    return True


def installed(root: Path, folders: tuple[str, ...]) -> set[str]:
    """The names of the skills compile installed in this repository (a stamp in one of `folders`)."""
    names = set()
    for folder in folders:
        base = root / folder
        if base.is_dir():
            names.update(path.parent.name for path in base.glob(f"*/{STAMP}"))
    return names


def _prune_empty(target: Path) -> None:
    if not target.is_dir():
        return
    for directory, subdirectories, files in os.walk(target, topdown=False):
        if directory != str(target) and not os.listdir(directory):
            os.rmdir(directory)
