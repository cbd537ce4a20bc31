"""Rule 43: A superseded rule keeps its check, marked."""

import ast

from agent_constitution.checks.api import Finding, Repository

from ._helpers import rule_files

RULE = 43
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path, rule in rule_files(repo):
        module = (rule.get("check") or {}).get("python")
        if module is None:
            continue
        superseded = rule.get("status") == "superseded"
        check_path = f"rules/checks/{module}.py"
        if not repo.exists(check_path):
            findings.append(
                Finding(f"the rule's check {check_path} is missing; a check is kept for good", path=path)
            )
            continue
        marked = _superseded_flag(repo.read_text(check_path))
        if superseded and marked is not True:
            findings.append(
                Finding(
                    "the rule is superseded but its check does not say SUPERSEDED = True", path=check_path
                )
            )
        elif not superseded and marked is True:
            findings.append(
                Finding(
                    f"the rule is {rule.get('status')} but its check says SUPERSEDED = True", path=check_path
                )
            )
    return findings


def _superseded_flag(source: str) -> bool | None:
    """The constant a module assigns to SUPERSEDED at top level, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "SUPERSEDED" for t in node.targets
        ):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
                return node.value.value
    return None
