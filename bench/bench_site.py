"""Benchmark `doit site`: a full build of a synthetic 5,000-rule source (target: under 20 s), then
a no-op rebuild, a one-rule text edit and a one-rule title edit, counting the pages each rebuilds.

    uv run python bench/bench_site.py [RULES]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "site"))

from site_fixtures import large_source, run_site  # noqa: E402


def timed(root: Path, output: Path) -> tuple[str, list[str]]:
    """'wall s (cpu s)': the machine is shared, so the CPU time of this process is shown beside the wall time."""
    wall, cpu = time.perf_counter(), time.process_time()
    code, ran = run_site(root, output)
    if code != 0:
        raise SystemExit("\n".join(ran))
    return f"{time.perf_counter() - wall:6.2f} s (cpu {time.process_time() - cpu:5.2f} s)", ran


def pages(ran: list[str]) -> list[str]:
    return [name for name in ran if name != "site:models"]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        root = large_source(Path(folder) / "big", count)
        print(f"synthetic source: {count} rules, 2 languages, made in {time.perf_counter() - start:.1f} s")
        output = root / "public"
        seconds, ran = timed(root, output)
        files = sum(1 for path in output.rglob("*") if path.is_file())
        print(f"full build:        {seconds}  {len(pages(ran))} pages ({files} files)   target < 20 s")
        seconds, ran = timed(root, output)
        print(f"no-op rebuild:     {seconds}  {len(pages(ran))} pages rebuilt")
        rule = root / "rules" / "1234.toml"
        rule.write_text(rule.read_text(encoding="utf-8").replace("to be done", "to be finished"), encoding="utf-8")
        seconds, ran = timed(root, output)
        print(f"edit rule 1234's English text:  {seconds}  {len(pages(ran))} pages rebuilt: {', '.join(pages(ran))}")
        rule.write_text(rule.read_text(encoding="utf-8").replace("Rule number 1234", "Rule no. 1234"), encoding="utf-8")
        seconds, ran = timed(root, output)
        print(f"edit rule 1234's English title: {seconds}  {len(pages(ran))} pages rebuilt: {', '.join(pages(ran))}")


if __name__ == "__main__":
    main()
