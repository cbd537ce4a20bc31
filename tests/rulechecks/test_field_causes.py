"""False positives and negatives found on real repositories, each fixed by its cause: one test per cause,
with the repository's own text as the fixture (trimmed to what the check reads)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agent_constitution.checks.api import Undecidable

from .subjects import check_module, repository

FIXTURES = Path(__file__).parent / "fixtures"
SHA = "0123456789abcdef0123456789abcdef01234567"


# --- ac:34: a secret detector's own fixtures are labels without a key (pre-commit/pre-commit-hooks) -------

# testing/resources/aws_config_with_multiple_sections.ini of pre-commit-hooks (invented key ids)
AWS_INI = """# file with AWS access key ids, AWS secret access keys and AWS session tokens in multiple sections
[default]
aws_access_key_id = AKIASLARTIBARTFAST11
aws_secret_access_key = 7xebzorgm5143ouge9gvepxb2z70bsb2rtrh099e
[production]
aws_access_key_id = AKIAVOGONSVOGONS0042
[staging]
aws_access_key_id = AKIAJIMMINYCRICKET0A
"""
# tests/detect_private_key_test.py of pre-commit-hooks: armour lines with no key after them
KEY_HEADERS_TEST = """TESTS = (
    (b'-----BEGIN RSA PRIVATE KEY-----', 1),
    (b'-----BEGIN OPENSSH PRIVATE KEY-----', 1),
    (b'PuTTY-User-Key-File-2: ssh-rsa', 1),
    (b'-----BEGIN ENCRYPTED PRIVATE KEY-----', 1),
)
"""
# detect-secrets' tests: a repetitive key id (tests/main_test.py)
REPETITIVE = "secret = 'AKIA' + 'TESTTESTTESTTEST'\nline = 'AKIATESTTESTTESTTEST'\n"
# Built here so that this file holds no key itself.
KEY_BODY = "MIIEpAIBAAKCAQEA" + "q7Kd9Zt2Lm" * 6


def test_secret_labels_without_a_key_are_not_secrets():
    r34 = check_module(34)
    assert r34.check_file("testing/resources/aws_config_with_multiple_sections.ini", AWS_INI) == []
    assert r34.check_file("tests/detect_private_key_test.py", KEY_HEADERS_TEST) == []
    assert r34.check_file("tests/main_test.py", REPETITIVE) == []


@pytest.mark.parametrize("text", [
    "-----BEGIN RSA PRIVATE KEY-----\n" + KEY_BODY + "\n-----END RSA PRIVATE KEY-----\n",
    "KEY = ('-----BEGIN RSA PRIVATE KEY-----\\n'\n       '" + KEY_BODY + "\\n')\n",
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B2C3D\n\n" + KEY_BODY + "\n",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\nAAAA\n" + "Private" + "-Lines: 1\nAAAA\n",
    "aws_access_key_id = AKIA" + "QYLPMN5HFIQR7XYZ" + "\n",
])
def test_a_key_in_a_test_folder_is_still_a_key(text):
    assert check_module(34).check_file("tests/resources/key.txt", text)


# --- multi-document YAML: a GitLab CI/CD component's header (`spec:` then `---`) -------------------------

COMPONENT = """spec:
  inputs:
    stage:
      default: test
---
lint:
  stage: $[[ inputs.stage ]]
  image: python:latest
  script: [ruff check .]
test:
  image: node
  script: [npm test]
"""


def test_gitlab_header_form_is_one_configuration(tmp_path):
    repo = repository(tmp_path, {".gitlab-ci.yml": COMPONENT})
    assert check_module(29).check(repo) == []
    images = check_module(77).check(repo)
    assert sorted(finding.reason for finding in images) == [
        "job 'lint' uses the image 'python:latest' without a version tag or digest",
        "job 'test' uses the image 'node' without a version tag or digest",
    ]


def test_other_multi_document_files_are_reported(tmp_path):
    workflow = "on: push\njobs: {}\n---\non: pull_request\n"
    repo = repository(tmp_path, {".github/workflows/ci.yml": workflow})
    [finding] = check_module(28).check(repo)
    assert "2 YAML documents" in finding.reason


# --- ac:75: zizmor 1.32 names the file `verbatim_path` -------------------------------------------------------

def _fake_tool(folder: Path, name: str, status: int, stdout: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "out.json").write_text(stdout, encoding="utf-8")
    script = folder / name
    script.write_text(f"#!/bin/sh\ncat '{folder / 'out.json'}'\nexit {status}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_zizmor_1_32_findings_keep_their_file(tmp_path, monkeypatch):
    # The real output of zizmor 1.32.0 (`--offline --format json .`) on a four-finding workflow.
    _fake_tool(tmp_path / "bin", "zizmor", 14, (FIXTURES / "zizmor-1.32.0.json").read_text(encoding="utf-8"))
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    repo = repository(tmp_path / "repo", {".github/workflows/ci.yml": "on: push\njobs: {}\n"})
    findings = check_module(75).check(repo)
    assert len(findings) == 4
    assert {finding.path for finding in findings} == {".github/workflows/ci.yml"}
    artipacked = next(finding for finding in findings if "artipacked" in finding.reason)
    assert artipacked.line == 6  # zizmor's rows count from 0


def test_zizmor_leaves_to_ac31_and_ac32_the_audits_they_judge(tmp_path, monkeypatch):
    import dataclasses

    _fake_tool(tmp_path / "bin", "zizmor", 14, (FIXTURES / "zizmor-1.32.0.json").read_text(encoding="utf-8"))
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    repo = repository(tmp_path / "repo", {".github/workflows/ci.yml": "on: push\njobs: {}\n"})
    audits = lambda found: sorted(finding.reason.split(":")[0] for finding in found)  # noqa: E731
    assert audits(check_module(75).check(dataclasses.replace(repo, in_force=frozenset({31, 32, 75})))) == [
        "zizmor artipacked", "zizmor template-injection"]
    assert audits(check_module(75).check(dataclasses.replace(repo, in_force=frozenset({32, 75})))) == [
        "zizmor artipacked", "zizmor template-injection", "zizmor unpinned-uses"]
    assert len(check_module(75).check(repo)) == 4  # neither in force: zizmor reports them


def test_the_runner_tells_a_check_which_rules_of_its_source_are_in_force(tmp_path):
    from agent_constitution.checks.runner import Subjects, in_force
    from agent_constitution.checks.scan import Scan

    subjects = Subjects(scan=Scan(tmp_path, ()), in_force={".": frozenset({"ac:31", "ac:75", "team:32", "ac:x"})})
    assert in_force(subjects, ".", "ac") == {31, 75} and in_force(subjects, "svc", "ac") == frozenset()


# --- ac:31: the repository's own version-comment form ----------------------------------------------------

def test_version_comment_in_the_repositorys_own_form(tmp_path):
    workflow = ("on: push\njobs:\n  t:\n    steps:\n"
                f"      - uses: actions/checkout@{SHA} # release/v1\n"
                f"      - uses: actions/setup-node@{SHA}  # tag=v4.2.2\n"
                f"      - uses: actions/cache@{SHA} # main\n"
                "      - uses: $/.github/actions/ci-setup\n")  # changesets: the self-repository form
    findings = check_module(31).check(repository(tmp_path, {".github/workflows/ci.yml": workflow}))
    assert [finding.line for finding in findings] == [7]


# --- ac:21, ac:79, ac:80: a step that runs a script of the repository -----------------------------------

def _workflow(run: str) -> str:
    return ("on: push\njobs:\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - uses: actions/checkout@{SHA} # v4\n      - run: {run}\n")


def test_uv_commands_in_a_script_the_job_runs(tmp_path):
    files = {".github/workflows/docs.yml": _workflow("bash scripts/docs/build.sh"),
             "scripts/docs/build.sh": "#!/bin/sh\nset -e\nuv sync --frozen\nuv run mkdocs build\n"}
    [finding] = check_module(21).check(repository(tmp_path / "frozen", files))
    assert "uv sync --frozen" in finding.reason and "scripts/docs/build.sh" in finding.reason
    files["scripts/docs/build.sh"] = "#!/bin/sh\nuv sync --locked\n"
    assert check_module(21).check(repository(tmp_path / "locked", files)) == []


def test_scripts_calling_each_other_in_a_loop_end(tmp_path):
    files = {".github/workflows/ci.yml": _workflow("./a.sh"), "a.sh": "#!/bin/sh\n./b.sh\n", "b.sh": "#!/bin/sh\n./a.sh\n"}
    with pytest.raises(Undecidable, match="configures a linter"):
        check_module(79).check(repository(tmp_path, {**files, "pyproject.toml": "[tool.ruff]\n"}))
    assert check_module(21).check(repository(tmp_path / "uv", files))  # no job checks uv.lock


# httpx: .github/workflows/test-suite.yml runs `scripts/check`, which runs ruff and mypy.
HTTPX_CHECK = ('#!/bin/sh -e\n\nexport PREFIX=""\nif [ -d \'venv\' ] ; then\n    export PREFIX="venv/bin/"\nfi\n'
               'export SOURCE_FILES="httpx tests"\n\nset -x\n\n./scripts/sync-version\n'
               '${PREFIX}ruff format $SOURCE_FILES --diff\n${PREFIX}mypy $SOURCE_FILES\n${PREFIX}ruff check $SOURCE_FILES\n')


@pytest.mark.parametrize("rule", [79, 80])
def test_a_linter_run_through_a_script(tmp_path, rule):
    files = {".github/workflows/test-suite.yml": _workflow('"scripts/check"'), "scripts/check": HTTPX_CHECK,
             "pyproject.toml": "[project]\nname = 'httpx'\n[tool.ruff]\n[tool.mypy]\n"}
    assert check_module(rule).check(repository(tmp_path, files)) == []


# --- ac:70: the head behind a job's output under pull_request_target -------------------------------------

AUTHORIZE = f"""on: pull_request_target
jobs:
  authorize:
    runs-on: ubuntu-latest
    outputs:
      head_sha: ${{{{ steps.pr.outputs.sha }}}}
    steps:
      - id: pr
        run: echo "sha=${{{{ github.event.pull_request.head.sha }}}}" >> "$GITHUB_OUTPUT"
  test:
    needs: authorize
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@{SHA} # v4
        with:
          ref: ${{{{ needs.authorize.outputs.head_sha }}}}
"""


def test_head_through_a_job_output(tmp_path):
    [finding] = check_module(70).check(repository(tmp_path, {".github/workflows/pr.yml": AUTHORIZE}))
    assert "job 'test'" in finding.reason
    safe = AUTHORIZE.replace("github.event.pull_request.head.sha", "github.event.pull_request.base.sha")
    with pytest.raises(Undecidable):
        check_module(70).check(repository(tmp_path / "base", {".github/workflows/pr.yml": safe}))


# --- ac:88 and ac:90: pnpm and package.json as real JavaScript repositories write them -------------------

def test_pnpm_installs_that_are_not_the_projects(tmp_path):
    run = "pnpm install && pnpm i react@16 react-dom@16 && pnpm test"
    assert check_module(88).check(repository(tmp_path, {".github/workflows/ci.yml": _workflow(f'"{run}"')})) == []


def test_examples_and_fixtures_are_not_packages(tmp_path):
    # unbuild: examples/*/package.json and test/fixture/package.json ("private": "true", a string) beside the root.
    files = {"package.json": '{"name": "unbuild", "engines": {"node": ">=18"}}',
             "examples/1.zero-config/package.json": '{"name": "unbuild-example-zero-config"}',
             "test/fixture/package.json": '{"name": "fixture", "private": "true"}'}
    assert check_module(90).check(repository(tmp_path, files)) == []
    files["pnpm-workspace.yaml"] = "packages:\n  - examples/*\n  - '!examples/2.*'\n"
    files["examples/2.mkdist/package.json"] = '{"name": "two"}'
    findings = check_module(90).check(repository(tmp_path / "workspace", files))
    assert [finding.path for finding in findings] == ["examples/1.zero-config/package.json"]


# --- ac:36: advice that is printed, not run (spf13/cobra's Makefile) -------------------------------------

COBRA_MAKEFILE = """ifeq (, $(shell which golangci-lint))
$(warning "could not find golangci-lint in $(PATH), run: curl -sfL https://install.goreleaser.com/github.com/golangci/golangci-lint.sh | sh")
endif

install_deps:
\t# curl -sSfL https://example.com/install.sh | sh   (kept for reference)
\t@echo "or: curl -sSfL https://example.com/install.sh | sh"
"""


def test_printed_advice_is_not_a_pipe(tmp_path):
    assert check_module(36).check(repository(tmp_path, {"Makefile": COBRA_MAKEFILE})) == []
    run = COBRA_MAKEFILE + "\tcurl -sSfL https://example.com/install.sh | sh\n"
    [finding] = check_module(36).check(repository(tmp_path / "run", {"Makefile": run}))
    assert finding.line == 8


def test_zizmor_findings_carry_their_columns_so_two_on_a_line_are_told_apart(tmp_path, monkeypatch):
    # `${{ inputs.tag || github.ref_name }}` gives two template-injection findings on one row
    # (pallets/markupsafe's publish workflow): their columns are what tells them apart.
    def injection(column):
        return {"ident": "template-injection", "desc": "code injection via template expansion", "locations": [
            {"symbolic": {"kind": "Primary", "key": {"Local": {"verbatim_path": "./.github/workflows/ci.yml"}}},
             "concrete": {"location": {"start_point": {"row": 3, "column": column},
                                       "end_point": {"row": 3, "column": column + 10}}}}]}
    odd = {"ident": "artipacked", "desc": "d", "locations": [
        {"symbolic": {"kind": "Primary", "key": {"Local": {"verbatim_path": ".github/workflows/ci.yml"}}},
         "concrete": {"location": {"start_point": {"row": 2, "column": True}, "end_point": {"row": 1, "column": 0}}}}]}
    _fake_tool(tmp_path / "bin", "zizmor", 14, json.dumps([injection(13), injection(27), odd]))
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    repo = repository(tmp_path / "repo", {".github/workflows/ci.yml": "on: push\njobs: {}\n"})
    first, second, third = check_module(75).check(repo)
    assert (first.path, first.line, first.column, first.end_line, first.end_column) == (
        ".github/workflows/ci.yml", 4, 14, 4, 24)
    assert (second.line, second.column) == (4, 28)
    # A column that is not a count is dropped, and an end before the start is no end.
    assert (third.line, third.column, third.end_line, third.end_column) == (3, None, None, None)
