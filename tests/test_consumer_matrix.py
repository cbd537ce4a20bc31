"""Every file the project writes, fed to the program that reads it: output × consumer × verdict.

One row per pair; each runs the consumer (its version pinned in the dev group of pyproject.toml or in
.ci/npm-tools.txt) on the output as compile, check or the repository itself writes it, in a repository
that uses pre-commit and lefthook and has skills. docs/formats.md ("Consumers") shows the same table.
A consumer from npm that is not installed skips here and fails in CI (tests/consumers.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.report import sarif
from tests.compile.support import make_repo
from tests.consumers import npm_bin

PROJECT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SARIF_SCHEMA = PROJECT / "tests" / "checks" / "sarif-schema-2.1.0.json"
SETTINGS_SCHEMAS = PROJECT / "tests" / "compile" / "schemastore"  # vendored, with their commits (README.md)

# (output, consumer, verdict): what the rows below run. docs/formats.md repeats it with each version.
MATRIX = [
    ("renovate/agent-constitution.json", "renovate-config-validator --strict", "accepted"),
    ("renovate/agent-constitution.json", "check-jsonschema vendor.renovate", "accepted"),
    ("action.yml", "check-jsonschema vendor.github-actions", "accepted"),
    ("ci/gitlab/agent-constitution.yml", "check-jsonschema vendor.gitlab-ci", "accepted"),
    ("agent_constitution/schemas/*.json", "check-jsonschema --check-metaschema", "accepted"),
    (".claude/settings.json", "check-jsonschema (SchemaStore claude-code-settings.json)", "accepted"),
    (".codex/hooks.json", "check-jsonschema (SchemaStore codex-hooks.json)", "accepted"),
    (".gemini/settings.json", "check-jsonschema (Gemini CLI settings.schema.json)", "accepted"),
    ("cache/checks/code-scanning.sarif", "sarif-multitool validate (Gh;Sarif)", "accepted"),
    ("cache/checks/report.sarif", "sarif-multitool validate (Gh;Sarif)", "accepted"),
    ("cache/checks/*.sarif", "check-jsonschema (SARIF 2.1.0 schema)", "accepted"),
    (".pre-commit-config.yaml", "pre-commit validate-config", "accepted"),
    ("lefthook.yml", "lefthook validate", "accepted"),
    (".agents/skills/<name>/", "agentskills validate", "accepted"),
]

HAND_PRE_COMMIT = """\
repos:
-   repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.6.0   # pinned by hand
    hooks: [{id: trailing-whitespace}]
"""
HAND_LEFTHOOK = "pre-commit:\n  commands:\n    lint:\n      run: make lint\n"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """A repository with pre-commit, lefthook, two skills, a covenant config and the agents whose
    settings files have a published schema, compiled."""
    from agent_constitution.cli import main

    root = tmp_path_factory.mktemp("matrix")
    # the agents whose settings files have a published schema, beside the defaults
    agents = '[compile]\nagents = ["agents-md", "claude-code", "codex", "gemini"]\n'
    repo = make_repo(root / "repo", compile=agents, skills={"uv-project": [3], "signing": [7]})
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / ".pre-commit-config.yaml").write_text(HAND_PRE_COMMIT)
    (repo / "lefthook.yml").write_text(HAND_LEFTHOOK)
    (repo / "polydeukes.config.yaml").write_text("languages: {}\n")
    import os

    here = Path.cwd()
    os.chdir(repo)
    # A module fixture runs before the autouse ones that take CI out of the environment
    # (conftest.py): outside CI, compile writes the lock instead of refusing to.
    with pytest.MonkeyPatch.context() as patch:
        for name in ("CI", "GITHUB_ACTIONS", "GITLAB_CI"):
            patch.delenv(name, raising=False)
        try:
            assert main(["compile"]) == 0
        finally:
            os.chdir(here)
    return repo


def run(args: list, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(arg) for arg in args], cwd=cwd, capture_output=True, text=True, timeout=600)


def accepted(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stdout + done.stderr


def logs(tmp_path: Path) -> list[Path]:
    results = [
        Result(segment=".", ref="ac:3", outcome=Outcome.VIOLATION, check="python:r3", title="Lock",
               text="Lock it. Why. How.", findings=(Finding("no lock", "uv.lock", 2, 5, 2, 9), Finding("whole"))),
        Result(segment=".", ref="ac:1", outcome=Outcome.PASS, check="python:r1", title="One", text="A. B. C."),
        Result(segment=".", ref="ac:2", outcome=Outcome.UNDECIDABLE, check="python:r2", title="Two",
               text="A. B. C.", cause="missing tool"),
    ]
    paths = []
    for name, every in (("code-scanning.sarif", False), ("report.sarif", True)):
        paths.append(tmp_path / name)
        paths[-1].write_text(sarif(results, every_outcome=every))
    return paths


def test_the_matrix_is_the_documented_table():
    table = (PROJECT / "docs" / "formats.md").read_text(encoding="utf-8").split("## Consumers", 1)[1]
    for output, consumer, verdict in MATRIX:
        assert f"| `{output}` | {consumer} |" in table and verdict in table, (output, consumer)


def test_renovate_validator():
    from tests.test_renovate_preset import validator

    accepted(run([*validator(), "--strict", PROJECT / "renovate" / "agent-constitution.json"]))


@pytest.mark.parametrize("schema, target", [
    ("vendor.renovate", "renovate/agent-constitution.json"),
    ("vendor.github-actions", "action.yml"),
    ("vendor.gitlab-ci", "ci/gitlab/agent-constitution.yml"),
])
def test_check_jsonschema_with_schemastores_schemas(schema, target):
    accepted(run([BIN / "check-jsonschema", "--builtin-schema", schema, PROJECT / target]))


def test_our_json_schemas_are_valid_schemas():
    accepted(run([BIN / "check-jsonschema", "--check-metaschema", *sorted((PROJECT / "agent_constitution" / "schemas").glob("*.json"))]))


@pytest.mark.parametrize("schema, target", [
    ("claude-code-settings.json", ".claude/settings.json"),
    ("codex-hooks.json", ".codex/hooks.json"),
    ("gemini-cli-settings.json", ".gemini/settings.json"),
])
def test_host_settings_files_pass_their_published_schemas(compiled, schema, target):
    data = json.loads((compiled / target).read_text())
    assert data["hooks"], target  # the judge (there is a covenant config) and, for most, the stop hook
    accepted(run([BIN / "check-jsonschema", "--schemafile", SETTINGS_SCHEMAS / schema, compiled / target]))


def test_sarif_logs(tmp_path):
    paths = logs(tmp_path)
    accepted(run([BIN / "check-jsonschema", "--schemafile", SARIF_SCHEMA, *paths]))
    tool = npm_bin("sarif-multitool").resolve().parent.parent / "sarif-multitool-linux" / "Sarif.Multitool"
    for path in paths:
        done = run([tool, "validate", "--rule-kind", "Gh;Sarif", "--output", f"{path}.validation", path])
        assert done.returncode == 0 and not [line for line in done.stdout.splitlines() if ": error " in line], done.stdout


def test_pre_commit_and_lefthook(compiled):
    config = (compiled / ".pre-commit-config.yaml").read_text()
    assert "agent-constitution-check" in config and "rev: v4.6.0   # pinned by hand" in config
    accepted(run([BIN / "pre-commit", "validate-config", ".pre-commit-config.yaml"], cwd=compiled))
    assert "agent-constitution" in (compiled / "lefthook.yml").read_text()
    accepted(run([BIN / "lefthook", "validate"], cwd=compiled))


def test_skills(compiled):
    skills = sorted(path.parent for path in compiled.glob(".*/skills/*/SKILL.md"))
    assert len(skills) >= 2
    for skill in skills:
        accepted(run([BIN / "agentskills", "validate", skill]))


def test_a_consumer_does_judge(tmp_path):
    """The JSON Schema and pre-commit consumers reject a broken copy (so a pass above means something)."""
    broken = json.loads((PROJECT / "renovate" / "agent-constitution.json").read_text())
    broken["customManagers"][0]["customType"] = 7
    path = tmp_path / "renovate.json"
    path.write_text(json.dumps(broken))
    assert run([BIN / "check-jsonschema", "--builtin-schema", "vendor.renovate", path]).returncode != 0
    (tmp_path / ".pre-commit-config.yaml").write_text("repos:\n- repo: local\n  hooks: [{id: x}]\n")
    assert run([BIN / "pre-commit", "validate-config", ".pre-commit-config.yaml"], cwd=tmp_path).returncode != 0
    # what compile wrote before: `onFailure` on the judge's handler, which SchemaStore's schema forbids
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "pdks hook claude-code", "onFailure": "block"}]}]}}))
    assert run([BIN / "check-jsonschema", "--schemafile", SETTINGS_SCHEMAS / "claude-code-settings.json",
                tmp_path / "settings.json"]).returncode != 0
