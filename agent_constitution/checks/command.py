"""Running an external check: a command from a rule's `[check]`, without a shell, with a timeout.

The contract (docs/checks.md has it in full): the command runs in the root of what the rule governs
(the repository root, or a segment's folder), its declared `tools` are looked up on PATH first, and
`{source}` in its arguments becomes the source tree's path, so a script shipped in the source can be
named. Exit 0: satisfied; exit 1: violated, with findings on stdout; any other status, a missing
tool, a timeout or stdout that breaks the schema: undecidable with that cause.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_constitution.checks.api import Finding, Undecidable
from agent_constitution.checks.model import CheckSpec
from agent_constitution.errors import UserError
from agent_constitution.readers import parse_json


class _Finding(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    reason: str = Field(min_length=1)
    path: str | None = None
    line: int | None = Field(default=None, ge=1)
    column: int | None = Field(default=None, ge=1)


class _Output(BaseModel):
    """The JSON a command prints on stdout: `{"findings": [{"reason", "path"?, "line"?, "column"?}]}`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    findings: list[_Finding]


def run_command(spec: CheckSpec, *, cwd: Path, source_root: Path, env: dict[str, str]) -> list[Finding]:
    """The findings of a violated check ([] when satisfied); Undecidable for every other ending."""
    for tool in spec.tools:
        if shutil.which(tool) is None:
            raise Undecidable(f"missing tool: {tool} (not found on PATH)")
    argv = [arg.replace("{source}", str(source_root)) for arg in spec.command or ()]
    try:
        process = subprocess.Popen(
            argv, cwd=cwd, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except FileNotFoundError:
        raise Undecidable(f"missing tool: {argv[0]} (not found)") from None
    except OSError as error:
        raise Undecidable(f"cannot start {argv[0]}: {error.strerror}") from None
    try:
        stdout, stderr = process.communicate(timeout=spec.timeout)
    except subprocess.TimeoutExpired:
        # The command may have started children of its own: end its whole process group.
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise Undecidable(f"timeout: no answer within {spec.timeout:g} s") from None
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


def _parse(stdout: bytes) -> list[Finding]:
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
    return [Finding(f.reason, f.path, f.line, f.column) for f in output.findings]


def _tail(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", errors="replace").strip().splitlines()
    return f": {lines[-1].strip()}" if lines else ""
