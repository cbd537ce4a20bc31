"""How often one `doit compile` opens the rule files, in a full compile and in a no-op one.

    uv run python bench/house_opens.py

Copies this repository's tracked files into a temporary folder (a git repository of its own), runs
`doit compile` there in this process with an audit hook counting every `open` of a file under
`rules/` (the repository's rule source), once with an empty cache (full) and once again (no-op).
Prints the opens and the distinct files of each run. Nothing in this checkout is touched.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))


def _copy(target: Path) -> None:
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


def main() -> int:
    from doit.cmd_base import ModuleTaskLoader
    from doit.doit_cmd import DoitMain

    from agent_constitution.loader import namespace
    from agent_constitution.project import Project

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        _copy(root)
        os.environ["AGENT_CONSTITUTION_CACHE"] = str(Path(folder) / "user-cache")
        rules = str(root / "rules") + os.sep
        opened: Counter[str] = Counter()
        counting = [False]

        def hook(event: str, args: tuple) -> None:
            if counting[0] and event == "open" and isinstance(args[0], str) and args[0].startswith(rules):
                opened[args[0]] += 1

        sys.addaudithook(hook)
        os.chdir(root)
        for run in ("full", "no-op"):
            opened.clear()
            counting[0] = True
            with open(os.devnull, "w") as quiet:
                real, sys.stdout = sys.stdout, quiet
                try:
                    code = DoitMain(ModuleTaskLoader(namespace(Project(root)))).run(["compile"])
                finally:
                    sys.stdout = real
            counting[0] = False
            print(f"{run} compile (exit {code}): {sum(opened.values())} opens of {len(opened)} rule files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
