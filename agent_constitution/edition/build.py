"""The render stage: sources → checks → generated/, shared by `constitution-build` and doit's `render`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_constitution.edition import checks
from agent_constitution.edition.failures import ChecksFailed
from agent_constitution.edition.history import compare
from agent_constitution.edition.models import Edition
from agent_constitution.edition.render import outputs
from agent_constitution.edition.files import load, read_worktree, with_lines
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed


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


