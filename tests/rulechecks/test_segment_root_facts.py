"""A segment's checks see the repository's root facts as the tools do: the check API's `enclosing`,
`locate` and `link`, and the checks that were wrong in workspace packages (ac:27, 94, 95, 112; 79 and
80 share ac:95's runner helper), each judged in a segment view of a real folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_constitution.checks.api import Undecidable
from agent_constitution.checks.scan import Scan
from tests.rulechecks.subjects import check_module


def workspace(root: Path, files: dict[str, str]) -> Scan:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Scan(root, tuple(sorted(files)))


def view(scan: Scan, segment: str, segments=("packages/core", "packages/web")):
    return scan.view(segment, (segment, *segments))


# --- the check API ---------------------------------------------------------------------------------


def test_enclosing_lists_the_folders_above_a_segment_nearest_first(tmp_path: Path):
    scan = workspace(tmp_path, {"package.json": "{}", "packages/package.json": "{}", "packages/core/package.json": "{}",
                                "packages/web/package.json": "{}", ".eslintrc.json": "{}"})
    core = scan.view("packages/core", ("packages/core",))
    assert core.enclosing("package.json") == ["packages/package.json", "package.json"]
    assert core.enclosing(".eslintrc*", "biome.json") == [".eslintrc.json"]
    assert scan.view().enclosing("package.json") == []  # the whole repository has nothing above it


def test_locate_folds_a_path_that_climbs_out_of_the_segment(tmp_path: Path):
    scan = workspace(tmp_path, {"tsconfig.json": "{}", "packages/core/tsconfig.json": "{}"})
    core = scan.view("packages/core", ("packages/core",))
    assert core.locate("../../tsconfig.json") == "tsconfig.json"
    assert core.locate("src/../tsconfig.json") == "packages/core/tsconfig.json"
    assert core.locate("../../../outside.json") is None
    assert scan.view().locate("../x") is None


def test_link_and_same_file(tmp_path: Path):
    scan = workspace(tmp_path, {"CLAUDE.md": "x", "docs/a.md": "a"})
    os.symlink("CLAUDE.md", tmp_path / "AGENTS.md")
    os.symlink("../CLAUDE.md", tmp_path / "docs" / "b.md")
    os.symlink(str(tmp_path / "docs" / "a.md"), tmp_path / "c.md")
    repo = Scan(tmp_path, scan.files + ("AGENTS.md", "c.md", "docs/b.md")).view()
    assert repo.link("AGENTS.md") == "CLAUDE.md" and repo.link("docs/b.md") == "CLAUDE.md"
    assert repo.link("c.md") == "docs/a.md" and repo.link("CLAUDE.md") is None
    assert repo.same_file("AGENTS.md", "CLAUDE.md") and repo.same_file("docs/b.md", "AGENTS.md")
    assert not repo.same_file("CLAUDE.md", "docs/a.md")


# --- ac:95 (and the runner helper of 79, 80) -----------------------------------------------------------

PNPM = {
    "package.json": json.dumps({"private": True, "scripts": {"lint": "eslint ."}}),
    "eslint.config.js": "export default []\n",
    "pnpm-workspace.yaml": "packages: ['packages/*']\n",
    "packages/core/package.json": json.dumps({"name": "core"}),
    "packages/web/package.json": json.dumps({"name": "web"}),
}


def test_95_a_linter_run_from_the_workspace_root_counts_in_each_package(tmp_path: Path):
    scan = workspace(tmp_path, PNPM)
    for segment in ("packages/core", "packages/web"):
        assert check_module(95).check(view(scan, segment)) == []


def test_95_a_package_with_no_linter_anywhere_is_still_a_violation(tmp_path: Path):
    files = {**PNPM, "package.json": json.dumps({"private": True})}
    del files["eslint.config.js"]
    scan = workspace(tmp_path, files)
    findings = check_module(95).check(view(scan, "packages/core"))
    assert [finding.path for finding in findings] == ["package.json"]


def test_95_a_configuration_above_without_a_runner_is_undecidable(tmp_path: Path):
    files = {**PNPM, "package.json": json.dumps({"private": True})}
    scan = workspace(tmp_path, files)
    with pytest.raises(Undecidable, match="eslint.config.js configures a linter"):
        check_module(95).check(view(scan, "packages/core"))


def test_79_ruff_run_from_the_workspace_makefile_counts_in_each_package(tmp_path: Path):
    scan = workspace(tmp_path, {"Makefile": "lint:\n\truff check libs\n", "libs/a/pyproject.toml": "[project]\n"})
    assert check_module(79).check(scan.view("libs/a", ("libs/a",))) == []


# --- ac:27 -------------------------------------------------------------------------------------------------

PYTHON = {
    "pyproject.toml": "[project]\nname = 'root'\n\n[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
    "tests/test_core.py": "def test_core():\n    pass\n",
    "libs/core/pyproject.toml": "[project]\nname = 'core'\n",
    "libs/core/src/core.py": "x = 1\n",
}


def test_27_a_package_whose_tests_run_from_the_root_is_not_a_violation(tmp_path: Path):
    scan = workspace(tmp_path, PYTHON)
    with pytest.raises(Undecidable, match="tests/test_core.py"):
        check_module(27).check(scan.view("libs/core", ("libs/core",)))


def test_27_the_root_configuration_counts_for_a_package_with_tests_of_its_own(tmp_path: Path):
    scan = workspace(tmp_path, {**PYTHON, "libs/core/tests/test_x.py": "def test_x():\n    pass\n"})
    assert check_module(27).check(scan.view("libs/core", ("libs/core",))) == []


def test_27_no_tests_and_no_configuration_anywhere_stay_violations(tmp_path: Path):
    scan = workspace(tmp_path, {"pyproject.toml": "[project]\n", "libs/core/pyproject.toml": "[project]\n"})
    findings = check_module(27).check(scan.view("libs/core", ("libs/core",)))
    assert [finding.reason.split(":")[0] for finding in findings] == ["no test file (test_*.py or *_test.py)",
                                                                       "pytest is not configured"]


# --- ac:94 -------------------------------------------------------------------------------------------------


def test_94_a_base_above_the_package_is_read_from_the_repository(tmp_path: Path):
    files = {"tsconfig.base.json": '{"compilerOptions": {"strict": true}}',
             "packages/core/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
             "packages/web/tsconfig.json": '{"extends": "../../tsconfig.base.json", "compilerOptions": {}}'}
    scan = workspace(tmp_path, files)
    assert check_module(94).check(view(scan, "packages/core")) == []
    loose = {**files, "tsconfig.base.json": '{"compilerOptions": {"strict": false}}'}
    scan = workspace(tmp_path / "loose", loose)
    assert [f.path for f in check_module(94).check(view(scan, "packages/core"))] == ["tsconfig.json"]


def test_94_a_base_outside_the_repository_stays_undecidable(tmp_path: Path):
    scan = workspace(tmp_path, {"packages/core/tsconfig.json": '{"extends": "../../../shared/tsconfig.json"}'})
    with pytest.raises(Undecidable, match="does not hold"):
        check_module(94).check(view(scan, "packages/core"))


# --- ac:112 ------------------------------------------------------------------------------------------------


def _fake_cargo(folder: Path) -> str:
    """`cargo` that records its arguments and answers as cargo-deny does when everything passes."""
    import sys

    folder.mkdir()
    for tool in ("cargo", "cargo-deny"):
        script = folder / tool
        script.write_text(f"#!{sys.executable}\nimport sys, json\n"
                          f"open({str(folder / 'args.json')!r}, 'w').write(json.dumps(sys.argv[1:]))\nsys.exit(0)\n")
        script.chmod(0o755)
    return str(folder)


CARGO = {"Cargo.toml": "[workspace]\nmembers = ['crates/*']\n", "Cargo.lock": "version = 3\n",
         "deny.toml": "[licenses]\nallow = ['MIT']\n", "crates/a/Cargo.toml": "[package]\nname = 'a'\n"}


def test_112_a_member_is_judged_under_the_workspace_roots_policy(tmp_path: Path, monkeypatch):
    scan = workspace(tmp_path / "repo", CARGO)
    monkeypatch.setenv("PATH", _fake_cargo(tmp_path / "bin"))
    assert check_module(112).check(scan.view("crates/a", ("crates/a",))) == []
    args = json.loads((tmp_path / "bin" / "args.json").read_text())
    assert args[-2:] == ["--config", str(tmp_path / "repo" / "deny.toml")]


def test_112_no_policy_anywhere_is_still_a_violation(tmp_path: Path):
    files = {name: text for name, text in CARGO.items() if name != "deny.toml"}
    scan = workspace(tmp_path, files)
    findings = check_module(112).check(scan.view("crates/a", ("crates/a",)))
    assert [finding.path for finding in findings] == ["Cargo.toml"]
