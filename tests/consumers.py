"""Real consumers installed from the npm registry for the tests that feed them our outputs.

`.ci/run` installs every package named in `.ci/npm-tools.txt` (one pinned spec per line) into one
prefix and points `AGENT_CONSTITUTION_TEST_NPM` at it, with `AGENT_CONSTITUTION_CONSUMERS_REQUIRED=1`
so that a consumer missing in CI fails the test instead of skipping it; the agent clients from PyPI
(`.ci/pypi-tools.txt`) it installs as uv tools, their executables in `$AGENT_CONSTITUTION_TEST_PYPI/bin`.
On a developer's machine a missing consumer skips with the command that installs it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

PREFIX_ENV = "AGENT_CONSTITUTION_TEST_NPM"
PYPI_ENV = "AGENT_CONSTITUTION_TEST_PYPI"
REQUIRED_ENV = "AGENT_CONSTITUTION_CONSUMERS_REQUIRED"
NPM_TOOLS = Path(__file__).resolve().parent.parent / ".ci" / "npm-tools.txt"


def npm_bin(name: str) -> Path:
    """The executable `name` from the npm prefix (or PATH); skips, or in CI fails, when it is absent."""
    prefix = os.environ.get(PREFIX_ENV)
    if prefix:
        candidate = Path(prefix) / "node_modules" / ".bin" / name
        if candidate.exists():
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    _missing(f"{name} is not installed: run `npm install --prefix DIR $(grep -v '^#' .ci/npm-tools.txt)` "
             f"and set {PREFIX_ENV}=DIR")


def pypi_bin(name: str) -> Path:
    """The executable `name` of a uv tool in the PyPI prefix; skips, or in CI fails, when it is absent."""
    prefix = os.environ.get(PYPI_ENV)
    candidate = Path(prefix) / "bin" / name if prefix else None
    if candidate is not None and candidate.exists():
        return candidate
    _missing(f"{name} is not installed: run `UV_TOOL_DIR=DIR/tools UV_TOOL_BIN_DIR=DIR/bin uv tool install "
             f"--python '>=3.10,<3.13' SPEC` for each SPEC of .ci/pypi-tools.txt and set {PYPI_ENV}=DIR")


def _missing(message: str):
    if os.environ.get(REQUIRED_ENV) == "1":
        pytest.fail(message)
    pytest.skip(message)
