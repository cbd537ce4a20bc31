"""The full edition's link in compiled instructions: a path, folder or URL the agent can open."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.edition.location import full_edition_link, point_to_full_edition

PROJECT = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
PATH = "constitution/2026-10/generated/constitution.en.md"


@pytest.mark.parametrize(("repository", "commit", "link"), [
    (None, None, PATH),  # the repository publishes the constitution itself
    ("../rules", None, f"../rules/{PATH}"),  # a source folder beside it
    ("vendor/rules", COMMIT, f"vendor/rules@{COMMIT}:{PATH}"),  # no host: what `git show` takes
    ("github.com/Luolc/agent-constitution", COMMIT,
     f"https://raw.githubusercontent.com/Luolc/agent-constitution/{COMMIT}/{PATH}"),
    ("gitlab.com/team/sub/rules", COMMIT, f"https://gitlab.com/team/sub/rules/-/raw/{COMMIT}/{PATH}"),
    ("codeberg.org/team/rules", COMMIT, f"https://codeberg.org/team/rules/raw/commit/{COMMIT}/{PATH}"),
    ("git.example.test/team/rules", COMMIT, f"git.example.test/team/rules@{COMMIT}:{PATH}"),
])
def test_the_link_for_each_kind_of_source(repository, commit, link):
    assert full_edition_link(repository, commit, PATH) == link


def test_only_the_full_editions_path_of_this_edition_is_replaced():
    text = (f"read the full edition at {PATH}. 要先读完整版：constitution/2026-10/generated/constitution.zh.md。"
            " Not constitution/2026-09/generated/constitution.en.md, nor constitution/2026-10/generated/constitution.en.agent.md.")
    out = point_to_full_edition(text, "github.com/o/r", COMMIT, "2026-10")
    assert f"at https://raw.githubusercontent.com/o/r/{COMMIT}/{PATH}." in out
    assert f"：https://raw.githubusercontent.com/o/r/{COMMIT}/constitution/2026-10/generated/constitution.zh.md。" in out
    assert "Not constitution/2026-09/generated/constitution.en.md" in out
    assert "nor constitution/2026-10/generated/constitution.en.agent.md." in out


def test_an_adopting_repository_can_open_what_its_agents_md_points_to(tmp_path):
    """A repository that takes this project's constitution from a folder beside it: the compiled
    AGENTS.md names the full edition by a path that exists from the repository."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "rules.toml").write_text(
        'rules = ["ac:git"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
        f'[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n'
    )
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    # Its own process: doit keeps the output stream of the first in-process run.
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "compile"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # The compact form (docs/compile.md) keeps the agent edition in AGENTS._constitution.md and names it
    # from AGENTS.md; the full form holds it in AGENTS.md itself.
    root = (repo / "AGENTS.md").read_text(encoding="utf-8")
    edition = repo / "AGENTS._constitution.md"
    assert edition.is_file() == ("`AGENTS._constitution.md`" in root)
    text = edition.read_text(encoding="utf-8") if edition.is_file() else root
    [link] = re.findall(r"read the full edition at (\S+)\.\n", text)
    assert link != PATH and (repo / link).resolve() == (PROJECT / PATH).resolve()
    assert "(see the full text)" in text  # the placeholders it resolves
