"""Rule 26: No bytecode or virtual environments in the tree."""

from posixpath import basename, dirname

from agent_constitution.checks.api import Finding, Repository

RULE = 26
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    venvs = sorted(dirname(path) for path in repo.files if basename(path) == "pyvenv.cfg")
    findings = [Finding("a virtual environment is in the tree", path=venv or ".") for venv in venvs]
    for path in repo.files:
        if any(path == venv or path.startswith(venv + "/") for venv in venvs if venv):
            continue
        if "__pycache__" in path.split("/") or path.endswith((".pyc", ".pyo")):
            findings.append(Finding("Python bytecode is in the tree", path=path))
    return findings
