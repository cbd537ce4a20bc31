"""Rule 80: A Python type checker is configured and run.

Pass: a pre-commit, CI or task runner file names mypy, pyright, basedpyright or `ty check`.
Violation: none is configured and none runs. Undecidable: one is configured, but no runner file here
names it.
"""

import configparser

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import read_toml, runners_naming

RULE = 80
SUPERSEDED = False

RUNS = r"\b(?:mypy|pyright|basedpyright|ty\s+check)\b"
FILES = ("mypy.ini", ".mypy.ini", "pyrightconfig.json", "ty.toml")


def check(repo: Repository) -> list[Finding]:
    if runners_naming(repo, RUNS):
        return []
    configured = _configured(repo)
    if configured:
        raise Undecidable(f"{configured} configures a type checker, but no pre-commit, CI or task runner file here "
                          "runs it")
    return [Finding("no Python type checker (mypy, pyright, basedpyright, ty) is configured or run",
                    path="pyproject.toml" if repo.exists("pyproject.toml") else None)]


def _configured(repo: Repository) -> str | None:
    for path in FILES:
        if repo.exists(path):
            return path
    if repo.exists("pyproject.toml") and {"mypy", "pyright", "basedpyright", "ty"} & set(
            read_toml(repo, "pyproject.toml").get("tool", {})):
        return "pyproject.toml"
    for path in ("setup.cfg", "tox.ini"):
        if repo.exists(path):
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(repo.read_text(path))
            except configparser.Error:
                continue
            if parser.has_section("mypy"):
                return path
    return None
