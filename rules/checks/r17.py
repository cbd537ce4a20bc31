"""Rule 17: Manage the Python project with uv.

Decides the text: the project's folder (the repository root, or a segment's folder) has a
`pyproject.toml` with a `[project]` table, and a `uv.lock` beside it, unless the project is a member
of a uv workspace (an enclosing `pyproject.toml` whose `[tool.uv.workspace]` members include the
folder), whose one `uv.lock` sits at the workspace root.
"""

from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Repository, match_files

from ._helpers import read_toml

RULE = 17
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("pyproject.toml"):
        return [Finding("no pyproject.toml at the project's root", path="pyproject.toml")]
    findings = []
    if "project" not in read_toml(repo, "pyproject.toml"):
        findings.append(Finding("pyproject.toml has no [project] table", path="pyproject.toml"))
    if not repo.exists("uv.lock") and _workspace_lock(repo) is None:
        findings.append(
            Finding("no uv.lock beside pyproject.toml (run `uv lock` and commit it)", path="uv.lock")
        )
    return findings


def _workspace_lock(repo: Repository) -> str | None:
    """The `uv.lock` of the uv workspace the view's folder is a member of, if any."""
    whole, folder = repo.repository, repo.folder
    root = folder
    while root:
        root = dirname(root)
        pyproject = join(root, "pyproject.toml") if root else "pyproject.toml"
        if not whole.exists(pyproject):
            continue
        workspace = read_toml(whole, pyproject).get("tool", {}).get("uv", {}).get("workspace")
        if not isinstance(workspace, dict):
            continue
        member = folder[len(root) + 1:] if root else folder
        if _listed(member, workspace.get("members")) and not _listed(member, workspace.get("exclude")):
            lock = join(root, "uv.lock") if root else "uv.lock"
            return lock if whole.exists(lock) else None
    return None


def _listed(member: str, globs) -> bool:
    return isinstance(globs, list) and any(
        isinstance(glob, str) and match_files((member,), glob.strip("/")) for glob in globs)
