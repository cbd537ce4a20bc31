"""An import of the package's own modules inside a function is for a measured start-up cost (or a
cycle) only, and says so: its line ends in `# lazy: <reason>` (docs/structure.md, "Lazy imports").

The test covers the packages in `COVERED` (a sub-package by its folder name, a top-level module by
its file name), which is every one of them: a new package or module joins it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from agent_constitution import codegraph

PACKAGE = Path(codegraph.__file__).parent
COVERED = ("commands", "compile", "edition", "sources", "review", "authoring", "site", "schemas", "covenant", "checks", "fleet",
           "policy", "tasks", "ruleset", "hosts",
           "__init__.py", "fsio.py", "cli.py", "console.py", "codegraph.py", "loader.py", "errors.py", "ids.py", "layout.py",
           "project.py", "provenance.py", "readers.py", "refs.py", "wiring.py", "worktree.py")
MARKER = re.compile(r"#\s*lazy:\s*\S")


def _own(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == codegraph.PACKAGE
    return isinstance(node, ast.Import) and any(alias.name.split(".")[0] == codegraph.PACKAGE for alias in node.names)


def unmarked(text: str) -> list[int]:
    """The lines of the function-local imports of the package's own modules in `text` that carry no
    `# lazy: <reason>` (on the statement's first or last line: a parenthesised import spans several)."""
    lines = text.splitlines()
    found = []
    for function in ast.walk(ast.parse(text)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if _own(node) and not any(MARKER.search(lines[number - 1]) for number in {node.lineno, node.end_lineno}):
                found.append(node.lineno)
    return sorted(set(found))


def _files(name: str) -> list[Path]:
    target = PACKAGE / name
    return sorted(target.rglob("*.py")) if target.is_dir() else [target]


@pytest.mark.parametrize("name", COVERED)
def test_every_function_local_import_says_why(name):
    missing = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path in _files(name)
               for line in unmarked(path.read_text(encoding="utf-8"))]
    assert not missing, ("function-local imports of the package without `# lazy: <reason>` (lift them to the top,"
                         " or give the measured start-up cost they save):\n" + "\n".join(missing))


def test_every_covered_name_exists():
    assert all((PACKAGE / name).exists() for name in COVERED)


def test_every_package_and_module_is_covered():
    names = {path.name for path in PACKAGE.iterdir()
             if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists())}
    assert names - set(COVERED) == set()


def test_the_reader_finds_what_it_must():
    text = '''
from agent_constitution import errors


def f():
    from agent_constitution import ids
    from agent_constitution.refs import parse_ref  # lazy: a reason
    from . import layout
    import json
    from agent_constitution.readers import (  # lazy: start-up
        read_toml,
    )
    from agent_constitution.wiring import (
        spoken,
    )  # lazy: on the last line
    from agent_constitution.fsio import remove  # lazy:
'''
    assert unmarked(text) == [6, 8, 16]
