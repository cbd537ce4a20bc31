"""On the field corpus (real repositories, bench/field/corpus/): compile with every agent enabled, and
what each agent loads by itself stays within its documented limit.

Each bundle is cloned and adopted as `field.py` adopts it (its manifest, the rule source of this
checkout); `doit compile` must succeed, and the per-agent check below finds, from the files, no
enabled agent that would not load all of a chain (compile warns of that; issue 26).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agent_constitution import hosts
from agent_constitution.compile.outputs.base import Plan
from agent_constitution.compile.outputs.chains import chain_report
from agent_constitution.tasks.agents import read_settings

CHECKOUT = Path(__file__).resolve().parents[2]
# The field corpus the project keeps (bench/field/corpus)
FIELD = CHECKOUT / "bench" / "field" / "corpus"
ENABLED = [name for name in hosts.names() if name != "windsurf"]
BUNDLES = sorted(FIELD.glob("*.bundle"))


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda path: path.stem)
def test_no_agents_auto_loaded_chain_exceeds_its_limit(bundle, tmp_path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(bundle), str(repo)], check=True, capture_output=True)
    body = tomllib.loads(bundle.with_suffix(".toml").read_text())["manifest"]["body"].replace("@RULES@", str(CHECKOUT))
    body += "\n[compile]\nagents = [" + ", ".join(f'"{n}"' for n in ENABLED) + "]\n"
    (repo / "rules.toml").write_text(body)
    (repo / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "AGENT_CONSTITUTION_CONFIG")}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    done = subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    settings, segments = read_settings(repo / "rules.toml")
    plan = Plan(repo, repo / "cache", settings, tuple(segments))
    for name in ["agents-md", *ENABLED]:
        assert not [line for line in chain_report(repo, plan.chains(), (name,)) if line.startswith("warning:")]
    for chain in plan.chains():
        files = [repo / s / "AGENTS.md" if s != "." else repo / "AGENTS.md" for s in chain]
        assert sum(f.stat().st_size for f in files if f.is_file()) <= hosts.CHAIN_LIMIT
    # Windsurf is not enabled, so the regions were not sized for its 12,000 characters per file; what
    # it would not load of a hand-picked selection is named with the rules lost.
    for line in chain_report(repo, plan.chains(), ("windsurf",)):
        if line.startswith("warning:"):
            assert "windsurf reads at most 12000 characters" in line and "will not load the last" in line
