"""Reviewer groups are matched in the manifest's order (seed 000: the first group that matches), also
through `cache/resolved/index.json`, whose tables are written with sorted keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.ruleset.resolved import AgentEdition, Index, index_path, read_index
from tests.checks.conftest import git, make_source, rule_toml

NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)


@given(st.lists(NAMES, unique=True, max_size=8))
def test_the_index_keeps_the_groups_in_manifest_order(names):
    import tempfile

    review = {name: {"rules": [f"ac:{index}"], "verdicts": "any"} for index, name in enumerate(names)}
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        index_path(cache).parent.mkdir(parents=True)
        index_path(cache).write_text(Index((".",), review, (), AgentEdition(("en",), {"en": ""}, {}), {}, ()).to_json())
        assert list(read_index(cache).review) == names


def test_an_index_of_an_older_writer_is_resolved_again(tmp_path: Path):
    index_path(tmp_path).parent.mkdir(parents=True)
    index_path(tmp_path).write_text(json.dumps({"version": 3, "segments": ["."], "review": {}, "waive": []}))
    assert read_index(tmp_path) is None


def test_a_group_before_the_catch_all_gets_its_rules(repo: Path):
    make_source(repo, {1: rule_toml(1), 2: rule_toml(2)}, {})  # no check: each needs a reviewer
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text() + '\n[review]\nsecurity = { rules = ["ac:1"] }\ndefault = { rules = ["ac:*"] }\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=repo, capture_output=True, text=True)
    items = json.loads((repo / "cache" / "review" / "queue.json").read_text())["items"]
    assert {item["result"]["ref"]: item["group"] for item in items} == {"ac:1": "security", "ac:2": "default"}
    security = (repo / "cache" / "review" / "security.md").read_text()
    assert "ac:1" in security and "ac:2" not in security.split("## ", 1)[-1]
