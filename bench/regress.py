"""Regression benchmark: where users wait, as ratios of a yardstick run in the same pairs, against the
figures committed in `bench/regress.json`; fails on a regression above 25 %.

    uv run python bench/regress.py            # compare (what .ci/run runs: about a minute)
    uv run python bench/regress.py --record   # measure and write the figures to bench/regress.json

Each case is a command and its yardstick, the bare interpreter (`python3 -I -S -c 0`): started in
turn, A B A B …, and the CPU time (user + system, of the process and every child it waited for) of
A divided by B's, pair by pair. The figure is the median of those ratios. Pairing and the median keep
it meaningful on a shared machine whose speed drifts; CPU time hardly counts waiting for a core.
A case above its committed figure × 1.25 is measured once more with twice the pairs and fails only
if it is above again (a burst of load on a noisy machine is not a regression).

The cases:
  * hook: `pdks hook claude-code` as compile writes it in this repository (a uv project: the
    launcher's locked-environment form), a 30-entry covenant config and a 2,000-line transcript;
  * stop: the Stop hook (`python -m agent_constitution.checks.stop`) on this repository with that
    transcript;
  * stop-adopted: the Stop hook as compile writes it in a small repository adopted with
    `agent-constitution init` from this checkout, its adoption committed, with that transcript: the
    selection users run, whose checks come from a locked snapshot rather than a path source;
  * version: `agent-constitution --version`;
  * compile, check: a no-op `agent-constitution compile` / `check` in a small repository adopted
    with `agent-constitution init` from this checkout.
Absolute times are printed beside the ratios, for the record; only the ratios are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
FIGURES = PROJECT / "bench" / "regress.json"
BIN = Path(sys.executable).parent
FLOOR = [os.path.realpath(sys.executable), "-I", "-S", "-c", "0"]
TOLERANCE = 1.25

sys.path.insert(0, str(PROJECT / "bench"))


def cpu_of(argv: list[str], cwd: Path, env: dict[str, str], stdin: Path | None) -> float:
    """CPU seconds of one process and the children it waited for (wait4's accounting of it)."""
    with open(stdin or os.devnull, "rb") as given:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=given, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 2):
        raise SystemExit(f"{' '.join(argv)[:200]} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


class Case:
    def __init__(self, name: str, argv: list[str], cwd: Path, env: dict[str, str], stdin: Path | None = None):
        self.name, self.argv, self.cwd, self.env, self.stdin = name, argv, cwd, env, stdin

    def pairs(self, count: int) -> tuple[float, float, float]:
        """(median ratio, median CPU of the case, median CPU of the floor) over `count` pairs."""
        for _ in range(2):  # warm-up: bytecode, the launcher's sync stamp, the doit state
            cpu_of(self.argv, self.cwd, self.env, self.stdin)
        ratios, mine, floors = [], [], []
        for _ in range(count):
            a = cpu_of(self.argv, self.cwd, self.env, self.stdin)
            b = cpu_of(FLOOR, self.cwd, self.env, None)
            ratios.append(a / max(b, 1e-4))
            mine.append(a)
            floors.append(b)
        return statistics.median(ratios), statistics.median(mine), statistics.median(floors)


def cases(base: Path) -> list[Case]:
    import bench_pdks

    from agent_constitution.compile import hooks
    from agent_constitution.hosts import launcher

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "CI", "GITHUB_ACTIONS")}
    env["AGENT_CONSTITUTION_CACHE"] = str(base / "cache")
    covenant = base / "covenant"
    covenant.mkdir()
    (covenant / "polydeukes.config.yaml").write_text(bench_pdks.config_text())
    (covenant / "src").mkdir()
    (covenant / "src" / "app.ts").write_text("x=a\n")
    transcript = covenant / "session.jsonl"
    bench_pdks.write_transcript(transcript, 2000)
    payload = base / "hook.json"
    payload.write_bytes(bench_pdks.hook_payload(covenant, transcript))
    stop = base / "stop.json"
    stop.write_text(json.dumps({"session_id": "s1", "transcript_path": str(transcript), "cwd": str(PROJECT),
                                "hook_event_name": "Stop", "stop_hook_active": False}))
    hook = launcher.command(PROJECT, launcher.covenant_hook("claude-code"))
    stop_hook = hooks.stop_command(PROJECT)

    small = base / "small"
    subprocess.run(["git", "clone", "-q", "--bare", str(PROJECT), str(base / "ac.git")], check=True)
    subprocess.run(["git", "init", "-q", str(small)], check=True)
    tool = str(BIN / "agent-constitution")
    small_env = {**env, "AGENT_CONSTITUTION_STARTER_URL": (base / "ac.git").as_uri()}
    for verb in ("init", "compile", "check"):
        subprocess.run([tool, verb], cwd=small, env=small_env, capture_output=True)
    adopted = base / "adopted"
    subprocess.run(["git", "init", "-q", str(adopted)], check=True)
    (adopted / "README.md").write_text("# adopted\n")
    for verb in ("init", "compile"):
        subprocess.run([tool, verb], cwd=adopted, env=small_env, capture_output=True)
    subprocess.run(["git", "add", "-A"], cwd=adopted, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm",
                    "Adopt agent-constitution"], cwd=adopted, check=True)
    adopted_stop = base / "adopted-stop.json"
    adopted_stop.write_text(json.dumps({"session_id": "s1", "transcript_path": str(transcript), "cwd": str(adopted),
                                        "hook_event_name": "Stop", "stop_hook_active": False}))
    return [
        Case("hook", ["/bin/sh", "-c", hook], PROJECT, {**env, "CLAUDE_PROJECT_DIR": str(covenant)}, payload),
        Case("stop", ["/bin/sh", "-c", stop_hook], PROJECT, {**env, "CLAUDE_PROJECT_DIR": str(PROJECT)}, stop),
        Case("stop-adopted", ["/bin/sh", "-c", hooks.stop_command(adopted)], adopted,
             {**small_env, "CLAUDE_PROJECT_DIR": str(adopted)}, adopted_stop),
        Case("version", [tool, "--version"], small, env),
        Case("compile", [tool, "compile"], small, small_env),
        Case("check", [tool, "check"], small, small_env),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the measured figures to bench/regress.json")
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--only", help="comma-separated case names")
    given = parser.parse_args()
    figures = json.loads(FIGURES.read_text()) if FIGURES.is_file() else {}
    if shutil.which("uv") is None:
        print("regress: uv is not on PATH; the hook case needs it", file=sys.stderr)
        return 2
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()}, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; CPU medians of {given.pairs} pairs")
    failed, measured = [], {}
    with tempfile.TemporaryDirectory(prefix="ac-regress-") as tmp:
        for case in cases(Path(tmp)):
            if given.only and case.name not in given.only.split(","):
                continue
            ratio, mine, floor = case.pairs(given.pairs)
            committed = figures.get(case.name, {}).get("ratio")
            verdict = ""
            if committed is not None and not given.record and ratio > committed * TOLERANCE:
                again, mine, floor = case.pairs(given.pairs * 2)
                verdict = f" (above {committed * TOLERANCE:.2f}; again: {again:.2f}x)"
                ratio = min(ratio, again)
                if ratio > committed * TOLERANCE:
                    failed.append(case.name)
                    verdict += " REGRESSION"
            measured[case.name] = {"ratio": round(ratio, 2), "cpu_s": round(mine, 4)}
            shown = f"committed {committed:.2f}x" if committed is not None else "no committed figure"
            print(f"{case.name:<12} {ratio:6.2f}x the interpreter ({mine * 1000:7.1f} ms against {floor * 1000:5.1f} ms)"
                  f"   {shown}{verdict}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    if given.record:
        FIGURES.write_text(json.dumps({**figures, **measured}, indent=2, sort_keys=True) + "\n")
        print(f"wrote {FIGURES.relative_to(PROJECT)}")
        return 0
    if failed:
        print(f"regress: {', '.join(failed)} slower than the committed figure by more than 25 % twice "
              "(bench/regress.json; re-record with --record when the change is meant)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
