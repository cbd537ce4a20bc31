"""The package's import graph: no module imports itself through others, and the reader that builds
the graph (agent_constitution.codegraph, also what a stage's code digest covers) finds exactly the
imports `ast` finds."""

from __future__ import annotations

import ast

from agent_constitution import codegraph

# Edges a cycle still runs through, each with why it exists; the test ignores exactly these edges and
# fails when one of them is gone (so the list shrinks with the code) or when any other cycle appears.
KNOWN: set[tuple[str, str]] = set()  # none left: a new cycle is broken, not listed


def _without(edges, skipped):
    return {module: {target for target in targets if (module, target) not in skipped} for module, targets in edges.items()}


def test_no_import_cycle():
    found = codegraph.cycles(_without(codegraph.graph(), KNOWN))
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


def test_every_known_edge_is_still_there_and_still_closes_a_cycle():
    edges = codegraph.graph()
    for module, target in sorted(KNOWN):
        assert target in edges[module], f"{module} no longer imports {target}: drop it from KNOWN"
        assert codegraph.cycles(_without(edges, KNOWN - {(module, target)})), f"{module} -> {target} closes no cycle now"


def test_sources_sit_below_the_ruleset():
    # sources/ fetches and caches; the ruleset resolves what they fetched (and authoring uses both).
    edges = codegraph.graph()
    upward = sorted((module, target) for module, targets in edges.items() if module.startswith("agent_constitution.sources")
                    for target in targets if target.startswith(("agent_constitution.ruleset", "agent_constitution.authoring")))
    assert not upward


# Package pairs still importing each other, each with why; the test fails on any other pair and
# when one of these is gone (so the list only shrinks). None is left: the reviewer's calibration gate
# the checks' stage applies lives in checks/ (`checks.calibration`), and `doit review`'s run, which
# reads the checks, in review/ (`review.run`).
KNOWN_PAIRS: set[tuple[str, str]] = set()


def _package(module: str) -> str:
    """The package a module belongs to: a sub-package or a top-level module of agent_constitution."""
    return ".".join(module.split(".")[:2])


def test_no_two_packages_import_each_other():
    """Read at package level the house has layers: no two packages import each other (a module of
    each importing a module of the other, lazily or not), so each can be read without the other."""
    between: dict[str, set[str]] = {}
    for module, targets in codegraph.graph().items():
        for target in targets:
            if _package(module) != _package(target) and _package(target) != codegraph.PACKAGE:
                between.setdefault(_package(module), set()).add(_package(target))
    pairs = sorted((a, b) for a, targets in between.items() for b in targets if a < b and a in between.get(b, ()))
    for pair in KNOWN_PAIRS:
        assert pair in pairs, f"{pair} no longer import each other: drop it from KNOWN_PAIRS"
    pairs = [pair for pair in pairs if pair not in KNOWN_PAIRS]
    assert not pairs, "packages importing each other:\n" + "\n".join(f"{a} <-> {b}" for a, b in pairs)


def test_the_hosts_sit_below_the_stages():
    # hosts/ is the table every stage reads: it imports none of them.
    stages = tuple(f"agent_constitution.{name}" for name in ("compile", "checks", "covenant", "ruleset", "tasks",
                                                               "commands", "site", "authoring", "edition"))
    upward = sorted((module, target) for module, targets in codegraph.graph().items()
                    if module.startswith("agent_constitution.hosts") for target in targets if target.startswith(stages))
    assert not upward


def test_the_reader_finds_what_ast_finds():
    files = codegraph.modules()
    for name, path in files.items():
        text = path.read_text(encoding="utf-8")
        expected = _ast_imports(name, ast.parse(text), files, path.name == "__init__.py")
        assert codegraph.imports_of(name, text, files, path.name == "__init__.py") == expected, name


def test_a_cycle_is_named_from_its_first_module():
    edges = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a", "p.d"}, "p.d": set()}
    assert codegraph.cycles(edges) == [["p.a", "p.b", "p.c", "p.a"]]
    assert codegraph.cycles({"p.a": {"p.b"}, "p.b": set()}) == []


def test_reader_handles_every_statement_form():
    known = {"p", "p.a", "p.a.b", "p.c", "p.d", "p.e"}
    text = (
        "import p.a.b as alias, os\n"
        "from . import c  # a comment\n"
        "from .a import thing\n"
        "def f():\n"
        "    from p import (\n"
        "        d,  # why\n"
        "        e as other,\n"
        "    )\n"
    )
    assert codegraph.imports_of("p.x", text, known) == {"p.a.b", "p.c", "p.a", "p.d", "p.e"}
    assert codegraph.imports_of("p", "from .a import b\n", known, is_package=True) == {"p.a.b"}


def test_reachable_covers_imports_and_the_packages_on_the_way():
    edges = {"p": set(), "p.s": set(), "p.s.a": {"p.t.b"}, "p.t": set(), "p.t.b": set(), "p.u": set()}
    assert codegraph.reachable(["p.s.a"], edges) == {"p", "p.s", "p.s.a", "p.t", "p.t.b"}


def _ast_imports(name, tree, known, is_package):
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(_nearest(alias.name, known))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else _nearest(base, known))
    return found - {None, name}


def _nearest(module, known):
    parts = module.split(".")
    return next((".".join(parts[:end]) for end in range(len(parts), 0, -1) if ".".join(parts[:end]) in known), None)


def test_a_change_to_any_module_a_stage_imports_changes_its_digest(tmp_path):
    package = tmp_path / "pkg"
    (package / "deep").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "stage.py": "def run():\n    from pkg.deep import helper\n    return helper.VALUE\n",
        "deep/__init__.py": "",
        "deep/helper.py": "from .. import shared\nVALUE = 1\n",
        "shared.py": "X = 1\n",
        "unrelated.py": "Y = 1\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)

    def digest():
        return codegraph.code_digest("pkg.stage", folder=package, package="pkg")

    first = digest()
    (package / "unrelated.py").write_text("Y = 2\n")
    assert digest() == first
    for name in ("deep/helper.py", "shared.py", "deep/__init__.py", "__init__.py"):
        before = digest()
        (package / name).write_text((package / name).read_text() + "# changed\n")
        assert digest() != before, name


def test_each_stage_digest_covers_the_modules_it_runs():
    # The compiler once hashed only compile/*.py: an edit of ruleset/source.py or edition/render.py
    # (both run by compile) left AGENTS.md stale.
    compiled = {path.relative_to(codegraph.FOLDER).as_posix() for path in codegraph.code_files(*codegraph.inside("agent_constitution.compile"))}
    assert {"ruleset/source.py", "edition/render.py", "compile/outputs/segment.py", "layout.py"} <= compiled
    rendered = {path.relative_to(codegraph.FOLDER).as_posix() for path in codegraph.code_files("agent_constitution.edition.build")}
    assert {"edition/render.py", "edition/fences.py", "readers.py"} <= rendered
    assert "site/pages.py" not in rendered
