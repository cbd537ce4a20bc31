"""The command-line conventions of agent-constitution, pdks and constitution-build, and the verbs
that run the doit task graph in-process."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution import cli
from agent_constitution.commands.run import VERBS
from agent_constitution.covenant import cli as pdks
from agent_constitution.edition import cli as constitution_build
from agent_constitution.tasks import checks

PROJECT = Path(__file__).resolve().parents[1]


def git_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], ["init", "--help"], ["init", "--version"],
                                  ["help"], ["help", "formats"], ["help", "check"],
                                  *([verb, "--help"] for verb in VERBS), *([verb, "-h"] for verb in VERBS)])
def test_agent_constitution_help_and_version_exit_0_on_stdout(args, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 0
    out = capsys.readouterr()
    assert out.out and not out.err
    assert not any(tmp_path.iterdir())  # help writes nothing, not even cache/


def test_check_help_names_every_variable_and_the_reference(capsys):
    assert cli.main(["check", "--help"]) == 0
    out = capsys.readouterr().out
    for name in checks.VARIABLES:
        assert f"{name}=" in out
    assert "https://github.com/Luolc/agent-constitution/blob/main/docs/checks.md" in out
    assert cli.main(["compile", "--help"]) == 0 and "--locked" in capsys.readouterr().out
    assert cli.main(["upgrade", "--help"]) == 0 and "--source TEXT" in capsys.readouterr().out


def test_the_version_names_the_commit(capsys):
    assert cli.main(["--version"]) == 0
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT, capture_output=True, text=True).stdout
    assert capsys.readouterr().out == f"agent-constitution 0.1.0 ({head[:12]})\n"


def test_unknown_command_and_topic(capsys):
    assert cli.main(["compiel"]) == 2
    out = capsys.readouterr()
    assert not out.out and "error: unknown command 'compiel'" in out.err
    assert cli.main(["help", "nothing"]) == 2
    out = capsys.readouterr()
    assert not out.out and "no help topic 'nothing'" in out.err and "formats" in out.err


@pytest.mark.parametrize("verb,why", [
    ("site", "is not a rule source repository"),
    ("source", "is not a rule source repository"),
    ("new-rule", "is not a rule source repository"),
    ("render", "has no constitution/ folder"),
    ("upgrade", "no rules.toml in"),
    ("compile", "no rules.toml in"),
    ("check", "no rules.toml in"),
])
def test_a_verb_that_does_not_apply_says_why(verb, why, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(git_repo(tmp_path / "repo"))
    assert cli.main([verb]) == 2
    out = capsys.readouterr()
    assert not out.out
    assert f"error: `agent-constitution {verb}` does not apply here: " in out.err and why in out.err
    assert "fix: " in out.err


def manifest_on_this_checkout(root: Path) -> None:
    (root / "rules.toml").write_text(
        'rules = ["ac:git"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
        f'[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n'
    )


def test_a_verb_runs_the_task_graph_from_a_subfolder(tmp_path, capsys, monkeypatch):
    root = git_repo(tmp_path / "repo")
    manifest_on_this_checkout(root)
    (root / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(root / "src" / "deep")
    monkeypatch.delenv("CI", raising=False)  # CI set makes a missing lock an error, as `uv sync --locked` does
    assert cli.main(["lock"]) == 0
    assert "wrote rules.lock" in capsys.readouterr().out
    assert (root / "rules.lock").is_file() and (root / "cache" / "doit.sqlite3").is_file()
    assert not (root / "src" / "deep" / "cache").exists()
    assert Path.cwd() == root / "src" / "deep"
    assert cli.main(["doit", "list"]) == 0
    assert "compile" in capsys.readouterr().out
    # Options pass through to the task: --locked refuses to change the lock.
    (root / "rules.toml").write_text((root / "rules.toml").read_text().replace('["ac:git"]', '["ac:security"]'))
    assert cli.main(["lock", "--locked"]) == 1
    assert "but --locked was given" in capsys.readouterr().err


def test_an_input_error_goes_to_stderr_with_exit_2(tmp_path, capsys, monkeypatch):
    root = git_repo(tmp_path / "repo")
    (root / "rules.toml").write_text("rules = [\n")
    monkeypatch.chdir(root)
    assert cli.main(["lock"]) == 2
    out = capsys.readouterr()
    assert "error: rules.toml: not valid TOML" in out.err and "error:" not in out.out


def test_doit_reports_a_task_error_on_stderr(tmp_path):
    # The same reporter serves `doit` itself (a repository wired with a dodo.py).
    (tmp_path / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    (tmp_path / "rules.toml").write_text("rules = [\n")
    done = subprocess.run([sys.executable, "-m", "doit", "lock"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1
    assert "error: rules.toml: not valid TOML" in done.stderr and "error:" not in done.stdout


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], ["init", "--help"], ["init", "-h"],
                                  ["covenant", "check", "--help"], ["explain", "--help"], ["hook", "--help"],
                                  ["hook", "claude-code", "--help"]])
def test_pdks_help_and_version_exit_0_on_stdout(args, capsys):
    assert pdks.main(args) == 0
    out = capsys.readouterr()
    assert out.out and not out.err


def test_pdks_usage_errors_exit_2_on_stderr(capsys):
    assert pdks.main([]) == 2
    assert pdks.main(["init", "--bogus"]) == 2
    out = capsys.readouterr()
    assert not out.out and "usage:" in out.err


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"]])
def test_constitution_build_help_and_version(args, capsys):
    with pytest.raises(SystemExit) as done:
        constitution_build.main(args)
    assert done.value.code == 0 and capsys.readouterr().out


def test_the_alias_and_every_command_are_console_scripts():
    import tomllib

    scripts = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["agc"] == scripts["agent-constitution"] == "agent_constitution.cli:main"
    assert {"pdks", "constitution-build"} <= set(scripts)


@pytest.mark.parametrize("task", ["site", "upgrade", "impact", "render", "source"])
def test_doit_says_why_a_task_on_request_does_not_apply(task, tmp_path):
    (tmp_path / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    done = subprocess.run([sys.executable, "-m", "doit", task], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1
    assert f"error: `{task}` does not apply here" in done.stderr and "fix: " in done.stderr
    listed = subprocess.run([sys.executable, "-m", "doit", "list"], cwd=tmp_path, capture_output=True, text=True)
    assert listed.returncode == 0 and task in listed.stdout


def test_a_group_member_that_does_not_apply_stays_silent_in_its_group(tmp_path):
    # `doit check` reaches `source` (a rule source's own validation) in every repository.
    (tmp_path / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    done = subprocess.run([sys.executable, "-m", "doit", "check"], cwd=tmp_path, capture_output=True, text=True)
    assert "does not apply" not in done.stderr


def test_no_documented_command_installs_the_bare_name_from_the_index():
    # `agent-constitution` on PyPI is another project: every install names the git URL, a path or a wheel.
    bare = re.compile(r"(uv tool install|uv add( --dev)?|uv pip install|pip install|uvx( --from)?)\s+[\"']?agent-constitution\b(?!\s*@)")
    pages = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
    found = [f"{page.name}: {match.group(0)}" for page in pages for match in bare.finditer(page.read_text())]
    assert found == []
    assert "uv tool install git+https://github.com/Luolc/agent-constitution" in (PROJECT / "README.md").read_text()


def test_pdks_hook_help_names_every_host_of_the_host_table(capsys):
    from agent_constitution.hosts import HOSTS

    assert pdks.main(["hook", "--help"]) == 0
    usage = capsys.readouterr().out.splitlines()[0]
    assert usage == "usage: pdks hook " + "|".join(HOSTS)
    assert {"windsurf", "kiro"} <= set(HOSTS)
    assert pdks.main(["--help"]) == 0
    overview = capsys.readouterr().out
    assert all(host in overview for host in HOSTS)


def test_the_readme_command_table_names_every_installed_executable():
    import tomllib

    scripts = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["scripts"]
    readme = (PROJECT / "README.md").read_text()
    table = readme[readme.index("## Commands"):].split("\n\n")[1]
    assert set(scripts) == {"agc", "agent-constitution", "agent-constitution-stop", "constitution-build", "pdks",
                            "polydeukes"}
    for script in scripts:
        assert re.search(rf"`{re.escape(script)}\b|alias `{re.escape(script)}`", table), script


@pytest.fixture
def violating(tmp_path, monkeypatch):
    """A repository whose workflow breaks ac:31, compiled."""
    root = git_repo(tmp_path / "repo")
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text(
        "on: push\npermissions: {}\njobs:\n  t:\n    runs-on: ubuntu-latest\n    timeout-minutes: 5\n"
        "    steps:\n      - uses: actions/checkout@v4\n")
    (root / "rules.toml").write_text(
        'rules = ["ac:31", "ac:1"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
        f'[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n')
    monkeypatch.chdir(root)
    for name in ("CI", "GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    yield root
    from agent_constitution import console

    console.settings.__init__()


def test_check_is_quiet_by_default_verbose_with_v_and_findings_only_with_q(violating, capfd):
    # capfd: doit writes its task lines to the stdout it found at import, below capsys.
    assert cli.main(["compile"]) == 0
    out = capfd.readouterr()
    assert "wrote rules.lock" in out.out and "-- " not in out.out and ".  " not in out.out
    assert "tokens" not in out.out  # sizes are for -v
    assert cli.main(["check"]) == 1
    out = capfd.readouterr()
    lines = out.out.splitlines()
    assert lines[0] == "violations (1)" and lines[1] == "  ac:31 Pin actions to a full commit SHA"
    assert re.fullmatch(r"\d+ rules checked: \d+ passed, 1 violated, 0 undecidable, 0 without a check", lines[-2])
    # then ruff's line on what a fix would mend (pinning an action is an unsafe fix)
    assert lines[-1] == "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    assert not any(line.startswith(("-- ", ".  ")) for line in lines)
    assert out.err == "1 rule violated\n"  # the failure's message alone, without doit's `TaskFailed - taskid:`
    assert cli.main(["check", "-v"]) == 1
    out = capfd.readouterr()
    assert "-- checks:ac:31" in out.out.splitlines() or ".  checks:ac:31" in out.out.splitlines()
    assert "TaskFailed - taskid:checks:summary" in out.err
    assert cli.main(["check", "-q"]) == 1
    out = capfd.readouterr().out
    assert "violations (1)" in out and "rules checked" not in out
    assert cli.main(["check", "--color", "always"]) == 1
    assert "\x1b[1;31mviolations (1)\x1b[0m" in capfd.readouterr().out
    assert cli.main(["check", "--color", "never"]) == 1
    assert "\x1b" not in capfd.readouterr().out


def test_check_json_is_the_report_alone_on_stdout(violating, capsys):
    assert cli.main(["compile"]) == 0
    capsys.readouterr()
    assert cli.main(["check", "--output-format", "json"]) == 1
    out = capsys.readouterr().out
    report = json.loads(out)  # nothing else on stdout
    assert out == (violating / "cache" / "checks" / "report.json").read_text()
    assert report["summary"]["violation"] == 1
    assert cli.main(["check", "--output-format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert [result["ruleId"] for result in sarif["runs"][0]["results"]] == ["ac:31"]
    assert cli.main(["check", "--output-format", "concise"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        ".github/workflows/ci.yml:8: ac:31 uses 'actions/checkout@v4', not pinned to a full commit SHA")
