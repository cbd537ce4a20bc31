"""The CI a team copies once: the composite GitHub Action (action.yml) and the GitLab CI template
(ci/gitlab/agent-constitution.yml), each run step by step with bash under a simulated CI environment
(GITHUB_* / CI_* variables, the runner's GITHUB_PATH / GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files) in
a temporary repository whose pull request adds a violation; the tool is installed from this checkout
with uv offline, never from the network. And the docs' own workflow examples pass the project's
own rules on workflows (ac:31 pinning, ac:32 permissions, ac:71 timeout-minutes)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

PROJECT = Path(__file__).resolve().parents[1]
ACTION = PROJECT / "action.yml"
GITLAB = PROJECT / "ci" / "gitlab" / "agent-constitution.yml"
GITLAB_SCHEMA = json.loads((PROJECT / "tests" / "checks" / "gitlab-code-quality.schema.json").read_text())
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+(?P<action>[\w.-]+/[\w./-]+)@(?P<sha>[0-9a-f]{40}) # v\d+(\.\d+)*\s*$")
WORKFLOW = ("name: ci\non: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - uses: actions/checkout@v4\n")
SKIPPED = "import pytest\n\n\n@pytest.mark.skip\ndef test_later():\n    pass\n"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
                           "-c", "commit.gpgsign=false", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def load(path: Path):
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


@pytest.fixture
def pull_request(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository compiled and committed (the base), then a commit that adds a workflow with an
    unpinned action (ac:31, a repository rule) and a skipped test (ac:104, a change rule: reported only
    when the check is given the pull request's change). Returns (repo, base, head)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("cache/\n")
    (repo / "rules.toml").write_text(
        'rules = ["ac:31", "ac:104"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
        f'[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n')
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "GITHUB_ACTIONS")}
    subprocess.run([sys.executable, "-m", "agent_constitution.cli", "compile"], cwd=repo, env=env, check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_later.py").write_text(SKIPPED)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    return repo, base, git(repo, "rev-parse", "HEAD")


def ci_environment(tmp_path: Path) -> dict[str, str]:
    """What a runner gives every step, with uv offline and this checkout's virtualenv off PATH (the
    steps must find the tool they installed)."""
    uv = Path(shutil.which("uv")).parent
    path = [folder for folder in os.environ["PATH"].split(os.pathsep) if Path(folder) != Path(sys.executable).parent]
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GITHUB_", "CI_", "UV_", "VIRTUAL_ENV", "NO_COLOR", "FORCE_COLOR"))}
    env.update({
        "PATH": os.pathsep.join([str(uv), *path]),
        "CI": "true",
        "UV_OFFLINE": "1",
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "uv-bin"),
        "UV_PYTHON_DOWNLOADS": "never",
    })
    return env


# --- GitHub Actions -------------------------------------------------------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def lookup(context: dict, path: str):
    value = context
    for part in path.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def evaluate(expression: str, context: dict):
    """The part of GitHub's expression language action.yml uses: context paths, `||`, `&&`, `==` and
    `!=` against a quoted string, and `always()`. Anything else fails the test."""
    if "&&" in expression:
        return all(evaluate(term.strip(), context) for term in expression.split("&&"))
    if "||" in expression:
        return next((value for value in (evaluate(t.strip(), context) for t in expression.split("||")) if value), "")
    if expression == "always()":
        return True
    compared = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", expression)
    if compared:
        equal = str(lookup(context, compared[1])) == compared[3]
        return equal if compared[2] == "==" else not equal
    assert re.fullmatch(r"[\w-]+(\.[\w-]+)*", expression), f"unsupported expression {expression!r}"
    return lookup(context, expression)


def substitute(text: str, context: dict) -> str:
    return EXPRESSION.sub(lambda match: str(evaluate(match[1], context)), text)


def outputs_of(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


def run_action(repo: Path, base: str, head: str, tmp_path: Path) -> dict:
    """Every step of action.yml as the runner runs a composite action's steps: `run:` with
    `bash --noprofile --norc -eo pipefail`, env and working-directory with their expressions
    evaluated, GITHUB_PATH prepended for the next step, GITHUB_OUTPUT read into `steps.<id>.outputs`,
    a failed step skipping the next ones unless their `if:` says `always()`. `uses:` steps are
    recorded, not run."""
    action = load(ACTION)
    env = ci_environment(tmp_path)
    summary, paths = tmp_path / "step-summary.md", tmp_path / "github-path"
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(repo), "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_ACTION_PATH": str(PROJECT), "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_PATH": str(paths), "RUNNER_TEMP": str(tmp_path)})
    context = {
        "github": {"action_path": str(PROJECT), "event": {"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}},
        "inputs": {name: spec.get("default", "") for name, spec in action["inputs"].items()},
        "steps": {},
    }
    ran, failed = [], False
    for step in action["runs"]["steps"]:
        condition = step.get("if")
        if condition is not None:
            wanted = evaluate(EXPRESSION.fullmatch(condition)[1] if condition.startswith("${{") else condition, context)
        else:
            wanted = not failed
        if not wanted:
            ran.append({"name": step["name"], "skipped": True})
            continue
        if "uses" in step:
            ran.append({"name": step["name"], "uses": step["uses"],
                        "with": {key: substitute(str(value), context) for key, value in step.get("with", {}).items()}})
            continue
        assert step["shell"] == "bash"
        output = tmp_path / f"output-{len(ran)}"
        step_env = {**env, "GITHUB_OUTPUT": str(output),
                    **{key: substitute(str(value), context) for key, value in step.get("env", {}).items()}}
        added = paths.read_text().split() if paths.exists() else []
        step_env["PATH"] = os.pathsep.join([*reversed(added), step_env["PATH"]])
        folder = repo / substitute(step.get("working-directory", "."), context)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", substitute(step["run"], context)],
                              cwd=folder, env=step_env, capture_output=True, text=True)
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs_of(output)}
        failed = failed or done.returncode != 0
        ran.append({"name": step["name"], "code": done.returncode, "out": done.stdout, "err": done.stderr})
    return {"steps": ran, "summary": summary.read_text() if summary.exists() else ""}


def test_every_action_the_action_uses_is_pinned_by_full_sha_with_its_version():
    uses = [line for line in ACTION.read_text().splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert uses and all(PINNED.match(line) for line in uses), uses
    assert {PINNED.match(line)["action"] for line in uses} == {"astral-sh/setup-uv", "github/codeql-action/upload-sarif"}


def test_the_action_compiles_checks_the_pull_requests_change_and_uploads_sarif(pull_request, tmp_path):
    repo, base, head = pull_request
    run = run_action(repo, base, head, tmp_path)
    steps = {step["name"]: step for step in run["steps"]}
    assert list(steps) == ["Set up uv", "Install agent-constitution", "Compile (locked)", "Check", "Upload SARIF"]
    assert steps["Install agent-constitution"]["code"] == 0, steps["Install agent-constitution"]["err"]
    assert (tmp_path / "uv-bin" / "agent-constitution").is_file()  # installed from the checkout, offline
    assert steps["Compile (locked)"]["code"] == 0, steps["Compile (locked)"]["err"]
    check = steps["Check"]
    assert check["code"] == 1, check["err"]  # violations fail the job
    annotations = [line for line in check["out"].splitlines() if line.startswith("::")]
    assert all(re.fullmatch(r"::(error|warning) file=[^,:]+(,line=\d+(,col=\d+)?)?,title=[^,:]+::[^\r\n]+", line)
               for line in annotations), annotations
    assert ("::error file=.github/workflows/ci.yml,line=7,title=ac%3A31 Pin actions to a full commit SHA::"
            "uses 'actions/checkout@v4', not pinned to a full commit SHA") in annotations
    # ac:104 judges the change: reported only because the check was given base..head.
    assert any(line.startswith("::error file=tests/test_later.py,line=4,title=ac%3A104 ") for line in annotations)
    counts = check["out"].splitlines()[-1]
    assert re.fullmatch(r"\d+ rules checked: \d+ passed, 2 violated, 0 undecidable, \d+ without a check", counts)
    assert run["summary"].startswith(f"## agent-constitution check\n\n{counts}\n")
    assert "| ❌ | ac:31 Pin actions to a full commit SHA | `.github/workflows/ci.yml:7` |" in run["summary"]
    # The upload runs after the failed check (always()), on the SARIF log the check wrote.
    upload = steps["Upload SARIF"]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    sarif = json.loads(Path(upload["with"]["sarif_file"]).read_text())
    assert sorted(result["ruleId"] for result in sarif["runs"][0]["results"]) == ["ac:104", "ac:31"]
    assert upload["with"]["category"] == "agent-constitution"


# --- GitLab CI ------------------------------------------------------------------------------------


def test_the_gitlab_template_reports_code_quality_for_the_merge_requests_change(pull_request, tmp_path):
    repo, base, head = pull_request
    job = load(GITLAB)["agent-constitution"]
    assert job["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
    assert job["artifacts"]["when"] == "always" and job["timeout"]
    assert re.fullmatch(r"[\w./-]+:\d+(\.\d+)*-python3\.11-[\w-]+", job["image"])  # a version, as ac:77 wants
    env = ci_environment(tmp_path)
    env.update({"GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event", "CI_COMMIT_SHA": head,
                "CI_MERGE_REQUEST_DIFF_BASE_SHA": base, "CI_PROJECT_DIR": str(repo)})
    # The job's variables, expanded as GitLab expands them; a project's CI/CD variables win over them.
    project = {"AGENT_CONSTITUTION_REF": head, "AGENT_CONSTITUTION_INSTALL": str(PROJECT)}
    for name, value in job["variables"].items():
        env[name] = re.sub(r"\$\{(\w+)\}", lambda match: {**env, **project}.get(match[1], ""), str(value))
    env.update(project)
    script = "\n".join(job["script"])
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    issues = json.loads((repo / "gl-code-quality-report.json").read_text())
    jsonschema.validate(issues, GITLAB_SCHEMA)
    assert sorted((issue["check_name"], issue["location"]["path"], issue["location"]["lines"]["begin"])
                  for issue in issues) == [("ac:104", "tests/test_later.py", 4), ("ac:31", ".github/workflows/ci.yml", 7)]
    # The log shows the findings one a line, then the counts.
    assert ".github/workflows/ci.yml:7: ac:31 uses 'actions/checkout@v4'" in done.stdout
    assert re.fullmatch(r"\d+ rules checked: \d+ passed, 2 violated, .*", done.stdout.splitlines()[-1])


def test_the_gitlab_template_needs_the_ref_it_is_included_at(tmp_path):
    job = load(GITLAB)["agent-constitution"]
    env = {**ci_environment(tmp_path), "AGENT_CONSTITUTION_REF": ""}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", job["script"][0]], cwd=tmp_path,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 2 and "set AGENT_CONSTITUTION_REF" in done.stderr


# --- The docs' own examples -----------------------------------------------------------------------


def workflow_examples() -> list[tuple[str, str]]:
    """Every ```yaml block of the docs that names a workflow file on its first line."""
    found = []
    for page in sorted((PROJECT / "docs").glob("*.md")):
        for block in re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            first = block.splitlines()[0]
            name = re.match(r"# (\.github/workflows/[\w.-]+\.ya?ml)", first)
            if name:
                found.append((f"{page.name}: {name[1]}", block))
    return found


def test_the_docs_workflow_examples_pass_the_projects_workflow_rules(tmp_path):
    examples = workflow_examples()
    assert examples
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    git(repo, "init", "-q")
    for number, (_, block) in enumerate(examples):
        (repo / ".github" / "workflows" / f"example-{number}.yml").write_text(block)
    (repo / "rules.toml").write_text(
        'rules = ["ac:31", "ac:32", "ac:71"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\n'
        f'revision = "0.3"\n\n[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n')
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "GITHUB_ACTIONS")}
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "check", "--output-format", "concise"],
                          cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, (examples, done.stdout, done.stderr)
    assert len(examples) >= 2 and ", 0 violated, 0 undecidable," in done.stdout


def test_the_docs_pin_a_commit_of_this_repository_that_has_the_action_and_the_template():
    """The SHA the docs give for the action and the template is a commit here holding both files."""
    text = (PROJECT / "docs" / "checks.md").read_text(encoding="utf-8")
    pins = set(re.findall(r"Luolc/agent-constitution@([0-9a-f]{40})", text))
    pins |= set(re.findall(r"Luolc/agent-constitution/([0-9a-f]{40})/ci/gitlab/", text))
    pins |= set(re.findall(r"AGENT_CONSTITUTION_REF: ([0-9a-f]{40})", text))
    assert len(pins) == 1, pins
    (pin,) = pins
    for path in ("action.yml", "ci/gitlab/agent-constitution.yml"):
        shown = subprocess.run(["git", "show", f"{pin}:{path}"], cwd=PROJECT, capture_output=True, text=True)
        assert shown.returncode == 0, f"{pin} has no {path}: pin a commit that does"
        load_text = YAML(typ="safe").load(shown.stdout)
        assert load_text, path  # and it is valid YAML at that commit
