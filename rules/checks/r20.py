"""Rule 20: uv.lock matches pyproject.toml."""

import re
from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import read_toml

RULE = 20
SUPERSEDED = False

REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*([^;@]*)")


def check(repo: Repository) -> list[Finding]:
    findings = []
    for lock_path in repo.glob("**/uv.lock"):
        pyproject_path = join(dirname(lock_path), "pyproject.toml")
        if not repo.exists(pyproject_path):
            continue
        pyproject = read_toml(repo, pyproject_path)
        project = pyproject.get("project")
        if not isinstance(project, dict) or "name" not in project:
            continue
        package = _locked_package(read_toml(repo, lock_path), _normalize(project["name"]))
        if package is None:
            findings.append(
                Finding(f"uv.lock records no package {project['name']!r}; run `uv lock`", path=lock_path)
            )
            continue
        metadata = package.get("metadata")
        if metadata is None:
            raise Undecidable(f"{lock_path} records no requirements metadata (written by an old uv?)")
        groups = {name: list(items) for name, items in pyproject.get("dependency-groups", {}).items()}
        legacy = pyproject.get("tool", {}).get("uv", {}).get("dev-dependencies")
        if legacy:
            groups.setdefault("dev", []).extend(legacy)
        pairs = [
            ("[project] dependencies", project.get("dependencies", []), metadata.get("requires-dist", []))
        ]
        recorded_groups = metadata.get("requires-dev", {})
        for name in sorted(set(groups) | set(recorded_groups)):
            pairs.append((f"dependency group {name!r}", groups.get(name, []), recorded_groups.get(name, [])))
        for what, declared, recorded in pairs:
            difference = _difference(declared, recorded)
            if difference:
                findings.append(
                    Finding(f"uv.lock is stale for {what}: {difference}; run `uv lock`", path=lock_path)
                )
    return findings


def _locked_package(lock: dict, name: str) -> dict | None:
    for package in lock.get("package", []):
        source = package.get("source", {})
        if _normalize(package.get("name", "")) == name and ("editable" in source or "virtual" in source):
            return package
    return None


def _difference(declared: list, recorded: list) -> str:
    want = {_declared(item) for item in declared if isinstance(item, str)}
    have = {_recorded(item) for item in recorded if isinstance(item, dict)}
    parts = []
    if want - have:
        parts.append("declared but not locked: " + ", ".join(sorted(_show(r) for r in want - have)))
    if have - want:
        parts.append("locked but not declared: " + ", ".join(sorted(_show(r) for r in have - want)))
    return "; ".join(parts)


def _declared(text: str) -> tuple:
    match = REQUIREMENT.match(text)
    if match is None:
        return (text, (), frozenset())
    extras = tuple(sorted(_normalize(e) for e in (match.group(2) or "").split(",") if e.strip()))
    return (_normalize(match.group(1)), extras, _specifier(match.group(3)))


def _recorded(item: dict) -> tuple:
    extras = tuple(sorted(_normalize(e) for e in item.get("extras", [])))
    return (_normalize(item.get("name", "")), extras, _specifier(item.get("specifier", "")))


def _specifier(text: str) -> frozenset:
    return frozenset(part.replace(" ", "") for part in text.strip("() ").split(",") if part.strip())


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _show(requirement: tuple) -> str:
    name, extras, specifier = requirement
    return name + (f"[{','.join(extras)}]" if extras else "") + ",".join(sorted(specifier))
