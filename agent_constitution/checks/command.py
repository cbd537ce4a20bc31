"""Running an external check: a command from a rule's `[check]`, without a shell, with a timeout.

The contract (docs/checks.md has it in full): the command runs in the root of what the rule governs
(the repository root, or a segment's folder), its declared `tools` are looked up on PATH first, and
`{source}` in its arguments becomes the source tree's path, so a script shipped in the source can be
named. Exit 0: satisfied; exit 1: violated, with findings on stdout; any other status, a missing
tool, a timeout or stdout that breaks the schema: undecidable with that cause.

The command leads its own process group, which is killed whole at the timeout. The timeout covers
the output too: a process the command left behind holding stdout open (a daemon in a session of
its own, which the group kill cannot reach) does not make the run wait past it. Output is read as
it comes, up to a cap per stream; a command that passes it is killed and undecidable, so 300 MB of
output costs a few MB of memory, not a gigabyte.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_constitution.checks.api import Finding, Undecidable
from agent_constitution.checks.model import CheckSpec
from agent_constitution.checks.tools import ToolUnavailable, install_hint, tool_command
from agent_constitution.errors import UserError
from agent_constitution.readers import parse_json


MIB = 1024 * 1024
CAPS = {"stdout": 16 * MIB, "stderr": 1 * MIB}
_CHUNK = 64 * 1024


class Edit(BaseModel):
    """One edit of a declarative fix: at `line` (1-based; one past the last line: the end), delete
    `delete` whole lines, then insert `insert` (whole lines, each ending in a newline)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    path: str | None = Field(default=None, description="the file, POSIX, relative to the working directory; "
                                                       "default: the finding's path")
    line: int = Field(ge=1)
    delete: int = Field(default=0, ge=0)
    insert: str = ""


class FindingFix(BaseModel):
    """How `check --fix` mends the finding, for a rule whose `[check] fix` names a tier."""

    model_config = ConfigDict(extra="forbid", strict=True)

    edits: list[Edit] = Field(min_length=1)
    unsafe: bool = False


class _Finding(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    reason: str = Field(min_length=1)
    path: str | None = None
    line: int | None = Field(default=None, ge=1)
    column: int | None = Field(default=None, ge=1)
    fix: FindingFix | None = None
    end_line: int | None = Field(default=None, ge=1)
    end_column: int | None = Field(default=None, ge=1)


class _Output(BaseModel):
    """The JSON a command prints on stdout: `{"findings": [{"reason", "path"?, "line"?, "column"?, "end_line"?, "end_column"?}]}`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    findings: list[_Finding]


def run_command(spec: CheckSpec, *, cwd: Path, source_root: Path, env: dict[str, str]) -> list[Finding]:
    """The findings of a violated check ([] when satisfied); Undecidable for every other ending."""
    return [finding for finding, _ in run_command_fixes(spec, cwd=cwd, source_root=source_root, env=env)]


def run_command_fixes(spec: CheckSpec, *, cwd: Path, source_root: Path,
                      env: dict[str, str]) -> list[tuple[Finding, FindingFix | None]]:
    """`run_command`'s findings, each with the declarative fix the command printed for it (or None)."""
    pins = spec.pins
    argv = [arg.replace("{source}", str(source_root)) for arg in spec.command or ()]
    for tool in spec.tools:
        if shutil.which(tool) is not None:
            continue
        if tool != argv[0]:  # only the program itself can be run through uv or npx
            raise Undecidable(f"missing tool: {tool} (not found on PATH; {install_hint(tool, pins.get(tool))})")
        try:
            argv = tool_command(tool, timeout=spec.timeout, install=pins) + argv[1:]
        except ToolUnavailable as error:
            raise Undecidable(str(error)) from None
    try:
        process = subprocess.Popen(
            argv, cwd=cwd, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except FileNotFoundError:
        raise Undecidable(f"missing tool: {argv[0]} (not found)") from None
    except OSError as error:
        raise Undecidable(f"cannot start {argv[0]}: {error.strerror}") from None
    stdout, stderr = collect(process, spec.timeout)
    status = process.returncode
    if status not in (0, 1):
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        raise Undecidable(f"crash: {how}{_tail(stderr)}")
    findings = _parse(stdout)
    if status == 0 and findings:
        raise Undecidable("malformed output: exit status 0 (satisfied) but findings on stdout")
    if status == 1 and not findings:
        raise Undecidable(f"malformed output: exit status 1 (violated) but no findings on stdout{_tail(stderr)}")
    return findings


def collect(process: subprocess.Popen, timeout: float) -> tuple[bytes, bytes]:
    """stdout and stderr until both end and the command exited, within `timeout` and the caps."""
    deadline = time.monotonic() + timeout
    read = {"stdout": bytearray(), "stderr": bytearray()}
    with selectors.DefaultSelector() as selector:
        for name in read:
            selector.register(getattr(process, name), selectors.EVENT_READ, name)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Undecidable(_timeout(process, timeout))
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, _CHUNK)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    buffer = read[key.data]
                    if len(buffer) + len(chunk) > CAPS[key.data]:
                        raise Undecidable(f"output cap: {key.data} passed {CAPS[key.data] // MIB} MiB, the cap "
                                          f"for a check's {key.data}; the command was stopped")
                    buffer += chunk
            try:
                process.wait(max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                raise Undecidable(_timeout(process, timeout)) from None
        finally:
            _end(process)
    return bytes(read["stdout"]), bytes(read["stderr"])


def _timeout(process: subprocess.Popen, timeout: float) -> str:
    text = f"timeout: no answer within {timeout:g} s"
    if process.poll() is not None:
        text += " (the command exited, but a process it started still holds its output open)"
    return text


def _end(process: subprocess.Popen) -> None:
    """Kill what is left of the command's process group, reap it, and close our ends of its pipes."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
    process.stdout.close()
    process.stderr.close()


def _parse(stdout: bytes) -> list[tuple[Finding, FindingFix | None]]:
    text = stdout.decode("utf-8", errors="replace").strip()
    if not text:
        return []
    try:
        output = _Output.model_validate(parse_json(text, "stdout"))
    except UserError as error:
        where = f" at line {error.line}" if error.line else ""
        detail = error.message.removeprefix("not valid JSON: ")
        raise Undecidable(f"malformed output: stdout is not JSON ({detail}{where})") from None
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "(top)"
        raise Undecidable(f"malformed output: {where}: {problem['msg']}") from None
    return [(Finding(f.reason, f.path, f.line, f.column, f.end_line, f.end_column), f.fix) for f in output.findings]


def _tail(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", errors="replace").strip().splitlines()
    return f": {lines[-1].strip()}" if lines else ""
