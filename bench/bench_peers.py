"""Compare `doit compile` with rulesync and ruler (npm) and Microsoft's APM (PyPI) on the same generated workload.

    uv run python bench/bench_peers.py [--repeats 3] [--cases 50,500,500x200] [--npm-prefix DIR] [--apm-prefix DIR]

Skipped (exit 0, with the reason) when `npm` or `node` is not on PATH or the pinned tools cannot be
installed. The npm tools are installed with `npm install --prefix` into a temporary folder (or into
`--npm-prefix DIR`, reused when it already holds the pinned versions), at the versions in `PEERS`;
APM (`apm-cli` on PyPI, at `APM`) into a virtual environment made with uv (or `--apm-prefix DIR`,
reused the same way); without uv, APM is left out and the rest still runs.

The job is the same for all four: N rules, each a title and a three-sentence text, become the
instructions that AGENTS.md readers and Claude Code load, for the same two agents:

- ours: a path source of N rule files (`rules/<id>.toml`, 10 domains) and a one-article
  constitution, `rules.toml` selecting the rules, `[compile] agents = ["agents-md", "claude-code"]`;
  `python -m doit compile` (lock, resolve, then AGENTS.md, the `CLAUDE.md` import shim, hook
  settings and the chain report).
- rulesync: one `.rulesync/rules/<id>.md` per rule (front matter `root: true`, so every rule lands
  in the root files), `rulesync generate --targets agentsmd,claudecode --features rules`: AGENTS.md
  and CLAUDE.md, each holding every rule's full text.
- ruler: one `.ruler/<id>.md` per rule, `ruler apply --agents agentsmd,claude --no-mcp
  --no-gitignore --no-backup --no-skills --local-only`: AGENTS.md and CLAUDE.md, each holding every
  rule's full text.
- APM: `apm.yml` and one `.apm/instructions/<id>.instructions.md` per rule (front matter
  `description` and `applyTo: "**"`), `apm compile --target codex,claude --local-only`: AGENTS.md
  and CLAUDE.md.

Cases: `N` is one folder with N rules; `NxS` is a monorepo of S packages (`pkg/pNNN`) over a source
of N rules: the root takes rules 1-20 and each package about 8 rules of its own (as
bench_compile.py's segments do). Ours declares a `[[segment]]` per package that selects its rules by
reference; ruler (`--nested`) gets a `.ruler/` folder per package with a copy of each of its rules;
rulesync gets a copy of each package rule per package, as a non-root rule with
`agentsmd.subprojectPath: pkg/pNNN` and `globs: ["pkg/pNNN/**/*"]` (so `pkg/pNNN/AGENTS.md` plus
Claude Code's path-scoped `.claude/rules/*.md`); APM gets a copy of each package rule per package
with `applyTo: "pkg/pNNN/**"`, which it places in `pkg/pNNN/AGENTS.md` and `CLAUDE.md`.

Each repeat copies a fresh workspace per tool (not timed) and runs, as whole processes, in turn for
every tool (interleaved, so a change of load hits all three alike): a full run, a no-op run (nothing
changed) and a one-rule edit (one rule's text changed in every file that holds it). Printed: the
median CPU seconds (user + system of the process) and wall seconds of each, and ours / theirs.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The versions compared (the newest on npm when this script was written); rulesync 17 declares
# node >= 22 but runs on node 20, which is what the figures in the README were measured with.
PEERS = {"rulesync": "17.0.0", "@intellectronica/ruler": "0.3.44"}
APM = "0.35.0"  # apm-cli on PyPI, Microsoft's Agent Package Manager
DOMAINS = 10
ROOT_RULES = 20
AGENTS = '["agents-md", "claude-code"]'

RULESYNC = ["generate", "--targets", "agentsmd,claudecode", "--features", "rules"]
APM_COMPILE = ["compile", "--target", "codex,claude", "--local-only"]
RULER = ["apply", "--agents", "agentsmd,claude", "--no-mcp", "--no-gitignore", "--no-backup", "--no-skills",
         "--local-only"]


def title(rule_id: int) -> str:
    return f"Requirement {rule_id} of area {(rule_id - 1) % DOMAINS}"


def text(rule_id: int, edited: bool = False) -> str:
    # A short first sentence: ours keeps every rule's requirement sentence in what agents auto-load
    # (32 KiB per AGENTS.md chain) and moves the full texts to part files, so 500 rules still fit.
    place = "every place" if edited else "each place"
    return (f"Keep item {rule_id} tidy. It exists because agents otherwise drift from the team's practice in "
            f"area {(rule_id - 1) % DOMAINS}. A check reads the files it names and reports {place} that breaks it.")


def packages(rules: int, segments: int) -> dict[str, list[int]]:
    """Package folder → its own rules (bench_compile.py's `own_rules`), about 8 of them each."""
    return {f"pkg/p{segment:03d}": [1 + (segment * 10 + k) % (rules - 40) + 40 for k in range(10) if (segment * 10 + k) % 5]
            for segment in range(segments)}


def edited_rule(rules: int, segments: int) -> int:
    return packages(rules, segments)["pkg/p000"][1] if segments else rules // 2


def write_ours(root: Path, rules: int, segments: int, edit: int | None = None) -> None:
    folder = root / "src" / "rules"
    if edit is None:
        folder.mkdir(parents=True)
        domains = "".join(f'[domains.d{d}]\ntitle = {{ en = "Area {d}" }}\ndescription = {{ en = "Work in area {d}." }}\n'
                          for d in range(DOMAINS))
        (folder / "source.toml").write_text(f'name = "ac"\nlanguages = ["en"]\n\n{domains}')
        edition = root / "src" / "constitution" / "2026-12"
        (edition / "articles" / "01-basics").mkdir(parents=True)
        (edition / "index.toml").write_text('status = "draft"\nedition = "2026-12"\nrevision = "0.2"\nlanguages = ["en"]\n\n'
                                            '[title]\nen = "Bench Constitution"\n')
        (edition / "articles" / "01-basics" / "article.toml").write_text('id = "basics"\n\n[title]\nen = "Basics"\n')
        (edition / "articles" / "01-basics" / "01-ask.toml").write_text(
            'id = "ask"\nstatus = "draft"\n\n[content]\nen = "Ask before you act."\n')
    for rule_id in range(1, rules + 1) if edit is None else (edit,):
        (folder / f"{rule_id}.toml").write_text(
            f'id = {rule_id}\nrevision = 1\nstatus = "active"\nparent = "d{(rule_id - 1) % DOMAINS}"\n\n'
            f'[title]\nen = "{title(rule_id)}"\n\n[text]\nen = "{text(rule_id, edit is not None)}"\n')
    if edit is not None:
        return
    root_rules = range(1, (ROOT_RULES if segments else rules) + 1)
    lines = ["rules = [" + ", ".join(f'"ac:{i}"' for i in root_rules) + "]", "",
             "[compile]", f"agents = {AGENTS}", "",
             "[constitution]", 'source = "ac"\nedition = "2026-12"\nrevision = "0.2"', "",
             "[sources]", 'ac = { path = "src" }']
    for path, own in packages(rules, segments).items():
        lines += ["", "[[segment]]", f'path = "{path}"', "rules = [" + ", ".join(f'"ac:{i}"' for i in own) + "]"]
        (root / path).mkdir(parents=True)
    (root / "rules.toml").write_text("\n".join(lines) + "\n")
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")


def _markdown(rule_id: int, edited: bool) -> str:
    return f"# {title(rule_id)}\n\n{text(rule_id, edited)}\n"


CONSTITUTION = "# Bench Constitution\n\n## Basics\n\nAsk before you act.\n"


def to_write(rules: int, segments: int, edit: int | None) -> list[tuple[str, int]]:
    """(folder, rule id) of every rule file a peer's writer writes: "." for the root's rules, else the
    package's folder; all of them, or only rule `edit`'s (a one-rule edit)."""
    folders = {".": range(1, (ROOT_RULES if segments else rules) + 1), **packages(rules, segments)}
    return [(folder, rule_id) for folder, chosen in folders.items() for rule_id in chosen
            if edit is None or rule_id == edit]


def write_ruler(root: Path, rules: int, segments: int, edit: int | None = None) -> None:
    if edit is None:
        (root / ".ruler").mkdir(parents=True)
        (root / ".ruler" / "AGENTS.md").write_text(CONSTITUTION)
    for folder, rule_id in to_write(rules, segments, edit):
        path = root / folder / ".ruler" / f"{rule_id:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_markdown(rule_id, edit is not None))


def write_rulesync(root: Path, rules: int, segments: int, edit: int | None = None) -> None:
    folder = root / ".rulesync" / "rules"
    if edit is None:
        folder.mkdir(parents=True)
        (folder / "00000-constitution.md").write_text(f"---\nroot: true\ntargets: [\"*\"]\n---\n\n{CONSTITUTION}")
    for path, rule_id in to_write(rules, segments, edit):
        body = _markdown(rule_id, edit is not None)
        if path == ".":
            (folder / f"{rule_id:05d}.md").write_text(
                f"---\nroot: true\ntargets: [\"*\"]\ndescription: \"{title(rule_id)}\"\n---\n\n{body}")
        else:
            (folder / f"{path.replace('/', '-')}-{rule_id:05d}.md").write_text(
                f"---\nroot: false\ntargets: [\"*\"]\ndescription: \"{title(rule_id)}\"\nglobs: [\"{path}/**/*\"]\n"
                f"agentsmd:\n  subprojectPath: \"{path}\"\n---\n\n{body}")


def write_apm(root: Path, rules: int, segments: int, edit: int | None = None) -> None:
    folder = root / ".apm" / "instructions"
    if edit is None:
        folder.mkdir(parents=True)
        (root / "apm.yml").write_text("name: bench\nversion: 1.0.0\n")
        (folder / "00000-constitution.instructions.md").write_text(
            f'---\ndescription: "Bench Constitution"\napplyTo: "**"\n---\n\n{CONSTITUTION}')
    for path in packages(rules, segments) if edit is None else ():
        (root / path).mkdir(parents=True, exist_ok=True)
        (root / path / "main.py").write_text("")  # a file the package's applyTo matches
    for path, rule_id in to_write(rules, segments, edit):
        name, glob = (f"{rule_id:05d}", "**") if path == "." else (f"{path.replace('/', '-')}-{rule_id:05d}", f"{path}/**")
        (folder / f"{name}.instructions.md").write_text(
            f'---\ndescription: "{title(rule_id)}"\napplyTo: "{glob}"\n---\n\n{_markdown(rule_id, edit is not None)}')


def install_apm(prefix: Path) -> str | None:
    """APM into a virtual environment at `prefix` (uv venv, uv pip install); the reason when it cannot be."""
    binary = prefix / "bin" / "apm"
    if binary.is_file():
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
        if done.returncode == 0 and APM in done.stdout:
            return None
    if shutil.which("uv") is None:
        return "uv is not on PATH"
    for command in (["uv", "venv", "-q", "--allow-existing", str(prefix)],
                    ["uv", "pip", "install", "-q", "--python", str(prefix / "bin" / "python"), f"apm-cli=={APM}"]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            return f"`{' '.join(command)}` failed: {done.stderr.strip()[-600:]}"
    return None


def run(command: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one process; exits with its output when it fails."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            out.seek(0)
            sys.exit(f"{' '.join(command)} failed in {cwd}:\n{out.read()[-4000:]}")
    return usage.ru_utime + usage.ru_stime, wall


def install(prefix: Path) -> str | None:
    """Install the pinned tools into `prefix`; the reason when that cannot be done, else None."""
    if all(_installed(prefix, name) == version for name, version in PEERS.items()):
        return None
    specs = [f"{name}@{version}" for name, version in PEERS.items()]
    done = subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error", *specs],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return f"`npm install {' '.join(specs)}` failed: {done.stderr.strip()[-600:]}"
    return None


def _installed(prefix: Path, name: str) -> str | None:
    import json

    manifest = prefix / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.is_file() else None


def tools(prefix: Path, apm: Path | None = None) -> dict[str, dict]:
    binaries = prefix / "node_modules" / ".bin"
    found = {
        "ours": {"write": write_ours, "command": [sys.executable, "-m", "doit", "compile"]},
        "rulesync": {"write": write_rulesync, "command": [str(binaries / "rulesync"), *RULESYNC]},
        "ruler": {"write": write_ruler, "command": [str(binaries / "ruler"), *RULER]},
    }
    if apm is not None:
        found["apm"] = {"write": write_apm, "command": [str(apm / "bin" / "apm"), *APM_COMPILE]}
    return found


def measure(case: str, prefix: Path, repeats: int, apm: Path | None = None) -> dict[str, dict[str, list[tuple[float, float]]]]:
    rules, _, segments_text = case.partition("x")
    rules, segments = int(rules), int(segments_text or 0)
    edit = edited_rule(rules, segments)
    found: dict[str, dict[str, list[tuple[float, float]]]] = {}
    with tempfile.TemporaryDirectory() as temp:
        templates = {}
        for name, tool in tools(prefix, apm).items():
            templates[name] = Path(temp) / "templates" / name
            templates[name].mkdir(parents=True)
            tool["write"](templates[name], rules, segments)
        for repeat in range(repeats):
            for name, tool in tools(prefix, apm).items():
                root = Path(temp) / f"{name}-{repeat}"
                shutil.copytree(templates[name], root)
                if name == "ours":
                    # Our caches take a file changed less than two seconds before they were written as
                    # changed next time (bench_compile.py's RACY_SECONDS): wait past that, as a
                    # repository checked out before the work starts. The peers keep no such cache.
                    time.sleep(2.1)
                env = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTHONDONTWRITEBYTECODE")}
                env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / f"user-cache-{name}-{repeat}")
                command = [*tool["command"], *(["--nested"] if name == "ruler" and segments else [])]
                runs = found.setdefault(name, {"full": [], "no-op": [], "edit": []})
                runs["full"].append(run(command, root, env))
                runs["no-op"].append(run(command, root, env))
                tool["write"](root, rules, segments, edit)
                runs["edit"].append(run(command, root, env))
                if repeat == 0:
                    print(f"  {name}: {_outputs(root)}", flush=True)
                shutil.rmtree(root)
    return found


def _outputs(root: Path) -> str:
    written = [path for path in root.rglob("*") if path.is_file() and path.name.endswith(".md")
               and not any(part in (".ruler", ".rulesync", ".apm", "src", "cache") for part in path.relative_to(root).parts)]
    size = sum(path.stat().st_size for path in written)
    agents = root / "AGENTS.md"
    return (f"{len(written)} Markdown files written, {size / 1024:.0f} KiB; root AGENTS.md"
            f" {agents.stat().st_size / 1024:.1f} KiB")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default="50,500,500x200", help="N (one folder of N rules) or NxS (S packages)")
    parser.add_argument("--npm-prefix", type=Path, help="install the tools here (reused when already there)")
    parser.add_argument("--apm-prefix", type=Path, help="install APM into this virtual environment (reused when there)")
    options = parser.parse_args()
    missing = [name for name in ("npm", "node") if shutil.which(name) is None]
    if missing:
        print(f"skipped: {' and '.join(missing)} not on PATH (rulesync and ruler are npm packages)")
        return 0
    with tempfile.TemporaryDirectory() as temp:
        prefix = options.npm_prefix or Path(temp) / "npm"
        reason = install(prefix)
        if reason:
            print(f"skipped: {reason}")
            return 0
        apm = options.apm_prefix or Path(temp) / "apm"
        left_out = install_apm(apm)
        if left_out:
            print(f"APM left out: {left_out}")
            apm = None
        node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
        print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, python {sys.version.split()[0]},"
              f" node {node}, {', '.join(f'{name} {version}' for name, version in PEERS.items())}"
              f"{f', apm-cli {APM}' if apm else ''};"
              f" load average {os.getloadavg()[0]:.1f} at the start")
        print("median CPU seconds (user + system) of the process [wall seconds], "
              f"{options.repeats} interleaved repeats; ratio = ours / theirs (below 1: ours is faster)")
        rows = []
        for case in options.cases.split(","):
            print(f"case {case}:", flush=True)
            found = measure(case, prefix, options.repeats, apm)
            rows.append((case, found))
            for name, runs in found.items():
                print(f"  {name:8}  " + "  ".join(f"{step} {_median(values, 0):.2f} [{_median(values, 1):.2f}]"
                                                 for step, values in runs.items()), flush=True)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
        print()
        peers = [peer for peer in ("rulesync", "ruler", "apm") if peer in rows[0][1]]
        print("| workload | " + " | ".join(f"ours / {peer} (full / no-op / edit)" for peer in peers) + " |")
        print("|---|" + "---|" * len(peers))
        for case, found in rows:
            cells = [" / ".join(f"{_median(found['ours'][step], 0) / _median(found[peer][step], 0):.2f}"
                                for step in ("full", "no-op", "edit")) for peer in peers]
            print(f"| {case} | {' | '.join(cells)} |")
    return 0


def _median(values: list[tuple[float, float]], index: int) -> float:
    return statistics.median(value[index] for value in values)


if __name__ == "__main__":
    sys.exit(main())
