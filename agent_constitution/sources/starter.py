"""`agent-constitution init`: the starter manifest for a repository, and optionally the doit wiring.

The starter `rules.toml` follows this project's own rule source at the commit the installed tool was
built from (`rev`; a release tag `v<version>` when the installation does not record its commit), so
a fresh machine compiles exactly the rules this version was made with. It trusts the source (its
python checks may run; rule ac:38 wants a trusted source pinned, never a branch), binds the
constitution it publishes, and selects the packages every repository can use.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution, version
from importlib.resources import files
from pathlib import Path
from urllib.parse import unquote, urlparse

import tomlkit
from tomlkit.exceptions import TOMLKitError

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import parse_toml, read_text
from agent_constitution.schemas import url as schema_url

SOURCE_URL = "https://github.com/Luolc/agent-constitution"
# Tests point the starter at a local clone; users edit rules.toml instead.
URL_VARIABLE = "AGENT_CONSTITUTION_STARTER_URL"
# Written into the package by hatch_build.py when a wheel is built from a git checkout.
COMMIT_FILE = "_commit"
EDITION = "2026-10"
REVISION = "0.3"
# Packages (domains) of the project's source that fit any repository and hold no choice group: the
# python and ci domains need a choice (uv or Poetry, which CI service) and are left to the user.
STARTER_PACKAGES = ("instructions", "git", "security", "session")
# Rule 13 (generated files are not committed) conflicts with rule 5 (commit the compiled instruction
# files): clones, CI and cloud agents read only committed files, so the starter keeps rule 5.
STARTER_EXCLUDE = (13,)
LOADER = "agent-constitution"
DODO = "from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n"
CACHE_GITIGNORE = "*\n!.gitignore\n"


@dataclass(frozen=True)
class Step:
    """One thing init did or left alone, as a line for the user."""

    path: str
    done: str


def starter_url() -> str:
    return os.environ.get(URL_VARIABLE) or SOURCE_URL


def built_from() -> str | None:
    """The commit the installed tool was built from, or None when the installation does not say.

    A git install records it (PEP 610 `direct_url.json`, `vcs_info.commit_id`); an editable install
    is the checkout it points at (its HEAD); a wheel built from a checkout carries `_commit`."""
    try:
        direct = distribution("agent-constitution").read_text("direct_url.json")
    except PackageNotFoundError:
        direct = None
    data = json.loads(direct) if direct else {}
    if data.get("vcs_info", {}).get("commit_id"):
        return data["vcs_info"]["commit_id"]
    if data.get("dir_info", {}).get("editable"):
        return _head(Path(unquote(urlparse(data["url"]).path)))
    baked = files("agent_constitution").joinpath(COMMIT_FILE)
    return (baked.read_text(encoding="utf-8").strip() or None) if baked.is_file() else None


def _head(folder: Path) -> str | None:
    import pygit2

    try:
        return str(pygit2.Repository(str(folder)).head.target)
    except (pygit2.GitError, KeyError):
        return None


def starter_pin() -> str:
    """`rev = "<commit>"` of this installation, else `tag = "v<version>"` (the project tags releases)."""
    commit = built_from()
    return f'rev = "{commit}"' if commit else f'tag = "v{version("agent-constitution")}"'


def starter_manifest(url: str, pin: str) -> str:
    selection = ", ".join(f'"ac:{package}"' for package in STARTER_PACKAGES)
    excluded = ", ".join(f'"ac:{rule}"' for rule in STARTER_EXCLUDE)
    return f"""#:schema {schema_url("rules.schema.json")}
# The rules agents follow in this repository. `agent-constitution compile` locks them in rules.lock
# and writes AGENTS.md; `agent-constitution check` checks them. Add a package or a rule with its ref,
# e.g. "ac:python" (then choose its alternatives under [choices]) or "ac:20"; drop one with `exclude`.
rules = [{selection}]
exclude = [{excluded}]  # conflicts with ac:5: the compiled AGENTS.md is committed, for clones and CI

[constitution]
source = "ac"
edition = "{EDITION}"
revision = "{REVISION}"

[sources]
# Pinned (trusted code runs only as reviewed); `agent-constitution upgrade` names newer commits.
ac = {{ url = "{url}", {pin}, trust = true }}

[choices]
# "ac:python-package-manager" = "ac:<rule id of uv, Poetry or Bazel>"
"""


def init_project(root: Path, *, doit: bool = False) -> list[Step]:
    """Write rules.toml, cache/.gitignore and (with `doit`) the doit wiring where they are missing; report each."""
    if not root.is_dir():
        raise UserError(f"{root} is not a folder", fix="run init in (or name) the repository's root folder")
    wiring = _wire_doit(root) if doit else None  # first: it can fail, and then nothing is written
    return [
        _create(root, "rules.toml", starter_manifest(starter_url(), starter_pin())),
        _create(root, "cache/.gitignore", CACHE_GITIGNORE),
        *([wiring] if wiring else []),
    ]


def _create(root: Path, name: str, text: str) -> Step:
    path = root / name
    if path.exists():
        return Step(name, "exists, left unchanged")
    write_atomic(path, text)
    return Step(name, "written")


def _wire_doit(root: Path) -> Step:
    dodo, pyproject = root / "dodo.py", root / "pyproject.toml"
    if dodo.exists():
        if "agent_constitution.loader" in read_text(dodo):
            return Step("dodo.py", "already loads agent-constitution")
        # doit reads dodo.py only without a [tool.doit] loader, so the user's tasks must stay there.
        return Step(
            "dodo.py",
            "exists, left unchanged; add these lines to it to get the tasks:\n    "
            + DODO.strip().replace("\n\n", "\n").replace("\n", "\n    "),
        )
    if not pyproject.exists():
        write_atomic(dodo, DODO)
        return Step("dodo.py", "written")
    try:
        text = read_text(pyproject)
        parse_toml(text, pyproject)  # the one TOML reader's messages (line, nesting, huge integers)
    except UserError as error:
        error.fix = error.fix or "fix the file, then run init again"
        raise
    try:  # tomlkit keeps the file's layout for the edit
        document = tomlkit.parse(text)
    except TOMLKitError as error:
        raise UserError(f"not valid TOML: {error}", file=pyproject, fix="fix the file, then run init again") from None
    tool = document.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        document.append("tool", tool)
    doit = tool.get("doit")
    if doit is None:
        doit = tomlkit.table()
        tool.append("doit", doit)
    loader = doit.get("loader")
    if loader == LOADER:
        return Step("pyproject.toml", "[tool.doit] already uses the agent-constitution loader")
    if loader is not None:
        raise UserError(
            f"[tool.doit] loader is {str(loader)!r}, another task loader",
            file=pyproject,
            field="tool.doit.loader",
            fix=f'set loader = "{LOADER}", or load agent-constitution\'s tasks from your dodo.py '
            "(globals().update(namespace()) from agent_constitution.loader)",
        )
    doit["loader"] = LOADER
    write_atomic(pyproject, tomlkit.dumps(document))
    return Step("pyproject.toml", '[tool.doit] loader = "agent-constitution" added')
