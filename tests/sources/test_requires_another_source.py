"""A source whose rules require another source's rules validates alone (`doit source`, `doit check`):
those requirements are judged where a manifest loads the other source; its own requirements still are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent_constitution.authoring.validate import validate_source
from tests.ruleset.builders import write_source

TEAM = {
    1: {"parent": "python", "requires": ["core:3"]},
    2: {"parent": 1, "requires": ["core:git"]},
}


def _team(root: Path, rules: dict) -> Path:
    return write_source(root, rules, name="team", sources={"core": {"url": "https://example.org/core.git"}},
                        constitution=None, text="Do the thing. It matters here. A check confirms it.")


def test_requirements_of_another_source_are_left_to_the_manifest(tmp_path: Path):
    assert [str(problem) for problem in validate_source(_team(tmp_path / "team", TEAM))] == []


def test_its_own_requirements_are_still_judged(tmp_path: Path):
    root = _team(tmp_path / "team", {**TEAM, 3: {"parent": 2, "requires": ["core:3", 1]}})
    found = [str(problem) for problem in validate_source(root)]
    assert len(found) == 1 and "rules/3.toml: requires: requires lists 1, but it already follows from 3 → 2 → 1" in found[0]


def test_every_text_has_three_to_five_sentences(tmp_path: Path):
    root = write_source(tmp_path / "team", {1: {"parent": "python", "text": "One sentence."},
                                            2: {"parent": "python", "text": "A. B. C. D. E. F. G. H."},
                                            3: {"parent": "python", "text": "Run `a.b. c.` here. Why. How."},
                                            4: {"parent": "python", "status": "superseded", "superseded_by": 3,
                                                "text": "Old."}},
                        name="team", constitution=None)
    found = [str(problem) for problem in validate_source(root)]
    assert len(found) == 4, found  # rules 1 and 2, each in both languages; 3 holds a code span; 4 is history
    assert "rules/1.toml: text.en: the en text has 1 sentence; a rule's text has 3 to 5" in found[0]
    assert "rules/2.toml: text.en: the en text has 8 sentences" in found[2] and "split the rule" in found[2]


def test_doit_source_and_check_run(tmp_path: Path):
    root = _team(tmp_path / "team", TEAM)
    (root / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    for task in ("source", "check"):
        done = subprocess.run([sys.executable, "-m", "doit", task], cwd=root, capture_output=True, text=True)
        assert "Traceback" not in done.stderr and "KeyError" not in done.stderr, done.stderr
        assert done.returncode == 0, done.stdout + done.stderr
