"""The read-back proof on a generated monorepo: what each agent loads at the root and in the
deepest segment, which views hold, and what the proof costs next to the compile that runs it.

    uv run python bench/bench_readback.py [--segments 200] [--rules 2000] [--claude link]

Builds bench_compile.py's repository (a path source of `--rules` rules, `--segments` segments
`pkg/pNNN`, about ten rules of their own each) with every agent enabled, compiles it once
(`python -m doit compile`, CPU seconds of that process), then runs the proof in this process
(CPU seconds, tokens not counted) and prints, per agent and product, the bytes loaded for a file at
the root and for a file in the segment whose view is largest, and how many views hold (every rule in
force loaded, none twice). Target: the proof costs under a tenth of the compile (a ratio).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compile import write_repo  # noqa: E402


def main() -> None:
    from agent_constitution.hosts import names
    from agent_constitution.compile.readback import in_force, prove
    from agent_constitution.tasks.agents import read_settings

    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--rules", type=int, default=2000)
    parser.add_argument("--claude", default="link", choices=("import", "link"))
    options = parser.parse_args()
    print(f"{options.segments} segments x {options.rules} rules, every agent, claude = {options.claude!r}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        write_repo(root, options.segments, options.rules)
        manifest = root / "rules.toml"
        listed = ", ".join(f'"{name}"' for name in names())
        manifest.write_text(manifest.read_text().replace(
            "[sources]", f'[compile]\nagents = [{listed}]\nclaude = "{options.claude}"\n\n[sources]'))
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / "user-cache")
        before = os.times()
        done = subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=root, env=env, capture_output=True,
                              text=True)
        after = os.times()
        if done.returncode:
            sys.exit(done.stdout[-2000:] + done.stderr[-2000:])
        compile_cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        _, segments = read_settings(manifest)
        rules = in_force(root / "cache", segments)
        start = time.process_time()
        findings = prove(root, names(), rules)
        proof_cpu = time.process_time() - start
        print(f"compile {compile_cpu:.2f} s CPU; proof {proof_cpu:.2f} s CPU ({len(findings)} views): "
              f"{proof_cpu / compile_cpu:.2f}x the compile (target < 0.1x)")
        rows: dict[tuple[str, str], dict] = {}
        for finding in findings:
            key = (finding.view.agent, finding.view.product)
            row = rows.setdefault(key, {"views": 0, "hold": 0, "root": 0, "deepest": 0, "where": "", "missed": 0})
            row["views"] += 1
            row["hold"] += finding.holds
            row["missed"] = max(row["missed"], len(finding.missed))
            if finding.segment == ".":
                row["root"] = max(row["root"], finding.view.size)
            elif finding.view.size > row["deepest"]:
                row["deepest"], row["where"] = finding.view.size, finding.segment
        print("| agent | product | views that hold | bytes, file at the root | bytes, largest segment view | "
              "most rules missed by a view |")
        print("|---|---|---:|---:|---:|---:|")
        for (agent, product), row in rows.items():
            print(f"| {agent} | {product} | {row['hold']} of {row['views']} | {row['root']} | {row['deepest']} "
                  f"({row['where'] or '—'}) | {row['missed']} |")


if __name__ == "__main__":
    main()
