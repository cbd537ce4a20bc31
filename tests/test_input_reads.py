"""The manifest, the lock and the verdicts file are read through `readers.py` (which turns a missing,
hostile or broken file into one UserError, and never waits on a FIFO), and the checks read the build
the lock stage writes, never `rules.lock` itself (the index lists its sources; issue 32, part 2)."""

from __future__ import annotations

import ast
from pathlib import Path

from agent_constitution import codegraph

PACKAGE = Path(codegraph.__file__).parent
FILES = {"rules.toml", "rules.lock", "rules.review.toml"}
NAMES = {"MANIFEST", "LOCKFILE", "REVIEW_FILE"}  # the constants that name them
LOCK = {"LOCKFILE", "rules.lock"}
RAW = {"read_text", "read_bytes", "open"}  # pathlib's, and the builtin
READS = {"read_toml", "read_text", "read_bytes", "read_cached", "read_json", "read_lock"}


def _names(node: ast.AST, names: set[str], aliases: set[str] = frozenset()) -> bool:
    for part in ast.walk(node):
        if isinstance(part, ast.Constant) and part.value in names:
            return True
        if isinstance(part, ast.Name) and (part.id in names or part.id in aliases):
            return True
        if isinstance(part, ast.Attribute) and part.attr in names:
            return True
    return False


def _aliases(function: ast.AST, names: set[str]) -> set[str]:
    """The local names a function binds to a path of one of the files (`path = root / LOCKFILE`)."""
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _names(node.value, names, found):
            found |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return found


def _called(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


def raw_reads(text: str) -> list[int]:
    """The lines where `text` reads one of the files itself: `path.read_text()`, `read_bytes()` or
    `open(path)` on a path that names it."""
    found = []
    for function in ast.walk(ast.parse(text)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        aliases = _aliases(function, FILES | NAMES)
        for call in ast.walk(function):
            if not isinstance(call, ast.Call) or _called(call) not in RAW:
                continue
            if isinstance(call.func, ast.Attribute):
                subject = call.func.value
            elif _called(call) == "open" and call.args:
                subject = call.args[0]
            else:
                continue  # the readers' own read_text and read_bytes
            if _names(subject, FILES | NAMES, aliases):
                found.append(call.lineno)
    return sorted(set(found))


def lock_reads(text: str) -> list[int]:
    """The lines where `text` reads `rules.lock` at all, through a reader or not."""
    found = []
    for function in ast.walk(ast.parse(text)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        aliases = _aliases(function, LOCK)
        for call in ast.walk(function):
            if isinstance(call, ast.Call) and (_called(call) == "read_lock" or (
                    _called(call) in READS | RAW and any(_names(arg, LOCK, aliases) for arg in [call.func, *call.args]))):
                found.append(call.lineno)
    return sorted(set(found))


def _modules(folder: Path = PACKAGE) -> list[Path]:
    return [path for path in sorted(folder.rglob("*.py")) if path.name != "readers.py"]


# Known, each with why; an entry that no longer reads the file fails, so the list cannot outlive it.
RAW_KNOWN = {
    # the user tier's lock, for its undo: compile/ is being reworked in parallel (issue 32)
    "agent_constitution/compile/user.py",
}
LOCK_KNOWN = {
    # `doit review` in CI runs only under the [review] settings rules.lock records (its digest): the
    # lock itself is what it verifies, not a build input
    "agent_constitution/checks/reviewer.py",
}


def _found(scan, folder: Path = PACKAGE) -> dict[str, list[int]]:
    found = {path.relative_to(PACKAGE.parent).as_posix(): scan(path.read_text(encoding="utf-8")) for path in _modules(folder)}
    return {name: lines for name, lines in found.items() if lines}


def test_no_module_reads_the_manifest_the_lock_or_the_verdicts_itself():
    found = _found(raw_reads)
    assert RAW_KNOWN <= found.keys(), f"no raw read left in {sorted(RAW_KNOWN - found.keys())}: drop it from RAW_KNOWN"
    new = [f"{name}:{line}" for name, lines in found.items() if name not in RAW_KNOWN for line in lines]
    assert not new, "read through agent_constitution.readers instead:\n" + "\n".join(new)


def test_the_checks_read_the_build_not_the_lock():
    found = _found(lock_reads, PACKAGE / "checks")
    assert LOCK_KNOWN <= found.keys(), f"no read of the lock left in {sorted(LOCK_KNOWN - found.keys())}: drop it from LOCK_KNOWN"
    new = [f"{name}:{line}" for name, lines in found.items() if name not in LOCK_KNOWN for line in lines]
    assert not new, ("the checks read the resolution's index (ruleset.resolved.read_index), not rules.lock:\n"
                     + "\n".join(new))


def test_the_scans_find_what_they_must():
    text = '''
def f(root):
    a = (root / LOCKFILE).read_bytes()
    path = root / MANIFEST
    b = path.read_text(encoding="utf-8")
    with open(root / "rules.review.toml") as c:
        pass
    d = read_toml(root / LOCKFILE)
    e = read_lock(root)
    f = (root / "pyproject.toml").read_text()
    g = read_toml(path)
    h = read_text(root / MANIFEST, MANIFEST)
'''
    assert raw_reads(text) == [3, 5, 6]
    assert lock_reads(text) == [3, 8, 9]
