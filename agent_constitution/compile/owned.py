"""Writing only what compile owns: the marked region of an AGENTS.md, and files it wholly owns.

A file compile wholly owns (a part file, a CLAUDE.md shim) starts with the banner of
`agent_constitution.compile.region`, which records the digest of the rest, so ownership and a hand
edit are both read from the file itself. Every writer here:

- never touches a byte outside the region, and never replaces a file without our banner: that is
  an error saying what to do;
- treats a hand-edited output as stale: it is rewritten, or, when `locked` (`--locked` / CI), it is
  an error naming the file;
- when `locked`, compares the whole output with the bytes it would write and refuses any
  difference (a missing output too), whatever the banner says: the banner's digest is a plain
  sha256 anyone can recompute after an edit, so it only makes a careless hand edit visible, it
  does not prove the text came from the rule sources (docs/compile.md, "Ownership");
- writes only when the bytes change (`write_if_changed`), so an unchanged output keeps its mtime;
- reads, writes and deletes only inside `root`, the repository (`fsio.confine`): an output reached
  through a symbolic link that leaves it is refused before it is read.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from agent_constitution.compile import region, skills
from agent_constitution.compile.layout import FILE
from agent_constitution.compile.strict import FIX_STALE, refuse_change, refuse_removal
from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.fsio import confine, remove, write_atomic, write_if_changed
from agent_constitution.readers import read_text
from agent_constitution.sources.digest import files_digest
from agent_constitution.wiring import command

def _read(path: Path) -> str | None:
    # Bytes decoded as they are: reading in text mode would turn a CRLF outside the region into LF.
    if not os.path.lexists(path):
        return None
    return read_text(path)


def region_file(path: Path, root: Path) -> Path:
    """The file a region of `path` is written into: `path` itself, or, when `path` is a symbolic link
    (AGENTS.md → CLAUDE.md, the pair many repositories keep as one file), the file it leads to, so
    that the link stays a link and both names keep reading the rules. A link whose target is outside
    the repository, or missing, is an error: compile neither writes outside nor creates a file
    someone's link merely names."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    if not target.is_relative_to(Path(os.path.realpath(root))):
        raise UserError(
            f"{shown} is a symbolic link to {target}, outside the repository: compile writes the rules only"
            " into files of the repository",
            file=shown,
            fix=f"replace the link by a file (copy its target's text into {shown}), or point it at a file"
            " inside the repository, then run `doit compile` again",
        )
    if not target.is_file():
        raise UserError(
            f"{shown} is a symbolic link to {os.readlink(path)}, which "
            + ("is not a file" if target.exists() else "does not exist"),
            file=shown,
            fix=f"create the file the link names, or remove the link {shown} (compile then writes a file there)",
        )
    return path.parent / os.path.relpath(target, Path(os.path.realpath(path.parent)))


def same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` are one file (one of them a symbolic link to the other, or both to a third)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def region_intact(path: Path) -> bool:
    """Whether `path` has a region whose body still matches its banner's digest."""
    text = _read(path)
    if text is None:
        return False
    inside = region.Region.parse(text, path).inside
    return inside is not None and region.is_intact(inside)


def is_owned_region(path: Path) -> bool:
    """Whether `path` holds a region compile wrote (intact or hand-edited since)."""
    text = _read(path)
    if text is None:
        return False
    inside = region.Region.parse(text, path).inside
    return inside is not None and region.is_ours(inside)


def is_owned(path: Path) -> bool:
    text = _read(path)
    return text is not None and region.is_ours(text)


def region_text(path: Path, body: str, origin: str, *, root: Path, locked: bool) -> str:
    """What `path` holds once `body` (with its banner) is between its markers; writes nothing."""
    for marker in (region.BEGIN, region.END):
        # Rule texts are refused at load; this also covers the constitution's text.
        if marker in body:
            raise UserError(
                f"the generated text contains the marker {marker}, which would end the region early",
                file=path,
                fix="remove the marker from the rule or constitution text that holds it",
            )
    current = _read(confine(path, root))
    parsed = region.Region.parse(current or "", path)
    wanted = parsed.with_inside(region.stamped(body, origin, program=command(root)))
    if locked and current is not None and parsed.inside is None:
        raise OutOfDate("this file has no compiled region (--locked / CI writes nothing)", file=path, fix=FIX_STALE)
    refuse_change(path, current, wanted, locked=locked,
                  edited=parsed.inside is not None and not region.is_intact(parsed.inside))
    return wanted


def write_region(path: Path, body: str, origin: str, *, root: Path, locked: bool) -> bool:
    """Put `body` (with its banner) between the markers of `path` (of the file it links to,
    `region_file`), creating the region or file."""
    path = region_file(path, root)
    return write_if_changed(path, region_text(path, body, origin, root=root, locked=locked), within=root)


def owned_text(path: Path, body: str, origin: str, *, root: Path, locked: bool, what: str, front: str = "") -> str:
    """What a file compile wholly owns will hold; an error when it may not be replaced. Writes nothing.
    `what` says what the file is, for the error about a foreign one; `front`, front matter it starts with."""
    text = _read(confine(path, root))
    if text is not None:
        if not region.is_ours(text):
            raise UserError(
                f"compile would replace this file, which it did not write, with {what}",
                file=path,
                fix="move the file away (its content can go into the hand-written part of AGENTS.md), "
                "then run `doit compile` again",
            )
    wanted = region.stamped(body, origin, front, program=command(root))
    refuse_change(path, text, wanted, locked=locked, edited=text is not None and not region.is_intact(text))
    return wanted


def write_owned(path: Path, body: str, origin: str, *, root: Path, locked: bool, what: str, front: str = "") -> bool:
    """Write a file compile wholly owns (see `owned_text`)."""
    text = owned_text(path, body, origin, root=root, locked=locked, what=what, front=front)
    return write_if_changed(path, text, within=root)


def remove_owned(path: Path, *, root: Path, locked: bool = False) -> bool:
    """Delete `path` if compile wrote it; a file without our banner is left alone."""
    if is_owned(confine(path, root)):
        refuse_removal(path, locked=locked)
        remove(path, within=root)
        return True
    return False


def remove_region(path: Path, *, root: Path, locked: bool = False) -> bool:
    """Take compile's region (the one with its banner) out of `path`; delete the file when nothing else is left."""
    if path.is_symlink() and not os.path.exists(path):
        return False  # a dangling link holds no region
    path = region_file(path, root)
    text = _read(confine(path, root))
    if text is None:
        return False
    parsed = region.Region.parse(text, path)
    if parsed.inside is None or not region.is_ours(parsed.inside):
        return False
    refuse_removal(path, locked=locked)
    before, after = parsed.before.rstrip("\n"), parsed.after.lstrip("\n")
    rest = f"{before}\n\n{after}" if before and after.strip() else before + after
    if not rest.strip():
        remove(path, within=root)
    else:
        write_atomic(path, rest.rstrip("\n") + "\n", within=root)
    return True


def owned_digest(path: Path, region_only: bool) -> str:
    """The sha256 of what compile owns of `path`: its region's inside, or the whole file."""
    text = path.read_bytes().decode("utf-8")
    if region_only:
        text = region.Region.parse(text, path).inside or ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def outputs_intact(root: Path, outputs: Mapping[str, str]) -> bool:
    """Whether every output still holds exactly what its step wrote (a hand edit makes it stale)."""
    for relative, expected in outputs.items():
        path = root / relative
        try:
            if path.name == FILE:
                if not region_intact(path) or owned_digest(path, True) != expected:
                    return False
            elif path.is_dir():
                if not skills.intact(path) or files_digest(path) != expected:
                    return False
            elif owned_digest(path, False) != expected:
                return False
        except (FileNotFoundError, UserError):
            return False
    return True
