"""init in workspaces: the members it finds become commented-out [[segment]] blocks that, enabled,
resolve; the starter it writes is locked into rules.lock."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_constitution import cli
from agent_constitution.commands.workspace import members
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.ruleset.lockfile import read_lock
from tests.sources.test_init import local_source, starter_from_local_source  # noqa: F401  (fixtures)

HEAD = "# Workspace members found here."


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def enabled(manifest: str) -> str:
    """The manifest with every proposed [[segment]] block uncommented."""
    head, _, proposed = manifest.partition(HEAD)
    lines = [line[2:] if line.startswith("# ") and not line.startswith("# …") else line
             for line in proposed.splitlines()[1:] if line != "#"]
    return head + "\n".join(line for line in lines if not line.startswith(("above it;",))) + "\n"


def init(root: Path, capsys) -> str:
    assert cli.main(["init", str(root)]) == 0
    out = capsys.readouterr().out
    assert "rules.lock: written" in out and (root / "rules.lock").is_file()
    return (root / "rules.toml").read_text()


PNPM = {
    "package.json": json.dumps({"name": "mono", "private": True, "scripts": {"lint": "eslint ."}}),
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - '!packages/skipped'\n",
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "packages/core/package.json": json.dumps({"name": "core"}),
    "packages/web/package.json": json.dumps({"name": "web"}),
    "packages/skipped/package.json": json.dumps({"name": "skipped"}),
    "node_modules/dep/package.json": "{}",
}
CARGO = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/old"]\n',
    "Cargo.lock": "version = 3\n",
    "crates/a/Cargo.toml": '[package]\nname = "a"\n',
    "crates/b/Cargo.toml": '[package]\nname = "b"\n',
    "crates/old/Cargo.toml": '[package]\nname = "old"\n',
}
PYTHON = {
    "pyproject.toml": '[project]\nname = "root"\n\n[tool.uv.workspace]\nmembers = ["libs/*"]\n',
    "uv.lock": "version = 1\n",
    **{f"libs/lib{n}/pyproject.toml": f'[project]\nname = "lib{n}"\n' for n in range(8)},
    "libs/lib7/poetry.lock": "# poetry\n",
    "web/package.json": json.dumps({"name": "web"}),
}


def test_members_of_each_workspace_kind(tmp_path: Path):
    pnpm = write(tmp_path / "pnpm", PNPM)
    assert [(m.path, m.why) for m in members(pnpm, PNPM)] == [
        ("packages/core", "pnpm-workspace.yaml"), ("packages/web", "pnpm-workspace.yaml")]
    cargo = write(tmp_path / "cargo", CARGO)
    assert [m.path for m in members(cargo, CARGO)] == ["crates/a", "crates/b"]
    go = {"go.work": "go 1.22\n\nuse (\n\t./svc/api // the API\n\t\"./svc/worker\"\n)\nuse ./tool\n",
          "svc/api/go.mod": "module api\n", "svc/worker/go.mod": "module worker\n", "tool/go.mod": "module tool\n"}
    assert [m.path for m in members(write(tmp_path / "go", go), go)] == ["svc/api", "svc/worker", "tool"]
    python = write(tmp_path / "python", PYTHON)
    assert [m.path for m in members(python, PYTHON)] == [f"libs/lib{n}" for n in range(8)]


def test_a_python_repository_with_eight_projects_under_libs(tmp_path: Path, capsys):
    root = write(tmp_path / "repo", PYTHON)
    manifest = init(root, capsys)
    assert manifest.count("# [[segment]]") == 8
    assert '# path = "libs/lib0"' in manifest and "# [[segment]]  # python (libs/lib0/pyproject.toml)" in manifest
    # lib7 has its own Poetry lock beside a uv root: its block chooses Poetry for itself.
    block = manifest[manifest.index('# path = "libs/lib7"'):]
    assert "# [segment.choices]" in block and "shown by libs/lib7/poetry.lock" in block
    # web/ holds a package.json but no workspace declares it: a Python project scan does not name it.
    assert '"web"' not in manifest
    # Enabled, every block resolves and locks; the ones that add nothing lock as empty deltas.
    (root / "rules.toml").write_text(enabled(manifest))
    (root / "rules.lock").unlink()
    sync_lock(root, locked=False)
    segments = {segment.path: segment for segment in read_lock(root).segment}
    assert set(segments) == {".", *(f"libs/lib{n}" for n in range(8))}
    assert segments["libs/lib0"].added == () and segments["libs/lib0"].excluded == ()
    assert segments["libs/lib7"].added  # Poetry's rules in place of uv's


def test_a_pnpm_workspace_in_a_python_repository_adds_javascript_to_its_packages(tmp_path: Path, capsys):
    files = {"pyproject.toml": '[project]\nname = "root"\n', "uv.lock": "version = 1\n",
             **{name: text for name, text in PNPM.items() if name != "package.json"}}
    root = write(tmp_path / "repo", files)
    manifest = init(root, capsys)
    assert manifest.count("# [[segment]]") == 2 and manifest.count('# rules = ["ac:javascript"]') == 2
    # The package manager the workspace root shows (its pnpm lock) is chosen for the new package.
    assert "shown by pnpm-lock.yaml" in manifest
    (root / "rules.toml").write_text(enabled(manifest))
    (root / "rules.lock").unlink()
    sync_lock(root, locked=False)
    segments = {segment.path: segment for segment in read_lock(root).segment}
    assert segments["packages/core"].added and segments["packages/web"].added


def test_a_cargo_workspace(tmp_path: Path, capsys):
    root = write(tmp_path / "repo", CARGO)
    manifest = init(root, capsys)
    assert '# path = "crates/a"' in manifest and '# path = "crates/b"' in manifest and "crates/old" not in manifest
    (root / "rules.toml").write_text(enabled(manifest))
    (root / "rules.lock").unlink()
    sync_lock(root, locked=False)


def test_a_repository_without_members_gets_no_proposal(tmp_path: Path, capsys):
    root = write(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "x"\n'})
    assert HEAD not in init(root, capsys)


@pytest.mark.parametrize("count", [45])
def test_a_huge_workspace_is_cut_short(tmp_path: Path, count: int):
    files = {f"pkgs/p{n:02}/pyproject.toml": "[project]\n" for n in range(count)}
    assert len(members(write(tmp_path / "repo", files), files)) == count
