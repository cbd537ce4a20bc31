"""Rule 24: No debugger breakpoints in committed code.

A file that does not parse as Python (a template, syntax newer than the checker's Python) is judged
by its text: without anything that looks like a breakpoint it passes; with it the check cannot tell
code from text and is undecidable, unless another file is a violation.
"""

import ast
import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 24
SUPERSEDED = False

LOOKS_LIKE = re.compile(r"\bbreakpoint\s*\(|\bset_trace\s*\(|\b(?:import|from)\s+i?pdb\b")

DEBUGGERS = {"pdb", "ipdb"}
# Every finding and every LOOKS_LIKE match holds one of these words.
_WORDS = ("breakpoint", "pdb", "set_trace")


def check(repo: Repository) -> list[Finding]:
    findings, unsure = [], []
    for path in repo.glob("**/*.py"):
        text = repo.text(path)
        if text is not None and not any(word in text for word in _WORDS):
            continue  # nothing a breakpoint (or LOOKS_LIKE) needs: no parse
        try:
            tree = ast.parse(text, filename=path) if text is not None else None
        except (SyntaxError, ValueError):
            tree = None
        if tree is None:  # not parseable Python: other tools report that; only its text can be read
            if text is not None and LOOKS_LIKE.search(text):
                unsure.append(path)
            continue
        for node in ast.walk(tree):
            what = _debugger(node)
            if what:
                findings.append(Finding(what, path=path, line=node.lineno, column=node.col_offset + 1))
    if unsure and not findings:
        raise Undecidable(f"{unsure[0]} does not parse as Python and its text holds what looks like a breakpoint")
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
