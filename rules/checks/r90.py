"""Rule 90: package.json declares the Node versions it supports (`engines.node`).

Judged: the `package.json` of the project (the repository's or the segment's root) and of each
workspace member the root declares (`workspaces` in the root `package.json`, `packages` in
`pnpm-workspace.yaml`). Left out: private members (`"private"` truthy, as npm reads it: they are
never installed on their own), and every other `package.json` deeper in the tree, which is not a
package of this project but data: an example, a test fixture, a template (revision 2; revision 1
judged them all and reported unbuild's `examples/*/package.json` and `test/fixture/package.json`).
"""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import package_json, parse_yaml

RULE = 90
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    whole = repo.repository
    members = _workspace_members(whole)
    findings = []
    for path in repo.glob("**/package.json"):
        if "node_modules/" in path:
            continue
        in_repository = f"{repo.folder}/{path}" if repo.folder else path
        if "/" in path and in_repository not in members:
            continue  # not the project's package: an example, a fixture or a template
        data = package_json(repo, path)
        if data.get("private") and (repo.folder or "/" in path):
            continue
        engines = data.get("engines")
        if not (isinstance(engines, dict) and isinstance(engines.get("node"), str) and engines["node"].strip()):
            findings.append(Finding("no engines.node: declare the Node versions the project supports", path=path))
    return findings


def _workspace_members(whole: Repository) -> set[str]:
    """The repository-relative `package.json` paths of the workspace members the root declares."""
    patterns: list[str] = []
    if whole.exists("package.json"):
        data = package_json(whole, "package.json")
        declared = data.get("workspaces")
        if isinstance(declared, dict):
            declared = declared.get("packages")
        if isinstance(declared, list):
            patterns += [item for item in declared if isinstance(item, str)]
    if whole.exists("pnpm-workspace.yaml"):
        config, _ = parse_yaml(whole.read_text("pnpm-workspace.yaml"))
        if isinstance(config, dict) and isinstance(config.get("packages"), list):
            patterns += [item for item in config["packages"] if isinstance(item, str)]
    members: set[str] = set()
    excluded: set[str] = set()
    for pattern in patterns:
        target = excluded if pattern.startswith("!") else members
        folder = pattern.removeprefix("!").removeprefix("./").rstrip("/")
        target.update(whole.glob(f"{folder}/package.json"))
    return members - excluded
