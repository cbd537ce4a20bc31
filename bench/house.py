"""Figures of the package's layering: how a newcomer finds the house, before and after a change.

    uv run python bench/house.py [PACKAGE_FOLDER]

Prints, for the package at PACKAGE_FOLDER (default: this checkout's `agent_constitution/`):
- the pairs of packages that import each other (a package: a sub-package or a top-level module of
  `agent_constitution`), counting imports anywhere in a module, inside functions too;
- the package's own imports that stand inside a function;
- radon's blocks of rank C or worse per 1,000 lines (when `radon` runs: `uvx radon`), and the rank-E
  and worse blocks by name.
Read-only: it parses files and runs radon over them.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_constitution import codegraph  # noqa: E402

PACKAGE = "agent_constitution"


def unit(module: str) -> str:
    """The package a module belongs to: `agent_constitution.<first part>`."""
    parts = module.split(".")
    return ".".join(parts[:2])


def two_way_pairs(folder: Path) -> list[tuple[str, str]]:
    edges = codegraph.graph(folder, PACKAGE)
    between: dict[str, set[str]] = {}
    for module, targets in edges.items():
        for target in targets:
            if unit(module) != unit(target) and unit(target) != PACKAGE:
                between.setdefault(unit(module), set()).add(unit(target))
    return sorted((a, b) for a, targets in between.items() for b in targets if a < b and a in between.get(b, ()))


def local_imports(folder: Path) -> list[str]:
    """`module:line` of every import of the package's own modules inside a function."""
    found = []
    for name, path in codegraph.modules(folder, PACKAGE).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(PACKAGE)):
                    found.append(f"{name}:{node.lineno}")
                elif isinstance(node, ast.Import) and any(a.name.startswith(PACKAGE) for a in node.names):
                    found.append(f"{name}:{node.lineno}")
    return sorted(set(found))


def lines(folder: Path) -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in folder.rglob("*.py"))


def radon(folder: Path) -> tuple[int, list[str]] | None:
    uvx = shutil.which("uvx")
    if uvx is None:
        return None
    done = subprocess.run([uvx, "-q", "radon", "cc", "-j", "-n", "C", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    blocks = [(file, block) for file, found in json.loads(done.stdout).items() if isinstance(found, list)
              for block in found]
    worst = sorted(f"{Path(file).relative_to(folder)}:{block['name']} {block['rank']}" for file, block in blocks
                   if block["rank"] in "EF")
    return len(blocks), worst


def main(argv: list[str]) -> int:
    folder = Path(argv[0]).resolve() if argv else Path(__file__).resolve().parent.parent / PACKAGE
    pairs = two_way_pairs(folder)
    total = lines(folder)
    print(f"package two-way pairs: {len(pairs)}")
    for a, b in pairs:
        print(f"  {a.removeprefix(PACKAGE + '.')} <-> {b.removeprefix(PACKAGE + '.')}")
    print(f"function-local imports of the package's own modules: {len(local_imports(folder))}")
    print(f"lines: {total}")
    measured = radon(folder)
    if measured is not None:
        count, worst = measured
        print(f"radon blocks of rank C or worse: {count} ({count * 1000 / total:.1f} per 1,000 lines)")
        for name in worst:
            print(f"  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
