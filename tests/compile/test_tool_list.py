"""compile lists the external tools the selection's checks run (`agents:tools`, cache/tools.json)."""

from __future__ import annotations

import json
from pathlib import Path

import tomlkit

from agent_constitution.compile.outputs.tools import tool_lines
from tests.compile.support import RULES, make_repo, write_fixture_source
from tests.compile.test_doit import doit, ran

ZIZMOR = {"python": "r3", "tools": ["zizmor", "gofmt"],
          "install": {"zizmor": {"pypi": "zizmor==1.32.0"}, "gofmt": {"url": "https://go.dev/doc/install"}}}


def _repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    rules = {**RULES, 3: {**RULES[3], "check": ZIZMOR},                       # root segment only
             4: {**RULES[4], "check": {"python": "r4", "tools": ["zizmor", "lint-x"],
                                       "install": {"zizmor": {"pypi": "zizmor==1.32.0"}}}}}  # svc only
    write_fixture_source(repo / "src", rules=rules)
    for number in (3, 4):
        (repo / "src" / "rules" / "checks").mkdir(exist_ok=True)
        (repo / "src" / "rules" / "checks" / f"r{number}.py").write_text(f"RULE = {number}\ndef check(repo):\n    return []\n")
    return repo


def test_compile_prints_and_writes_the_tools_of_every_segment(tmp_path):
    repo = _repo(tmp_path)
    result = doit(repo, "compile")
    assert "agents:tools" in ran(result)
    listed = json.loads((repo / "cache" / "tools.json").read_text())
    assert listed == {"version": 1, "tools": [
        {"tool": "gofmt", "url": "https://go.dev/doc/install", "rules": ["ac:3"]},
        {"tool": "lint-x", "rules": ["ac:4"]},
        {"tool": "zizmor", "pypi": "zizmor==1.32.0", "rules": ["ac:3", "ac:4"]}]}
    for line in ("tool zizmor: pypi zizmor==1.32.0 (ac:3, ac:4)", "tool gofmt: install from https://go.dev/doc/install (ac:3)",
                 "tool lint-x: no install given (ac:4)"):
        assert line in result.stdout
    assert ran(doit(repo, "compile")) == []


def test_a_changed_pin_rewrites_the_list(tmp_path):
    repo = _repo(tmp_path)
    doit(repo, "compile")
    path = repo / "src" / "rules" / "3.toml"
    data = tomlkit.parse(path.read_text())
    data["check"]["install"]["zizmor"]["pypi"] = "zizmor==1.33.0"
    data["revision"] = 2
    path.write_text(tomlkit.dumps(data))
    result = doit(repo, "compile")
    assert "tool zizmor: pypi zizmor==1.33.0 (ac:3, ac:4)" in result.stdout
    assert json.loads((repo / "cache" / "tools.json").read_text())["tools"][2]["pypi"] == "zizmor==1.33.0"


def test_the_lines_of_an_npm_pin():
    assert tool_lines([{"tool": "x", "npm": "@s/x@1.0.0", "rules": ["ac:9"]}]) == ["tool x: npm @s/x@1.0.0 (ac:9)"]
