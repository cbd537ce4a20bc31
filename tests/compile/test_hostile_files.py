"""Hostile files through `doit compile` and `doit review-ingest`: one message, a non-zero exit, no
traceback, and nothing in the repository changed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compile.support import make_repo

DEEP = "zz = " + "[" * 3000 + "]" * 3000 + "\n"
BIG = "9" * 5000
VERDICT = '[[verdict]]\nrule = "ac:1"\nverdict = "violated"\nreason = "x"\n'


def doit(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(repo.parent / "user-cache")
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A compiled and checked repository, copied (with its user cache) for each case."""
    base = tmp_path_factory.mktemp("hostile")
    repo = make_repo(base / "repo", skills={"uv-project": [3]})
    assert doit(repo, "compile").returncode == 0
    doit(repo, "check")
    assert (repo / "cache" / "checks" / "report.json").is_file()
    return base


def write(relative: str, data: str | bytes):
    def change(repo: Path) -> None:
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return change


def append(relative: str, text: str):
    def change(repo: Path) -> None:
        path = repo / relative
        path.write_text(path.read_text() + text)
    return change


def replace(relative: str, old: str, new: str):
    def change(repo: Path) -> None:
        path = repo / relative
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
    return change


def folder(relative: str):
    def change(repo: Path) -> None:
        path = repo / relative
        if path.exists():
            path.unlink()
        path.mkdir(parents=True)
    return change


def both(*changes):
    def change(repo: Path) -> None:
        for one in changes:
            one(repo)
    return change


CASES = {
    "manifest nested 3,000 levels": (append("rules.toml", "\n" + DEEP), "compile", "rules.toml: values are nested too deeply"),
    "manifest huge integer": (append("rules.toml", f"\n[compile]\nmax-tokens = {BIG}\n"), "compile",
                              "rules.toml:24: an integer has more than 4,300 digits"),
    "manifest is a folder": (folder("rules.toml"), "compile", "rules.toml: is a folder, expected a file"),
    "manifest is a FIFO": (lambda repo: (os.unlink(repo / "rules.toml"), os.mkfifo(repo / "rules.toml")), "compile",
                           "rules.toml: is not a regular file (a FIFO"),
    "lock nested": (append("rules.lock", "\n" + DEEP), "compile", "rules.lock: values are nested too deeply"),
    "lock huge integer": (replace("rules.lock", "version = 2", f"version = {BIG}"), "compile",
                          "rules.lock:2: an integer has more than 4,300 digits"),
    "lock not UTF-8": (write("rules.lock", b"version = 1\n\xff\n"), "compile", "rules.lock:2: not UTF-8 text"),
    "lock is a folder": (folder("rules.lock"), "compile", "rules.lock: is a folder, expected a file"),
    "lock source without url or path": (replace("rules.lock", 'path = "src"\n', ""), "compile",
                                        "rules.lock: source.0: a locked source has exactly one of `url` or `path`"),
    "source.toml nested": (append("src/rules/source.toml", "\n" + DEEP), "compile", "source.toml): values are nested too deeply"),  # read first by resolution, naming the source
    "source.toml is a folder": (folder("src/rules/source.toml"), "compile", "source.toml: is a folder, expected a file"),
    "rule nested": (append("src/rules/7.toml", "\n" + DEEP), "compile", "rules/7.toml: values are nested too deeply"),
    "rule huge integer": (replace("src/rules/7.toml", "revision = 1", f"revision = {BIG}"), "compile",
                          "rules/7.toml:2: an integer has more than 4,300 digits"),
    "rule is a folder": (folder("src/rules/9.toml"), "compile", "rules/9.toml: is a folder, expected a file"),
    "rule named by a Kannada digit": (lambda repo: shutil.copy(repo / "src/rules/1.toml", repo / "src/rules/೧.toml"),
                                      "compile", "rules/೧.toml: a rule file is named by its numeric id"),
    "rule text holds the end marker": (replace("src/rules/7.toml", 'en = "Sign commits"', 'en = "x <!-- agent-constitution:end -->"'),
                                       "compile", "rules/7.toml: title.en: contains the marker <!-- agent-constitution:end -->"),
    "succession cycle": (both(replace("src/rules/7.toml", 'status = "active"', 'status = "superseded"\nsuperseded_by = 1\nsupersedes = 1'),
                              replace("src/rules/1.toml", 'status = "active"', 'status = "superseded"\nsuperseded_by = 7\nsupersedes = 7')),
                         "compile", "the succession has a cycle: rule 1 → rule 7 → rule 1"),
    "skill.toml nested": (append("src/rules/skills/uv-project/skill.toml", "\n" + DEEP), "compile", "skill.toml: values are nested too deeply"),
    "constitution nested": (append("src/constitution/2026-12/index.toml", "\n" + DEEP), "compile", "index.toml: values are nested too deeply"),
    "constitution huge integer": (append("src/constitution/2026-12/index.toml", f"\nzz = {BIG}\n"), "compile", "more than 4,300 digits"),
    "constitution FIFO": (lambda repo: os.mkfifo(repo / "src/constitution/2026-12/articles/01-basics/02-fifo.toml"),
                          "compile", "02-fifo.toml is neither a file nor a folder (a pipe, socket or device)"),
    "settings.json is a folder": (folder(".claude/settings.json"), "compile", ".claude/settings.json: is a folder, expected a file"),
    "settings.json nested": (write(".claude/settings.json", "[" * 100_000), "compile", "settings.json: values are nested too deeply"),
    "AGENTS.md is a folder": (folder("AGENTS.md"), "compile", "AGENTS.md: is a folder, expected a file"),
    "segment path absolute": (replace("rules.toml", 'path = "svc"', 'path = "/etc"'), "compile",
                              "segment.0.path: '/etc': write a folder relative to the repository root"),
    "segment path with NUL": (replace("rules.toml", 'path = "svc"', 'path = "s\\u0000vc"'), "compile",
                              "segment.0.path: 's\\x00vc': a segment path cannot contain control characters"),
    "segment path too long": (replace("rules.toml", 'path = "svc"', f'path = "{"a" * 300}"'), "compile",
                              "a segment path is at most 200 bytes long"),
    "URL with NUL": (replace("rules.toml", 'ac = { path = "src" }', 'ac = { url = "https://x\\u0000y/z" }'), "compile",
                     "sources.ac.url: 'https://x\\x00y/z' contains a control character"),
    "revision with a newline": (replace("rules.toml", 'revision = "0.2"', 'revision = "0.2\\n"'), "compile",
                                "constitution.revision: '0.2\\n' is not a constitution revision"),
    "reference with an Arabic-Indic digit": (replace("rules.toml", '"ac:1",', '"ac:١",'), "compile",
                                             "rules.0: 'ac:١' is not a rule, package or group reference"),
    "verdicts not UTF-8": (write("cache/review/default.verdicts.toml", b"\xff"), "review-ingest",
                           "default.verdicts.toml:1: not UTF-8 text"),
    "verdicts nested": (write("cache/review/default.verdicts.toml", DEEP), "review-ingest", "default.verdicts.toml: values are nested too deeply"),
    "report nested": (both(write("cache/review/default.verdicts.toml", VERDICT), write("cache/checks/report.json", "[" * 100_000)),
                      "review-ingest", "report.json: values are nested too deeply"),
    "report of another shape": (both(write("cache/review/default.verdicts.toml", VERDICT), write("cache/checks/report.json", '{"results": [{}]}')),
                                "review-ingest", "report.json: not a check report written by `doit check`"),
}


def files(repo: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(repo.rglob("*")):
        relative = path.relative_to(repo).as_posix()
        if path.is_file() and not path.is_symlink() and not relative.startswith("cache/") and "__pycache__" not in path.parts:
            found[relative] = path.read_bytes()
    return found


# A broken constitution is found by the render stage, after `lock` has pinned the path source's new
# digest: the lock moving there is the staged-compile item (outputs renamed only after every stage).
@pytest.mark.parametrize("case", CASES)
def test_hostile_file(built: Path, tmp_path: Path, case: str):
    change, task, expected = CASES[case]
    shutil.copytree(built, tmp_path / "copy", symlinks=True)
    repo = tmp_path / "copy" / "repo"
    change(repo)
    before = files(repo)
    done = doit(repo, task)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert expected in output
    assert "Traceback" not in output
    after = files(repo)
    assert after == before  # nothing written, nothing half-written
