"""`doit impact --base REF --open`: the task list opened as an issue with the host's tool on PATH
(stand-ins that record their arguments, as the upgrade's pull request tests use), or the exact
commands when none is there."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from site_fixtures import run_doit, small_source

from agent_constitution.tasks import impact as impact_task

MUST_ASK = "constitution/2026-10/articles/01-basics/01-must-ask.toml"


def changed_source(tmp_path: Path) -> Path:
    root = small_source(tmp_path / "demo")
    path = root / MUST_ASK
    path.write_text(path.read_text(encoding="utf-8").replace("spending money", "spending money or credit"),
                    encoding="utf-8")
    return root


def path_with(tmp_path: Path, tools: tuple[str, ...]) -> tuple[str, Path]:
    folder = tmp_path / "bin"
    folder.mkdir()
    record = tmp_path / "calls.jsonl"
    for tool in tools:
        script = folder / tool
        script.write_text("#!/usr/bin/env python3\nimport json, sys\n"
                          f"open({str(record)!r}, 'a').write(json.dumps(sys.argv) + '\\n')\n"
                          "print('https://example.invalid/issues/7')\n")
        script.chmod(0o755)
    keep = [str(Path(shutil.which(name)).parent) for name in ("git", "python3")]
    return os.pathsep.join([str(folder), *keep]), record


def test_open_creates_the_issue_with_the_task_list(tmp_path, monkeypatch, capsys):
    root = changed_source(tmp_path)
    path, record = path_with(tmp_path, ("gh",))
    monkeypatch.setenv("PATH", path)
    code, text = run_doit(root, impact_task, "impact", "--base", "HEAD", "--open")
    out = capsys.readouterr().out
    assert code == 0, text + out
    assert "gh: https://example.invalid/issues/7" in out
    (call,) = [json.loads(line) for line in record.read_text().splitlines()]
    body = root / "cache" / "impact" / "issue.md"
    assert call[1:] == ["issue", "create", "--title", "Re-examine the rules citing the provisions changed since HEAD",
                        "--body-file", str(body)]
    assert "- [ ] rule " in body.read_text() and "`must-ask.capital`" in body.read_text()


def test_without_a_tool_it_says_what_to_run(tmp_path, monkeypatch, capsys):
    root = changed_source(tmp_path)
    path, _ = path_with(tmp_path, ())
    monkeypatch.setenv("PATH", path)
    code, text = run_doit(root, impact_task, "impact", "--base", "HEAD", "--open")
    said = text + "".join(capsys.readouterr())
    assert code != 0 and "none of gh, glab, tea is on PATH, so the issue is not opened" in said
    assert "gh issue create --title" in said and "glab issue create" in said and "Traceback" not in said


def test_nothing_changed_opens_nothing(tmp_path, monkeypatch, capsys):
    root = small_source(tmp_path / "demo")
    path, record = path_with(tmp_path, ("gh",))
    monkeypatch.setenv("PATH", path)
    code, _ = run_doit(root, impact_task, "impact", "--base", "HEAD", "--open")
    assert code == 0 and "no issue opened" in capsys.readouterr().out and not record.exists()
