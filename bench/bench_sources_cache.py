"""Benchmark the user-level source cache: cold fill, warm reuse of a pinned commit, a path source digest.

Run: uv run python bench/bench_sources_cache.py [RULES]   (default 1000 rule files, about the size of a large
source). Everything happens in a temp folder with a private cache; nothing reaches the network.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        os.environ["AGENT_CONSTITUTION_CACHE"] = str(base / "cache")
        from agent_constitution.sources import fetch

        repo = base / "source"
        (repo / "rules" / "checks").mkdir(parents=True)
        for number in range(1, count + 1):
            text = f'id = {number}\nrevision = 1\nstatus = "active"\nparent = "d"\n[title]\nen = "Rule {number}"\n'
            (repo / "rules" / f"{number}.toml").write_text(text + "[text]\nen = '" + "word " * 60 + "'\n")
            (repo / "rules" / "checks" / f"r{number}.py").write_text(f"RULE = {number}\n" + "# line\n" * 20)
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
        subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
        subprocess.run([*git, "commit", "-qm", "rules"], cwd=repo, check=True)

        started = time.perf_counter()
        snapshot = fetch(url=str(repo), base_dir=base)
        cold = time.perf_counter() - started
        runs = 20
        started = time.perf_counter()
        for _ in range(runs):
            fetch(url=str(repo), commit=snapshot.commit, base_dir=base)
        warm = (time.perf_counter() - started) / runs
        started = time.perf_counter()
        for _ in range(runs):
            fetch(path=str(repo), base_dir=base)
        plain = (time.perf_counter() - started) / runs
    print(f"source of {count} rules and {count} check modules ({2 * count} files)")
    print(f"cold fetch (git fetch + extract + digest):     {cold * 1000:.0f} ms")
    print(f"warm fetch of a pinned commit (verify vs git): {warm * 1000:.1f} ms")
    print(f"path source (check + digest of the folder):    {plain * 1000:.1f} ms")


if __name__ == "__main__":
    main()
