"""A full compile opens each rule file of a source at most once, a no-op compile none (issue 32).

Each `doit compile` runs in a process of its own (as a user runs it), with an audit hook counting
every `open` of a file under the source's `rules/`, as `bench/house_opens.py` does on this
repository: the lock stage reads the files once, the load and the digests take the bytes it read,
and compile reads the resolution.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.compile.support import make_repo

COUNTING = """
import json, os, sys
from collections import Counter
import doit

rules = sys.argv[1]
opened = Counter()
# The fixture's files are seconds old: as if they were older than the two seconds within which a
# file's status could hide an edit (`sources.parsed`), which a run confirms by reading it again.
from agent_constitution.ruleset import relock
from agent_constitution.sources import parsed
relock._RACY_NS = parsed._RACY_NS = 0

def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(rules):
        opened[args[0]] += 1

sys.addaudithook(hook)
from doit.doit_cmd import DoitMain
from doit.cmd_base import DodoTaskLoader
real, sys.stdout = sys.stdout, open(os.devnull, "w")
code = DoitMain(DodoTaskLoader()).run(["compile"])
sys.stdout = real
print(json.dumps({"exit": code, "opened": opened}))
"""


def _compile(repo: Path) -> dict[str, int]:
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "GITHUB_ACTIONS")}
    env["AGENT_CONSTITUTION_CACHE"] = str(repo.parent / "user-cache")
    done = subprocess.run([sys.executable, "-c", COUNTING, str(repo / "src" / "rules") + os.sep], cwd=repo, env=env,
                          capture_output=True, text=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["exit"] == 0, done.stderr
    return found["opened"]


def test_a_full_compile_opens_each_rule_file_once_and_a_no_op_none(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", skills={"uv-project": [3]})
    # Without ac:6, whose requirement across subtrees the lock warns about (and so runs) every time.
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text().replace('"ac:5", "ac:6"', '"ac:5"').replace('["ac:3", "ac:6"]', '["ac:3"]'))
    full = _compile(repo)
    files = {str(path) for path in (repo / "src" / "rules").rglob("*") if path.is_file()}
    assert set(full) == files and set(full.values()) == {1}  # every file read, none twice
    assert _compile(repo) == {}
