"""Fixtures: a git repository holding a rule source (path source `ac`) and a manifest selecting it."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from agent_constitution.checks.model import CheckSpec, RuleCheck

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]

PASSING = '''\
from agent_constitution.checks.api import Finding

RULE = {id}
SUPERSEDED = False


def check(repo):
    return [] if repo.exists("README.md") else [Finding("README.md is missing")]
'''


MANIFEST = """\
rules = ["{name}:demo"]
[constitution]
source = "{name}"
edition = "2026-10"
revision = "0.1"
[sources]
{name} = {spec}
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True, text=True).stdout


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def rule_toml(rule_id: int, check: str = "", status: str = "active", extra: str = "") -> str:
    return (
        f'id = {rule_id}\nrevision = 1\nstatus = "{status}"\nparent = "demo"\n{extra}'
        f'[title]\nen = "Rule {rule_id}"\n[text]\nen = "Rule {rule_id} requires something. It matters. Check it."\n'
        + (f"[check]\n{check}\n" if check else "")
    )


def make_source(root: Path, rules: dict[int, str], checks: dict[str, str]) -> None:
    """A source `ac` in root/rules: rule id → rule TOML; module name → check code."""
    files = {"rules/source.toml": 'name = "ac"\nlanguages = ["en"]\n[domains.demo]\ntitle = { en = "Demo" }\n',
             "rules/checks/__init__.py": "", "constitution/2026-10/index.toml": 'revision = "0.1"\n'}
    files.update({f"rules/{rule_id}.toml": text for rule_id, text in rules.items()})
    files.update({f"rules/checks/{name}.py": code for name, code in checks.items()})
    write(root, files)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed repository whose manifest selects every rule of its own source `ac` (trusted)."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {
        "rules.toml": MANIFEST.format(name="ac", spec='{ path = "." }'),
        "pyproject.toml": '[tool.doit]\nloader = "agent-constitution"\n',
        ".gitignore": "cache/\n*.log\n",
        "README.md": "hello\n",
    })
    return root


def rule(root: Path, rule_id: int = 1, *, python: str | None = None, command: list[str] | None = None,
         trusted: bool = True, status: str = "active", **check) -> RuleCheck:
    """A RuleCheck given directly (the runner's plain input), without a manifest."""
    spec = None
    if python or command:
        spec = CheckSpec(python=python, command=None if command is None else tuple(command),
                         **{key: tuple(value) if isinstance(value, list) else value for key, value in check.items()})
    return RuleCheck(source="ac", id=rule_id, revision=1, status=status, title=f"Rule {rule_id}", text="Text.",
                     check=spec, source_root=root, trusted=trusted)


def reading(monkeypatch: pytest.MonkeyPatch, reads: list[str]) -> None:
    """Append the name of every file the run's shared contents open to `reads`."""
    import builtins

    from agent_constitution.checks import contents

    def counting(file, *args, **kwargs):
        reads.append(Path(file).name)
        return builtins.open(file, *args, **kwargs)

    monkeypatch.setattr(contents, "open", counting, raising=False)
