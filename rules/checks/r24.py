"""Rule 24: No debugger breakpoints in committed code."""

import ast

from agent_constitution.checks.api import Finding, Repository

RULE = 24
SUPERSEDED = False

DEBUGGERS = {"pdb", "ipdb"}


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/*.py"):
        try:
            tree = ast.parse(repo.read_text(path), filename=path)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # not parseable Python: other tools report that
        for node in ast.walk(tree):
            what = _debugger(node)
            if what:
                findings.append(Finding(what, path=path, line=node.lineno, column=node.col_offset + 1))
    return findings


def _debugger(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "breakpoint":
            return "breakpoint() call"
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "set_trace"
            and isinstance(func.value, ast.Name)
            and func.value.id in DEBUGGERS
        ):
            return f"{func.value.id}.set_trace() call"
    if isinstance(node, ast.Import):
        names = [alias.name.split(".")[0] for alias in node.names]
        found = [name for name in names if name in DEBUGGERS]
        if found:
            return f"import of the debugger {found[0]}"
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in DEBUGGERS:
        return f"import from the debugger {node.module}"
    return None
