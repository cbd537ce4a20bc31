"""Rule 27: A test suite that pytest collects.

Decides both halves of the rule's text: at least one file pytest collects by default
(`test_*.py` or `*_test.py`), and a pytest configuration in any file pytest itself reads as one:
`pytest.ini` or `.pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]` or its native
`[tool.pytest]` table (pytest 9), `tox.ini`'s `[pytest]`, `setup.cfg`'s `[tool:pytest]`, or a
`conftest.py`.

In a segment (a package of a workspace), the configuration is looked for as pytest looks for its
rootdir and inifile: in the package's folder and every folder above it (`Repository.enclosing`). A
package without a test file of its own while the repository has test files outside it (a root
`tests/` folder that may test every package) is undecidable, not a violation: which package those
tests cover is for a reviewer.
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
    configured = _configured(repo) or _configured_above(repo)
    if not _test_files(repo):
        elsewhere = _test_files(repo.repository) if repo.folder else []
        elsewhere = [path for path in elsewhere if not path.startswith(repo.folder + "/")]
        if elsewhere and configured:
            raise Undecidable(f"no test file under {repo.folder}/, but the repository has {len(elsewhere)} outside it"
                              f" ({elsewhere[0]}): whether they test this package is for a reviewer")
        if not elsewhere:
            findings.append(Finding("no test file (test_*.py or *_test.py)"))
    if not configured:
        findings.append(
            Finding(
                "pytest is not configured: add [tool.pytest] (or [tool.pytest.ini_options]) to "
                "pyproject.toml, a pytest.ini or a conftest.py"
            )
        )
    return findings


def _test_files(repo: Repository) -> list[str]:
    return repo.glob("**/test_*.py") + repo.glob("**/*_test.py")


def _configured(repo: Repository) -> bool:
    if repo.exists("pytest.ini") or repo.exists(".pytest.ini") or repo.glob("**/conftest.py"):
        return True
    return any(_configures(repo, path) for path in ("pyproject.toml", *_INI_SECTIONS) if repo.exists(path))


def _configured_above(repo: Repository) -> bool:
    """Whether a folder above a segment's holds the configuration pytest run in the segment finds."""
    whole = repo.repository
    names = ("pytest.ini", ".pytest.ini", "conftest.py", "pyproject.toml", *_INI_SECTIONS)
    return any(_configures(whole, path) for path in repo.enclosing(*names))


def _configures(repo: Repository, path: str) -> bool:
    name = path.rpartition("/")[2]
    if name in ("pytest.ini", ".pytest.ini", "conftest.py"):
        return True
    if name == "pyproject.toml":
        return isinstance(read_toml(repo, path).get("tool", {}).get("pytest"), dict)
    return _has_section(repo, path, _INI_SECTIONS[name])


def _has_section(repo: Repository, path: str, section: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(repo.read_text(path), source=path)
    except (configparser.Error, UnicodeDecodeError) as error:
        raise Undecidable(f"{path} does not parse as an ini file: {error}") from None
    return parser.has_section(section)
