"""Are `doit compile`'s outputs byte-identical before and after a change of the code?

    uv run python bench/house_identity.py [--before REV] [--after REV] [--only NAME,...] [--keep]

Makes a git worktree of BEFORE (default 81931e4, main as it was when issue #32 was filed: the
parent of its first commit, e561c0d "Hosts: one Host record per agent") and of AFTER (default
HEAD) in a temporary folder, and compiles the same inputs with each version's own code (`python -m
doit compile` with PYTHONPATH set to that worktree; a run fails unless every module of
`agent_constitution` it ran came from that worktree). The inputs, each compiled once by each version
in a fresh copy with a user cache of its own:

- `generated`: a 500-rule x 50-segment repository (bench/bench_compile.py's `write_repo`);
- `repository@before`, `repository@after`: clean clones of this repository at BEFORE and at AFTER
  (each also compiled by its own commit's code, which must give back the committed files; an older
  version may not read a newer commit's rule files, and the input is then not comparable);
- `field:NAME`: each repository of the field corpus (bench/field/corpus/), adopted by the corpus
  runner's own `adopt` with BEFORE's worktree as the rule source for both versions, so that only
  the code differs.

Every file of the two trees (`.git` aside) is compared byte for byte, with its executable bit and,
for a symbolic link, its target. Prints per input the files compared and each difference with a
unified diff excerpt; files under `cache/` (the stages' own build, never committed) are counted
apart. Exit status 0 when every input's outputs are identical.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BEFORE = "81931e4"
CORPUS = HERE / "bench" / "field" / "corpus"
EXCERPT = 24  # lines of unified diff shown per differing file
GIT_ID = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "core.hooksPath=/dev/null",
          "-c", "commit.gpgsign=false"]


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench_compile = load("bench_compile", HERE / "bench" / "bench_compile.py")
field = load("field", CORPUS / "field.py")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def commit_all(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, *GIT_ID, "commit", "-qm", "input", "--allow-empty")


def tool_env(tool: Path, work: Path) -> dict[str, str]:
    """The environment of one compile: TOOL's code first on the path, a user cache and config of its own."""
    env = {key: value for key, value in os.environ.items()
           if key not in {"CI", "GITHUB_ACTIONS", "VIRTUAL_ENV", "AGENT_CONSTITUTION_CACHE", "AGENT_CONSTITUTION_CONFIG"}}
    env["PYTHONPATH"] = str(tool)
    env["AGENT_CONSTITUTION_CACHE"] = str(work / "user-cache")
    env["AGENT_CONSTITUTION_CONFIG"] = str(work / "user-config")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONSAFEPATH"] = "1"  # no process the compile starts puts its working folder before TOOL
    return env


# Run in the child: `doit compile` with TOOL's `agent_constitution` imported first, so that doit
# putting the repository's folder first on sys.path (to import dodo.py) cannot make a repository
# that holds the package (this one) import its own copy; then every module of the package that ran
# must come from TOOL.
RUNNER = """
import sys
tool = sys.argv[1]
import agent_constitution
from doit.doit_cmd import DoitMain
code = DoitMain().run(["compile"])
foreign = sorted({module.__file__ for name, module in list(sys.modules.items())
                  if name.split(".")[0] == "agent_constitution" and getattr(module, "__file__", None)
                  and not module.__file__.startswith(tool)})
if foreign:
    print("imported from outside " + tool + ": " + ", ".join(foreign[:5]), file=sys.stderr)
    sys.exit(97)
sys.exit(code)
"""


def compile_with(tool: Path, repo: Path) -> tuple[float, str]:
    """Seconds of one `doit compile` in REPO with TOOL's code, and its output when it failed."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNNER, str(tool.resolve()) + os.sep], cwd=repo,
                          env=tool_env(tool, repo.parent), capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    return seconds, "" if done.returncode == 0 else (done.stdout + done.stderr)[-3000:]


def tree(root: Path) -> dict[str, tuple[str, bytes]]:
    """Relative path -> (kind, content) of every file under ROOT but `.git`: kind is `link`, `exec` or `file`."""
    found = {}
    for folder, folders, files in os.walk(root):
        if Path(folder) == root:
            folders[:] = [name for name in folders if name != ".git"]
        for name in files + [name for name in folders if os.path.islink(os.path.join(folder, name))]:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[relative] = ("link", os.readlink(path).encode())
            else:
                found[relative] = ("exec" if os.access(path, os.X_OK) else "file", path.read_bytes())
    return found


def excerpt(before: bytes, after: bytes) -> str:
    try:
        old, new = before.decode().splitlines(), after.decode().splitlines()
    except UnicodeDecodeError:
        return f"    (binary: {len(before)} -> {len(after)} bytes)"
    lines = list(difflib.unified_diff(old, new, "before", "after", n=1, lineterm=""))
    shown = lines[:EXCERPT] + ([f"... {len(lines) - EXCERPT} more diff lines"] if len(lines) > EXCERPT else [])
    return "\n".join("    " + line for line in shown)


def compare(name: str, before: Path, after: Path) -> bool:
    """Print how the two compiled trees differ; True when no file outside `cache/` does."""
    old, new = tree(before), tree(after)
    differing = sorted(path for path in old.keys() | new.keys() if old.get(path) != new.get(path))
    internal = [path for path in differing if path.startswith("cache/")]
    outputs = [path for path in differing if not path.startswith("cache/")]
    print(f"{name}: {len(old.keys() | new.keys())} files, {len(outputs)} differ"
          + (f" (and {len(internal)} under cache/: {', '.join(internal[:6])}{' ...' if len(internal) > 6 else ''})"
             if internal else ""))
    for path in outputs:
        (old_kind, old_bytes), (new_kind, new_bytes) = old.get(path, ("absent", b"")), new.get(path, ("absent", b""))
        print(f"  {path}:" + (f" {old_kind} before, {new_kind} after" if old_kind != new_kind else ""))
        if old_bytes != new_bytes:
            print(excerpt(old_bytes, new_bytes))
    return not outputs


def run_input(name: str, make, tools: dict[str, Path], work: Path) -> str:
    """MAKE(folder) writes the input into a folder; compile a copy with each tool, then compare.
    Returns `identical`, `differs`, or `not comparable` when a version cannot compile the input."""
    compiled, failed = {}, False
    for version, tool in tools.items():
        repo = work / name.replace(":", "-") / version / "repo"
        repo.parent.mkdir(parents=True)
        make(repo)
        seconds, failure = compile_with(tool, repo)
        if failure:
            print(f"  {name}: the {version} compile failed ({seconds:.1f} s):\n{failure}")
            failed = True
            continue
        compiled[version] = repo
        print(f"  {name} compiled by {version} in {seconds:.1f} s (load {os.getloadavg()[0]:.1f})", flush=True)
        if name == f"repository@{version}":  # a clean clone compiled by its own code gives back its commit
            changed = git(repo, "status", "--porcelain").splitlines()
            print(f"  {name} compiled by its own code: {len(changed)} committed files changed"
                  + (f" ({', '.join(line[3:] for line in changed[:6])})" if changed else ""))
    if failed:
        print(f"{name}: not comparable")
        return "not comparable"
    return "identical" if compare(name, compiled["before"], compiled["after"]) else "differs"


def generated(repo: Path) -> None:
    bench_compile.write_repo(repo, segments=50, rules=500)
    git(repo, "init", "-q")
    commit_all(repo)


def clone_at(revision: str):
    def make(repo: Path) -> None:
        git(HERE, "clone", "-q", "--no-checkout", str(HERE), str(repo))
        git(repo, "-c", "advice.detachedHead=false", "checkout", "-q", revision)
    return make


def adopted(name: str, rules: Path):
    """The field corpus's adoption of NAME, its rule source RULES (the same for both versions)."""
    spec = tomllib.loads((CORPUS / f"{name}.toml").read_text(encoding="utf-8"))

    def make(repo: Path) -> None:
        # adopt() clones into WORK/repo: REPO's parent is the work folder compile_with's cache goes in
        made = field.adopt(name, spec, CORPUS, rules, repo.parent, field.tool_env(repo.parent),
                           time.monotonic() + field.REPO_TIMEOUT)
        assert made == repo
    return make


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--only", default="", help="comma-separated inputs: generated, repository, field, field:NAME")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where it is")
    options = parser.parse_args()
    revisions = {"before": git(HERE, "rev-parse", options.before).strip(),
                 "after": git(HERE, "rev-parse", options.after).strip()}
    work = Path(tempfile.mkdtemp(prefix="house-identity-"))
    tools = {version: work / "tools" / version for version in revisions}
    try:
        for version, revision in revisions.items():
            git(HERE, "worktree", "add", "-q", "--detach", str(tools[version]), revision)
            print(f"{version}: {revision[:12]} {git(HERE, 'log', '-1', '--format=%s', revision).strip()[:90]}")
        inputs = {"generated": generated,
                  "repository@before": clone_at(revisions["before"]),
                  "repository@after": clone_at(revisions["after"])}
        names = sorted(path.stem for path in CORPUS.glob("*.toml") if (CORPUS / f"{path.stem}.bundle").is_file())
        inputs |= {f"field:{name}": adopted(name, tools["before"]) for name in names}
        wanted = [word for word in options.only.split(",") if word]
        chosen = {name: make for name, make in inputs.items()
                  if not wanted or any(name == word or name.split("@")[0].split(":")[0] == word for word in wanted)}
        results = {name: run_input(name, make, tools, work) for name, make in chosen.items()}
        for outcome in ("identical", "differs", "not comparable"):
            names = [name for name, found in results.items() if found == outcome]
            print(f"{outcome}: {len(names)}/{len(results)} inputs" + (f" ({', '.join(names)})" if names else ""))
        return 0 if all(found == "identical" for found in results.values()) else 1
    finally:
        for tool in tools.values():
            if tool.exists():
                subprocess.run(["git", "worktree", "remove", "--force", str(tool)], cwd=HERE, capture_output=True,
                               check=False)
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
