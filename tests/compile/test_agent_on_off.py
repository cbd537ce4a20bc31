"""Enabling an agent in `[compile] agents` and then removing it leaves every file of the repository
byte-identical to before, for each agent, with and without a covenant config (`polydeukes.config.yaml`,
which makes compile wire the covenant judge into each enabled host's hook file)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_constitution import hosts
from tests.compile.support import MANIFEST, make_repo


def files(root: Path) -> dict[str, bytes | None]:
    """Every file and folder below `root` but git's and the build state's (cache/), and rules.lock,
    which records the `[compile]` settings' digest along with the manifest."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.split("/")[0] in (".git", "cache") or relative == "rules.lock":
            continue
        found[relative] = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    return found


def compiled(repo: Path, monkeypatch, enabled: list[str]) -> dict[str, bytes | None]:
    from agent_constitution.cli import main

    listed = ", ".join(f'"{name}"' for name in enabled)
    (repo / "rules.toml").write_text(MANIFEST.replace("{compile}", f"\n[compile]\nagents = [{listed}]\n"))
    monkeypatch.chdir(repo)
    assert main(["compile"]) == 0
    return files(repo)


@pytest.mark.parametrize("covenant", [False, True], ids=["plain", "covenant"])
@pytest.mark.parametrize("agent", hosts.names())
def test_an_agent_enabled_and_removed_leaves_every_file_as_it_was(tmp_path, monkeypatch, agent, covenant):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    repo = make_repo(tmp_path / "repo", skills={"uv-project": [3], "signing": [7]})
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    if covenant:
        (repo / "polydeukes.config.yaml").write_text("languages: {}\n")
    base = ["claude-code"] if agent == hosts.AGENTS_MD else [hosts.AGENTS_MD]
    before = compiled(repo, monkeypatch, base)
    during = compiled(repo, monkeypatch, [*base, agent])
    assert during != before  # the agent got outputs of its own
    after = compiled(repo, monkeypatch, base)
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    assert changed == []


def test_a_judge_pdks_init_wrote_stays_when_the_agent_is_dropped(tmp_path, monkeypatch):
    from agent_constitution.hosts import judges
    from agent_constitution.covenant.init import default_command, merge_hook_settings

    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "polydeukes.config.yaml").write_text("languages: {}\n")
    merge_hook_settings(repo / ".codex" / "hooks.json", "codex", default_command(repo, "codex"))  # `pdks init --host codex`
    assert judges.has_judge(repo, "codex")
    compiled(repo, monkeypatch, [hosts.AGENTS_MD, "codex"])
    compiled(repo, monkeypatch, [hosts.AGENTS_MD])
    assert judges.has_judge(repo, "codex") and judges.added(repo) == set()


def compiled_with(repo: Path, monkeypatch, enabled: list[str], extra: str) -> dict[str, bytes | None]:
    from agent_constitution.cli import main

    listed = ", ".join(f'"{name}"' for name in enabled)
    (repo / "rules.toml").write_text(MANIFEST.replace("{compile}", f"\n[compile]\nagents = [{listed}]\n{extra}"))
    monkeypatch.chdir(repo)
    assert main(["compile"]) == 0
    return files(repo)


def test_aider_added_to_the_users_configuration_and_removed_leaves_it_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    mine = "# my settings\nmodel: gpt-4o\nauto-commits: false\n"
    (repo / ".aider.conf.yml").write_text(mine)
    before = compiled(repo, monkeypatch, [hosts.AGENTS_MD])
    compiled(repo, monkeypatch, [hosts.AGENTS_MD, "aider"])
    assert (repo / ".aider.conf.yml").read_text() == mine + "read: CONVENTIONS.md  # added by agent-constitution compile\n"
    assert (repo / "CONVENTIONS.md").is_file()
    assert compiled(repo, monkeypatch, [hosts.AGENTS_MD]) == before
    # a `read:` of the user's stays the user's: the proof names the line to add instead
    (repo / ".aider.conf.yml").write_text("read: NOTES.md\n")
    compiled(repo, monkeypatch, [hosts.AGENTS_MD, "aider"])
    assert (repo / ".aider.conf.yml").read_text() == "read: NOTES.md\n"


@pytest.mark.parametrize("layout", ["cloud", "cli"])
def test_a_copilot_layout_enabled_and_removed_leaves_every_file_as_it_was(tmp_path, monkeypatch, layout):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    before = compiled(repo, monkeypatch, [hosts.AGENTS_MD])
    during = compiled_with(repo, monkeypatch, [hosts.AGENTS_MD, "copilot"], f'copilot = "{layout}"\n')
    assert during != before
    assert compiled(repo, monkeypatch, [hosts.AGENTS_MD]) == before
