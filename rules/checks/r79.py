"""Rule 79: A Python linter is configured and run.

Pass: a pre-commit, CI or task runner file names ruff, flake8 or pylint (a linter that runs needs no
configuration file to count). Violation: none is configured and none runs. Undecidable: a linter is
configured, but no runner file here names it (it may run from somewhere this check cannot see).
"""

import configparser

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import read_toml, runners_naming

RULE = 79
SUPERSEDED = False

RUNS = r"\b(?:ruff|flake8|pylint)\b"


def check(repo: Repository) -> list[Finding]:
    if runners_naming(repo, RUNS):
        return []
    configured = _configured(repo)
    if configured:
        raise Undecidable(f"{configured} configures a linter, but no pre-commit, CI or task runner file here runs it")
    return [Finding("no Python linter (ruff, flake8, pylint) is configured or run", path="pyproject.toml"
                    if repo.exists("pyproject.toml") else None)]


def _configured(repo: Repository) -> str | None:
    for path in ("ruff.toml", ".ruff.toml", ".flake8", ".pylintrc", "pylintrc"):
        if repo.exists(path):
            return path
    if repo.exists("pyproject.toml") and {"ruff", "pylint", "flake8"} & set(read_toml(repo, "pyproject.toml")
                                                                           .get("tool", {})):
        return "pyproject.toml"
    for path in ("setup.cfg", "tox.ini"):
        if repo.exists(path):
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(repo.read_text(path))
            except configparser.Error:
                continue
            if parser.has_section("flake8"):
                return path
    return None
