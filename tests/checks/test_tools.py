"""Where a check's external tool comes from (agent_constitution.checks.tools): PATH first, then the
rule's pinned version through a fake `uv` / `npx` that records its calls, so nothing reaches the network."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.checks import tools, worker
from agent_constitution.checks.model import CheckSpec, Outcome, RuleCheck
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan
from agent_constitution.checks.tools import NO_FETCH, ToolUnavailable, tool_command
from agent_constitution.errors import UserError
from agent_constitution.ruleset.models import Check, Rule, parse

PROJECT = Path(__file__).resolve().parents[2]
ZIZMOR = {"zizmor": {"pypi": "zizmor==1.32.0"}}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    # The python check's worker process keeps the environment it started with: a test changing PATH
    # starts its own and leaves none behind.
    worker.stop()
    monkeypatch.setattr(tools, "_fetched", {})
    monkeypatch.delenv(NO_FETCH, raising=False)
    yield
    worker.stop()


LOOK_UP = ["sh", "-c", 'command -v "$1"', "sh"]  # how the runner is asked for the executable it got


def fake(folder: Path, name: str, *, get: tuple[int, str] = (0, ""), gives: Path | None = None,
         answer: tuple[int, str] = (0, ""), sleep: bool = False) -> Path:
    """A program `name` in `folder` that appends {argv, UV_OFFLINE} to `name`.log, answers the look-up
    of a tool (a runner's `... sh -c 'command -v "$1"' sh TOOL`) with `get` (exit status, stderr) and
    the path `gives` on stdout, and anything else with `answer` (exit status, stdout)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\nimport json, os, sys, time\n"
        f"open({str(folder / (name + '.log'))!r}, 'a').write(json.dumps({{'argv': sys.argv[1:], "
        "'offline': os.environ.get('UV_OFFLINE')}) + '\\n')\n"
        + ("time.sleep(600)\n" if sleep else "")
        + f"if sys.argv[-5:-1] == {LOOK_UP!r}:\n    sys.stderr.write({get[1]!r})\n"
        f"    sys.stdout.write({str(gives or '')!r} + '\\n')\n    sys.exit({get[0]})\n"
        f"sys.stdout.write({answer[1]!r})\nsys.exit({answer[0]})\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def calls(folder: Path, name: str) -> list[dict]:
    log = folder / f"{name}.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_the_tool_on_path_wins(tmp_path, monkeypatch):
    fake(tmp_path, "zizmor")
    fake(tmp_path, "uv")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert tool_command("zizmor", install=ZIZMOR) == ["zizmor"]
    assert calls(tmp_path, "uv") == []


def test_a_missing_pinned_tool_is_got_through_uv_once_and_run_by_its_path(tmp_path, monkeypatch):
    zizmor = fake(tmp_path / "uv-cache", "zizmor")
    fake(tmp_path, "uv", gives=zizmor)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("UV_OFFLINE", "1")
    assert tool_command("zizmor", install=ZIZMOR) == [str(zizmor)]
    assert tool_command("zizmor", install=ZIZMOR) == [str(zizmor)]
    # One look-up per pin and process; uv sees the caller's UV_OFFLINE (cache only).
    assert calls(tmp_path, "uv") == [
        {"argv": ["tool", "run", "--from", "zizmor==1.32.0", *LOOK_UP, "zizmor"], "offline": "1"}]


def test_a_runner_that_gives_no_such_executable_is_a_missing_tool(tmp_path, monkeypatch):
    fake(tmp_path, "uv", gives=tmp_path / "nowhere" / "zizmor")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolUnavailable, match=r"^missing tool: zizmor \(uv got zizmor==1\.32\.0, which gives no "
                                              r"executable zizmor; install it with `uv tool install"):
        tool_command("zizmor", install=ZIZMOR)


def test_uv_that_cannot_get_the_tool_names_it_the_pin_and_the_install_command(tmp_path, monkeypatch):
    fake(tmp_path, "uv", get=(1, "error: No solution found\nhint: Packages were unavailable because the "
                                   "network was disabled.\n"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolUnavailable) as raised:
        tool_command("zizmor", install=ZIZMOR)
    assert str(raised.value) == (
        "missing tool: zizmor (not found on PATH, and uv could not get zizmor==1.32.0: hint: Packages were "
        "unavailable because the network was disabled.; install it with `uv tool install zizmor==1.32.0` "
        "(or `pipx install zizmor==1.32.0`))")


def test_the_opt_out_never_runs_uv(tmp_path, monkeypatch):
    fake(tmp_path, "uv")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv(NO_FETCH, "1")
    with pytest.raises(ToolUnavailable, match=f"{NO_FETCH} forbids running the pinned zizmor==1.32.0 through uv; "
                                               "install it with `uv tool install zizmor==1.32.0`"):
        tool_command("zizmor", install=ZIZMOR)
    assert calls(tmp_path, "uv") == []


def test_no_uv_and_no_pin_and_a_url(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolUnavailable, match=r"not found on PATH, nor uv to run the pinned zizmor==1\.32\.0"):
        tool_command("zizmor", install=ZIZMOR)
    with pytest.raises(ToolUnavailable, match=r"^missing tool: gofmt \(not found on PATH; install it: https://go"):
        tool_command("gofmt", install={"gofmt": {"url": "https://go.dev/doc/install"}})
    with pytest.raises(ToolUnavailable, match=r"^missing tool: tool-x \(not found on PATH; install it and put it"):
        tool_command("tool-x", install={})


def test_getting_the_tool_has_a_timeout(tmp_path, monkeypatch):
    fake(tmp_path, "uv", sleep=True)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolUnavailable, match=r"^timeout: uv did not get zizmor==1\.32\.0 within 0\.3 s; install"):
        tool_command("zizmor", timeout=0.3, install=ZIZMOR)


def test_an_npm_pin_is_got_through_npx(tmp_path, monkeypatch):
    lint_x = fake(tmp_path / "npx-cache", "lint-x")
    fake(tmp_path, "npx", gives=lint_x)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert tool_command("lint-x", install={"lint-x": {"npm": "@scope/lint-x@2.0.6"}}) == [str(lint_x)]
    assert [call["argv"] for call in calls(tmp_path, "npx")] == [
        ["--yes", "--package", "@scope/lint-x@2.0.6", "--", *LOOK_UP, "lint-x"]]
    monkeypatch.setattr(tools, "_fetched", {})
    monkeypatch.setenv(NO_FETCH, "1")
    with pytest.raises(ToolUnavailable, match="install it with `npm install --global @scope/lint-x@2.0.6`"):
        tool_command("lint-x", install={"lint-x": {"npm": "@scope/lint-x@2.0.6"}})


def _rule(rule_id: int) -> RuleCheck:
    path = PROJECT / "rules" / f"{rule_id}.toml"
    rule = parse(Rule, tomllib.loads(path.read_text(encoding="utf-8")), path)
    return RuleCheck.from_rule(rule, source="ac", source_root=PROJECT, trusted=True, language="en")


ZIZMOR_JSON = json.dumps([{"ident": "artipacked", "desc": "credential persistence through GitHub Actions artifacts",
                           "locations": [{"symbolic": {"kind": "Primary", "key": {"Local": {
                               "verbatim_path": "./.github/workflows/ci.yml"}}},
                               "concrete": {"location": {"start_point": {"row": 6}}}}]}])


def with_git(bin_: Path) -> str:
    """PATH with the fake tools and git alone: the scan lists the tree with git when a check first
    asks for it, which is after PATH is narrowed (no uv, zizmor or lint-x lives beside git here)."""
    return f"{bin_}{os.pathsep}{Path(shutil.which('git')).parent}"


def test_rule_75_runs_its_pinned_zizmor_through_uv(tmp_path, monkeypatch):
    """The runner hands the rule's [check.install] to the python check's `run_tool`."""
    repo = tmp_path / "repo"
    (repo / ".github/workflows").mkdir(parents=True)
    (repo / ".github/workflows/ci.yml").write_text("on: push\njobs: {}\n")
    zizmor = fake(tmp_path / "uv-cache", "zizmor", answer=(13, ZIZMOR_JSON))
    bin_ = fake(tmp_path / "bin", "uv", gives=zizmor).parent
    subjects = Subjects(scan(repo))
    monkeypatch.setenv("PATH", with_git(bin_))
    result = run_check(_rule(75), ".", subjects)
    assert result.outcome is Outcome.VIOLATION, result.cause
    assert [(f.path, f.line) for f in result.findings] == [(".github/workflows/ci.yml", 7)]
    assert [call["argv"] for call in calls(bin_, "uv")] == [["tool", "run", "--from", "zizmor==1.32.0", *LOOK_UP, "zizmor"]]
    assert [call["argv"] for call in calls(zizmor.parent, "zizmor")] == [["--offline", "--format", "json", "."]]
    monkeypatch.setenv(NO_FETCH, "1")
    worker.stop()
    result = run_check(_rule(75), ".", subjects)
    assert result.outcome is Outcome.UNDECIDABLE and "uv tool install zizmor==1.32.0" in result.cause


def test_a_command_check_whose_program_is_pinned(tmp_path, monkeypatch):
    lint_x = fake(tmp_path / "uv-cache", "lint-x", answer=(0, '{"findings": []}'))
    bin_ = fake(tmp_path / "bin", "uv", gives=lint_x).parent
    subjects = Subjects(scan(tmp_path))
    monkeypatch.setenv("PATH", with_git(bin_))
    spec = CheckSpec(command=("lint-x", "--all"), tools=("lint-x",), install=(("lint-x", "pypi", "lint-x==1.0"),))
    rule = RuleCheck(source="ac", id=1, revision=1, status="active", title="Rule 1", text="Text.", check=spec,
                     source_root=tmp_path, trusted=True)
    result = run_check(rule, ".", subjects)
    assert result.outcome is Outcome.PASS, result.cause
    assert calls(lint_x.parent, "lint-x")[-1]["argv"] == ["--all"]


def test_every_tool_of_the_project_rules_says_how_to_install_it():
    for path in sorted((PROJECT / "rules").glob("*.toml")):
        if not path.stem.isdigit():
            continue
        check = tomllib.loads(path.read_text(encoding="utf-8")).get("check") or {}
        assert sorted(check.get("install", {})) == sorted(check.get("tools", [])), path.name


BASE = {"python": "r1", "tools": ["zizmor"]}


@pytest.mark.parametrize("install, problem", [
    ({"other": {"pypi": "other==1.0"}}, "install: other is not in `tools`"),
    ({"zizmor": {"pypi": "zizmor>=1.0"}}, "not a PyPI package at an exact version"),
    ({"zizmor": {"pypi": "zizmor==1.0", "url": "https://x.org"}}, "give exactly one of"),
    ({"zizmor": {"npm": "zizmor"}}, "not an npm package at an exact version"),
    ({"zizmor": {"url": "http://x.org"}}, "not an https URL"),
    ({"zizmor": {"brew": "zizmor"}}, "brew"),
])
def test_install_is_validated(install, problem):
    with pytest.raises(UserError, match=problem):
        parse(Check, {**BASE, "install": install}, "rules/1.toml")


@given(st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]==[0-9]{1,3}(\.[0-9]{1,3}){0,2}", fullmatch=True),
       st.sampled_from([" ", ";", "\n", " --index-url x", "[extra]", ","]))
def test_a_pypi_pin_is_a_name_and_an_exact_version_only(pin, junk):
    assert parse(Check, {**BASE, "install": {"zizmor": {"pypi": pin}}}, "r").install["zizmor"].pypi == pin
    with pytest.raises(UserError):
        parse(Check, {**BASE, "install": {"zizmor": {"pypi": pin + junk}}}, "r")
