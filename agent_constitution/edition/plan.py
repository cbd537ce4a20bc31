"""What the render stage's tasks need before it runs: its source files, its targets, whether the
targets are intact, and its code digest. Standard library only (and `readers`): every doit command
in a constitution's repository creates the render task, and the stage itself (pydantic, pygit2,
markdown-it) is imported only when it runs (`edition.build`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from agent_constitution.edition import CONSTITUTION
from agent_constitution.errors import UserError
from agent_constitution.readers import read_json, read_toml

MANIFEST = "manifest.json"


def file_names(code: str) -> tuple[str, str]:
    """The full and the agent edition of one language, in generated/."""
    return f"constitution.{code}.md", f"constitution.{code}.agent.md"


def ignored(parts: tuple[str, ...]) -> bool:
    """Parts of a path below constitution/: dot files and folders, and each edition's generated/, are no edition files."""
    return any(part.startswith(".") for part in parts) or (len(parts) >= 2 and parts[1] == "generated")


def edition_files(root: Path) -> list[str]:
    """Every edition file under constitution/ as a POSIX path relative to `root`, sorted; [] when there is
    no constitution/ folder. (Plain strings: doit lists these for every command, so this must be quick.)"""
    base = os.path.join(root, CONSTITUTION)
    found = []
    for folder, subfolders, files in os.walk(base):
        relative = os.path.relpath(folder, base)
        parts = () if relative == "." else tuple(relative.split(os.sep))
        subfolders[:] = [name for name in subfolders if not ignored(parts + (name,))]
        prefix = "/".join((CONSTITUTION,) + parts)
        found.extend(f"{prefix}/{name}" for name in files if not ignored(parts + (name,)))
    return sorted(found)


def plan(root: Path) -> tuple[list[str], list[Path]]:
    """(dependencies, targets) of the render stage: every source file (the compiler's own code is
    `code_digest`); the generated files, as far as index.toml can be read ([] when it cannot: the
    build then fails)."""
    sources = edition_files(root)
    return [os.path.join(root, path) for path in sources], _targets(root, sources)


def code_digest() -> str:
    """The render stage's code: every module `build` imports."""
    from agent_constitution import codegraph  # lazy: every doit command imports this module; codegraph only when the render task is planned

    return codegraph.code_digest("agent_constitution.edition.build")


def _targets(root: Path, sources: list[str]) -> list[Path]:
    indexes = [path for path in sources if path.count("/") == 2 and path.endswith("/index.toml")]
    if len(indexes) != 1:
        return []
    try:
        codes = read_toml(root / indexes[0]).get("languages", [])
    except UserError:
        return []
    if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
        return []
    generated = root / indexes[0].rsplit("/", 1)[0] / "generated"
    return [generated / name for code in codes for name in file_names(code)] + [generated / MANIFEST]


def intact(targets: list[Path]) -> bool:
    """Whether the generated files (`targets`, manifest.json last) still hold what the build wrote, by the
    digests in manifest.json; doit checks only that targets exist, so this is what makes `doit compile`
    repair a hand-edited output."""
    if not targets:
        return False
    manifest = targets[-1]
    try:
        recorded = read_json(manifest)["outputs"]
        if sorted(recorded) != sorted(path.name for path in targets[:-1]):
            return False
        return all(hashlib.sha256((manifest.parent / name).read_bytes()).hexdigest() == digest
                   for name, digest in recorded.items())
    except (UserError, OSError, KeyError, TypeError, AttributeError):
        return False
