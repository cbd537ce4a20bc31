"""The uv form's fast way: a hook runs the project's `.venv` directly only while it matches `uv.lock`.

Real uv projects, synced from an index of two versions of one tiny package served on 127.0.0.1
(with a uv cache of the test's own). The program the hook runs prints the version of that package
it sees and whether `uv run` started it (uv sets `VIRTUAL_ENV`; the hook's environment has none),
so each test sees both which way was taken and that the locked version ran."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from agent_constitution.compile import launcher, locked_env
from tests.rulechecks.test_uv_lock_check import _wheel

UV = os.environ.get("UV") or shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is not installed")

SHOW = """-c 'import importlib.metadata as m, os; print(m.version("alpha"), "uv" if "VIRTUAL_ENV" in os.environ else "direct")'"""
PROGRAM = launcher.Program("python", SHOW)


@pytest.fixture
def index(tmp_path_factory, monkeypatch):
    root = tmp_path_factory.mktemp("index")
    wheels = [_wheel(root, "alpha", version) for version in ("1.0", "2.0")]
    (root / "alpha" / "index.html").write_text("".join(f'<a href="{w.name}">{w.name}</a>\n' for w in wheels))

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path_factory.mktemp("uv-cache")))
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _env() -> dict[str, str]:
    keep = ("PATH", "HOME", "UV_CACHE_DIR")
    return {**{k: os.environ[k] for k in keep if k in os.environ}, "UV_PYTHON_DOWNLOADS": "never",
            "UV_PYTHON": shutil.which("python3.11") or "python3"}


def _uv(root: Path, *args: str) -> None:
    subprocess.run([UV, *args, "-q"], cwd=root, check=True, env=_env())


def _pin(root: Path, url: str, version: str) -> None:
    """The project requiring alpha == `version`, locked (not synced: the environment may go stale)."""
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        f'dependencies = ["alpha=={version}"]\n\n[tool.uv]\npackage = false\n\n'
        f'[[tool.uv.index]]\nurl = "{url}"\ndefault = true\n'
    )
    _uv(root, "lock")


@pytest.fixture
def project(index, tmp_path) -> Path:
    _pin(tmp_path, index, "1.0")
    _uv(tmp_path, "sync")
    return tmp_path


def hook(root: Path, env: dict[str, str] | None = None) -> tuple[str, str]:
    """(alpha's version as the program saw it, the way it was started) of one hook call."""
    command = launcher.wrapped(PROGRAM, launcher.UV)
    run = subprocess.run(["/bin/sh", "-c", command], cwd=root, capture_output=True, text=True,
                         env={**_env(), **(env or {})})
    assert run.returncode == 0, run.stderr
    version, way = run.stdout.split()
    return version, way


def test_the_first_call_goes_through_uv_and_the_next_runs_the_environment_directly(project):
    assert hook(project) == ("1.0", "uv")
    assert (project / locked_env.STAMP).is_file()
    assert hook(project) == ("1.0", "direct")


def test_a_lock_moved_on_takes_uv_which_syncs_the_locked_version(project, index):
    """The stale environment: the lock now says 2.0 (a pull, a branch switch), `.venv` holds 1.0."""
    hook(project)
    _pin(project, index, "2.0")
    assert hook(project) == ("2.0", "uv")
    assert hook(project) == ("2.0", "direct")


def test_a_lock_put_back_with_an_older_time_is_still_seen(project, index):
    """Switched by content, not by modification time (`cp -p`, an unpacked archive)."""
    hook(project)
    old = (project / "uv.lock").stat()
    _pin(project, index, "2.0")
    os.utime(project / "uv.lock", ns=(old.st_atime_ns, old.st_mtime_ns - 10**9))
    assert hook(project) == ("2.0", "uv")


def test_a_package_installed_by_hand_takes_uv_which_puts_the_locked_version_back(project, index):
    _pin(project, index, "2.0")
    hook(project)
    assert hook(project) == ("2.0", "direct")
    _uv(project, "pip", "install", "--python", ".venv", "alpha==1.0")
    assert hook(project) == ("2.0", "uv")


@pytest.mark.parametrize("variable", ["UV_PROJECT_ENVIRONMENT", "UV_NO_SYNC"])
def test_an_environment_uv_would_not_sync_here_is_never_run_directly(project, variable):
    hook(project)
    value = str(project / ".venv") if variable == "UV_PROJECT_ENVIRONMENT" else "1"
    assert hook(project, {variable: value})[1] == "uv"


def test_a_stamp_that_does_not_match_takes_uv_and_is_rewritten(project):
    hook(project)
    stamp = project / locked_env.STAMP
    stamp.write_text("1 2 3 4\n")
    assert hook(project) == ("1.0", "uv")
    assert hook(project) == ("1.0", "direct")
    stamp.write_text("")  # half-written
    assert hook(project)[1] == "uv"


def test_a_failed_run_writes_no_stamp(project):
    failing = launcher.Program("python", "-c 'raise SystemExit(3)'")
    command = launcher.wrapped(failing, launcher.UV)
    run = subprocess.run(["/bin/sh", "-c", command], cwd=project, capture_output=True, text=True, env=_env())
    assert run.returncode == 2 and "failed with status 3" in run.stderr
    assert not (project / locked_env.STAMP).exists()


def test_outside_the_project_root_the_hook_goes_through_uv(project):
    hook(project)
    (project / "sub").mkdir()
    assert hook(project / "sub") == ("1.0", "uv")


def test_the_command_written_before_is_still_ours():
    program = launcher.covenant_hook("claude-code")
    assert launcher.generated(program, launcher.wrapped(program, launcher.LEGACY_UV))
    assert launcher.generated(program, launcher.wrapped(program, launcher.UV))
