"""The canary on the field corpus (real repositories, bench/field/corpus/): each bundle adopted as
`field.py` adopts it, compiled with every agent enabled, `claude = "link"` and each `[compile]
copilot` layout, and read back: every agent loads every rule in force in every segment, each once."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agent_constitution import hosts
from agent_constitution.compile.readback import in_force, problems, prove
from agent_constitution.tasks.agents import read_settings

CHECKOUT = Path(__file__).resolve().parents[2]
FIELD = CHECKOUT / "bench" / "field" / "corpus"
BUNDLES = sorted(FIELD.glob("*.bundle"))


def claude_md_off(repo: Path) -> None:
    """What the proof's fix for Copilot in VS Code says to do with `claude = "link"` (VS Code reads the
    root CLAUDE.md beside AGENTS.md): the key first in the workspace's settings, the user's file kept."""
    settings = repo / ".vscode" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    text = settings.read_text() if settings.is_file() else "{}\n"
    opening = text.index("{") + 1
    settings.write_text(text[:opening] + '\n  "chat.useClaudeMdFile": false,' + text[opening:])


@pytest.mark.parametrize("copilot", ["editor", "cloud", "cli"])
@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda path: path.stem)
def test_every_agent_loads_every_rule_in_force(bundle, tmp_path, copilot):
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(bundle), str(repo)], check=True, capture_output=True)
    body = tomllib.loads(bundle.with_suffix(".toml").read_text())["manifest"]["body"].replace("@RULES@", str(CHECKOUT))
    body += (f'\n[compile]\nclaude = "link"\ncopilot = "{copilot}"\nagents = ['
             + ", ".join(f'"{n}"' for n in hosts.names()) + "]\n")
    (repo / "rules.toml").write_text(body)
    claude_md_off(repo)
    (repo / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "AGENT_CONSTITUTION_CONFIG")}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    done = subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    _, segments = read_settings(repo / "rules.toml")
    rules = in_force(repo / "cache", segments)
    for finding in prove(repo, tuple(hosts.names()), rules, copilot):
        assert finding.holds, problems([finding])
