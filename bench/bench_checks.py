"""Benchmark the check runner.

A synthetic git repository of 20,000 files (200 packages of 100 files, plus 500 git-ignored build
files that must not be scanned) holds a rule source of 500 rules, each with a python check: a third
read one file, a third read the 50 python files of one package, a third glob every package's
pyproject.toml. Figures:

1. the shared scan alone, and the 500 checks run in one process without doit;
2. `doit checks` from scratch (target: under 10 s, one scan of the tree), serially and with `-n 2`;
3. a no-op `doit checks` (target: under 1 s), and the scans it made (counted in-process); for
   comparison, the start-up cost of any doit command (`import agent_constitution.loader`);
4. `doit checks` after one input file changed (only the checks that read it run);
5. `doit check` (the whole group: the constitution's and the rule source's checks too) from scratch
   and with nothing changed, against `ruff check --no-cache` over the same tree (skipped, with the
   reason, when neither `ruff` nor `uvx` is there).

Run: uv run python bench/bench_checks.py

With `--repo CLONE` it measures a real repository instead (a clone of astral-sh/ruff, say; it is
changed: adopted with this checkout as its rule source, `rules = ["ac:git", "ac:python",
"ac:security"]`, compiled and committed): `agent-constitution check` from scratch (cache/checks
and doit's record removed) and with nothing changed, against `ruff check --no-cache` and, when
`pre-commit` is on PATH, `pre-commit run --all-files` with five hooks (trailing-whitespace,
end-of-file-fixer, check-yaml, check-added-large-files, ruff, as `repo: local` entries naming the
installed hooks: the machine may reach no git host; its fixers' edits are undone after each
round), CPU seconds of interleaved rounds, medians.
"""

from __future__ import annotations

import contextlib
import io
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

PACKAGES, FILES_PER_PACKAGE, RULES = 200, 100, 500
CHECKOUT = Path(__file__).resolve().parents[1]
EDITION = "2026-10"
GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "init.defaultBranch=main"]

CHECK_ONE_FILE = '''from agent_constitution.checks.api import Finding

RULE = {id}


def check(repo):
    path = "pkg{n}/README.md"
    if not repo.exists(path) or "pkg" not in repo.read_text(path):
        return [Finding("README missing or empty", path)]
    return []
'''

CHECK_PACKAGE = '''from agent_constitution.checks.api import Finding

RULE = {id}


def check(repo):
    return [Finding("TODO left", path, number)
            for path in repo.glob("pkg{n}/*.py")
            for number, line in enumerate(repo.read_text(path).splitlines(), 1) if "TODO" in line]
'''

CHECK_EVERY_PACKAGE = '''from agent_constitution.checks.api import Finding

RULE = {id}


def check(repo):
    found = set(repo.glob("pkg*/pyproject.toml"))
    return [Finding("package without pyproject.toml", f"pkg{{n}}")
            for n in range({packages}) if f"pkg{{n}}/pyproject.toml" not in found]
'''


def synthesize(root: Path) -> None:
    for n in range(PACKAGES):
        package = root / f"pkg{n}"
        (package / "src").mkdir(parents=True)
        (package / "README.md").write_text(f"# pkg{n}\n")
        (package / "pyproject.toml").write_text(f'[project]\nname = "pkg{n}"\n')
        for i in range(FILES_PER_PACKAGE - 2):
            folder = package if i < 50 else package / "src"
            (folder / f"m{i}.py").write_text(f"value = {i}\n\n\ndef f():\n    return value\n")
    (root / "build").mkdir()
    for i in range(500):
        (root / "build" / f"o{i}.o").write_text("x")
    (root / ".gitignore").write_text("build/\ncache/\n")
    rules, checks = root / "rules", root / "rules" / "checks"
    checks.mkdir(parents=True)
    (rules / "source.toml").write_text('name = "ac"\nlanguages = ["en"]\n[domains.bench]\ntitle = { en = "Bench" }\n')
    (checks / "__init__.py").write_text("")
    for rule_id in range(1, RULES + 1):
        n, kind = rule_id % PACKAGES, rule_id % 3
        inputs = [f"pkg{n}/README.md", f"pkg{n}/*.py", "pkg*/pyproject.toml"][kind]
        template = [CHECK_ONE_FILE, CHECK_PACKAGE, CHECK_EVERY_PACKAGE][kind]
        (rules / f"{rule_id}.toml").write_text(
            f'id = {rule_id}\nrevision = 1\nstatus = "draft"\nparent = "bench"\nauthority = ["verify"]\n'
            f'constitution = {{ min = "0.1" }}\n'
            f'[title]\nen = "Bench rule {rule_id}"\n[text]\nen = "Rule {rule_id}. It is synthetic. A check decides it."\n'
            f'[check]\npython = "r{rule_id}"\ninputs = ["{inputs}"]\n')
        (checks / f"r{rule_id}.py").write_text(template.format(id=rule_id, n=n, packages=PACKAGES))
    # The source publishes this checkout's constitution (sources and rendered editions), so that
    # `doit check`'s constitution and source checks have a real one to judge.
    shutil.copytree(CHECKOUT / "constitution" / EDITION, root / "constitution" / EDITION)
    revision = tomllib.loads((root / "constitution" / EDITION / "index.toml").read_text())["revision"]
    (root / "rules.toml").write_text(f'rules = ["ac:bench"]\n[constitution]\nsource = "ac"\nedition = "{EDITION}"\n'
                                     f'revision = "{revision}"\n[sources]\nac = {{ path = "." }}\n')
    (root / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "synthetic"], cwd=root, check=True)


def timed(root: Path, *args: str, argv: tuple[str, ...] = ("-m", "doit")) -> tuple[str, subprocess.CompletedProcess]:
    """Wall seconds and the CPU seconds (user + system) of the child: on a busy machine the CPU time
    is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv, *args], cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return f"{wall:.2f} s wall, {cpu:.2f} s CPU", done


def executed(done: subprocess.CompletedProcess) -> int:
    """Tasks that ran: checks, input-set digests and the report."""
    return sum(line.startswith(".  checks:") for line in done.stdout.splitlines())


def in_process(root: Path) -> None:
    from agent_constitution.checks import stage
    from agent_constitution.checks.runner import run_check

    start = time.perf_counter()
    scanned = stage.scan(root)
    scan_seconds = time.perf_counter() - start
    start = time.perf_counter()
    run = stage.prepare(root, root / "cache")
    prepared = time.perf_counter() - start
    start = time.perf_counter()
    results = [run_check(job.rule, job.segment, run.subjects) for job in run.plan.jobs]
    checked = time.perf_counter() - start
    outcomes = {r.outcome.value for r in results}
    print(f"scan: {len(scanned.files)} files in {scan_seconds:.3f} s")
    print(f"selection (a first run: resolving the manifest) + scan + plan (500 jobs, their file deps): {prepared:.3f} s")
    print(f"500 checks in one process, no doit: {checked:.3f} s (outcomes: {', '.join(sorted(outcomes))})")


def count_scans(root: Path) -> int:
    """Run a no-op `doit checks` in this process and count the scans it made. This process then holds
    the compile tasks' build lock until it exits, so it comes last."""
    from doit.doit_cmd import DoitMain

    from agent_constitution.checks import stage
    from agent_constitution.loader import Loader

    calls = []
    original = stage.scan

    def counting(path):
        calls.append(path)
        return original(path)

    stage.scan = counting
    here = Path.cwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            DoitMain(Loader(), config_filenames=()).run(["-r", "zero", "checks"])
    finally:
        os.chdir(here)
        stage.scan = original
    return len(calls)


def ruff_command() -> list[str] | None:
    """`ruff` itself when installed, else through uvx (which fetches it from PyPI once), else None."""
    if shutil.which("ruff"):
        return ["ruff"]
    if shutil.which("uvx") and subprocess.run(["uvx", "ruff", "--version"], capture_output=True).returncode == 0:
        return ["uvx", "ruff"]
    return None


def against_ruff(root: Path) -> None:
    """`doit check` (the group: the constitution's and the source's checks too) against `ruff check
    --no-cache` over the same tree, CPU seconds, interleaved so that both see the same load."""
    ruff = ruff_command()
    if ruff is None:
        print("ruff: skipped (neither ruff nor uvx is available to run it)")
        return
    ours_full, ours_noop, theirs = [], [], []
    for _ in range(3):
        shutil.rmtree(root / "cache", ignore_errors=True)  # doit's own record (cache/doit.sqlite3) too
        ours_full.append(cpu(root, "check"))
        ours_noop.append(cpu(root, "check"))
        theirs.append(cpu(root, "check", "--no-cache", "--quiet", "--exit-zero", ".", argv=tuple(ruff)))
    full, noop, lint = (sorted(values)[1] for values in (ours_full, ours_noop, theirs))
    print(f"doit check, from scratch: {full:.2f} s CPU; nothing changed: {noop:.2f} s CPU; "
          f"ruff check --no-cache: {lint:.2f} s CPU (medians of 3, interleaved)")
    print(f"ratios to ruff check --no-cache: from scratch {full / lint:.1f}x, nothing changed {noop / lint:.1f}x")


def cpu(root: Path, *args: str, argv: tuple[str, ...] = (sys.executable, "-m", "doit"), ok=(0,)) -> float:
    """CPU seconds (user + system) of one command and its children; it must exit with one of `ok`
    (a real repository's check finds violations: exit 1)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([*argv, *args], cwd=root, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode in ok, done.stdout[-3000:] + done.stderr[-3000:]
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


MANIFEST = """rules = ["ac:git", "ac:python", "ac:security"]

[constitution]
source = "ac"
edition = "{edition}"
revision = "{revision}"

[sources]
ac = {{ path = "{checkout}", trust = true }}

[choices]
"ac:python-package-manager" = "ac:17"
"ac:ci-service" = "ac:28"
"""

PRE_COMMIT = """repos:
  - repo: local
    hooks:
      - {id: trailing-whitespace, name: trailing-whitespace, entry: trailing-whitespace-fixer, language: system, types: [text]}
      - {id: end-of-file-fixer, name: end-of-file-fixer, entry: end-of-file-fixer, language: system, types: [text]}
      - {id: check-yaml, name: check-yaml, entry: check-yaml, language: system, types: [yaml], args: [--allow-multiple-documents, --unsafe]}
      - {id: check-added-large-files, name: check-added-large-files, entry: check-added-large-files, language: system}
      - {id: ruff, name: ruff, entry: ruff check --force-exclude --no-cache, language: system, types_or: [python, pyi]}
"""


def adopt(root: Path) -> None:
    """Make `root` select this checkout's rules, compile them and commit, as a team adopting it would."""
    revision = tomllib.loads((CHECKOUT / "constitution" / EDITION / "index.toml").read_text())["revision"]
    (root / "rules.toml").write_text(MANIFEST.format(edition=EDITION, revision=revision, checkout=CHECKOUT))
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    (root / "cache").mkdir(exist_ok=True)
    (root / "cache" / ".gitignore").write_text("*\n!.gitignore\n")
    done = subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "Adopt agent-constitution (bench)"],
                   cwd=root, check=True)


def on_a_clone(root: Path, rounds: int = 3) -> None:
    """`check` on a real repository against ruff and pre-commit, CPU seconds of interleaved rounds."""
    if not (root / "rules.toml").is_file():
        adopt(root)
    files = len(subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.split(b"\0")) - 1
    ruff = ruff_command()
    pre_commit = shutil.which("pre-commit")
    if pre_commit:
        (root / "cache" / "pre-commit.yaml").write_text(PRE_COMMIT)
    figures: dict[str, list[float]] = {"scratch": [], "nothing": [], "ruff": [], "pre-commit": []}
    for _ in range(rounds):
        shutil.rmtree(root / "cache" / "checks", ignore_errors=True)
        for record in (root / "cache").glob("doit.sqlite3*"):
            record.unlink()
        figures["scratch"].append(cpu(root, "check", ok=(0, 1)))
        figures["nothing"].append(cpu(root, "check", ok=(0, 1)))
        if ruff:
            figures["ruff"].append(cpu(root, "check", "--no-cache", "--quiet", "--exit-zero", ".", argv=tuple(ruff)))
        if pre_commit:
            figures["pre-commit"].append(cpu(root, "run", "--all-files", "-c", "cache/pre-commit.yaml",
                                             argv=(pre_commit,), ok=(0, 1)))
            # Its fixers rewrite files (trailing whitespace, a last newline): put the tree back, so that
            # every round judges the same files.
            subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
    median = {what: sorted(values)[len(values) // 2] for what, values in figures.items() if values}
    print(f"{root.name}: {files} tracked files; CPU medians of {rounds} interleaved rounds")
    for what in median:
        print(f"  {what}: {median[what]:.2f} s")
    for theirs in ("ruff", "pre-commit"):
        if theirs in median:
            print(f"  check from scratch {median['scratch'] / median[theirs]:.1f}x {theirs}, nothing changed "
                  f"{median['nothing'] / median[theirs]:.1f}x {theirs}")


def main() -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if sys.argv[1:2] == ["--repo"]:
        on_a_clone(Path(sys.argv[2]).resolve())
        print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        return
    workdir = Path(tempfile.mkdtemp(prefix="bench-checks-"))
    try:
        root = workdir / "repo"
        root.mkdir()
        start = time.perf_counter()
        synthesize(root)
        print(f"synthetic repository ({PACKAGES * FILES_PER_PACKAGE} files, {RULES} rules): "
              f"{time.perf_counter() - start:.1f} s to build")
        in_process(root)
        figures, done = timed(root, "checks")
        assert done.returncode == 0, done.stdout + done.stderr
        print(f"doit checks, from scratch: {figures} ({executed(done)} tasks run)  [target < 10 s]")
        for _ in range(3):
            figures, done = timed(root, "checks")
            print(f"doit checks, nothing changed: {figures} ({executed(done)} tasks run)  [target < 1 s]")
        figures, _ = timed(root, "import agent_constitution.loader", argv=("-c",))
        # A separate process: interpreter start-up plus the loader and the family modules it imports
        # (not their stages, which a family imports only when it creates tasks or runs an action).
        print(f"python -c 'import agent_constitution.loader' (start-up and the loader's imports): {figures}")
        (root / "pkg7" / "m3.py").write_text("value = 3  # changed\n")
        figures, done = timed(root, "checks")
        print(f"doit checks, one file changed: {figures} ({executed(done)} tasks run)")
        os.utime(root / "pkg8" / "m3.py", (1, 1))
        figures, done = timed(root, "checks")
        print(f"doit checks, one file touched, same content: {figures} ({executed(done)} tasks run)")
        shutil.rmtree(root / "cache")
        figures, done = timed(root, "-n", "2", "checks")
        assert done.returncode == 0, done.stdout + done.stderr
        print(f"doit -n 2 checks, from scratch: {figures} ({executed(done)} tasks run)")
        against_ruff(root)
        # Last: running doit in this process takes the build lock of the compile tasks until it exits.
        print(f"scans of the tree per doit run: {count_scans(root)}")
        print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
