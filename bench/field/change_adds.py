"""A change is judged by what it adds, measured on the field corpus.

Per repository, adopted as the corpus's runner adopts it (bench/field/check_time.py): the failing
findings a docs-only change gets (README.md edited and staged, `doit check change=staged`), before
(every repository finding fails, one line per segment: what the runner reported before changes were
judged by what they add) and after (target 0); the wall time of that check with the base tree's
findings computed and kept in cache/checks/base/, and again with them kept; and the seeded
violations (`NAME.seed.patch`, committed, `doit check change=HEAD~1..HEAD`, matched as field.py
matches them) still caught (target: all).

Run: uv run python bench/field/change_adds.py [FIELD_FOLDER]   (default: bench/field/corpus, or $FIELD_DIR)
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from check_time import CHECKOUT, DODO, GIT, clone


def load_field(folder: Path):
    spec = importlib.util.spec_from_file_location("field", folder / "field.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["field"] = module
    spec.loader.exec_module(module)
    return module


def doit(root: Path, env: dict, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, env=env, capture_output=True, text=True)
    return done, time.perf_counter() - start


def counts(root: Path) -> tuple[int, int]:
    """(failing findings as reported before, failing findings now) of the last report."""
    report = json.loads((root / "cache/checks/report.json").read_text(encoding="utf-8"))
    before = sum(len(r["findings"]) + len(r.get("preexisting", ())) for r in report["results"]
                 if r["findings"] or r.get("preexisting"))
    now = sum(1 for finding in report["findings"] if finding["status"] == "new")
    return before, now


def measure(name: str, folder: Path, work: Path, field) -> dict:
    root = work / name
    clone(folder / f"{name}.bundle", root)
    field.repair_shallow(root)
    spec = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
    if spec.get("repo", {}).get("branch"):
        subprocess.run([*GIT, "checkout", "-q", "-b", spec["repo"]["branch"]], cwd=root, check=True)
    (root / "rules.toml").write_text(spec["manifest"]["body"].replace("@RULES@", str(CHECKOUT)), encoding="utf-8")
    (root / "dodo.py").write_text(DODO, encoding="utf-8")
    (root / "cache").mkdir(exist_ok=True)
    (root / "cache" / ".gitignore").write_text("*\n!.gitignore\n", encoding="utf-8")
    env = field.tool_env(work)
    for variable in ("CLAUDECODE", "CODEX_SANDBOX", "CODEX_THREAD_ID", "GEMINI_CLI", "CURSOR_AGENT", "CLINE_ACTIVE",
                     "AGENT_CONSTITUTION_AGENT", "CODEX_SANDBOX_NETWORK_DISABLED"):
        env.pop(variable, None)  # a person's commit
    done, _ = doit(root, env, "compile")
    if done.returncode != 0:
        return {"error": (done.stdout + done.stderr)[-1500:]}
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "Adopt agent-constitution (bench)"], cwd=root, check=True)
    _, full_seconds = doit(root, env, "check")
    full = field.read_report(root)
    readme = next((p for p in ("README.md", "README.rst", "README") if (root / p).is_file()), "README.md")
    with (root / readme).open("a", encoding="utf-8") as text:
        text.write("\nOne more line of documentation.\n")
    subprocess.run([*GIT, "add", readme], cwd=root, check=True)
    docs, first = doit(root, env, "check", "change=staged")
    before, after = counts(root)
    _, again = doit(root, env, "check", "change=staged")
    subprocess.run([*GIT, "checkout", "-q", "--", "."], cwd=root, check=True)
    subprocess.run([*GIT, "reset", "-q", "--hard"], cwd=root, check=True)
    seeds = spec.get("seeded", [])
    caught = 0
    if seeds:
        earlier = {(r.segment, r.ref): r for r in full}
        subprocess.run([*GIT, "apply", "--index", str(folder / f"{name}.seed.patch")], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-qm", "Seed violations (bench)"], cwd=root, check=True)
        doit(root, env, "check", "change=HEAD~1..HEAD")
        later = field.read_report(root)
        caught = sum(field._caught(seed, earlier, later) for seed in seeds)
    return {"docs exit": docs.returncode, "before": before, "after": after, "full check s": full_seconds,
            "change check s (base computed)": first, "change check s (base kept)": again,
            "seeded": len(seeds), "caught": caught}


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FIELD_DIR", CHECKOUT / "bench" / "field" / "corpus"))
    names = sorted(path.stem for path in folder.glob("*.toml") if (folder / f"{path.stem}.bundle").is_file())
    if not names:
        print(f"no field corpus at {folder}: pass its folder as the argument", file=sys.stderr)
        return 2
    field = load_field(folder)
    work = Path(tempfile.mkdtemp(prefix="bench-field-change-"))
    failed = False
    try:
        print("repository  docs-only change: failing findings before -> after (exit)  seeded caught  "
              "seconds: full check / change check, base computed / base kept")
        for name in names:
            row = measure(name, folder, work, field)
            if "error" in row:
                print(f"{name}: ERROR {row['error']}")
                failed = True
                continue
            failed |= row["after"] != 0 or row["caught"] != row["seeded"]
            print(f"{name:<10}  {row['before']:>4} -> {row['after']} (exit {row['docs exit']})"
                  f"{'':<26}{row['caught']}/{row['seeded']}"
                  f"{'':<10}{row['full check s']:.1f} / {row['change check s (base computed)']:.1f} / "
                  f"{row['change check s (base kept)']:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
