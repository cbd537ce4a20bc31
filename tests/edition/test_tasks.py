"""The doit wiring: `render` (in `compile`) and `constitution-checks` (in `check`)."""

import subprocess
import sys
from pathlib import Path

from agent_constitution.project import Project
from agent_constitution.tasks import FAMILIES, constitution_checks, render

from .support import copy_fixture, snapshot

GENERATED = "constitution/2026-10/generated"


def doit(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True)


def repo(tmp_path: Path) -> Path:
    root = copy_fixture("active", tmp_path)
    (root / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n', encoding="utf-8")
    return root


def test_families_are_registered_in_their_groups():
    assert render in FAMILIES and constitution_checks in FAMILIES
    assert render.GROUPS == ("compile",) and constitution_checks.GROUPS == ("check",)


def test_no_constitution_no_tasks(tmp_path: Path):
    assert list(render.tasks(Project(tmp_path))) == []
    assert list(constitution_checks.tasks(Project(tmp_path))) == []


def test_render_depends_on_every_source_and_targets_the_outputs(tmp_path: Path):
    root = repo(tmp_path)
    (task,) = render.tasks(Project(root))
    sources = {str(path) for path in (root / "constitution").rglob("*.toml")}
    assert sources <= set(task["file_dep"])
    assert sorted(Path(target).name for target in task["targets"]) == [
        "constitution.en.agent.md", "constitution.en.md", "constitution.zh.agent.md", "constitution.zh.md", "manifest.json"]


def test_render_runs_once_then_nothing(tmp_path: Path):
    root = repo(tmp_path)
    first = doit(root, "render")
    assert first.returncode == 0, first.stderr
    assert f"updated {GENERATED}/constitution.zh.agent.md" in first.stdout
    before = {path: path.stat().st_mtime_ns for path in (root / GENERATED).iterdir()}
    second = doit(root, "render")
    assert second.returncode == 0 and "-- render" in second.stdout
    assert {path: path.stat().st_mtime_ns for path in (root / GENERATED).iterdir()} == before
    checked = doit(root, "constitution-checks")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_render_failure_reports_the_message_and_writes_nothing(tmp_path: Path):
    root = repo(tmp_path)
    stable = root / "constitution/2026-10/articles/03-process/02-stable.toml"
    stable.write_text(stable.read_text(encoding="utf-8").replace('status = "active"', 'status = "active"\nweight = 3'), encoding="utf-8")
    before = snapshot(root / "constitution")
    done = doit(root, "render")
    assert done.returncode != 0
    assert "weight: check 2 (schema): unknown key" in done.stdout + done.stderr
    assert snapshot(root / "constitution") == before


def test_constitution_checks_fail_on_a_stale_output(tmp_path: Path):
    root = repo(tmp_path)
    assert doit(root, "render").returncode == 0
    (root / GENERATED / "constitution.en.md").write_text("edited\n", encoding="utf-8")
    done = doit(root, "constitution-checks")
    assert done.returncode != 0
    assert "check 10 (generated files): out of date" in done.stdout + done.stderr


def test_render_repairs_a_hand_edited_output(tmp_path: Path):
    root = repo(tmp_path)
    assert doit(root, "render").returncode == 0
    output = root / GENERATED / "constitution.en.md"
    rendered = output.read_bytes()
    output.write_bytes(rendered + b"edited by hand\n")
    again = doit(root, "render")
    assert again.returncode == 0 and f"updated {GENERATED}/constitution.en.md" in again.stdout
    assert output.read_bytes() == rendered
