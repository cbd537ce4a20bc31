"""`doit check` on the largest repository of the field corpus: from scratch and with nothing changed,
against doit's floor in the same repository (`doit list`, which loads the same task graph).

The repository with the most tracked files is cloned from its bundle and adopted as the corpus's
runner adopts it (its manifest with this checkout as the rule source, dodo.py, cache/.gitignore,
`doit compile`, committed). Then three interleaved rounds of: `doit list`; `doit check` from scratch
(cache/checks and doit's record removed, the resolution kept, as after a first `doit compile`);
`doit check` with nothing changed. Medians of wall and CPU seconds, and the ratios to `doit list`.
Target: a no-op check within 0.5 s of the floor.

Run: uv run python bench/field/check_time.py [FIELD_FOLDER]   (default: bench/field/corpus, or $FIELD_DIR)
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
DODO = "from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "core.hooksPath=/dev/null",
       "-c", "commit.gpgsign=false", "-c", "advice.detachedHead=false"]
ROUNDS = 3


def clone(bundle: Path, target: Path) -> int:
    subprocess.run([*GIT, "clone", "-q", str(bundle), str(target)], check=True, capture_output=True)
    return len(subprocess.run(["git", "ls-files", "-z"], cwd=target, capture_output=True, check=True).stdout.split(b"\0")) - 1


def timed(root: Path, env: dict, *args: str) -> tuple[float, float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FIELD_DIR", CHECKOUT / "bench" / "field" / "corpus"))
    names = sorted(path.stem for path in folder.glob("*.toml") if (folder / f"{path.stem}.bundle").is_file())
    if not names:
        print(f"no field corpus at {folder}: pass its folder as the argument", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="bench-field-check-"))
    try:
        sizes = {name: clone(folder / f"{name}.bundle", work / name) for name in names}
        name = max(sizes, key=sizes.get)
        root = work / name
        spec = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
        (root / "rules.toml").write_text(spec["manifest"]["body"].replace("@RULES@", str(CHECKOUT)), encoding="utf-8")
        (root / "dodo.py").write_text(DODO, encoding="utf-8")
        (root / "cache").mkdir(exist_ok=True)
        (root / "cache" / ".gitignore").write_text("*\n!.gitignore\n", encoding="utf-8")
        env = {key: value for key, value in os.environ.items() if key not in {"CI", "GITHUB_ACTIONS", "VIRTUAL_ENV"}}
        env.update(AGENT_CONSTITUTION_CACHE=str(work / "user-cache"), AGENT_CONSTITUTION_CONFIG=str(work / "user-config"))
        _, _, done = timed(root, env, "compile")
        if done.returncode != 0:
            print(done.stdout[-2000:] + done.stderr[-2000:], file=sys.stderr)
            return 1
        subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-qm", "Adopt agent-constitution (bench)"], cwd=root, check=True)
        print(f"{name}: {sizes[name]} tracked files (the largest of {', '.join(f'{n} {c}' for n, c in sizes.items())})")
        figures: dict[str, list[tuple[float, float]]] = {"list": [], "full": [], "no-op": []}
        for _ in range(ROUNDS):
            wall, cpu, _ = timed(root, env, "list")
            figures["list"].append((wall, cpu))
            shutil.rmtree(root / "cache" / "checks", ignore_errors=True)
            (root / "cache" / "doit.sqlite3").unlink(missing_ok=True)
            wall, cpu, full = timed(root, env, "check")
            figures["full"].append((wall, cpu))
            wall, cpu, noop = timed(root, env, "check")
            figures["no-op"].append((wall, cpu))
        ran = sum(line.startswith(".  ") for line in noop.stdout.splitlines())
        print(f"last full run: {sum(line.startswith('.  ') for line in full.stdout.splitlines())} tasks ran, "
              f"exit {full.returncode}; last no-op: {ran} ran (the report re-runs while a violation remains)")
        median = {what: tuple(sorted(values)[len(values) // 2] for values in zip(*runs)) for what, runs in figures.items()}
        floor_wall, floor_cpu = median["list"]
        for what in ("list", "full", "no-op"):
            wall, cpu = median[what]
            print(f"doit {what if what == 'list' else 'check, ' + what}: {wall:.2f} s wall, {cpu:.2f} s CPU; "
                  f"{wall / floor_wall:.2f}x the floor (wall), {cpu / floor_cpu:.2f}x (CPU)")
        over = median["no-op"][0] - floor_wall
        print(f"no-op check over the floor: {over:+.2f} s wall, {median['no-op'][1] - floor_cpu:+.2f} s CPU "
              f"[target < 0.5 s]")
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
              f"load average {os.getloadavg()[0]:.2f}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
