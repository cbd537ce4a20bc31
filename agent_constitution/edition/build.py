"""The render stage: sources → checks → generated/, shared by `constitution-build` and doit's `render`."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.edition import checks
from agent_constitution.edition.failures import ChecksFailed
from agent_constitution.edition.history import compare
from agent_constitution.edition.models import Edition
from agent_constitution.edition.render import MANIFEST, file_names, outputs
from agent_constitution.edition.files import load, read_worktree, edition_files, with_lines
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.readers import read_json, read_toml
from agent_constitution import codegraph


@dataclass(frozen=True)
class Result:
    """What a build did."""

    edition: Edition
    written: tuple[str, ...]    # files written or deleted, relative to the root
    notes: tuple[str, ...]      # what check 7 did not compare
    warnings: tuple[UserError, ...] = ()   # references to repealed provisions


def build(root: Path, check: bool = False, base: str | None = None) -> Result:
    """Run the checks; unless `check`, write generated/. Raises `ChecksFailed` and then writes nothing."""
    sources = read_worktree(root)
    edition = load(sources)
    errors = checks.source_checks(edition)
    notes: list[str] = []
    if base is not None and errors:
        notes.append(f"check 7: not run against {base}, because the checks below failed")
    elif base is not None:
        found, notes = compare(root, edition, base, sources)
        errors += found
    warnings = [] if errors else checks.repealed_references(edition)
    if check and not errors:
        errors += checks.generated_up_to_date(edition, root)
    if errors:
        raise ChecksFailed(with_lines(errors, sources), tuple(notes))
    written = () if check else tuple(_write(edition, root))
    return Result(edition, written, tuple(notes), tuple(with_lines(warnings, sources)))


def _write(edition: Edition, root: Path) -> list[str]:
    files = outputs(edition)
    folder = root / edition.generated
    written = [f"{edition.generated}/{name}" for name, data in files.items() if write_if_changed(folder / name, data)]
    # generated/ belongs to the build: an output of a dropped language must not linger.
    for stale in sorted(path for path in folder.iterdir()
                        if path.is_file() and path.name not in files and not path.name.startswith(".")):
        stale.unlink()
        written.append(f"{edition.generated}/{stale.name}")
    return written


def plan(root: Path) -> tuple[list[str], list[Path]]:
    """(dependencies, targets) of the render stage: every source file (the compiler's own code is
    `code_digest`); the generated files, as far as index.toml can be read ([] when it cannot: the
    build then fails)."""
    sources = edition_files(root)
    return [os.path.join(root, path) for path in sources], _targets(root, sources)


def code_digest() -> str:
    """The render stage's code: every module `build` imports."""
    return codegraph.code_digest(__name__)


def _targets(root: Path, sources: list[str]) -> list[Path]:
    indexes = [path for path in sources if path.count("/") == 2 and path.endswith("/index.toml")]
    codes = _languages(root / indexes[0]) if len(indexes) == 1 else []
    if not codes:
        return []
    generated = root / indexes[0].rsplit("/", 1)[0] / "generated"
    return [generated / name for code in codes for name in file_names(code)] + [generated / MANIFEST]


def _languages(index: Path) -> list[str]:
    """The language codes an index lists; [] when it does not load or lists none well-formed (its checks say why)."""
    try:
        codes = read_toml(index).get("languages", [])
    except UserError:
        return []
    if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
        return []
    return codes


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
