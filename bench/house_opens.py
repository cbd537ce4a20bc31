"""How often `doit compile` opens the rule files, in a full compile and in a no-op one.

    uv run python bench/house_opens.py

Copies this repository's tracked files into a temporary folder (a git repository of its own) and
runs `doit compile` there twice, each in a process of its own (as a user runs it: nothing kept in
memory from the run before), with an audit hook counting every `open` of a file under `rules/` (the
repository's rule source): once with empty caches (full) and once again (no-op). Prints the opens
and the distinct files of each run, and the files opened more than once. Nothing in this checkout
is touched. `tests/compile/test_rule_file_opens.py` holds the figures (a full compile opens each
rule file at most once, a no-op none) on a small repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# Run in the child: `doit compile` in this process, every open of a file under `rules/` counted.
COUNTING = """
import json, os, sys
from collections import Counter
from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain
from agent_constitution.loader import namespace
from agent_constitution.project import Project

root = os.getcwd()
rules = os.path.join(root, "rules") + os.sep
opened = Counter()

def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(rules):
        opened[args[0]] += 1

sys.addaudithook(hook)
real, sys.stdout = sys.stdout, open(os.devnull, "w")
code = DoitMain(ModuleTaskLoader(namespace(Project(Project.here().root)))).run(["compile"])
sys.stdout = real
print(json.dumps({"exit": code, "opened": {os.path.relpath(k, root): v for k, v in opened.items()}}))
"""


def copy(target: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=HERE, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, files):
        source, destination = HERE / os.fsdecode(name), target / os.fsdecode(name)
        if source.is_file():
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(source.read_bytes())
    subprocess.run(["git", "init", "-q"], cwd=target, check=True)
    subprocess.run(["git", "add", "-A"], cwd=target, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "copy"],
                   cwd=target, check=True)


def opens(root: Path, env: dict[str, str]) -> tuple[int, dict[str, int]]:
    """(exit code, rule file → opens) of one `doit compile` in `root`, in a process of its own."""
    done = subprocess.run([sys.executable, "-c", COUNTING], cwd=root, env=env, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["exit"], found["opened"]


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        copy(root)
        env = {**os.environ, "AGENT_CONSTITUTION_CACHE": str(Path(folder) / "user-cache"),
               "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
        for run in ("full", "no-op"):
            code, opened = opens(root, env)
            again = sorted(name for name, count in opened.items() if count > 1)
            print(f"{run} compile (exit {code}): {sum(opened.values())} opens of {len(opened)} rule files"
                  + (f"; opened more than once: {', '.join(again)}" if again else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
