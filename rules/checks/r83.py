"""Rule 83: A change that adds a dependency says why.

Reads the declared dependencies of every `pyproject.toml` (`[project]` dependencies and optional
dependencies, `[dependency-groups]`, Poetry's tables), `package.json` (dependencies, dev, peer and
optional), `Cargo.toml` (`[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`) and `go.mod`
(`require`) before and after the change. Each name added must appear in a commit message.
"""

import json
import re
import tomllib

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 83
SUPERSEDED = False

NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def check(change: Change) -> list[Finding]:
    added = []
    for file in change.files:
        reader = _READERS.get(file.path.rsplit("/", 1)[-1])
        if reader is None or file.new_text is None:
            continue
        before = reader(file.old_text) if file.old_text else set()
        added += [(file.path, name) for name in sorted(reader(file.new_text) - before)]
    if not added:
        return []
    if not change.messages:
        raise Undecidable(f"{added[0][0]} adds {added[0][1]!r}, and a staged change has no commit message yet")
    said = "\n".join(change.messages).lower()
    return [Finding(f"adds the dependency {name!r}, which no commit message names", path=path)
            for path, name in added if name.lower() not in said]


def _pyproject(text: str) -> set[str]:
    data = _toml(text)
    project = data.get("project", {})
    specs = list(project.get("dependencies", []))
    specs += [spec for group in project.get("optional-dependencies", {}).values() for spec in group]
    specs += [spec for group in data.get("dependency-groups", {}).values() for spec in group if isinstance(spec, str)]
    names = {m.group(1).lower().replace("_", "-") for spec in specs if isinstance(spec, str) and (m := NAME.match(spec))}
    poetry = data.get("tool", {}).get("poetry", {})
    tables = [poetry.get("dependencies", {}), poetry.get("dev-dependencies", {})]
    tables += [group.get("dependencies", {}) for group in poetry.get("group", {}).values()]
    return names | {name.lower() for table in tables for name in table if name != "python"}


def _package_json(text: str) -> set[str]:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise Undecidable(f"package.json is not valid JSON: {error}") from None
    keys = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
    return {name for key in keys for name in (data.get(key) or {})} if isinstance(data, dict) else set()


def _cargo(text: str) -> set[str]:
    data = _toml(text)
    tables = [data.get(key, {}) for key in ("dependencies", "dev-dependencies", "build-dependencies")]
    tables.append(data.get("workspace", {}).get("dependencies", {}))
    return {name for table in tables for name in table}


def _go_mod(text: str) -> set[str]:
    names, block = set(), False
    for line in text.splitlines():
        line = line.split("//")[0].strip()
        if line.startswith("require ("):
            block = True
        elif block and line == ")":
            block = False
        elif block and line:
            names.add(line.split()[0])
        elif line.startswith("require "):
            names.add(line.split()[1])
    return names


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise Undecidable(f"a manifest of the change is not valid TOML: {error}") from None


_READERS = {"pyproject.toml": _pyproject, "package.json": _package_json, "Cargo.toml": _cargo, "go.mod": _go_mod}
