"""Benchmark the constitution compiler (seed 001).

1. Render a synthetic constitution of 300 articles × 10 sections × 5 items in two languages
   (target: under 2 s): reading and validating the sources, the checks, rendering both editions of
   both languages, writing generated/.
2. A no-op `uv run doit compile` against `uv run doit list` on the same repo (target: within 100 ms).

Run: uv run python bench/bench_render.py
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_constitution.edition import checks
from agent_constitution.edition.build import build
from agent_constitution.edition.render import outputs
from agent_constitution.edition.files import load, read_worktree

ARTICLES, SECTIONS, ITEMS = 300, 10, 5
PROJECT = Path(__file__).resolve().parent.parent


def synthesize(root: Path) -> None:
    edition = root / "constitution" / "2026-10"
    (edition / "articles").mkdir(parents=True)
    (edition / "index.toml").write_text(
        'status = "draft"\nedition = "2026-10"\nrevision = "0.1"\nlanguages = ["en", "zh"]\n'
        '[title]\nen = "Synthetic Constitution"\nzh = "合成宪法"\n'
        "[front]\nen = '''\n## Preamble\n\nSee {@s1-1}.\n'''\nzh = '''\n## 序言\n\n见{@s1-1}。\n'''\n",
        encoding="utf-8")
    for a in range(1, ARTICLES + 1):
        # Past 99 the prefix takes the digits it needs (100-a100).
        folder = edition / "articles" / f"{a:02d}-a{a}"
        folder.mkdir()
        (folder / "article.toml").write_text(
            f'id = "a{a}"\n[title]\nen = "Article {a}"\nzh = "第 {a} 条"\n', encoding="utf-8")
        for s in range(1, SECTIONS + 1):
            items = "".join(
                f'[[items]]\nid = "i{i}"\nnumber = "{i}"\nstatus = "draft"\n'
                f'[items.content]\nen = "Item {i}, see {{@s{a}-{s}.i1}} or {{@s{a}-{s}.i2}}."\n'
                f'zh = "第 {i} 项，见{{@s{a}-{s}.i1}}或{{@s{a}-{s}.i2}}。"\n'
                for i in range(1, ITEMS + 1))
            audience = 'audience = "maintainers"\n' if s == SECTIONS else ""
            (folder / f"{s:02d}-s{a}-{s}.toml").write_text(
                f'id = "s{a}-{s}"\nstatus = "draft"\n{audience}'
                f"[content]\nen = '''\nSection {s} of {{@a{a}}}:\nsecond line.\n'''\n"
                f"zh = '''\n{{@a{a}}}的第 {s} 款：\n第二行。\n'''\n{items}",
                encoding="utf-8")


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def run(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of a command and its children; CPU time is steadier on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    print(f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        synthesize(root)
        print(f"synthetic constitution: {ARTICLES} articles × {SECTIONS} sections × {ITEMS} items, 2 languages")
        read_time, sources = timed(lambda: read_worktree(root))
        load_time, edition = timed(lambda: load(sources))
        check_time, errors = timed(lambda: checks.source_checks(edition))
        assert not errors, errors[:3]
        render_time, files = timed(lambda: outputs(edition))
        print(f"  read {len(sources)} files {read_time:.3f} s, validate {load_time:.3f} s, "
              f"checks {check_time:.3f} s, render {render_time:.3f} s "
              f"({sum(map(len, files.values())) / 1e6:.1f} MB)")
        cpu = time.process_time()
        total, _ = timed(lambda: build(root))
        print(f"  constitution-build, end to end (target < 2 s): {total:.3f} s wall, {time.process_time() - cpu:.3f} s CPU"
              f" (load average {os.getloadavg()[0]:.1f})")

        (root / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n', encoding="utf-8")
        uv = shutil.which("uv")
        prefix = ([uv, "run", "--project", str(PROJECT)] if uv else [sys.executable, "-m"]) + ["doit"]
        run(prefix + ["compile"], root)    # writes nothing: build() above already did
        # Interleaved, so that load from other processes on the machine hits both alike.
        compile_times, list_times = [], []
        for _ in range(11):
            compile_times.append(run(prefix + ["compile"], root))
            list_times.append(run(prefix + ["list"], root))
        for kind, index in (("wall", 0), ("CPU", 1)):
            compile_median = statistics.median(times[index] for times in compile_times)
            list_median = statistics.median(times[index] for times in list_times)
            print(f"  no-op `uv run doit compile` vs `uv run doit list`, median of 11, {kind}: {compile_median:.3f} s vs "
                  f"{list_median:.3f} s, difference {1000 * (compile_median - list_median):.0f} ms (target ≤ 100 ms)")
        in_process = _in_process(root)
        print(f"  the same inside one process (no interpreter start-up), median of 11: compile {in_process['compile']:.3f} s"
              f" vs list {in_process['list']:.3f} s, difference {1000 * (in_process['compile'] - in_process['list']):.0f} ms")


def _in_process(root: Path) -> dict[str, float]:
    """Median seconds of `doit compile` and `doit list` run through doit's API in this process."""
    from doit.doit_cmd import DoitMain

    from agent_constitution.loader import Loader

    here = os.getcwd()
    # doit writes to the stdout it saw at import: silence the file descriptor itself.
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
    os.chdir(root)
    try:
        times: dict[str, list[float]] = {"compile": [], "list": []}
        for _ in range(11):
            for command in times:
                start = time.perf_counter()
                DoitMain(Loader(), extra_config={"GLOBAL": {}}).run([command])
                sys.stdout.flush()
                times[command].append(time.perf_counter() - start)
        return {command: statistics.median(values) for command, values in times.items()}
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.chdir(here)


if __name__ == "__main__":
    main()
