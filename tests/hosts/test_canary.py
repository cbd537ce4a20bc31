"""The canary: a generated monorepo (the root, three segments, one of them nested two folders deep)
compiled with every agent enabled; for a file in each segment's folder every rule in force there is
in each agent's loaded text, within its limit (the read-back proof, `compile/readback.py`).

Copilot's products cannot all be served by one layout (docs/compile.md, "Copilot"): the test
compiles the monorepo with each `[compile] copilot` layout, and every product it serves holds.
`svc` and `web` share a rule: Cline's legacy extension, which loads every AGENTS.md it finds for
every task, loads it twice, and no layout can avoid that while Codex reads each segment's AGENTS.md
(docs/compile.md, "What stays open"); every other view holds.
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
from agent_constitution.hosts.loaders.others import LEGACY
from tests.compile.support import RULES, write_fixture_source

EXTRA = {9: {"parent": "git", "title": "Name branches after the task"},
         10: {"parent": "ci", "title": "Cache the dependencies"},
         11: {"parent": "git", "title": "Squash before merging"},
         12: {"parent": "ci", "title": "Pin the tool versions"}}
# vendor/tool: below a folder Cline's legacy listing never enters (it gets a conditional .clinerules file)
SEGMENTS = ("svc", "web", "svc/deep/core", "vendor/tool")
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
rules = ["ac:7", "ac:10"]

[[segment]]
path = "svc/deep/core"
rules = ["ac:11"]

[[segment]]
path = "vendor/tool"
rules = ["ac:12"]
"""
def monorepo(root: Path, copilot: str = "editor") -> Path:
    write_fixture_source(root / "src", rules={**RULES, **EXTRA})
    names = ", ".join(f'"{name}"' for name in hosts.names())
    (root / "rules.toml").write_text(MANIFEST.format(agents=names, copilot=copilot))
    for segment in SEGMENTS:
        (root / segment).mkdir(parents=True, exist_ok=True)
    # VS Code reads the root CLAUDE.md beside AGENTS.md, one text with claude = "link": the setting
    # the proof names as the fix (tests/hosts/test_loaders.py shows the view without it).
    (root / ".vscode").mkdir()
    (root / ".vscode/settings.json").write_text('{\n  // AGENTS.md only\n  "chat.useClaudeMdFile": false,\n}\n')
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
    legacy = [finding for finding in findings if finding.view.product == LEGACY]
    assert len(legacy) == 1 + len(SEGMENTS)
    for finding in findings:
        assert not finding.missed and not finding.cut, problems([finding])
        assert finding.twice == (("ac:7",) if finding.view.product == LEGACY else ()), problems([finding])
    # compile ran the same proof and said so, and named the hole
    out = done.stdout + done.stderr
    assert f"read back: {len(findings) - len(legacy)} of {len(findings)} agent views" in out
    assert "cline (Cline legacy extension, a task started in the workspace) loads 1 rules twice" in out
    sdk = (root / ".cline/rules/agent-constitution.md").read_text()
    assert "`svc/deep/core/`" in sdk and "`web/`" in sdk and "vendor/tool" not in sdk
    assert (root / ".rules").is_file() and (root / ".roo/rules/agent-constitution.md").is_file()
    assert (root / ".continue/rules/svc-deep-core.md").is_file()
    assert (root / ".junie/guidelines.md").is_file() and (root / "CONVENTIONS.md").is_file()
    assert sorted(p.name for p in (root / ".clinerules").glob("*.md")) == ["vendor-tool.md"]
    assert (root / ".aider.conf.yml").read_text().endswith("read: CONVENTIONS.md\n")
    above = sorted(p.name for p in (root / ".github/instructions").glob("*.above.instructions.md")) \
        if copilot != "cli" else []
    assert above == (["svc-deep-core.above.instructions.md", "svc.above.instructions.md",
                      "vendor-tool.above.instructions.md", "web.above.instructions.md"] if copilot == "cloud" else [])
    assert (root / ".github/instructions").is_dir() == (copilot != "cli")
    # a layout dropped takes its files with it
    if copilot == "cli":
        (root / "rules.toml").write_text((root / "rules.toml").read_text().replace('"cline", ', ""))
        assert compiled(root, tmp_path).returncode == 0
        assert not (root / ".cline").exists() and not (root / ".clinerules/vendor-tool.md").exists()
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
