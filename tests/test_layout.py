"""Every file and folder name has one home, agent_constitution.layout: no other module defines one again."""

from __future__ import annotations

import ast

from agent_constitution import codegraph, layout

# The names that cannot be mistaken for a word (a doit basename such as "review" is not a folder name).
FILE_NAMES = {value for name, value in vars(layout).items()
              if name.isupper() and isinstance(value, str) and ("." in value[1:] or "/" in value)}


def test_no_module_defines_a_layout_name_again():
    again = []
    for module, path in codegraph.modules().items():
        if module == "agent_constitution.layout":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and node.value.value in FILE_NAMES):
                again.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.FunctionDef) and node.name == "segment_key":
                again.append(f"{path.name}:{node.lineno} def segment_key")
    assert not again, "import these from agent_constitution.layout instead:\n" + "\n".join(again)


def test_segment_key():
    assert layout.segment_key(layout.ROOT_SEGMENT) == "_root"
    assert layout.segment_key("services/api") == "services__api"


def test_layout_imports_nothing():
    # Task creation reads these names on every doit command, before any stage is imported.
    tree = ast.parse(codegraph.modules()["agent_constitution.layout"].read_text(encoding="utf-8"))
    imported = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imported == ["from __future__ import annotations"]
