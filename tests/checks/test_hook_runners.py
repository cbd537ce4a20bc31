"""End to end: a repository adopted with findings from before (an unpinned action, a workflow
without permissions) commits through the real pre-commit and the real lefthook (dev dependencies)
with the hooks compile writes (`repo: local`, offline). A docs-only commit passes; a commit that
adds a finding is refused naming only it; a person's commit without a trailer passes commit-msg,
an agent's (its host's environment set) is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.compile import hooks

from .conftest import MANIFEST, make_source, rule_toml, write
from .test_adoption import CI, PERMISSIONS, TRAILER, UNPINNED, person

BIN = Path(sys.executable).parent


def env(tmp: Path, **more: str) -> dict[str, str]:
    return {**person(), "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}", "PRE_COMMIT_HOME": str(tmp / "pc"),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
            "AGENT_CONSTITUTION_CACHE": str(tmp / "user-cache"), **more}


def git(root: Path, *args: str, environ: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=root, capture_output=True, text=True,
                          env=environ, timeout=600)


def adopted(tmp: Path, runner: dict[str, str]) -> Path:
    """A source beside the repository (trusted by the manifest) and a committed repository with two
    findings, using the hook runner whose files `runner` gives."""
    source = tmp / "source"
    make_source(source, {
        1: rule_toml(1, 'python = "r1"'),
        2: rule_toml(2, 'python = "r2"'),
        3: rule_toml(3, 'subject = "change"\nauthor = "agent"\npython = "r3"'),
    }, {"r1": UNPINNED, "r2": PERMISSIONS, "r3": TRAILER})
    repo = tmp / "repo"
    repo.mkdir()
    environ = env(tmp)
    git(repo, "init", "-q", environ=environ)
    write(repo, {"rules.toml": MANIFEST.format(name="ac", spec='{ path = "../source", trust = true }'),
                 ".gitignore": "cache/\n", "README.md": "hello\n", ".github/workflows/ci.yml": CI, **runner})
    git(repo, "add", "-A", environ=environ)
    assert git(repo, "commit", "-qm", "Before adoption", environ=environ).returncode == 0
    return repo


def commits(repo: Path, tmp: Path, install: list[str], hooks_dir: str = ".git/hooks") -> None:
    environ = env(tmp)
    installed = subprocess.run(install, cwd=repo, capture_output=True, text=True, env=environ, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (repo / hooks_dir / "pre-commit").is_file() and (repo / hooks_dir / "commit-msg").is_file()
    # A docs-only commit passes: the workflow's findings were there before.
    write(repo, {"README.md": "hello, again\n"})
    git(repo, "add", "-A", environ=environ)
    done = git(repo, "commit", "-m", "Reword the readme", environ=environ)
    assert done.returncode == 0, done.stdout + done.stderr
    # A commit that adds an unpinned action is refused, naming only the new finding.
    write(repo, {".github/workflows/release.yml": "permissions: {}\njobs:\n  r:\n    steps:\n"
                                                  "      - uses: actions/setup-node@v4\n"})
    git(repo, "add", "-A", environ=environ)
    refused = git(repo, "commit", "-m", "Add a release workflow", environ=environ)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0, output
    assert "release.yml:5: action actions/setup-node@v4 is not pinned" in output
    assert "ci.yml" not in output.replace("checks:", "")
    (repo / ".github/workflows/release.yml").unlink()
    git(repo, "add", "-A", environ=environ)
    # A person's commit without a trailer passes commit-msg; an agent's is refused.
    write(repo, {"README.md": "hello, a third time\n"})
    git(repo, "add", "-A", environ=environ)
    agent = git(repo, "commit", "-m", "Reword it again", environ=env(tmp, CLAUDECODE="1"))
    assert agent.returncode != 0 and "commit has no attribution trailer: 'Reword it again'" in agent.stdout + agent.stderr
    human = git(repo, "commit", "-m", "Reword it again", environ=environ)
    assert human.returncode == 0, human.stdout + human.stderr


def test_pre_commit(tmp_path: Path):
    repo = adopted(tmp_path, {".pre-commit-config.yaml": "repos: []\n"})
    assert hooks.write_pre_commit(repo)
    assert "default_install_hook_types: [pre-commit, commit-msg]" in (repo / ".pre-commit-config.yaml").read_text()
    environ = env(tmp_path)
    git(repo, "add", "-A", environ=environ)
    git(repo, "commit", "-qm", "Wire the checks", environ=environ)
    commits(repo, tmp_path, [str(BIN / "pre-commit"), "install"])  # no -t: the config names the hook types


def test_lefthook(tmp_path: Path):
    repo = adopted(tmp_path, {"lefthook.yml": "# the team's hooks\n"})
    assert hooks.write_lefthook(repo / "lefthook.yml", repo)
    environ = env(tmp_path)
    git(repo, "add", "-A", environ=environ)
    git(repo, "commit", "-qm", "Wire the checks", environ=environ)
    commits(repo, tmp_path, [str(BIN / "lefthook"), "install"])


def test_husky_scripts_run_as_git_hooks(tmp_path: Path):
    """husky 9 points `core.hooksPath` at `.husky/_`, whose scripts run `.husky/<hook>` with sh;
    without Node here, git runs compile's `.husky/` scripts directly (`core.hooksPath = .husky`)."""
    repo = adopted(tmp_path, {".husky/pre-commit": "echo lint-staged would run here\n"})
    from agent_constitution.compile.layout import hook_files

    names = [name for name in hook_files(repo, "auto") if name.startswith(".husky/")]
    assert names == [".husky/pre-commit", ".husky/commit-msg"]
    for name in names:
        hooks.write_husky(repo, name)
    assert (repo / ".husky/pre-commit").read_text().startswith("echo lint-staged would run here\n# >>> agent-constitution")
    assert not any(hooks.write_husky(repo, name) for name in names)  # a second compile changes nothing
    environ = env(tmp_path)
    git(repo, "add", "-A", environ=environ)
    git(repo, "commit", "-qm", "Wire the checks", environ=environ)
    commits(repo, tmp_path, ["git", "config", "core.hooksPath", ".husky"], ".husky")
    assert hooks.remove_husky(repo, ".husky/pre-commit") and hooks.remove_husky(repo, ".husky/commit-msg")
    assert (repo / ".husky/pre-commit").read_text() == "echo lint-staged would run here\n"
    assert not (repo / ".husky/commit-msg").exists()


def test_simple_git_hooks_in_package_json(tmp_path: Path):
    package = tmp_path / "package.json"
    package.write_text('{\n  "name": "x",\n  "simple-git-hooks": {\n    "pre-commit": "npx lint-staged"\n  }\n}\n')
    from agent_constitution.compile.layout import simple_git_hooks_file

    assert simple_git_hooks_file(tmp_path) == "package.json"
    assert hooks.write_simple_git_hooks(tmp_path, "package.json")
    import json

    table = json.loads(package.read_text())["simple-git-hooks"]
    assert table["pre-commit"].startswith("npx lint-staged && ") and "check change=staged" in table["pre-commit"]
    assert 'message="$1"' in table["commit-msg"]
    assert not hooks.write_simple_git_hooks(tmp_path, "package.json")
    assert hooks.remove_simple_git_hooks(tmp_path, "package.json")
    assert package.read_text() == '{\n  "name": "x",\n  "simple-git-hooks": {\n    "pre-commit": "npx lint-staged"\n  }\n}\n'


ALL_BUT_MESSAGE = ("default_stages: [post-checkout, post-commit, post-merge, post-rewrite, pre-commit, pre-merge-commit, "
                   "pre-push, pre-rebase, prepare-commit-msg, manual]{stages_mark}\n")


@pytest.mark.parametrize("before, after", [
    ("repos: []\n", "default_install_hook_types: [pre-commit, commit-msg]{mark}\n" + ALL_BUT_MESSAGE + "repos: []\n"),
    # Installed at pre-push only before: hooks without `stages` stay there.
    ("default_install_hook_types: [pre-push]\nrepos: []\n",
     "default_install_hook_types: [pre-push, pre-commit, commit-msg]{mark}\ndefault_stages: [post-checkout, "
     "post-commit, post-merge, post-rewrite, pre-merge-commit, pre-push, pre-rebase, prepare-commit-msg, manual]"
     "{stages_mark}\nrepos: []\n"),
    ("default_install_hook_types:\n  - commit-msg\n  - pre-commit\nrepos: []\n",
     "default_install_hook_types:\n  - commit-msg\n  - pre-commit\nrepos: []\n"),
    ("# hooks\nfail_fast: true\n",
     "# hooks\nfail_fast: true\ndefault_install_hook_types: [pre-commit, commit-msg]{mark}\n" + ALL_BUT_MESSAGE),
    # The repository's own default stages are its choice.
    ("default_stages: [pre-commit]\nrepos: []\n",
     "default_stages: [pre-commit]\ndefault_install_hook_types: [pre-commit, commit-msg]{mark}\nrepos: []\n"),
])
def test_install_types(tmp_path: Path, before: str, after: str):
    path = tmp_path / ".pre-commit-config.yaml"
    text = hooks.with_install_types(before, ["pre-commit", "commit-msg"], path)
    assert text == after.format(mark=hooks.INSTALL_MARK, stages_mark=hooks.STAGES_MARK)
    assert hooks.with_install_types(text, ["pre-commit", "commit-msg"], path) == text


def test_install_types_that_are_not_a_list_are_one_error(tmp_path: Path):
    from agent_constitution.errors import UserError

    with pytest.raises(UserError) as raised:
        hooks.with_install_types("default_install_hook_types: commit-msg\n", ["pre-commit"], tmp_path / "x.yaml")
    assert raised.value.field == "default_install_hook_types"


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_compile_note_says_to_install_again():
    note = hooks.install_types_note(b"repos: []\n", b"default_install_hook_types: [pre-commit, commit-msg]\nrepos: []\n")
    assert note is not None and "commit-msg" in note and "pre-commit install" in note
    assert hooks.install_types_note(b"default_install_hook_types: [commit-msg]\n",
                                    b"default_install_hook_types: [commit-msg]\n") is None
