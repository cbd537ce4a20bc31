"""The workspace members of a repository, as `agent-constitution init` proposes them for segments.

`members(files) -> list[Member]` reads the repository's own file listing (what `shape.detect` lists)
and finds each package folder a workspace tool declares, or that holds a project of its own:

| found by | members |
|---|---|
| `pnpm-workspace.yaml` | its `packages` globs (`!` negates), folders with a `package.json` |
| `package.json` `workspaces` (npm, Yarn, Bun) | the globs (a list, or `{packages = [...]}`), folders with a `package.json` |
| `Cargo.toml` `[workspace] members` | the globs, less `exclude`, folders with a `Cargo.toml` |
| `go.work` `use` | each folder named, with a `go.mod` |
| a Python project in a subfolder | every folder below the root holding a `pyproject.toml`, `setup.py` or `setup.cfg` |

Folders under `node_modules/`, `.venv/`, `vendor/` and `target/` are never members. The root itself
is not a member (it is the root segment).

`proposals(...)` turns them into commented-out `[[segment]]` blocks for the starter manifest, each
adding to the root's selection only what the package shows and the root does not: its language's
package (`ac:javascript` in a Python repository's web client), the choice of its own package manager
where it differs (a Poetry project beside a uv root), and the exclusions the new package needs to
resolve. A block the user uncomments gives the folder rules of its own; one that adds nothing writes
nothing (docs/compile.md, "Segments").
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from agent_constitution.checks.api import glob_regex

LANGUAGES = ("python", "javascript", "go", "rust")
# The tools whose files say which package manager a project uses: a member's own overrides the root's.
MANAGERS = ("uv", "Poetry", "Bazel", "npm", "pnpm", "Yarn")
_NEVER = re.compile(r"(^|/)(node_modules|\.venv|venv|vendor|target|\.git)(/|$)")
_PYTHON = ("pyproject.toml", "setup.py", "setup.cfg")
MAX_SHOWN = 40  # blocks written; a workspace of hundreds of packages gets a line naming the rest


@dataclass(frozen=True)
class Member:
    path: str  # the folder, repository-relative
    why: str  # what declares it ("pnpm-workspace.yaml", "Cargo.toml [workspace] members", a pyproject.toml)


def members(root: Path, files: Iterable[str]) -> list[Member]:
    listed = sorted(set(files))
    folders = {path.rpartition("/")[0] for path in listed}
    found: dict[str, Member] = {}

    def add(globs: Iterable[str], marker: str, why: str, excluded: Iterable[str] = ()) -> None:
        wanted = [_folder_glob(g) for g in globs if isinstance(g, str) and not g.startswith("!")]
        negated = [_folder_glob(g[1:]) for g in globs if isinstance(g, str) and g.startswith("!")]
        negated += [_folder_glob(g) for g in excluded if isinstance(g, str)]
        for folder in sorted(folders):
            if not folder or _NEVER.search(folder) or f"{folder}/{marker}" not in listed:
                continue
            if any(glob_regex(g).fullmatch(folder) for g in wanted) and not any(
                    glob_regex(g).fullmatch(folder) for g in negated):
                found.setdefault(folder, Member(folder, why))

    if "pnpm-workspace.yaml" in listed:
        data = _yaml(root / "pnpm-workspace.yaml")
        if isinstance(data, dict) and isinstance(data.get("packages"), list):
            add(data["packages"], "package.json", "pnpm-workspace.yaml")
    if "package.json" in listed:
        data = _json(root / "package.json")
        spaces = data.get("workspaces") if isinstance(data, dict) else None
        if isinstance(spaces, dict):
            spaces = spaces.get("packages")
        if isinstance(spaces, list):
            add(spaces, "package.json", "package.json workspaces")
    if "Cargo.toml" in listed:
        workspace = _toml(root / "Cargo.toml").get("workspace")
        if isinstance(workspace, dict) and isinstance(workspace.get("members"), list):
            add(workspace["members"], "Cargo.toml", "Cargo.toml [workspace] members", workspace.get("exclude") or ())
    if "go.work" in listed:
        add(_go_work_uses(root / "go.work"), "go.mod", "go.work")
    for path in listed:
        folder, _, name = path.rpartition("/")
        if folder and name in _PYTHON and not _NEVER.search(folder):
            found.setdefault(folder, Member(folder, path))
    return [found[folder] for folder in sorted(found)]


def _folder_glob(pattern: str) -> str:
    pattern = posixpath.normpath(pattern.strip().removeprefix("./")).rstrip("/")
    return pattern[:-3] + "/**" if pattern.endswith("/**") else pattern


def _go_work_uses(path: Path) -> list[str]:
    """The folders of `use` directives (one line, or a parenthesised block) of a go.work file."""
    text = _read(path)
    uses, block = [], False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if block:
            if line.startswith(")"):
                block = False
            elif line:
                uses.append(line.strip('"'))
        elif line.startswith("use"):
            rest = line[3:].strip()
            if rest.startswith("("):
                block = True
            elif rest:
                uses.append(rest.strip('"'))
    return uses


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _json(path: Path) -> object:
    try:
        return json.loads(_read(path))
    except ValueError:
        return None


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError:
        return {}


def _yaml(path: Path) -> object:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="safe", pure=True).load(StringIO(_read(path)))
    except YAMLError:
        return None


# --- the proposals ------------------------------------------------------------------------------


def proposals(root: Path, files: Iterable[str], root_shape, root_starter, source, choose) -> str:
    """The commented-out `[[segment]]` blocks for the starter manifest ("" without members);
    `choose` is the starter's selection (`starter.choose`), applied to each member's own shape."""
    from agent_constitution.commands.shape import MARKERS, TOOLS, Shape, _first_hits

    listed = tuple(sorted(set(files)))
    found = members(root, listed)
    if not found:
        return ""
    root_choices = {group: rule for group, rule, _ in root_starter.choices}
    blocks = []
    for member in found[:MAX_SHOWN]:
        prefix = member.path + "/"
        inside = tuple(path[len(prefix):] for path in listed if path.startswith(prefix))
        languages = _first_hits({name: MARKERS[name] for name in LANGUAGES}, inside)
        own_tools = _first_hits(TOOLS, inside)
        tools = dict(own_tools)
        for tool, path in root_shape.tools.items():
            if tool not in tools and not (tool in MANAGERS and any(t in MANAGERS for t in own_tools)):
                tools[tool] = path
        starter = choose(Shape({**languages}, tools), source)
        new = [p for p in starter.packages if p in LANGUAGES and p not in root_starter.packages]
        choices = [(group, rule, why) for group, rule, why in starter.choices
                   if source.domain_of(group) in new or (group in root_choices and root_choices[group] != rule)]
        exclude = [(node, why) for node, why in starter.exclude if source.domain_of(node) in new]
        shown = ", ".join([*languages, *(t for t in own_tools if t in MANAGERS)]) or "no language of its own"
        lines = [f"# [[segment]]  # {shown} ({member.why})", f'# path = "{member.path}"']
        lines.append("# rules = [" + ", ".join(f'"ac:{p}"' for p in new) + "]"
                     + ("" if new else "  # the root's rules as they are: add what only this package needs"))
        if exclude:
            lines.append("# exclude = [" + ", ".join(f'"ac:{node}"' for node, _ in exclude) + "]")
        if choices:
            lines.append("# [segment.choices]")
            own = set(own_tools.values())
            lines += [f'# "ac:{group}" = "ac:{rule}"  # shown by {prefix + why if why in own else why}'
                      for group, rule, why in choices]
        blocks.append("\n".join(lines))
    more = len(found) - MAX_SHOWN
    tail = f"\n# … and {more} more: {', '.join(m.path for m in found[MAX_SHOWN:MAX_SHOWN + 5])}, …\n" if more > 0 else "\n"
    head = ("\n# Workspace members found here. A [[segment]] gives a folder rules of its own on top of those\n"
            "# above it; one that adds nothing writes nothing. Uncomment a block to enable it.\n#\n")
    return head + "\n#\n".join(blocks) + tail

