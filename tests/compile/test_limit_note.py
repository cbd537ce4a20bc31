"""`pdks init --host` says when the host's agent cannot load the repository's AGENTS.md whole
(its limit from compile/limits.py), with the choices; and the limits table covers every agent."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from agent_constitution.compile import agents
from agent_constitution.compile.fit_note import limit_note
from agent_constitution.compile.limits import LIMITS


def test_every_agent_has_its_limits_and_a_citation():
    assert set(LIMITS) == set(agents.NAMES)
    for name, limit in LIMITS.items():
        assert set(limit) == {"chain_bytes", "file_chars", "citation"}, name
        assert re.search(r"https://|below\)", limit["citation"]), name
    assert agents.AGENTS["windsurf"].file_chars == 12_000 and agents.AGENTS["codex"].chain_bytes == 32 * 1024


def test_a_file_above_windsurfs_limit_is_said_at_pdks_init(tmp_path: Path):
    (tmp_path / "AGENTS.md").write_text("x" * 12_500)
    note = limit_note(tmp_path, "windsurf")
    assert note.startswith("AGENTS.md has 12500 characters, and windsurf reads at most 12000 of a file")
    assert "[compile] agents = [" in note and "exclude rules in rules.toml" in note
    assert limit_note(tmp_path, "claude-code") is None  # no documented limit
    (tmp_path / "AGENTS.md").write_text("short\n")
    assert limit_note(tmp_path, "windsurf") is None


def test_pdks_init_prints_it(tmp_path: Path):
    (tmp_path / "AGENTS.md").write_text("x" * 12_500)
    pdks = Path(sys.executable).parent / "pdks"
    done = subprocess.run([str(pdks), "init", "--host", "windsurf"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "created .windsurf/hooks.json" in done.stdout
    assert "note: AGENTS.md has 12500 characters, and windsurf reads at most 12000" in done.stderr
