"""Rule 27: A test suite that pytest collects.

Decides both halves of the rule's text: at least one file pytest collects by default
(`test_*.py` or `*_test.py`), and a pytest configuration in any file pytest itself reads as one:
`pytest.ini` or `.pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]` or its native
`[tool.pytest]` table (pytest 9), `tox.ini`'s `[pytest]`, `setup.cfg`'s `[tool:pytest]`, or a
`conftest.py`.
"""

import configparser

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import read_toml

RULE = 27
SUPERSEDED = False

# The ini-style files pytest reads, and the section that makes each one its configuration.
_INI_SECTIONS = {"tox.ini": "pytest", "setup.cfg": "tool:pytest"}


def check(repo: Repository) -> list[Finding]:
    findings = []
    if not (repo.glob("**/test_*.py") or repo.glob("**/*_test.py")):
        findings.append(Finding("no test file (test_*.py or *_test.py)"))
    if not _configured(repo):
        findings.append(
            Finding(
                "pytest is not configured: add [tool.pytest] (or [tool.pytest.ini_options]) to "
                "pyproject.toml, a pytest.ini or a conftest.py"
            )
        )
    return findings


def _configured(repo: Repository) -> bool:
    if repo.exists("pytest.ini") or repo.exists(".pytest.ini") or repo.glob("**/conftest.py"):
        return True
    if repo.exists("pyproject.toml") and isinstance(read_toml(repo, "pyproject.toml").get("tool", {}).get("pytest"), dict):
        return True
    for path, section in _INI_SECTIONS.items():
        if repo.exists(path) and _has_section(repo, path, section):
            return True
    return False


def _has_section(repo: Repository, path: str, section: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(repo.read_text(path), source=path)
    except (configparser.Error, UnicodeDecodeError) as error:
        raise Undecidable(f"{path} does not parse as an ini file: {error}") from None
    return parser.has_section(section)
