"""Where an external tool a check delegates to comes from: PATH, or the version the rule pins.

A rule's `[check.install]` says how each tool of its `tools` is installed: a PyPI or npm package at
an exact version (`{ pypi = "zizmor==1.32.0" }`, `{ npm = "pkg@1.2.3" }`) or, for a tool no package
index holds, the page that says how to get it (`{ url = "https://go.dev/doc/install" }`). A tool on
PATH is used as it is. A pinned tool that is not on PATH runs through `uv tool run --from <pin>` or
`npx --yes --package <pin> --`, which take it from their cache or the index; `UV_OFFLINE` and npm's
own settings pass through, and AGENT_CONSTITUTION_NO_TOOL_FETCH=1 turns this off so that a locked-down
CI never downloads. A tool none of this gives is `ToolUnavailable`, with the command that installs it.
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
# Pins this process already fetched (or found in the runner's cache): one probe per pin and run.
_fetched: set[tuple[str, str]] = set()


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
    """The argv prefix that runs `tool`: itself when on PATH, else its pinned version through uv or npx.

    `install` defaults to the pins of the check running now (`pinned`). Getting a pinned tool is
    tried once per process, by running it with `--version` within `timeout` seconds."""
    pins = (_current if install is None else install).get(tool)
    if shutil.which(tool) is not None:
        return [tool]
    if pins is None or "url" in pins:
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH; {install_hint(tool, pins)})")
    runner, argv = (("uv", ["uv", "tool", "run", "--from", pins["pypi"], tool]) if "pypi" in pins
                    else ("npx", ["npx", "--yes", "--package", pins["npm"], "--", tool]))
    pin = pins.get("pypi") or pins["npm"]
    if os.environ.get(NO_FETCH, "") not in ("", "0"):
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH, and {NO_FETCH} forbids running the pinned "
                              f"{pin} through {runner}; {install_hint(tool, pins)})")
    if shutil.which(runner) is None:
        raise ToolUnavailable(f"missing tool: {tool} (not found on PATH, nor {runner} to run the pinned {pin}; "
                              f"{install_hint(tool, pins)})")
    if (runner, pin) not in _fetched:
        _probe(tool, pin, runner, argv, timeout, pins)
        _fetched.add((runner, pin))
    return argv


def _probe(tool: str, pin: str, runner: str, argv: list[str], timeout: float, pins: Mapping[str, str]) -> None:
    # The tool's own exit status cannot tell "the runner could not get it" from "the tool found
    # something" (pip-audit exits 1 on a vulnerability, uv exits 1 when offline): `--version` first.
    try:
        done = subprocess.run(argv + ["--version"], capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
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
