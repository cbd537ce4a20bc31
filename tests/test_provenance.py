"""The installation's version and commit, read without importlib.metadata, json or pygit2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, strategies as st

from agent_constitution import cli, provenance, wiring
from agent_constitution.commands import starter

PROJECT = Path(__file__).resolve().parents[1]
COMMIT = st.text("0123456789abcdef", min_size=40, max_size=40)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


def _expected(data: dict) -> tuple[str | None, bool, str]:
    vcs, folder = data.get("vcs_info"), data.get("dir_info")
    return (vcs.get("commit_id") if isinstance(vcs, dict) else None,
            isinstance(folder, dict) and folder.get("editable") is True, data.get("url", ""))


DIRECT = st.fixed_dictionaries(
    {"url": st.one_of(TEXT, st.builds(lambda p: "file:///" + p, TEXT))},
    optional={
        "vcs_info": st.fixed_dictionaries({"vcs": st.just("git"), "commit_id": COMMIT},
                                          optional={"requested_revision": TEXT}),
        "dir_info": st.fixed_dictionaries({}, optional={"editable": st.booleans()}),
        "subdirectory": TEXT,
    },
)


@given(DIRECT, st.sampled_from([None, 2, 4]), st.booleans())
def test_direct_url_is_read_as_json_reads_it(data, indent, ascii_only):
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    assert provenance._direct_fields(text) == _expected(data)


def test_head_is_read_as_git_reads_it(tmp_path: Path):
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    assert provenance.head(str(tmp_path)) == git("rev-parse", "HEAD")  # a loose ref
    git("pack-refs", "--all")
    assert not (tmp_path / ".git" / "refs" / "heads" / "main").exists()
    assert provenance.head(str(tmp_path)) == git("rev-parse", "HEAD")  # a packed ref
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "two")
    git("checkout", "-q", "--detach", "HEAD~1")
    assert provenance.head(str(tmp_path)) == git("rev-parse", "HEAD")  # detached
    assert provenance.head(str(tmp_path / "missing")) is None


def test_the_version_line_names_this_installation():
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "--version"], capture_output=True, text=True)
    from importlib.metadata import version

    assert done.returncode == 0
    assert done.stdout.startswith(f"agent-constitution {version('agent-constitution')}")
    assert (starter.built_from() or "")[:12] in done.stdout
    assert cli.PROG == wiring.PROG


def test_the_version_imports_nothing_it_does_not_use():
    probe = ("import sys; from agent_constitution.cli import main; main(['--version']); "
             "print(sorted(m for m in sys.modules if m in ('re', 'json', 'pathlib', 'pygit2', 'pydantic', 'importlib.metadata')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
