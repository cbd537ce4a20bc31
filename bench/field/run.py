"""The field corpus as a benchmark: accuracy of the checks on real repositories, and their time.

The corpus (`bench/field/corpus/`, first copied from the shared set's `field/`: real repositories as git bundles, with
the manifest a maintainer would pick, labels judged from each rule's text and a patch that seeds
known violations) is evaluated by its own runner, `field.py`, against this checkout. This script
runs it, times it, and prints its figures: false positives among the reported findings, false
negatives, seeded violations caught, and the compile / check seconds it measured per repository.

Run: uv run python bench/field/run.py [FIELD_FOLDER] [--selection manifest|init|init-full]
     (default: bench/field/corpus, or $FIELD_DIR; `--selection` goes to the runner: the maintainers'
     manifests, init's default set, or init's packages in full)
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path,
                        default=Path(os.environ.get("FIELD_DIR", CHECKOUT / "bench" / "field" / "corpus")))
    parser.add_argument("--selection", choices=("manifest", "init", "init-full"), default="manifest")
    args = parser.parse_args()
    folder = args.folder
    runner = folder / "field.py"
    if not runner.is_file():
        print(f"no field corpus at {folder} (expected {runner}): pass its folder as the argument", file=sys.stderr)
        return 2
    started = time.perf_counter()
    selection = [] if args.selection == "manifest" else ["--selection", args.selection]  # the shared runner has no option
    done = subprocess.run([sys.executable, str(runner), str(CHECKOUT), *selection], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    lines = done.stdout.splitlines()
    for line in lines:
        if re.match(r"\S+: true findings found", line.strip()) or line.startswith(("total:", "field:")):
            print(line.strip())
    print(f"wall time {seconds:.1f} s on {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")
    if done.returncode != 0 and not any(line.startswith("field:") for line in lines):
        print(done.stdout[-2000:] + done.stderr[-2000:], file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
