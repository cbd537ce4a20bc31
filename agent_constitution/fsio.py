"""Writing files so that a crash or a concurrent reader never sees half of one, and only where
the tools may write.

Standard library only and no `tempfile`: the covenant judge writes through this on every agent
tool call, where each import counts.

`confine` is the one test every writer and deleter of the repository's outputs and the cache makes
first: the path, with every symbolic link on the way resolved, must lie inside the repository (or
the cache). A `.claude` or a segment folder that is a link to elsewhere, or an entry `../../x`
of a stamp, is refused before a byte is written or a file deleted.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the judge writes a plain str path through here: `pathlib` costs it ~8 ms
if TYPE_CHECKING:
    from pathlib import Path


def confine(path: Path, *within: Path) -> Path:
    """`path` itself when it resolves (symbolic links followed) to a place inside one of `within`
    (resolved too); otherwise a UserError naming the link or the `..` that leads out."""
    from pathlib import Path

    resolved = Path(os.path.realpath(path))
    bases = [Path(os.path.realpath(base)) for base in within]
    if any(resolved.is_relative_to(base) for base in bases):
        return path
    from agent_constitution.errors import UserError  # lazy: pdks hook, every tool call: 14 ms (dataclasses, pathlib)

    outside = " or ".join(str(base) for base in within)
    link = _first_link(Path(os.path.abspath(path)), within, bases)
    if link is not None:
        raise UserError(
            f"refusing to write or delete {path}: it leads through the symbolic link {link} "
            f"to {resolved}, outside {outside}",
            file=path,
            fix=f"replace the link {link} by a real folder or file (or remove it), then run again",
        )
    raise UserError(f"refusing to write or delete {path}: it is outside {outside}", file=path)


def _first_link(path: Path, within: tuple[Path, ...], bases: list[Path]) -> Path | None:
    """The first symbolic link below one of `within` on the way to `path` whose target leaves every
    base (links above them, such as macOS's /var, are how the bases are reached)."""
    from pathlib import Path

    below = [Path(os.path.abspath(base)) for base in within]
    for step in (*reversed(path.parents), path):
        if (any(step.is_relative_to(b) and step != b for b in below) and step.is_symlink()
                and not any(Path(os.path.realpath(step)).is_relative_to(b) for b in bases)):
            return step
    return None


# The hooks told of each file before it is replaced or deleted, innermost first: a compile step's
# journal (`compile.undo.journal`, so that a compile that fails later can put every output back) and
# the watch of which files it created (`compile.changed.watch`). Only `watching` sets them, for a
# block, and puts the outer ones back however the block ends; callers once assigned a module global
# and cleared it by hand, and the watch chained to the journal itself. A tuple, not a ContextVar:
# `contextvars` would add 0.9 ms of imports to every judge call, and compile runs its steps in one
# thread.
_watchers: tuple = ()


class watching:
    """`with fsio.watching(hook):` calls `hook(path)` before each file is replaced or deleted inside
    the block, before the hooks of the blocks around it."""

    __slots__ = ("hook", "outer")

    def __init__(self, hook) -> None:
        self.hook = hook

    def __enter__(self) -> watching:
        global _watchers
        self.outer = _watchers
        _watchers = (self.hook, *self.outer)
        return self

    def __exit__(self, *exc) -> None:
        global _watchers
        _watchers = self.outer


def before_change(path: Path | str) -> None:
    """Tell the hooks `watching` set that `path` is about to change: every writer and deleter of this
    module does, and so must one elsewhere (the symbolic link of `[compile] claude = "link"`)."""
    for hook in _watchers:
        hook(path)


def write_atomic(path: Path | str, data: bytes | str, *, within: tuple[Path, ...] | Path = ()) -> None:
    """Write `data` to `path` through a temp file in the same folder and a rename.

    A new file gets the mode a plain `open()` would give it (0666 less the umask); an existing one
    keeps its mode. `within`: the folders `path` must stay inside (`confine`).
    """
    _confine(path, within)
    if isinstance(data, str):
        data = data.encode("utf-8")
    before_change(path)
    folder, name = os.path.split(os.fspath(path))
    try:
        os.makedirs(folder or ".", exist_ok=True)
        try:
            keep = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            keep = None
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise write_error(error, path) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if keep is not None:
                os.fchmod(handle.fileno(), keep)
        os.replace(tmp, path)
    except BaseException as error:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise write_error(error, path) from None
        raise


def write_error(error: OSError, path) -> OSError:
    """A failed write as one message (a `WriteError`: a UserError that is still an OSError): a full
    disk and a read-only folder say what to do; the original error when it is a WriteError already."""
    import errno

    from agent_constitution.errors import WriteError  # lazy: pdks hook, every tool call: 14 ms (dataclasses, pathlib)

    if isinstance(error, WriteError):
        return error
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        what, fix = "no space left on the device", "free some space and run again"
    elif error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        what = "the folder is read-only" if error.errno == errno.EROFS else f"permission denied ({error.strerror})"
        fix = "make the folder writable and run again"
    else:
        what, fix = error.strerror or str(error), "check the folder and run again"
    if "cache" in os.fspath(path):
        fix += "; a cache may be deleted, or moved (AGENT_CONSTITUTION_CACHE names the user cache's folder)"
    made = WriteError(f"cannot write the file: {what}", file=path, fix=fix)
    made.errno, made.strerror, made.filename = error.errno, error.strerror, os.fspath(path)
    return made


def open_lock(path) -> int:
    """A descriptor on the lock file `path` (made when absent), for `fcntl.flock`, opened without
    blocking: a FIFO, socket or device in its place is refused (opening a FIFO would wait for a
    reader forever), and a folder that cannot be written gives a `WriteError`."""
    import stat

    try:
        os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW, 0o666)
    except OSError as error:
        raise write_error(error, path) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        from agent_constitution.errors import UserError  # lazy: pdks hook, every tool call: 14 ms (dataclasses, pathlib)

        raise UserError("the lock file is not a regular file (a FIFO, socket or device)", file=path,
                        fix="delete it; it is made again")
    return fd


def write_if_changed(path: Path, data: bytes | str, *, within: tuple[Path, ...] | Path = ()) -> bool:
    """Write only when the bytes differ, so an unchanged output keeps its mtime. Returns whether it wrote."""
    _confine(path, within)
    if isinstance(data, str):
        data = data.encode("utf-8")
    from agent_constitution.readers import read_cached  # lazy: pdks hook, every tool call: 20 ms (tomllib, json)

    # Read without blocking: a FIFO in the output's place is replaced, never waited on.
    if read_cached(path) == data:
        return False
    write_atomic(path, data)
    return True


def remove(path: Path, *, within: tuple[Path, ...] | Path, missing_ok: bool = False) -> None:
    """Delete the file `path` once `confine` allows it."""
    _confine(path, within)
    before_change(path)
    path.unlink(missing_ok=missing_ok)


def _confine(path: Path, within: tuple[Path, ...] | Path) -> None:
    bases = within if isinstance(within, tuple) else (within,)
    if bases:
        confine(path, *bases)
