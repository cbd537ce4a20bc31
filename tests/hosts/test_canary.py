"""The canary: a generated monorepo (the root, three segments, one of them nested two folders deep)
compiled with every agent enabled; for a file in each segment's folder every rule in force there is
in each agent's loaded text, within its limit (the read-back proof, `compile/readback.py`).

The agents whose documented reading no layout can serve without loading a text twice are named in
`docs/compile.md` ("The read-back proof"), and the test holds them to exactly that: what they miss is
the rules of the files they do not read, nothing more.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent_constitution import hosts
from agent_constitution.compile.readback import in_force, problems, prove
from tests.compile.support import RULES, write_fixture_source

EXTRA = {9: {"parent": "git", "title": "Name branches after the task"},
         10: {"parent": "ci", "title": "Cache the dependencies"},
         11: {"parent": "git", "title": "Squash before merging"}}
SEGMENTS = ("svc", "web", "svc/deep/core")
MANIFEST = """\
rules = ["ac:1", "ac:2", "ac:3", "ac:5", "ac:6", "ac:8"]

[constitution]
source = "ac"
edition = "2026-12"
revision = "0.2"

[sources]
ac = {{ path = "src" }}

[choices]
"ac:pm" = "ac:3"
"ac:ci-service" = "ac:5"

[compile]
agents = [{agents}]
claude = "link"

[[segment]]
path = "svc"
rules = ["ac:7", "ac:9"]

[[segment]]
path = "web"
rules = ["ac:10"]

[[segment]]
path = "svc/deep/core"
rules = ["ac:11"]
"""
# The Copilot coding agent reads only the nearest AGENTS.md, and every file it reads besides (the
# repository-wide and path-specific instructions) Copilot in VS Code reads too: it misses the rules
# of the files above the nearest one (docs/compile.md).
ROOT_ONLY: set[str] = set()
NEAREST_ONLY = {"copilot": "Copilot coding agent"}
# Copilot CLI reads the AGENTS.md of every folder on the path and the path-scoped files Copilot in
# VS Code needs (which reads the root AGENTS.md only): it loads a nested segment's rules twice.
TWICE = {"copilot": "Copilot CLI"}
UNSERVED = {"aider", "junie"}  # read nothing until configured to, which compile does not write


def monorepo(root: Path) -> Path:
    write_fixture_source(root / "src", rules={**RULES, **EXTRA})
    names = ", ".join(f'"{name}"' for name in hosts.names())
    (root / "rules.toml").write_text(MANIFEST.format(agents=names))
    for segment in SEGMENTS:
        (root / segment).mkdir(parents=True, exist_ok=True)
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def compiled(root: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "AGENT_CONSTITUTION_CONFIG")}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    return subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=root, env=env, capture_output=True, text=True)


def test_every_agent_loads_every_rule_in_force_in_every_segment(tmp_path):
    root = monorepo(tmp_path / "repo")
    done = compiled(root, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rules = in_force(root / "cache", [".", *SEGMENTS])
    assert "ac:11" in rules["svc/deep/core"] and set(rules["."]) < set(rules["svc/deep/core"])
    findings = prove(root, hosts.names(), rules)
    assert {f.view.agent for f in findings} == set(hosts.names())
    for finding in findings:
        agent = finding.view.agent
        if agent in UNSERVED:
            assert set(finding.missed) == set(rules[finding.segment])
        elif agent in ROOT_ONLY or NEAREST_ONLY.get(agent) == finding.view.product:
            if finding.segment == ".":
                assert finding.holds, problems([finding])
            else:  # it misses exactly what the root file does not state
                assert finding.missed and set(finding.missed) <= set(rules[finding.segment]) - set(rules["."]) | (
                    set(rules["."]) if agent in NEAREST_ONLY else set())
        elif TWICE.get(agent) == finding.view.product:
            assert not finding.missed
            # the segment's own rules, from its AGENTS.md and from its path-scoped file
            assert bool(finding.twice) == (finding.segment != ".")
            assert set(finding.twice) <= set(rules[finding.segment]) - set(rules["."]) | {"ac:7", "ac:9"}
        else:
            assert finding.holds, problems([finding])
            assert not finding.cut
    # compile ran the same proof and said so, naming the agents that miss rules
    assert "read back:" in done.stdout + done.stderr
    assert "copilot (Copilot coding agent" in done.stdout + done.stderr
    assert (root / ".rules").is_file() and (root / ".roo/rules/agent-constitution.md").is_file()
    assert (root / ".continue/rules/svc-deep-core.md").is_file()


def test_claude_shims_that_import_miss_the_root_rules_in_a_nested_session(tmp_path):
    root = monorepo(tmp_path / "repo")
    text = (root / "rules.toml").read_text().replace('claude = "link"', 'claude = "import"')
    (root / "rules.toml").write_text(text)
    done = compiled(root, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rules = in_force(root / "cache", [".", *SEGMENTS])
    by_scenario = {(f.segment, f.view.scenario): f for f in prove(root, ("claude-code",), rules)}
    inside = by_scenario[("svc", "session started in svc/")]
    assert set(inside.missed) == set(rules["."])  # the root CLAUDE.md's @AGENTS.md is not followed
    assert by_scenario[("svc", "session at the root, reading a file in svc/")].holds
    linked = tmp_path / "linked"
    root = monorepo(linked)
    assert compiled(root, tmp_path).returncode == 0
    assert os.readlink(root / "CLAUDE.md") == "AGENTS.md" and os.readlink(root / "svc" / "CLAUDE.md") == "AGENTS.md"
    assert all(f.holds for f in prove(root, ("claude-code",), rules))
