"""Real consumers installed from the npm registry for the tests that feed them our outputs.

`.ci/run` installs every package named in `.ci/npm-tools.txt` (one pinned spec per line) into one
prefix and points `AGENT_CONSTITUTION_TEST_NPM` at it, with `AGENT_CONSTITUTION_CONSUMERS_REQUIRED=1`
so that a consumer missing in CI fails the test instead of skipping it. On a developer's machine a
missing consumer skips with the command that installs it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

PREFIX_ENV = "AGENT_CONSTITUTION_TEST_NPM"
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
    message = (
        f"{name} is not installed: run `npm install --prefix DIR $(grep -v '^#' .ci/npm-tools.txt)` "
        f"and set {PREFIX_ENV}=DIR"
    )
    if os.environ.get(REQUIRED_ENV) == "1":
        pytest.fail(message)
    pytest.skip(message)
