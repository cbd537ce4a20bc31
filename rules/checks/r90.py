"""Rule 90: package.json declares the Node versions it supports (`engines.node`).

Private packages inside a workspace (a `package.json` with `"private": true` below the repository's
root) are left out: they are never installed on their own.
"""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import package_json

RULE = 90
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/package.json"):
        if "node_modules/" in path:
            continue
        data = package_json(repo, path)
        if data.get("private") is True and (repo.folder or "/" in path):
            continue
        engines = data.get("engines")
        if not (isinstance(engines, dict) and isinstance(engines.get("node"), str) and engines["node"].strip()):
            findings.append(Finding("no engines.node: declare the Node versions the project supports", path=path))
    return findings
