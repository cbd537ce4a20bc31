"""`constitution-build` as a user runs it."""

import subprocess
import sys
from pathlib import Path

from agent_constitution.edition.cli import main

from .support import snapshot


def test_finds_the_project_root_from_a_subfolder(active: Path, monkeypatch, capsys):
    monkeypatch.chdir(active / "constitution/2026-10/articles")
    assert main([]) == 0
    assert "updated constitution/2026-10/generated/constitution.en.md" in capsys.readouterr().out
    assert main([]) == 0
    assert capsys.readouterr().out == "constitution/2026-10/generated/ is up to date\n"


def test_without_a_constitution(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([]) == 1
    assert "check 1 (edition): there is no constitution/ folder" in capsys.readouterr().err
    assert snapshot(tmp_path) == {}


def test_console_script_exit_status_and_no_traceback(active: Path):
    (active / "constitution/2026-10/index.toml").write_text("status = 'draft'\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", "import sys; from agent_constitution.edition.cli import main; sys.exit(main())"],
                          cwd=active, capture_output=True, text=True)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "index.toml: edition: check 2 (schema): required key is missing" in done.stderr
