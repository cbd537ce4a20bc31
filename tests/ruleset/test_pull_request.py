"""`upgrade --branch B [--open]`: the branch carries the lock and every recompiled output; its pull request."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import tomlkit

from agent_constitution.commands.run import doit
from agent_constitution.errors import UserError
from agent_constitution.ruleset.changes import RuleChange, rule_links
from agent_constitution.ruleset.pull_request import BODY_LIMIT, TOOLS, commit_upgrade, open_pull_request, pull_request
from agent_constitution.ruleset.upgrade import SourceMove, Upgrade, plan_upgrade
from tests.compile.support import write_fixture_source
from tests.ruleset.builders import commit_all, git

MANIFEST = """\
rules = ["ac:7", "ac:8"]

[constitution]
source = "ac"
edition = "2026-12"
revision = "0.2"

[sources]
ac = {{ url = "{url}", branch = "main" }}
"""


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def setup(tmp_path: Path) -> tuple[Path, Path]:
    """An upstream source and a repository that compiled it and committed the outputs."""
    upstream = write_fixture_source(tmp_path / "upstream")
    commit_all(upstream, "first")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "rules.toml").write_text(MANIFEST.format(url=upstream))
    (repo / ".gitignore").write_text("cache/\n")
    assert doit(repo, ["run", "compile"]) == 0
    commit_all(repo, "start")
    return upstream, repo


def change_rule_7(upstream: Path) -> str:
    path = upstream / "rules" / "7.toml"
    data = tomlkit.parse(path.read_text())
    data["revision"] = 2
    data["text"]["en"] = "Sign every commit with an SSH key."
    path.write_text(tomlkit.dumps(data))
    return commit_all(upstream, "refine 7")


def test_the_branch_carries_the_lock_and_every_recompiled_output(tmp_path):
    upstream, repo = setup(tmp_path)
    before = {name: (repo / name).read_text() for name in ("rules.lock", "AGENTS.md")}
    new_commit = change_rule_7(upstream)
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")

    # The working tree and its branch are as they were; no temporary worktree or folder is left.
    assert {name: (repo / name).read_text() for name in before} == before
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "branch", "--show-current") == "main"
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo", "upstream", "user-cache"]

    assert "rules.lock" in made.files and "AGENTS.md" in made.files
    assert not any(name.startswith("cache/") for name in made.files)
    assert new_commit in git(repo, "show", "rules-upgrade:rules.lock")
    assert "Sign every commit with an SSH key." in git(repo, "show", "rules-upgrade:AGENTS.md")
    assert "Sign every commit with an SSH key." not in before["AGENTS.md"]
    # What compile writes on the branch is what it writes in the working tree after a plain upgrade.
    git(repo, "checkout", "-q", "rules-upgrade")
    assert doit(repo, ["run", "compile"]) == 0
    assert git(repo, "status", "--porcelain") == "", git(repo, "diff")

    text = made.body_file.read_text()
    assert text.startswith(f"# {made.title}\n\n")
    assert made.title.startswith("Upgrade rules: ac ")
    assert "| ac:7 | Sign commits | 1 → 2 | text changed | – |" in text
    assert "+en = \"Sign every commit with an SSH key.\"" in text
    assert "## Files\n\n" in text and "- `AGENTS.md`" in text
    message = git(repo, "log", "-1", "--format=%B", "rules-upgrade")
    assert message.startswith(made.title) and "| ac:7 |" in message


def test_a_moved_tag_pin_is_committed_with_the_lock(tmp_path):
    upstream = write_fixture_source(tmp_path / "upstream")
    commit_all(upstream, "first", "v1.0.0")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "rules.toml").write_text(MANIFEST.format(url=upstream).replace('branch = "main"', 'tag = "v1.0.0"'))
    (repo / ".gitignore").write_text("cache/\n")
    assert doit(repo, ["run", "compile"]) == 0
    commit_all(repo, "start")
    new_commit = change_rule_7(upstream)
    git(upstream, "tag", "v1.1.0")
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    assert {"rules.toml", "rules.lock", "AGENTS.md"} <= set(made.files)
    assert 'tag = "v1.1.0"' in git(repo, "show", "rules-upgrade:rules.toml")
    assert new_commit in git(repo, "show", "rules-upgrade:rules.lock")
    assert 'tag = "v1.0.0"' in (repo / "rules.toml").read_text()  # the working tree is left alone
    assert "- rules.toml: [sources.ac] tag v1.0.0 → v1.1.0" in made.body_file.read_text()


def test_under_ci_the_branch_compiles_too(tmp_path, monkeypatch):
    upstream, repo = setup(tmp_path)
    change_rule_7(upstream)
    monkeypatch.setenv("CI", "true")
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    assert "AGENTS.md" in made.files


def test_an_existing_branch_or_a_bad_name_is_refused(tmp_path):
    upstream, repo = setup(tmp_path)
    change_rule_7(upstream)
    git(repo, "branch", "taken")
    with pytest.raises(UserError, match="branch 'taken' already exists"):
        commit_upgrade(repo, plan_upgrade(repo), "taken")
    with pytest.raises(UserError, match="not a valid branch name"):
        commit_upgrade(repo, plan_upgrade(repo), "two words")
    for option in ("--help", "-D", "--upload-pack=touch pwned"):  # never an option of git
        with pytest.raises(UserError, match="not a valid branch name"):
            commit_upgrade(repo, plan_upgrade(repo), option)
    assert not list(tmp_path.rglob("pwned"))


def test_an_uncommitted_manifest_is_refused(tmp_path):
    # The plan comes from the working tree's rules.toml, the branch from HEAD's: they would disagree.
    upstream, repo = setup(tmp_path)
    change_rule_7(upstream)
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text().replace('"ac:8"]', '"ac:8", "ac:1"]'))
    with pytest.raises(UserError, match="rules.toml or rules.lock has changes that are not committed"):
        commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    assert git(repo, "branch", "--list", "rules-upgrade") == ""


def test_a_failed_compile_commits_nothing_and_leaves_no_branch(tmp_path):
    upstream, repo = setup(tmp_path)
    # The new text renders an unknown provision: compile fails on it, the lock alone resolves.
    path = upstream / "rules" / "7.toml"
    data = tomlkit.parse(path.read_text())
    data["revision"] = 2
    data["text"]["en"] = "See {@nowhere}."
    path.write_text(tomlkit.dumps(data))
    commit_all(upstream, "break 7")
    with pytest.raises(UserError, match="compile failed on branch rules-upgrade"):
        commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    assert git(repo, "branch", "--list", "rules-upgrade") == ""
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    assert git(repo, "status", "--porcelain") == ""


def standins(tmp_path: Path, tools: tuple[str, ...]) -> tuple[str, Path]:
    """A PATH with git and scripted stand-ins for `tools` that record their arguments as JSON lines."""
    folder = tmp_path / "bin"
    folder.mkdir()
    record = tmp_path / "calls.jsonl"
    for tool in tools:
        script = folder / tool
        script.write_text(
            "#!/usr/bin/env python3\nimport json, sys\n"
            f"open({str(record)!r}, 'a').write(json.dumps(sys.argv) + '\\n')\n"
            "print('https://example.invalid/pull/1')\n"
        )
        script.chmod(0o755)
    git_folder = Path(shutil.which("git")).parent
    python_folder = Path(shutil.which("python3")).parent
    return os.pathsep.join([str(folder), str(git_folder), str(python_folder)]), record


def with_remote(tmp_path: Path, repo: Path) -> Path:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    return remote


@pytest.mark.parametrize("tool", TOOLS)
def test_open_pushes_the_branch_and_opens_it_with_the_tool_on_path(tmp_path, monkeypatch, tool):
    upstream, repo = setup(tmp_path)
    remote = with_remote(tmp_path, repo)
    change_rule_7(upstream)
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    path, record = standins(tmp_path, (tool,))
    monkeypatch.setenv("PATH", path)
    said = open_pull_request(repo, made)
    assert said == f"pushed rules-upgrade to origin; {tool}: https://example.invalid/pull/1"
    assert git(remote, "rev-parse", "rules-upgrade") == git(repo, "rev-parse", "rules-upgrade")
    (call,) = [json.loads(line) for line in record.read_text().splitlines()]
    body = made.body_file.read_text().split("\n", 2)[2]
    expected = {
        "gh": ["pr", "create", "--head", "rules-upgrade", "--base", "main", "--title", made.title,
               "--body-file", str(made.body_file)],
        "glab": ["mr", "create", "--source-branch", "rules-upgrade", "--target-branch", "main", "--title", made.title,
                 "--description", body, "--yes"],
        "tea": ["pulls", "create", "--head", "rules-upgrade", "--base", "main", "--title", made.title,
                "--description", body],
    }
    assert call[1:] == expected[tool]


def test_the_remotes_host_picks_the_tool_when_several_are_present(tmp_path, monkeypatch):
    upstream, repo = setup(tmp_path)
    with_remote(tmp_path, repo)
    # A URL that names GitLab, pushed to the bare repository (pushurl) so nothing leaves the machine.
    git(repo, "remote", "set-url", "origin", "https://gitlab.example.com/team/repo.git")
    git(repo, "remote", "set-url", "--push", "origin", str(tmp_path / "remote.git"))
    change_rule_7(upstream)
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    path, record = standins(tmp_path, TOOLS)
    monkeypatch.setenv("PATH", path)
    assert "glab:" in open_pull_request(repo, made)
    assert json.loads(record.read_text())[1:3] == ["mr", "create"]


def test_without_a_tool_it_says_exactly_what_to_run(tmp_path, monkeypatch):
    upstream, repo = setup(tmp_path)
    remote = with_remote(tmp_path, repo)
    change_rule_7(upstream)
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    path, _ = standins(tmp_path, ())
    monkeypatch.setenv("PATH", path)
    with pytest.raises(UserError) as caught:
        open_pull_request(repo, made)
    message = str(caught.value)
    assert "none of gh, glab, tea is on PATH" in message
    assert "git push -- origin refs/heads/rules-upgrade:refs/heads/rules-upgrade" in message
    assert f"gh pr create --head rules-upgrade --base main --title '{made.title}' --body-file {made.body_file}" in message
    assert "glab mr create --source-branch rules-upgrade" in message and "tea pulls create --head rules-upgrade" in message
    assert git(remote, "branch", "--list", "rules-upgrade") == ""  # nothing pushed


def test_open_without_a_remote_says_how_to_add_one(tmp_path):
    upstream, repo = setup(tmp_path)
    change_rule_7(upstream)
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    with pytest.raises(UserError, match="no remote to push the branch to"):
        open_pull_request(repo, made)


def test_the_command_line_commits_and_opens(tmp_path, monkeypatch, capsys):
    from agent_constitution.cli import main

    upstream, repo = setup(tmp_path)
    with_remote(tmp_path, repo)
    change_rule_7(upstream)
    path, record = standins(tmp_path, ("gh",))
    monkeypatch.setenv("PATH", path)
    monkeypatch.chdir(repo)
    assert main(["upgrade", "--branch", "rules-upgrade", "--open"]) == 0
    out = capsys.readouterr().out
    assert "ac:7: revision 1 → 2" in out
    assert "committed on branch rules-upgrade: " in out and "AGENTS.md" in out
    assert "pushed rules-upgrade to origin; gh: https://example.invalid/pull/1" in out
    assert json.loads(record.read_text())[1:3] == ["pr", "create"]
    assert main(["upgrade", "--open"]) == 1
    assert "--open needs --branch NAME" in capsys.readouterr().err


@pytest.mark.parametrize(("url", "expected"), [
    ("https://github.com/team/rules.git", "https://github.com/team/rules/blob/C/rules/7.toml"),
    ("git@github.com:team/rules.git", "https://github.com/team/rules/blob/C/rules/7.toml"),
    ("gitlab.com/group/sub/rules", "https://gitlab.com/group/sub/rules/-/blob/C/rules/7.toml"),
    ("https://codeberg.org/team/rules", "https://codeberg.org/team/rules/src/commit/C/rules/7.toml"),
    ("https://bitbucket.org/team/rules", "https://bitbucket.org/team/rules/src/C/rules/7.toml"),
    ("https://git.example.com/team/rules", None),
])
def test_rule_links_point_at_the_rule_file_at_the_new_commit(tmp_path, url, expected):
    def fetched(site):
        return SimpleNamespace(
            declared=SimpleNamespace(spec=SimpleNamespace(url=url), base_dir=tmp_path),
            snapshot=SimpleNamespace(commit="C"),
            source=SimpleNamespace(config=SimpleNamespace(site=site, languages=("en", "zh"))),
        )

    assert rule_links(fetched(None), 7) == ((("rule file", expected),) if expected else ())
    with_site = rule_links(fetched("https://rules.example.org/"), 7)
    assert with_site[-1] == ("rule page", "https://rules.example.org/en/rules/7.html")


def test_a_project_in_a_subfolder_of_the_repository(tmp_path):
    upstream = write_fixture_source(tmp_path / "upstream")
    commit_all(upstream, "first")
    mono = tmp_path / "mono"
    project = mono / "services" / "api"
    project.mkdir(parents=True)
    (project / "rules.toml").write_text(MANIFEST.format(url=upstream))
    (mono / "README.md").write_text("a monorepo\n")
    assert doit(project, ["run", "compile"]) == 0
    commit_all(mono, "start")  # cache/ is not ignored here: the branch must still leave it out
    hook = mono / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path / 'hook-ran'}\n")
    hook.chmod(0o755)
    change_rule_7(upstream)
    made = commit_upgrade(project, plan_upgrade(project), "rules-upgrade")
    assert "services/api/rules.lock" in made.files and "services/api/AGENTS.md" in made.files
    assert not any("/cache/" in name for name in made.files)
    assert made.body_file == project / "cache" / "upgrade" / "rules-upgrade.md"
    assert not (tmp_path / "hook-ran").exists()


def test_the_body_links_the_rule_file_at_the_new_commit_and_the_rule_page(tmp_path, monkeypatch):
    # The source is named by its GitHub URL; git's insteadOf sends every fetch to the local upstream.
    upstream = write_fixture_source(tmp_path / "upstream")
    config = upstream / "rules" / "source.toml"
    config.write_text(f'site = "https://rules.example.org/"\n{config.read_text()}')
    commit_all(upstream, "first")
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f'[url "{upstream}"]\n\tinsteadOf = https://github.com/team/rules\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "rules.toml").write_text(MANIFEST.format(url="https://github.com/team/rules"))
    (repo / ".gitignore").write_text("cache/\n")
    assert doit(repo, ["run", "compile"]) == 0
    commit_all(repo, "start")
    new_commit = change_rule_7(upstream)
    made = commit_upgrade(repo, plan_upgrade(repo), "rules-upgrade")
    text = made.body_file.read_text()
    assert (f"| ac:7 | Sign commits | 1 → 2 | text changed |"
            f" [rule file](https://github.com/team/rules/blob/{new_commit}/rules/7.toml)"
            " · [rule page](https://rules.example.org/en/rules/7.html) |") in text


def test_a_body_too_long_for_a_pull_request_leaves_the_diffs_out():
    def upgrade(lines: int) -> Upgrade:
        diff = "".join(f"+line {n}\n" for n in range(lines))
        change = RuleChange("ac:7", 1, 2, diff, title="Sign | commits", summary="text changed")
        return Upgrade((SourceMove("ac", "v1 (a)", "v2 (b)"),), (change,), lock="",
                       pinned=("team follows tag v1.0.0; newer: v1.1.0 (change the tag in rules.toml to move it)",))

    title, short = pull_request(upgrade(10), ("AGENTS.md",))
    assert title == "Upgrade rules: ac v2 (b)"
    assert "| ac:7 | Sign \\| commits | 1 → 2 | text changed | – |" in short  # a | in a cell is escaped
    assert "+line 9" in short and short.endswith("## Files\n\n- `AGENTS.md`\n")
    assert "## Held back\n\n- team follows tag v1.0.0; newer: v1.1.0" in short
    _, long = pull_request(upgrade(BODY_LIMIT // 5), ("AGENTS.md",))
    assert len(long) < BODY_LIMIT and "+line 1\n" not in long
    assert "The per-rule diffs are left out" in long and "| ac:7 |" in long and long.endswith("- `AGENTS.md`\n")
