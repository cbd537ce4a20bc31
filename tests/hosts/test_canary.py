"""The canary: a generated monorepo (the root, three segments, one of them nested two folders deep)
compiled with every agent enabled; for a file in each segment's folder every rule in force there is
in each agent's loaded text, within its limit (the read-back proof, `compile/readback.py`).

Copilot's products cannot all be served by one layout (docs/compile.md, "Copilot"): the test
compiles the monorepo with each `[compile] copilot` layout, and every product it serves holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution import hosts
from agent_constitution.compile.readback import in_force, problems, prove
from agent_constitution.hosts.loaders.copilot import LAYOUTS
from tests.compile.support import RULES, write_fixture_source

EXTRA = {9: {"parent": "git", "title": "Name branches after the task"},
         10: {"parent": "ci", "title": "Cache the dependencies"},
         11: {"parent": "git", "title": "Squash before merging"},
         12: {"parent": "ci", "title": "Pin the tool versions"}}
# pkg/tool: below a folder Cline's file listing never enters (it gets a conditional .clinerules file)
SEGMENTS = ("svc", "web", "svc/deep/core", "pkg/tool")
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
copilot = "{copilot}"

[[segment]]
path = "svc"
rules = ["ac:7", "ac:9"]

[[segment]]
path = "web"
rules = ["ac:10"]

[[segment]]
path = "svc/deep/core"
rules = ["ac:11"]

[[segment]]
path = "pkg/tool"
rules = ["ac:12"]
"""
def monorepo(root: Path, copilot: str = "editor") -> Path:
    write_fixture_source(root / "src", rules={**RULES, **EXTRA})
    names = ", ".join(f'"{name}"' for name in hosts.names())
    (root / "rules.toml").write_text(MANIFEST.format(agents=names, copilot=copilot))
    for segment in SEGMENTS:
        (root / segment).mkdir(parents=True, exist_ok=True)
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def compiled(root: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "AGENT_CONSTITUTION_CONFIG")}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    return subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=root, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("copilot", list(LAYOUTS))
def test_every_agent_loads_every_rule_in_force_in_every_segment(tmp_path, copilot):
    root = monorepo(tmp_path / "repo", copilot)
    done = compiled(root, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rules = in_force(root / "cache", [".", *SEGMENTS])
    assert "ac:11" in rules["svc/deep/core"] and set(rules["."]) < set(rules["svc/deep/core"])
    findings = prove(root, hosts.names(), rules, copilot)
    assert {f.view.agent for f in findings} == set(hosts.names())
    assert {f.view.product for f in findings if f.view.agent == "copilot"} == set(LAYOUTS[copilot])
    for finding in findings:
        assert finding.holds, problems([finding])
        assert not finding.cut
    # compile ran the same proof and said so
    assert f"read back: {len(findings)} of {len(findings)} agent views" in done.stdout + done.stderr
    assert (root / ".rules").is_file() and (root / ".roo/rules/agent-constitution.md").is_file()
    assert (root / ".continue/rules/svc-deep-core.md").is_file()
    assert (root / ".junie/guidelines.md").is_file() and (root / "CONVENTIONS.md").is_file()
    assert sorted(p.name for p in (root / ".clinerules").glob("*.md")) == ["pkg-tool.md"]
    assert (root / ".aider.conf.yml").read_text().endswith("read: CONVENTIONS.md\n")
    above = sorted(p.name for p in (root / ".github/instructions").glob("*.above.instructions.md")) \
        if copilot != "cli" else []
    assert above == (["pkg-tool.above.instructions.md", "svc-deep-core.above.instructions.md",
                      "svc.above.instructions.md", "web.above.instructions.md"] if copilot == "cloud" else [])
    assert (root / ".github/instructions").is_dir() == (copilot != "cli")
    # a layout dropped takes its files with it
    if copilot == "cloud":
        (root / "rules.toml").write_text((root / "rules.toml").read_text().replace('copilot = "cloud"',
                                                                                   'copilot = "cli"'))
        assert compiled(root, tmp_path).returncode == 0
        assert not (root / ".github/instructions").exists()


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
