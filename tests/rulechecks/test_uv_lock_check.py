"""Rule 20 asks uv itself: a real `uv lock --check` against a package index served on 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import http.server
import os
import shutil
import subprocess
import threading
import zipfile
from pathlib import Path

import pytest

from agent_constitution.checks.api import Undecidable

from .subjects import check_module, repository

RULE = 20
UV = os.environ.get("UV") or shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is not installed")


def _wheel(folder: Path, name: str, version: str) -> Path:
    """A minimal pure-Python wheel, with the METADATA, WHEEL and RECORD files uv reads."""
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{dist}/RECORD"] = "\n".join(record + [f"{dist}/RECORD,,"]) + "\n"
    wheel = folder / name / f"{name}-{version}-py3-none-any.whl"
    wheel.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture
def index(tmp_path_factory, monkeypatch):
    """A PEP 503 index of two tiny packages on 127.0.0.1, and a uv cache of the test's own."""
    root = tmp_path_factory.mktemp("index")
    for name in ("alpha", "beta"):
        wheel = _wheel(root, name, "1.0")
        (root / name / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path_factory.mktemp("uv-cache")))
    monkeypatch.delenv("UV_OFFLINE", raising=False)
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _project(url: str, dependencies: str) -> str:
    # No [build-system]: a virtual project, so locking builds nothing.
    return (
        f'[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        f"dependencies = [{dependencies}]\n\n[[tool.uv.index]]\nurl = \"{url}\"\ndefault = true\n"
    )


def _locked(tmp_path: Path, url: str) -> dict[str, str]:
    (tmp_path / "pyproject.toml").write_text(_project(url, '"alpha>=1"'))
    subprocess.run([UV, "lock", "-q"], cwd=tmp_path, check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})
    return {"pyproject.toml": (tmp_path / "pyproject.toml").read_text(), "uv.lock": (tmp_path / "uv.lock").read_text()}


def test_a_current_lock_passes(index, tmp_path):
    files = _locked(tmp_path, index)
    assert check_module(RULE).check(repository(tmp_path, files)) == []


def test_a_dependency_added_without_locking_is_reported(index, tmp_path):
    files = _locked(tmp_path, index)
    files["pyproject.toml"] = _project(index, '"alpha>=1", "beta>=1"')
    findings = check_module(RULE).check(repository(tmp_path, files))
    assert [(f.path, f.reason) for f in findings] == [
        ("uv.lock", "out of date with pyproject.toml: `uv lock --check` fails; run `uv lock`")
    ]


def test_an_included_dependency_group_is_locked_as_uv_locks_it(index, tmp_path):
    # PEP 735 include-group: a hand-written comparison of requirements gets this wrong.
    (tmp_path / "pyproject.toml").write_text(
        _project(index, '"alpha>=1"') + '\n[dependency-groups]\ntests = ["beta>=1"]\ndev = [{ include-group = "tests" }]\n'
    )
    subprocess.run([UV, "lock", "-q"], cwd=tmp_path, check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})
    files = {name: (tmp_path / name).read_text() for name in ("pyproject.toml", "uv.lock")}
    assert check_module(RULE).check(repository(tmp_path, files)) == []


def test_a_requires_python_change_is_reported(index, tmp_path):
    files = _locked(tmp_path, index)
    files["pyproject.toml"] = files["pyproject.toml"].replace('">=3.11"', '">=3.10"')
    assert check_module(RULE).check(repository(tmp_path, files))


def test_without_uv_the_check_is_undecidable(tmp_path, monkeypatch):
    monkeypatch.delenv("UV", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    files = {"pyproject.toml": '[project]\nname = "demo"\n', "uv.lock": "version = 1\n"}
    with pytest.raises(Undecidable, match="uv is not installed"):
        check_module(RULE).check(repository(tmp_path, files))


def test_when_uv_cannot_resolve_offline_the_check_is_undecidable(index, tmp_path, monkeypatch):
    files = _locked(tmp_path, index)
    files["pyproject.toml"] = _project(index, '"alpha>=1", "beta>=1"')
    monkeypatch.setenv("UV_OFFLINE", "1")
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "empty-cache"))
    with pytest.raises(Undecidable, match="could not decide"):
        check_module(RULE).check(repository(tmp_path, files))


def test_a_lock_without_its_pyproject_is_not_judged(tmp_path):
    assert check_module(RULE).check(repository(tmp_path, {"sub/uv.lock": "version = 1\n"})) == []
