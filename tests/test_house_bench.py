"""The house's measuring scripts: bench/house_identity.py sees every kind of difference between two
compiled trees (and only outside `cache/` counts), bench/house_hops.py follows a rule's text from its
file's bytes to the rendered Markdown."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(name, CHECKOUT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


identity = _bench("house_identity")
hops = _bench("house_hops")


def _tree(root: Path) -> Path:
    (root / "cache").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# rules\n\nRule 1.\n")
    (root / "hook.sh").write_text("exit 0\n")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def test_identical_trees_compare_equal_whatever_cache_and_git_hold(tmp_path, capsys):
    before, after = _tree(tmp_path / "before"), _tree(tmp_path / "after")
    (after / "cache" / "index.json").write_text("{}")
    (after / ".git" / "HEAD").write_text("ref: refs/heads/other\n")
    assert identity.compare("same", before, after)
    assert "0 differ (and 1 under cache/: cache/index.json)" in capsys.readouterr().out


def test_each_kind_of_difference_is_named(tmp_path, capsys):
    before, after = _tree(tmp_path / "before"), _tree(tmp_path / "after")
    (after / "AGENTS.md").write_text("# rules\n\nRule 2.\n")
    os.chmod(after / "hook.sh", 0o755)
    (after / "CLAUDE.md").unlink()
    (after / "CLAUDE.md").symlink_to("OTHER.md")
    (after / "new.md").write_text("new\n")
    assert not identity.compare("differ", before, after)
    out = capsys.readouterr().out
    assert "4 differ" in out
    assert "-Rule 1.\n    +Rule 2." in out
    assert "hook.sh: file before, exec after" in out
    assert "-AGENTS.md\n    +OTHER.md" in out
    assert "new.md: absent before, file after" in out


def test_a_rule_text_is_followed_from_its_bytes_to_the_markdown():
    figures = hops.measure(CHECKOUT, 7)
    functions = [function for function, _, _ in figures.path]
    forms = [form for _, _, form in figures.path]
    assert forms[0] == "bytes"  # the rule file as read
    assert any(function.startswith("agent_constitution/compile/document.py:") for function in functions)
    assert "Rule" in forms and "ResolvedRule" in forms
    assert figures.path[-1][2] == "str"  # the rendered document, just before AGENTS.md is written
    assert figures.files <= len(figures.path) and figures.changes >= len(figures.forms) - 1
