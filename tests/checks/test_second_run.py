"""A second run over an unchanged tree reads no file of it: doit's up-to-date checks compare the
input sets' stat signatures, the report's evidence comes from its memo; without doit's record, the
digests come from the stat index and the results from their memo.

The second `doit checks` runs in a process of its own under an audit hook (`sys.addaudithook`) that
records every `open` of a path inside the repository; the tree's files (everything the scan lists
but the manifest, the lock and the rule source, which the selection and doit's dependencies read)
must not be among them, and the report must be the first run's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import git, make_source, rule_toml, write

# A per-file check (one pass over the tree serves it) and a whole-repository one.
TODO = '''\
from agent_constitution.checks.api import Finding

RULE = {id}


def check(repo):
    return [f for path in repo.files if repo.text(path) for f in check_file(path, repo.text(path))]


def check_file(path, text):
    return [Finding("{word} left", path, n) for n, line in enumerate(text.splitlines(), 1) if "{word}" in line]
'''

WHOLE = '''\
from agent_constitution.checks.api import Finding

RULE = 3


def check(repo):
    return [] if "hello" in repo.read_text("README.md") else [Finding("README.md does not greet")]
'''

PROBE = r"""
import json, os, sys
root = os.path.realpath(sys.argv[1]) + os.sep
opened = []

def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.realpath(os.fsdecode(args[0]))
        if path.startswith(root):
            opened.append(os.path.relpath(path, root))

sys.addaudithook(hook)
os.chdir(root)
from doit.doit_cmd import DoitMain
from agent_constitution.loader import Loader
code = DoitMain(Loader(), config_filenames=()).run(["checks"])
from agent_constitution.checks import worker
worker.stop()
print(json.dumps({"code": code, "opened": sorted(set(opened))}))
"""


def test_a_second_run_over_an_unchanged_tree_opens_none_of_its_files(repo: Path):
    make_source(repo, {
        1: rule_toml(1, 'python = "r1"\ninputs = ["**/*.py"]'),
        2: rule_toml(2, 'python = "r2"'),
        3: rule_toml(3, 'python = "r3"\ninputs = ["README.md"]'),
    }, {"r1": TODO.format(id=1, word="TODO"), "r2": TODO.format(id=2, word="FIXME"), "r3": WHOLE})
    tree = {f"src/m{n}.py": f"x = {n}\n" + ("# TODO\n" if n % 3 == 0 else "") for n in range(12)}
    tree.update({"docs/notes.md": "FIXME: write\n", "data/blob.bin": "\0\1\2"})
    write(repo, tree)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    # Old enough to be trusted by their stat identity (git's racy-clean rule: not in the same tick).
    for path in repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            subprocess.run(["touch", "-d", "2020-01-01", str(path)], check=True)
    first = subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=repo, capture_output=True, text=True)
    assert first.returncode == 1, first.stdout + first.stderr   # the TODOs and the FIXME are violations
    report = (repo / "cache/checks/report.json").read_text()
    assert [r["outcome"] for r in json.loads(report)["results"]] == ["violation", "violation", "pass"]

    assert probed(repo) == ([], 1) and (repo / "cache/checks/report.json").read_text() == report
    # Without doit's record of the last run every task runs again: the input sets' digests come
    # from the stat index and the checks' results from their memo; only the files with a finding
    # are read, for the inline waivers on the finding's line.
    for record in (repo / "cache").glob("doit.sqlite3*"):
        record.unlink()
    found = sorted({f["path"] for r in json.loads(report)["results"] for f in r["findings"]
                    if not f["path"].startswith("rules/")})
    assert found == ["docs/notes.md", "src/m0.py", "src/m3.py", "src/m6.py", "src/m9.py"]
    assert probed(repo) == (found, 1) and (repo / "cache/checks/report.json").read_text() == report


def probed(repo: Path) -> tuple[list[str], int]:
    """The tree's files a `doit checks` opened, and its exit code."""
    run = subprocess.run([sys.executable, "-c", PROBE, str(repo)], capture_output=True, text=True)
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    read = [path for path in answer["opened"] if (repo / path).is_file()   # a failed open reads nothing
            and not path.startswith(("cache/", ".git/", "rules/", "constitution/"))
            and path not in ("rules.toml", "rules.lock", "pyproject.toml", "dodo.py")]
    return read, answer["code"]
