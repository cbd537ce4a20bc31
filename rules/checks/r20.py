"""Rule 20: uv.lock matches pyproject.toml.

Decides exactly what `uv sync --locked` would: for every `uv.lock` with a `pyproject.toml` beside it,
it asks uv itself (`uv lock --check`), so every input uv locks from counts (dependency groups with
`include-group`, optional dependencies, `requires-python`, sources, workspace members). Undecidable
when uv is not installed, when uv cannot answer (no network and an empty cache, an interpreter it may
not download) or when it takes longer than the timeout; uv's own message is the reason.
"""

import os
import shutil
import subprocess
from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 20
SUPERSEDED = False

TIMEOUT = 120  # seconds for one `uv lock --check`: a resolution that needs the index can be slow
_OUR_INTERPRETER = {"VIRTUAL_ENV", "PYENV_VERSION"}
_STALE = "needs to be updated"  # uv's message when --check finds the lock out of date


def check(repo: Repository) -> list[Finding]:
    locks = [path for path in repo.glob("**/uv.lock") if repo.exists(join(dirname(path), "pyproject.toml"))]
    if not locks:
        return []
    uv = _uv()
    findings = []
    for lock_path in locks:
        if _stale(uv, repo.root / dirname(lock_path), lock_path):
            findings.append(Finding("out of date with pyproject.toml: `uv lock --check` fails; run `uv lock`",
                                    path=lock_path))
    return findings


def _uv() -> str:
    # `uv run` names its own executable in UV; a PATH lookup may find a shim (pyenv) that fails
    # in a repository pinned to another Python.
    found = os.environ.get("UV") or shutil.which("uv")
    if not found:
        raise Undecidable("uv is not installed, and only uv can tell whether uv.lock is current: "
                          "install uv (https://docs.astral.sh/uv/) and run the check again")
    return found


def _stale(uv: str, folder, lock_path: str) -> bool:
    """Whether uv finds the lock in `folder` out of date."""
    # Never download an interpreter for a check: a missing one makes the answer undecidable. The
    # interpreter choice of the process running the checks (its virtual environment, the version a
    # pyenv shim exported for it) is not the repository's: its own `.python-version` decides.
    env = {key: value for key, value in os.environ.items() if key not in _OUR_INTERPRETER}
    env.update(UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1", NO_COLOR="1")
    try:
        done = subprocess.run([uv, "lock", "--check"], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Undecidable(f"`uv lock --check` for {lock_path} took longer than {TIMEOUT} s") from None
    except OSError as error:
        raise Undecidable(f"could not run uv ({uv}): {error.strerror}") from None
    if done.returncode == 0:
        return False
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if done.returncode == 1 and any(_STALE in line for line in lines):
        return True
    detail = next((line for line in lines if line.startswith("error:")), lines[-1] if lines else "no message")
    raise Undecidable(f"`uv lock --check` for {lock_path} could not decide (exit {done.returncode}): {detail}")
