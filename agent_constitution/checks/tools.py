"""Where an external tool a check delegates to comes from: PATH, or the version the rule pins.

A rule's `[check.install]` says how each tool of its `tools` is installed: a PyPI or npm package at
an exact version (`{ pypi = "zizmor==1.32.0" }`, `{ npm = "pkg@1.2.3" }`) or, for a tool no package
index holds, the page that says how to get it (`{ url = "https://go.dev/doc/install" }`). A tool on
PATH is used as it is. A pinned tool that is not on PATH is got through `uv tool run --from <pin>` or
`npx --yes --package <pin> --`, which take it from their cache or the index, and then run by the
path of the executable they installed; `UV_OFFLINE` and npm's own settings pass through, and
AGENT_CONSTITUTION_NO_TOOL_FETCH=1 turns this off so that a locked-down CI never downloads. A tool
none of this gives is `ToolUnavailable`, with the command that installs it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping

NO_FETCH = "AGENT_CONSTITUTION_NO_TOOL_FETCH"

# The pins of the rule whose python check runs now (a worker process runs one check at a time).
_current: Mapping[str, Mapping[str, str]] = {}
# The executable of each pin this process already got (or found in the runner's cache): one look-up
# per pin and run.
_fetched: dict[tuple[str, str], str] = {}


class ToolUnavailable(Exception):
    """A tool a check needs cannot be had; the check is undecidable with this message."""


@contextlib.contextmanager
def pinned(install: Mapping[str, Mapping[str, str]]) -> Iterator[None]:
    """Within this block, `tool_command` resolves tools with these pins (a rule's `[check.install]`)."""
    global _current
    previous, _current = _current, install
    try:
        yield
    finally:
        _current = previous


def install_hint(tool: str, install: Mapping[str, str] | None) -> str:
    """How a user installs `tool` at the rule's pinned version (or where to get it)."""
    install = install or {}
    if "pypi" in install:
        return f"install it with `uv tool install {install['pypi']}` (or `pipx install {install['pypi']}`)"
    if "npm" in install:
        return f"install it with `npm install --global {install['npm']}`"
    if "url" in install:
        return f"install it: {install['url']}"
    return "install it and put it on PATH"


def tool_command(tool: str, *, timeout: float = 60, install: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
    """The argv prefix that runs `tool`: itself when on PATH, else the executable of its pinned version,
    which uv or npx get.

    `install` defaults to the pins of the check running now (`pinned`). Getting a pinned tool is
    tried once per process, within `timeout` seconds."""
    pins = (_current if install is None else install).get(tool)
    if shutil.which(tool) is not None:
        return [tool]
    if pins is None or "url" in pins:
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH; {install_hint(tool, pins)})")
    runner, argv = (("uv", ["uv", "tool", "run", "--from", pins["pypi"]]) if "pypi" in pins
                    else ("npx", ["npx", "--yes", "--package", pins["npm"], "--"]))
    pin = pins.get("pypi") or pins["npm"]
    if os.environ.get(NO_FETCH, "") not in ("", "0"):
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH, and {NO_FETCH} forbids running the pinned "
                              f"{pin} through {runner}; {install_hint(tool, pins)})")
    if shutil.which(runner) is None:
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH, nor {runner} to run the pinned {pin}; "
                              f"{install_hint(tool, pins)})")
    if (runner, pin) not in _fetched:
        _fetched[runner, pin] = _located(tool, pin, runner, argv, timeout, pins)
    return [_fetched[runner, pin]]


def _located(tool: str, pin: str, runner: str, argv: list[str], timeout: float, pins: Mapping[str, str]) -> str:
    # The tool's own exit status cannot tell "the runner could not get it" from "the tool found
    # something" (pip-audit exits 1 on a vulnerability, uv exits 1 when offline), so the runner first
    # only gets it and names its executable, which then runs without the runner. Measured on a clone
    # of astral-sh/ruff (pip-audit 2.10.1, load 3.9): `uv tool run ... pip-audit --version` took
    # 1.1 s CPU, this look-up 0.3 s, and pip-audit by its path runs as fast as through uv.
    try:
        done = subprocess.run(argv + ["sh", "-c", 'command -v "$1"', "sh", tool], capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ToolUnavailable(f"timeout: {runner} did not get {pin} within {timeout:g} s; "
                              f"{install_hint(tool, pins)}") from None
    except OSError as error:
        raise ToolUnavailable(f"cannot start {runner}: {error.strerror}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        reason = f": {said[-1].strip()[:300]}" if said else f" (exit {done.returncode})"
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH, and {runner} could not get {pin}{reason}; "
                              f"{install_hint(tool, pins)})")
    found = done.stdout.decode("utf-8", errors="replace").strip()
    if not os.path.isabs(found) or not os.access(found, os.X_OK):
        raise ToolUnavailable(f"missing tool: {tool} ({runner} got {pin}, which gives no executable {tool}; "
                              f"{install_hint(tool, pins)})")
    return found
