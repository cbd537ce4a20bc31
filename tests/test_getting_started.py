"""README "Getting started in another repository", run as written: the tool installed with `uv tool
install` into a temporary home, then each step of the README's block in a new non-Python git
repository (installing a wheel built from this checkout) and in a Python 3.8 project (installing
from the git URL of a bare clone of this checkout, as the README installs from GitHub's). The
starter's source URL points at the same bare clone (AGENT_CONSTITUTION_STARTER_URL), so nothing is
fetched from GitHub.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
GIT_URL = "git+https://github.com/Luolc/agent-constitution"
PY38 = ('[project]\nname = "legacy"\nversion = "1.0"\nrequires-python = ">=3.8"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
# init selects ac:python for it, whose rules want a test suite that pytest collects (ac:27).
PY38_TEST = "def test_legacy():\n    assert True\n"
# ... and a linter and a type checker that something runs (ac:79, ac:80): tox, as such projects have.
PY38_TOX = "[tox]\nenv_list = py38, lint\n\n[testenv]\ncommands = pytest\n\n[testenv:lint]\ncommands =\n    ruff check .\n    mypy .\n"

pytestmark = pytest.mark.slow


def readme_steps() -> list[str]:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Getting started in another repository", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1)
    return [line.split("   #", 1)[0].split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def run(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{shlex.join(args)}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    """The installed tool's environment: a temporary HOME, tool and bin folders, no dev venv on PATH."""
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed")
    base = tmp_path_factory.mktemp("adoption")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT, capture_output=True, text=True,
                          check=True).stdout.strip()
    bare = base / "agent-constitution.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(PROJECT), str(bare)], check=True)
    venv_bin = str(Path(os.environ.get("VIRTUAL_ENV", PROJECT / ".venv")) / "bin")
    path = [str(base / "bin"), *(p for p in os.environ["PATH"].split(os.pathsep) if p != venv_bin)]
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "CI")}
    env.update(
        HOME=str(base / "home"),
        XDG_CONFIG_HOME=str(base / "home" / ".config"),
        XDG_DATA_HOME=str(base / "home" / ".local" / "share"),
        UV_TOOL_DIR=str(base / "tools"),
        UV_TOOL_BIN_DIR=str(base / "bin"),
        # The user's uv cache: the dependencies are not downloaded again.
        UV_CACHE_DIR=subprocess.run(["uv", "cache", "dir"], capture_output=True, text=True).stdout.strip(),
        AGENT_CONSTITUTION_CACHE=str(base / "rule-cache"),
        AGENT_CONSTITUTION_STARTER_URL=bare.as_uri(),
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
        PATH=os.pathsep.join(path),
    )
    (base / "home").mkdir()
    run(["uv", "build", "--wheel", "-q", "-o", str(base / "dist"), str(PROJECT)], PROJECT, env)
    [wheel] = (base / "dist").glob("*.whl")
    return base, env, wheel, head


def adopt(repo: Path, tool, install: str) -> dict[str, subprocess.CompletedProcess]:
    _, env, _, _ = tool
    results = {}
    for step in readme_steps():
        args = shlex.split(step)
        if args[:3] == ["uv", "tool", "install"]:
            assert args[3] == GIT_URL  # the README installs from the git URL, never the bare name
            args[3] = install
            args.insert(3, "--force")  # the second repository installs the tool again, from elsewhere
        results[args[0] if args[0] != "agent-constitution" else args[1]] = run(args, repo, env)
    # The README's last step: the `git add` line compile printed last, run as printed.
    printed = results["compile"].stdout.strip().splitlines()[-1]
    assert printed.startswith("git add "), results["compile"].stdout
    run(shlex.split(printed), repo, env)
    return results


def assert_adopted(repo: Path, results, head: str) -> None:
    manifest = tomllib.loads((repo / "rules.toml").read_text())
    assert manifest["sources"]["ac"]["rev"] == head and manifest["sources"]["ac"]["trust"] is True
    assert "rules.toml: written" in results["init"].stdout
    lock = tomllib.loads((repo / "rules.lock").read_text())
    assert [source["commit"] for source in lock["source"]] == [head]
    assert "updated AGENTS.md" in results["compile"].stdout
    agents = (repo / "AGENTS.md").read_text()
    # init's project section (the repository's own layer), then the compiled region.
    assert "AGENTS.md: written" in results["init"].stdout and agents.startswith("# ")
    own, _, region = agents.partition("<!-- agent-constitution:begin -->")
    assert "confirm or correct it" in own and f"({head[:12]})" in region
    assert "rules checked:" in results["check"].stdout and "0 violated" in results["check"].stdout
    assert (repo / "cache" / "checks" / "report.json").is_file()
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=repo, capture_output=True,
                            text=True).stdout.split()
    assert {"rules.toml", "rules.lock", "AGENTS.md", "CLAUDE.md", "cache/.gitignore", ".claude/settings.json"} <= set(staged)
    assert not any(name.startswith("cache/") and name != "cache/.gitignore" for name in staged)
    # Following the README leaves nothing compile wrote untracked (part files and .agents/ included).
    untracked = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                               capture_output=True, text=True).stdout.splitlines()
    outputs = ("AGENTS", "CLAUDE.md", "GEMINI.md", ".agents/", ".claude/", ".pre-commit-config", "lefthook", "rules.")
    assert [line for line in untracked if line.startswith("??") and line[3:].startswith(outputs)] == []


def test_readme_steps_in_a_new_non_python_repository(tool, tmp_path):
    repo = tmp_path / "web"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "index.js").write_text("console.log('hi')\n")
    results = adopt(repo, tool, str(tool[2]))
    assert_adopted(repo, results, tool[3])
    base, env, _, head = tool
    for command in ("agent-constitution", "agc", "pdks", "constitution-build"):
        assert shutil.which(command, path=env["PATH"]) == str(base / "bin" / command), command
        assert run([command, "--version"], repo, env).stdout.split()[1] == "0.1.0"
    assert run(["agent-constitution", "--version"], repo, env).stdout == f"agent-constitution 0.1.0 ({head[:12]})\n"
    # The reference pages ship in the wheel.
    assert run(["agent-constitution", "help", "sources"], repo, env).stdout == (PROJECT / "docs" / "sources.md").read_text()
    assert not (repo / "dodo.py").exists() and not (repo / "pyproject.toml").exists()
    # The tool is on PATH, so the hooks name it: the committed settings hold nothing of this machine,
    # and the Stop hook runs with a host's PATH holding only the tool's bin folder and the system's.
    settings = (repo / ".claude" / "settings.json").read_text()
    assert "; agent-constitution-stop; " in settings and str(base) not in settings
    stop = json.loads(settings)["hooks"]["Stop"][0]["hooks"][0]["command"]
    done = subprocess.run(["/bin/sh", "-c", stop], input="{}", cwd=repo, capture_output=True, text=True,
                          env={**env, "PATH": f"{base / 'bin'}:/usr/bin:/bin", "CLAUDE_PROJECT_DIR": str(repo)})
    assert done.returncode == 0, done.stderr
    again = run(["agent-constitution", "compile"], repo, env)
    assert "updated" not in again.stdout  # a second compile changes nothing


def test_readme_steps_in_a_python_3_8_project(tool, tmp_path):
    repo = tmp_path / "legacy"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "pyproject.toml").write_text(PY38)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_legacy.py").write_text(PY38_TEST)
    (repo / "tox.ini").write_text(PY38_TOX)
    base, env, _, head = tool
    results = adopt(repo, tool, f"git+{(base / 'agent-constitution.git').as_uri()}")
    assert_adopted(repo, results, head)
    [record] = (base / "tools" / "agent-constitution").glob("lib/python*/site-packages/agent_constitution-*.dist-info")
    assert json.loads((record / "direct_url.json").read_text())["vcs_info"]["commit_id"] == head  # PEP 610
    assert run(["agent-constitution", "--version"], repo, env).stdout == f"agent-constitution 0.1.0 ({head[:12]})\n"
    assert (repo / "pyproject.toml").read_text() == PY38  # the project's own file is not touched
    manifest = tomllib.loads((repo / "rules.toml").read_text())
    assert "ac:python" in manifest["rules"]  # init saw a Python project
    assert "ac:python-package-manager" in manifest["exclude"]  # no lockfile shows uv or Poetry
