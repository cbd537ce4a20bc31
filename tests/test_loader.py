import subprocess
import sys
from pathlib import Path

from agent_constitution.loader import namespace
from agent_constitution.project import Project


def test_namespace_has_group_tasks_and_creates_cache(tmp_path: Path):
    names = namespace(Project(tmp_path))
    assert (tmp_path / "cache").is_dir()
    assert {"task_compile", "task_check", "task_render"} <= set(names)
    assert names["DOIT_CONFIG"]["dep_file"] == "cache/doit.sqlite3"


def test_entry_point_loader_in_another_repo(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    done = subprocess.run(
        [sys.executable, "-m", "doit", "list"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "compile" in done.stdout and "check" in done.stdout
    assert (tmp_path / "cache" / "doit.sqlite3").exists()
