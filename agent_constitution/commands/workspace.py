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
from agent_constitution.commands.shape import MARKERS, Shape, TOOLS, _first_hits

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
    folders = sorted({path.rpartition("/")[0] for path in listed})
    found: dict[str, Member] = {}
    for globs, marker, why, excluded in _declared(root, listed):
        for folder in _matching(folders, listed, globs, marker, excluded):
            found.setdefault(folder, Member(folder, why))
    for path in listed:
        folder, _, name = path.rpartition("/")
        if folder and name in _PYTHON and not _NEVER.search(folder):
            found.setdefault(folder, Member(folder, path))
    return [found[folder] for folder in sorted(found)]


def _declared(root: Path, listed: list[str]):
    """(globs, the file a member holds, what declares them, globs excluded) of each workspace
    declaration at the root: pnpm, npm/yarn, Cargo, go.work."""
    if "pnpm-workspace.yaml" in listed:
        packages = _pnpm_packages(root / "pnpm-workspace.yaml")
        if packages is not None:
            yield packages, "package.json", "pnpm-workspace.yaml", ()
    if "package.json" in listed:
        spaces = _npm_workspaces(root / "package.json")
        if isinstance(spaces, list):
            yield spaces, "package.json", "package.json workspaces", ()
    if "Cargo.toml" in listed:
        workspace = _toml(root / "Cargo.toml").get("workspace")
        if isinstance(workspace, dict) and isinstance(workspace.get("members"), list):
            yield workspace["members"], "Cargo.toml", "Cargo.toml [workspace] members", workspace.get("exclude") or ()
    if "go.work" in listed:
        yield _go_work_uses(root / "go.work"), "go.mod", "go.work", ()


def _pnpm_packages(path: Path) -> list | None:
    data = _yaml(path)
    return data["packages"] if isinstance(data, dict) and isinstance(data.get("packages"), list) else None


def _npm_workspaces(path: Path):
    data = _json(path)
    spaces = data.get("workspaces") if isinstance(data, dict) else None
    return spaces.get("packages") if isinstance(spaces, dict) else spaces


def _matching(folders: list[str], listed: list[str], globs, marker: str, excluded) -> list[str]:
    """The folders holding `marker` that a glob of `globs` names and none of its `!` globs or `excluded`."""
    wanted, negated = _globs(globs, excluded)
    candidates = [folder for folder in folders
                  if folder and not _NEVER.search(folder) and f"{folder}/{marker}" in listed]
    return [folder for folder in candidates if _named_by(wanted, folder) and not _named_by(negated, folder)]


def _globs(globs, excluded) -> tuple[list[str], list[str]]:
    """The folder globs a declaration names, and those it excludes (`!glob`, or an exclude list)."""
    globs = [g for g in globs if isinstance(g, str)]
    negated = [_folder_glob(g[1:]) for g in globs if g.startswith("!")]
    negated += [_folder_glob(g) for g in excluded if isinstance(g, str)]
    return [_folder_glob(g) for g in globs if not g.startswith("!")], negated


def _named_by(globs: list[str], folder: str) -> bool:
    return any(glob_regex(g).fullmatch(folder) for g in globs)


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
    listed = tuple(sorted(set(files)))
    found = members(root, listed)
    if not found:
        return ""
    blocks = [_block(member, listed, root_shape, root_starter, source, choose) for member in found[:MAX_SHOWN]]
    more = len(found) - MAX_SHOWN
    tail = f"\n# … and {more} more: {', '.join(m.path for m in found[MAX_SHOWN:MAX_SHOWN + 5])}, …\n" if more > 0 else "\n"
    head = ("\n# Workspace members found here. A [[segment]] gives a folder rules of its own on top of those\n"
            "# above it; one that adds nothing writes nothing. Uncomment a block to enable it.\n#\n")
    return head + "\n#\n".join(blocks) + tail


def _block(member: Member, listed: tuple[str, ...], root_shape, root_starter, source, choose) -> str:
    """One member's commented-out `[[segment]]`: what its own shape adds to the root's starter."""
    prefix = member.path + "/"
    inside = tuple(path[len(prefix):] for path in listed if path.startswith(prefix))
    languages = _first_hits({name: MARKERS[name] for name in LANGUAGES}, inside)
    own_tools = _first_hits(TOOLS, inside)
    starter = choose(Shape({**languages}, _tools(own_tools, root_shape)), source)
    new, choices, exclude = _added(starter, root_starter, source)
    shown = ", ".join([*languages, *(t for t in own_tools if t in MANAGERS)]) or "no language of its own"
    lines = [f"# [[segment]]  # {shown} ({member.why})", f'# path = "{member.path}"', _rules_line(new)]
    if exclude:
        lines.append("# exclude = [" + ", ".join(f'"ac:{node}"' for node, _ in exclude) + "]")
    return "\n".join(lines + _choice_lines(choices, set(own_tools.values()), prefix))


def _rules_line(new: list[str]) -> str:
    return ("# rules = [" + ", ".join(f'"ac:{p}"' for p in new) + "]"
            + ("" if new else "  # the root's rules as they are: add what only this package needs"))


def _choice_lines(choices: list, own: set[str], prefix: str) -> list[str]:
    """`[segment.choices]`, each with the file that shows it (a member's own file by its full path)."""
    if not choices:
        return []
    return ["# [segment.choices]", *(f'# "ac:{group}" = "ac:{rule}"  # shown by {prefix + why if why in own else why}'
                                     for group, rule, why in choices)]


def _tools(own_tools: dict[str, str], root_shape) -> dict[str, str]:
    """A member's tools: its own, then the root's (but no second package manager beside its own)."""
    tools = dict(own_tools)
    for tool, path in root_shape.tools.items():
        if tool not in tools and not (tool in MANAGERS and any(t in MANAGERS for t in own_tools)):
            tools[tool] = path
    return tools


def _added(starter, root_starter, source) -> tuple[list, list, list]:
    """What a member's starter adds to the root's: its new packages, the choices it makes otherwise or for
    those packages, and the exclusions within them."""
    root_choices = {group: rule for group, rule, _ in root_starter.choices}
    new = [p for p in starter.packages if p in LANGUAGES and p not in root_starter.packages]
    choices = [(group, rule, why) for group, rule, why in starter.choices
               if source.domain_of(group) in new or root_choices.get(group, rule) != rule]
    exclude = [(node, why) for node, why in starter.exclude if source.domain_of(node) in new]
    return new, choices, exclude

