"""Every repository check reads the tree through the shared scan: none walks or opens it on its own.

The run's scan (`Repository`: its file listing and `Contents`, which reads each file at most once
per process) is what makes the checks one pass over the tree. Here every file of a repository is
read through it first; then every check whose subject is the repository runs under an audit hook
(`sys.addaudithook`, in a process of its own: a hook cannot be removed) that records each `open`
of a path inside the repository and each listing of a folder inside it (`os.listdir`,
`os.scandir`, and so `os.walk`, `glob` and pathlib's). Any such event is a check reading the tree
behind the scan's back: the test names the check and the path."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from .subjects import CHECKS, REPO

# A repository with something for most checks to read: code, CI, manifests, a script, a binary.
FILES = {
    "README.md": "# demo\n\nRun `make test`.\n",
    "AGENTS.md": "# demo\n\nCommands: `uv run pytest`.\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n\n'
                      "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
    "uv.lock": 'version = 1\n\n[[package]]\nname = "demo"\nversion = "0.1.0"\n',
    "src/demo/__init__.py": "def main():\n    return 1\n",
    "tests/test_demo.py": "def test_main():\n    assert True\n",
    "scripts/install.sh": "#!/bin/sh\ncurl -fsSL https://example.com/x.sh | sh\n",
    "tools/run": "#!/usr/bin/env bash\necho run\n",
    ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                                "      - uses: actions/checkout@v4\n      - run: uv run pytest\n",
    ".pre-commit-config.yaml": "repos: []\n",
    ".gitattributes": "*.bin binary\n",
    ".gitignore": ".venv/\n__pycache__/\n",
    "package.json": '{"name": "demo", "version": "1.0.0", "scripts": {"test": "vitest"}}\n',
    "Makefile": "test:\n\tuv run pytest\n",
    "Dockerfile": "FROM python:3.11-slim\nRUN pip install uv\n",
    ".claude/settings.json": '{"hooks": {}}\n',
    ".agents/skills/demo/SKILL.md": "---\nname: demo\ndescription: A demo.\n---\nBody.\n",
    "data/blob.bin": "\0\1\2binary\n",
}

PROBE = r"""
import json, sys, os, traceback
sys.path.insert(0, sys.argv[1])
from tests.rulechecks.subjects import check_module, repository
from pathlib import Path
root = Path(sys.argv[2]).resolve()
files = json.loads(sys.argv[3])
rules = json.loads(sys.argv[4])
repo = repository(root, {path: text.encode("latin-1") if "\0" in text else text for path, text in files.items()})
modules = {rule: check_module(rule) for rule in rules}   # imported before the hook: their own files
for path in repo.files:                                  # the scan reads every file once
    repo.text(path); repo.read_bytes(path); repo.digest(path)
events, current = [], [None]
prefix = str(root) + os.sep

def inside(path):
    try:
        path = os.fsdecode(path) if not isinstance(path, int) else None
    except TypeError:
        return False
    return path is not None and (os.path.abspath(path) + os.sep).startswith(prefix)

def hook(event, args):
    if current[0] is None:
        return
    if event == "open" and args and inside(args[0]):
        events.append([current[0], event, os.path.relpath(os.fsdecode(args[0]), root)])
    elif event in ("os.listdir", "os.scandir") and args and inside(args[0] if args[0] is not None else "."):
        events.append([current[0], event, os.path.relpath(os.fsdecode(args[0]), root)])

sys.addaudithook(hook)
for rule, module in modules.items():
    current[0] = rule
    try:
        if getattr(module, "check", None) is not None:
            module.check(repo)
        else:
            for path in repo.files:
                module.check_file(repo, path)
    except Exception:
        pass  # undecidable, a missing tool: not what this test judges
    current[0] = None
print(json.dumps(events))
"""


def repository_rules() -> list[int]:
    rules = []
    for path in sorted((REPO / "rules").glob("*.toml")):
        check = tomllib.loads(path.read_text(encoding="utf-8")).get("check", {})
        if check.get("subject") == "repository" and check.get("python") and (CHECKS / f"{check['python']}.py").is_file():
            rules.append(int(check["python"][1:]))
    return rules


def test_no_repository_check_reads_the_tree_behind_the_scan(tmp_path: Path):
    rules = repository_rules()
    assert len(rules) > 40  # the test sees the checks it is about
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    done = subprocess.run([sys.executable, "-c", PROBE, str(REPO), str(root), json.dumps(FILES), json.dumps(rules)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout.splitlines()[-1])
    assert events == [], "checks that read the tree themselves: " + "; ".join(
        f"r{rule}: {event} {path}" for rule, event, path in events)
