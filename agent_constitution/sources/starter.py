"""`agent-constitution init`: the starter manifest and the doit wiring for a repository, never overwriting.

The starter `rules.toml` follows this project's own rule source at the release tag of the installed
version, trusts it (its python checks may run), binds the constitution it publishes, and selects the
packages every repository can use; `doit compile` then locks and builds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import parse_toml, read_text

SOURCE_URL = "https://github.com/Luolc/agent-constitution"
EDITION = "2026-10"
REVISION = "0.2"
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


def starter_manifest(tag: str) -> str:
    selection = ", ".join(f'"ac:{package}"' for package in STARTER_PACKAGES)
    excluded = ", ".join(f'"ac:{rule}"' for rule in STARTER_EXCLUDE)
    return f"""# The rules agents follow in this repository. `doit compile` locks them in rules.lock and writes
# AGENTS.md; `doit check` checks them. Add a package or a rule with its ref, e.g. "ac:python" (then
# choose its alternatives under [choices]) or "ac:20"; drop one with `exclude`.
rules = [{selection}]
exclude = [{excluded}]  # conflicts with ac:5: the compiled AGENTS.md is committed, for clones and CI

[constitution]
source = "ac"
edition = "{EDITION}"
revision = "{REVISION}"

[sources]
ac = {{ url = "{SOURCE_URL}", tag = "{tag}", trust = true }}

[choices]
# "ac:python-package-manager" = "ac:<rule id of uv, Poetry or Bazel>"
"""


def init_project(root: Path) -> list[Step]:
    """Write rules.toml, cache/.gitignore and the doit wiring where they are missing; report each."""
    if not root.is_dir():
        raise UserError(f"{root} is not a folder", fix="run init in (or name) the repository's root folder")
    wiring = _wire_doit(root)  # first: it is the step that can fail, and then nothing is written
    return [
        _create(root, "rules.toml", starter_manifest(f"v{version('agent-constitution')}")),
        _create(root, "cache/.gitignore", CACHE_GITIGNORE),
        wiring,
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
