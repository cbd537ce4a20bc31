"""The starter adopted in the field corpus: init's own selection, then compile, in every repository.

    uv run python bench/bench_starter.py [FOLDER of bundles; default ../shared/field, or bench/field/corpus]

Clones each git bundle of the field corpus into a temporary folder, runs `init` with this
checkout as its rule source (the manifest init writes, its `ac` source then pointed at this
working tree, as tests/sources/test_init_shapes.py does), then `compile` in its own process, and
prints per repository the packages kept and left out, the compiled region's bytes and tokens
(cl100k_base), the whole AGENTS.md's bytes, and whether compile warned. Nothing reaches the network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def main(field: Path) -> int:
    from agent_constitution.commands import starter
    from agent_constitution.compile import region
    from agent_constitution.compile.tokens import count_tokens
    from agent_constitution.ruleset.source import load_source

    source = load_source(PROJECT)
    starter.starter_source = lambda url, pin, root: source
    starter.pin_of = lambda: ("rev", "0" * 40)
    starter.lock_manifest = lambda root, written: starter.Step("rules.lock", "left to compile")  # no such pin
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    failed = 0
    print(f"{'repository':<10} {'region bytes':>12} {'tokens':>6} {'AGENTS.md':>9}  warned  kept / left out")
    for bundle in sorted(field.glob("*.bundle")):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / bundle.stem
            subprocess.run(["git", "clone", "-q", str(bundle), str(repo)], check=True, capture_output=True)
            env["AGENT_CONSTITUTION_CACHE"] = str(Path(tmp) / "user-cache")
            starter.init_project(repo)
            manifest = repo / "rules.toml"
            text = re.sub(r"^ac = \{ url = .*$", f'ac = {{ path = "{PROJECT}", trust = true }}', manifest.read_text(), flags=re.M)
            manifest.write_text(text)
            done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "compile"], cwd=repo, env=env,
                                  capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                failed += 1
                print(f"{bundle.stem:<10} compile failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
                continue
            agents = repo / "AGENTS.md"
            inside = region.Region.parse(agents.read_text(), agents).inside or ""
            kept = tomllib.loads(text)["rules"]
            left = re.findall(r'^    # "ac:([\w-]+)",  # \d+ more bytes', text, re.M)
            warned = "yes" if "warning:" in done.stdout + done.stderr else "no"
            print(f"{bundle.stem:<10} {len(inside.encode()):>12} {count_tokens(inside):>6} {agents.stat().st_size:>9}"
                  f"  {warned:<6}  {len(kept)} / {', '.join(left) or '-'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else PROJECT.parent / "shared" / "field"))
