"""How many true findings `check --fix` mends on the field corpus, safe and unsafe.

Per repository, adopted as the corpus's runner adopts it (bench/field/change_adds.py): the true
findings of `check` (those its labels confirm, matched as field.py matches them), then the ones
left after `agent-constitution check --fix` (safe fixes) and after `--fix --unsafe-fixes` on top;
then the same with the seed patch applied and committed (each seeded violation is true by
construction; a seed counts as mended when no finding of its rule is left in its file). ac:31's
fix asks the action's repository for the tag's commit (`git ls-remote`): offline it is counted as
not mended, with its reason in the last column.

Run: uv run python bench/field/fix_counts.py [FIELD_FOLDER]   (default: bench/field/corpus, or $FIELD_DIR)
With AGENT_CONSTITUTION_BENCH_EXTRA=ac:71 every manifest also selects those rules; their findings
have no labels, so they are counted apart (all findings of the extra rules, before and after).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from pathlib import Path

from change_adds import doit, load_field

# AGENT_CONSTITUTION_BENCH_EXTRA=ac:71: also select these rules (comma-separated) in every manifest.
EXTRA = [ref for ref in os.environ.get("AGENT_CONSTITUTION_BENCH_EXTRA", "").split(",") if ref]
from check_time import CHECKOUT, DODO, GIT, clone


def fix(root: Path, env: dict, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agent_constitution.cli", "check", *flags], cwd=root, env=env,
                          capture_output=True, text=True)


def true_found(field, root: Path, labels: dict, first: Counter | None = None) -> Counter:
    """The labelled true findings the last report still has, by rule. After a fix, lines move (an
    inserted `permissions:` block shifts every finding below it), so a rule's true findings left are
    its findings now, at most the true ones it had (`first`): the corpus's checks report no false
    positive (FP 0/47), and a fix adds no finding its check did not report. A rule that could not
    decide counts apart (its findings are not known to be mended)."""
    results = field.read_report(root)
    if first is not None:
        now = Counter({r.ref: len(r.findings) for r in results if r.outcome == "violation"})
        found = Counter({ref: min(count, now[ref]) for ref, count in first.items()
                         if not ref.startswith("undecidable ") and ref not in EXTRA})
        found.update({f"undecidable {r.ref}": 1 for r in results if r.outcome == "undecidable"})
        found.update({r.ref: len(r.findings) for r in results if r.ref in EXTRA and r.outcome == "violation"})
        return +found
    scores, _ = field.score(results, labels)
    found = Counter({rule.ref: rule.found for rule in scores if rule.found and rule.ref not in EXTRA})
    found.update({f"{r.ref}": len(r.findings) for r in results if r.ref in EXTRA and r.outcome == "violation"})
    found.update({f"undecidable {rule.ref}": 1 for rule in scores if rule.outcome == "undecidable"})
    return found


def carried(before: Counter, after: Counter) -> Counter:
    """`after`, with the count of `before` kept for each rule that is undecidable in `after`."""
    kept = Counter({ref: count for ref, count in after.items() if not ref.startswith("undecidable ")})
    for ref in before:
        if not ref.startswith("undecidable ") and f"undecidable {ref}" in after:
            kept[ref] = before[ref]
    return kept


def seeds_left(field, root: Path, seeds: list) -> Counter:
    results = field.read_report(root)
    left: Counter = Counter()
    for seed in seeds:
        if any(r.ref == seed["rule"] and any(f.path == seed["path"] for f in r.findings) for r in results):
            left[seed["rule"]] += 1
    return left


def rounds(field, root: Path, env: dict, count) -> tuple[Counter, Counter, Counter, str]:
    """(before, after --fix, after --fix --unsafe-fixes) by rule, and the notes of the last fix."""
    doit(root, env, "check")
    before = carried(Counter(), count(None))
    fix(root, env, "--fix")
    safe = carried(before, count(before))
    done = fix(root, env, "--fix", "--unsafe-fixes")
    notes = Counter(line.split(": ")[1] for line in done.stderr.splitlines() if line.startswith("note: "))
    offline = any("git ls-remote" in line for line in done.stderr.splitlines())
    said = ", ".join(f"{ref} {count}" for ref, count in sorted(notes.items()))
    return before, safe, carried(safe, count(before)), said + (" (ac:31: git ls-remote offline)" if offline else "")


def measure(name: str, folder: Path, work: Path, field) -> dict:
    root = work / name
    clone(folder / f"{name}.bundle", root)
    field.repair_shallow(root)
    spec = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
    if spec.get("repo", {}).get("branch"):
        subprocess.run([*GIT, "checkout", "-q", "-b", spec["repo"]["branch"]], cwd=root, check=True)
    body = spec["manifest"]["body"].replace("@RULES@", str(CHECKOUT))
    for ref in EXTRA:  # rules the maintainer did not pick, to see what their fixes would mend
        body = body.replace("rules = [", f'rules = ["{ref}", ', 1)
    (root / "rules.toml").write_text(body, encoding="utf-8")
    (root / "dodo.py").write_text(DODO, encoding="utf-8")
    (root / "cache").mkdir(exist_ok=True)
    (root / "cache" / ".gitignore").write_text("*\n!.gitignore\n", encoding="utf-8")
    env = field.tool_env(work)
    env.pop("GITHUB_SERVER_URL", None)
    done, _ = doit(root, env, "compile")
    if done.returncode != 0:
        return {"error": (done.stdout + done.stderr)[-1500:]}
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "Adopt agent-constitution (bench)"], cwd=root, check=True)
    labels = spec.get("labels", {})
    adopted = rounds(field, root, env, lambda first: true_found(field, root, labels, first))
    subprocess.run([*GIT, "reset", "-q", "--hard"], cwd=root, check=True)
    subprocess.run([*GIT, "clean", "-qfd", "--", ".github", "."], cwd=root, check=True)
    seeds = spec.get("seeded", [])
    seeded = (Counter(), Counter(), Counter(), "")
    if seeds:
        subprocess.run([*GIT, "apply", "--index", str(folder / f"{name}.seed.patch")], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-qm", "Seed violations (bench)"], cwd=root, check=True)
        seeded = rounds(field, root, env, lambda first: seeds_left(field, root, seeds))
    return {"adopted": adopted, "seeded": seeded}


def mended(before: Counter, safe: Counter, unsafe: Counter) -> tuple[int, int, int, dict]:
    total = sum(before.values())
    by_rule = {ref: (before[ref] - safe[ref], safe[ref] - unsafe[ref]) for ref in before
               if before[ref] - unsafe[ref]}
    return total, total - sum(safe.values()), sum(safe.values()) - sum(unsafe.values()), by_rule


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FIELD_DIR", CHECKOUT / "bench" / "field" / "corpus"))
    names = sorted(path.stem for path in folder.glob("*.toml") if (folder / f"{path.stem}.bundle").is_file())
    if not names:
        print(f"no field corpus at {folder}: pass its folder as the argument", file=sys.stderr)
        return 2
    field = load_field(folder)
    work = Path(tempfile.mkdtemp(prefix="bench-field-fix-"))
    totals = Counter()
    try:
        print("repository  state    true findings  mended safe  mended unsafe  by rule (safe, unsafe)  why not (first notes)")
        for name in names:
            row = measure(name, folder, work, field)
            if "error" in row:
                print(f"{name}: ERROR {row['error']}")
                continue
            for state in ("adopted", "seeded"):
                before, safe, unsafe, notes = row[state]
                total, by_safe, by_unsafe, by_rule = mended(before, safe, unsafe)
                totals.update({f"{state} true": total, f"{state} safe": by_safe, f"{state} unsafe": by_unsafe})
                rules = ", ".join(f"{ref} {s}+{u}" for ref, (s, u) in sorted(by_rule.items()))
                print(f"{name:<10}  {state:<7}  {total:>13}  {by_safe:>11}  {by_unsafe:>13}  {rules or '-':<22}  "
                      f"{notes}")
        print(json.dumps(dict(totals)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
