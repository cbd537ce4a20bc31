"""A cache entry holds the whole tree of a commit, so an external check's script may live anywhere in the source."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.sources import cache, fetch
from tests.checks.conftest import MANIFEST, make_source, rule_toml, write

from .conftest import commit_files, git

# The docs' example (docs/checks.md, "External commands"): a script outside rules/.
CHECK_42 = '''\
import json, pathlib, sys
if pathlib.Path("NOTICE").exists():
    sys.exit(0)
print(json.dumps({"findings": [{"reason": "NOTICE is missing (checked by scripts/check_42.py)"}]}))
sys.exit(1)
'''


def test_the_docs_external_script_example_runs_from_a_git_source(tmp_path: Path):
    source = tmp_path / "source"
    command = f'command = [{sys.executable!r}, "{{source}}/scripts/check_42.py"]'
    make_source(source, {42: rule_toml(42, command)}, {})
    write(source, {"scripts/check_42.py": CHECK_42})
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "rules")
    git(source, "tag", "v1")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    spec = f'{{ url = "{source}", tag = "v1", trust = true }}'
    write(repo, {"rules.toml": MANIFEST.format(name="ac", spec=spec),
                 "pyproject.toml": '[tool.doit]\nloader = "agent-constitution"\n', ".gitignore": "cache/\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    run = subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=repo, env=env, capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "NOTICE is missing (checked by scripts/check_42.py)" in run.stdout
    (repo / "NOTICE").write_text("n\n")
    run = subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=repo, env=env, capture_output=True, text=True)
    assert run.returncode == 0 and "1 rule checked: 1 passed" in run.stdout, run.stdout + run.stderr


@pytest.fixture
def source(tmp_path: Path) -> Path:
    repo = tmp_path / "src"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_files(repo, {"rules/source.toml": 'name = "t"\n', "rules/1.toml": "id = 1\n", "README.md": "x\n",
                        "scripts/deep/check.sh": "exit 0\n"})
    return repo


def test_files_outside_the_content_folders_are_cached_but_not_in_the_digest(source: Path, user_cache: Path):
    first = fetch(url=str(source), base_dir=source.parent)
    assert (first.root / "scripts" / "deep" / "check.sh").read_text() == "exit 0\n"
    commit_files(source, {"README.md": "changed\n"})
    second = fetch(url=str(source), base_dir=source.parent)
    assert second.commit != first.commit and (second.root / "README.md").read_text() == "changed\n"
    assert second.digest == first.digest  # the lock's digest covers rules/, constitution/, manifests/


def test_a_link_anywhere_in_the_source_is_refused(source: Path, user_cache: Path):
    (source / "docs").mkdir()
    (source / "docs" / "home").symlink_to(Path.home())
    git(source, "add", "-A")
    git(source, "commit", "-qm", "link")
    with pytest.raises(UserError) as raised:
        fetch(url=str(source), base_dir=source.parent)
    assert f"docs/home is a symbolic link (to '{Path.home()}')" in str(raised.value)
    assert not list((user_cache / "trees").glob("*/*"))


def test_the_size_limits_count_the_whole_tree(source: Path, user_cache: Path, monkeypatch: pytest.MonkeyPatch):
    commit_files(source, {"assets/big.bin": "x" * 5000})
    monkeypatch.setenv("AGENT_CONSTITUTION_MAX_FILE", "4K")
    with pytest.raises(UserError, match="assets/big.bin is 5000 bytes, over the limit of 4K"):
        fetch(url=str(source), base_dir=source.parent)


def test_an_entry_of_the_older_layout_is_refilled_quietly(source: Path, user_cache: Path, capsys):
    snapshot = fetch(url=str(source), base_dir=source.parent)
    entry = snapshot.root.parent
    # What an older version left: only the content folders, with its proof under the old name.
    (entry / cache.PROOF).rename(entry / "git-objects")
    os.chmod(snapshot.root / "README.md", 0o644)
    (snapshot.root / "README.md").unlink()
    capsys.readouterr()
    again = fetch(url=str(source), commit=snapshot.commit, base_dir=source.parent)
    assert (again.root / "README.md").is_file() and again.digest == snapshot.digest
    assert "corrupt" not in capsys.readouterr().err
