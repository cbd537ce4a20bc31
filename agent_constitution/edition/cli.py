"""`constitution-build`: render the constitution's editions, or (`--check`) only run the checks."""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version
from pathlib import Path

from agent_constitution.edition.build import build
from agent_constitution.edition.failures import CHECKS, warning
from agent_constitution.edition.files import CONSTITUTION
from agent_constitution.errors import UserError


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = (args.root or _find_root(Path.cwd())).resolve()
    try:
        result = build(root, check=args.check, base=args.base)
    except UserError as error:
        for note in getattr(error, "notes", ()):
            print(note)
        print(error, file=sys.stderr)
        return 1
    _report(result, args)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="constitution-build",
        description="Render constitution/<edition>/ into its generated/ folder: the full and the agent edition of each language.",
    )
    parser.add_argument("--check", action="store_true",
                        help="write nothing; run the checks, including that generated/ is up to date")
    parser.add_argument("--base", metavar="REF",
                        help="also run check 7 against git commit REF: revision and stable numbers within the edition")
    parser.add_argument("--root", type=Path,
                        help=f"the project root (default: the nearest folder upwards that holds {CONSTITUTION}/)")
    parser.add_argument("--version", action="version", version=f"constitution-build {version('agent-constitution')}")
    return parser


def _report(result, args: argparse.Namespace) -> None:
    """The build's notes and warnings, then what it checked or wrote."""
    for note in result.notes:
        print(note)
    for found in result.warnings:
        print(warning(found), file=sys.stderr)
    if args.check:
        ran = [number for number in CHECKS if number != 7 or args.base]
        print(f"{result.edition.folder}: checks {', '.join(map(str, ran))} passed")
    else:
        for path in result.written:
            print(f"updated {path}")
        if not result.written:
            print(f"{result.edition.generated}/ is up to date")


def _find_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / CONSTITUTION).is_dir():
            return folder
    return start
