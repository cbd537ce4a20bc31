"""The package's own import graph, read from its source files: the code a stage runs, and its cycles.

A stage that hashes its own code as a doit dependency hashes every module it can import (`code_digest`),
so a change to any of them rebuilds what the stage wrote; the import-cycle test walks the same graph.

Standard library only, and no `ast`: task creation calls `code_digest` on every doit command, and a
regular expression reads the package's imports in about 20 ms where parsing every module costs 0.3 s
(measured on this repository). `tests/test_import_graph.py` holds the reader against `ast`, so a
statement it would misread fails a test instead of leaving a digest short.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Container, Iterable, Mapping
from pathlib import Path

PACKAGE = "agent_constitution"
FOLDER = Path(__file__).parent

# Every import statement, top level or inside a function: `from X import a, b`, `from X import (...)`
# over several lines, `import a.b as c, d`. The module and name lists are taken apart by `_names`.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n]*)|import[ \t]+(?P<modules>[^\n]*))",
    re.MULTILINE,
)
_COMMENT = re.compile(r"#[^\n]*")


def modules(folder: Path = FOLDER, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted module name → its file, for every module of the package (a package is its `__init__.py`)."""
    found = {}
    # os.walk and string joins: pathlib's rglob costs 60 ms over this package, on every doit command.
    for here, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        relative = os.path.relpath(here, folder)
        prefix = package if relative == "." else package + "." + relative.replace(os.sep, ".")
        for name in sorted(names):
            if name.endswith(".py"):
                found[prefix if name == "__init__.py" else f"{prefix}.{name[:-3]}"] = Path(here, name)
    return found


def imports_of(name: str, text: str, known: Container[str], is_package: bool = False) -> set[str]:
    """The modules of `known` that the module `name` (source `text`; an `__init__.py` when
    `is_package`) imports, wherever the statement stands. `from P import x` imports module `P.x` when
    there is one, else `P` (x is a name in P)."""
    found = set()
    top = name.partition(".")[0]
    for match in _IMPORT.finditer(text):
        if top not in match[0] and not (match["base"] or "").startswith("."):
            continue  # another package's module (most statements): nothing of `known`
        if match["modules"] is not None:
            for module in _names(match["modules"]):
                found.add(_nearest(module, known))
            continue
        base = _absolute(match["base"], name, is_package)
        for item in _names(match["names"]):
            found.add(f"{base}.{item}" if f"{base}.{item}" in known else _nearest(base, known))
    found.discard(None)
    found.discard(name)
    return found


def graph(folder: Path = FOLDER, package: str = PACKAGE) -> dict[str, frozenset[str]]:
    """Module → the package's modules it imports (top level and inside functions alike)."""
    files = modules(folder, package)
    return {name: _imports(name, path, files) for name, path in files.items()}


def reachable(roots: Iterable[str], edges: Mapping[str, Iterable[str]]) -> set[str]:
    """Every module that importing `roots` can load: what they import, transitively, and the package
    `__init__` modules Python runs on the way to each."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(edges.get(name, ()))
        todo.extend(_parents(name))
    return {name for name in seen if name in edges}


def inside(package: str, folder: Path = FOLDER) -> list[str]:
    """Every module of `package` (a subpackage of the package, such as "agent_constitution.compile")."""
    return [name for name in modules(folder) if name == package or name.startswith(package + ".")]


def code_files(*roots: str, folder: Path = FOLDER, package: str = PACKAGE) -> list[Path]:
    """The files of every module that importing `roots` can load, sorted: what a stage runs.
    Only the modules reached are read, so a stage's digest costs what its own code costs."""
    edges = _Lazy(folder, package)
    return sorted(edges.files[name] for name in reachable(roots, edges))


def code_digest(*roots: str, extra: Iterable[Path] = (), folder: Path = FOLDER, package: str = PACKAGE) -> str:
    """One digest of the code the modules `roots` run (`code_files`: each by its path and bytes), and
    of `extra` files such as templates. A stage puts it in its tasks' configuration, so a change to
    any module it imports, however deep, rebuilds what it wrote."""
    digest = hashlib.sha256()
    for path in [*code_files(*roots, folder=folder, package=package), *extra]:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles of `edges`, one per group of modules that import each other: the group's
    shortest cycle through its first module, `[a, b, …, a]`; sorted, so a failure reads the same each run."""
    found = []
    for group in _strongly_connected(edges):
        first = min(group)
        found.append(_shortest_cycle(first, {k: [v for v in sorted(edges[k]) if v in group] for k in group}))
    return sorted(found)


class _Lazy(Mapping):
    """The graph of `graph()`, each module read when a walk first reaches it."""

    def __init__(self, folder: Path, package: str):
        self.files = modules(folder, package)

    def __getitem__(self, name: str) -> frozenset[str]:
        return _imports(name, self.files[name], self.files)

    def __iter__(self):
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, name: object) -> bool:
        return name in self.files


def _imports(name: str, path: Path, files: Mapping[str, Path]) -> frozenset[str]:
    return frozenset(imports_of(name, path.read_text(encoding="utf-8"), files, path.name == "__init__.py"))


def _names(listing: str) -> list[str]:
    """`a.b as c, d` or `(x,\n y as z,)` → the imported names without their aliases."""
    # A comment after a name ("# why") must not add names.
    listing = _COMMENT.sub("", listing).strip().strip("()").replace("\\\n", " ")
    names = [item.split(" as ")[0].strip() for item in listing.replace("\n", " ").split(",")]
    return [name for name in names if name and name != "*"]


def _absolute(base: str, name: str, is_package: bool) -> str:
    level = len(base) - len(base.lstrip("."))
    if not level:
        return base
    parts = name.split(".") if is_package else name.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([base[level:]] if base[level:] else []))


def _nearest(module: str, known: Container[str]) -> str | None:
    """The longest known module that `module` is or lies inside (`import a.b.c` runs a, a.b, a.b.c)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in known:
            return ".".join(parts[:end])
    return None


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def _strongly_connected(edges: Mapping[str, Iterable[str]]) -> list[set[str]]:
    """Tarjan's groups of more than one module (a module never imports itself here)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in edges:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def _shortest_cycle(start: str, edges: Mapping[str, list[str]]) -> list[str]:
    paths = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for target in edges[node]:
            if target == start:
                return paths[node] + [start]
            if target not in paths:
                paths[target] = paths[node] + [target]
                todo.append(target)
    raise AssertionError(f"{start} is in no cycle")  # a strongly connected group always has one
