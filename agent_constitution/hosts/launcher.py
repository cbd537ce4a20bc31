"""The command an agent host or a git hook runs: the same on every machine where possible, failing closed.

An agent host starts a hook with its own PATH, which rarely holds a dev-dependency's scripts; a
missing program makes the shell exit 127, which Claude Code and Codex treat as "go on". So every
command compile and `pdks init` write names its program in one of three forms (`form`), chosen
from the repository and this installation (the same for both writers, so neither rewrites the
other's entry):

- `uv`: the repository is a uv project whose lock holds agent-constitution (a dev dependency, or
  this project itself). The command runs `.venv/bin/<tool> …` while the environment is known to
  match `uv.lock`, else `uv run --quiet <tool> …` (`locked_env`); the same on every machine, so it
  can be committed. uv is looked up on PATH when it is needed; a missing uv blocks with the fix.
- `name`: otherwise, when PATH finds this installation's console scripts under their own names
  (`uv tool install`, pipx, an activated virtual environment): the program by name (`pdks hook …`,
  `agent-constitution-stop` for the Stop check), the same on every machine where the team
  installed the tool the usual way, so it can be committed too. A program the hook's PATH lacks
  blocks with the fix.
- `path`: otherwise (a virtual environment that is not on PATH). The program's absolute path,
  recorded when the command is written: the `pdks` script beside the running interpreter, or the
  interpreter itself for the Stop check. Machine-specific: each member compiles once.

Each form is wrapped in a few lines of POSIX shell that turn every status other than 0 and 2
(a missing program, a crash before the tool's own error handling) into 2 with a line on stderr
naming the fix, because only 2 blocks (docs/compile.md, "What each host does with a hook").
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from agent_constitution.hosts.locked_env import fast_or_uv
from agent_constitution.errors import UserError
from agent_constitution.hosts import HOSTS
from agent_constitution.layout import MANIFEST
from agent_constitution.readers import read_toml
from agent_constitution.wiring import spoken

PACKAGE = "agent-constitution"
# Inside double quotes in the emitted shell: no backquote, no `$` (they would be expanded).
FIX = "run doit compile in this repository"  # as written here; `command` says it the way the repository's user does
# What versions before the spoken form wrote, so that their entries stay ours (`generated`).
LEGACY_FIX = "run agent-constitution compile (or doit compile) in this repository"
INSTALL = "uv tool install git+https://github.com/Luolc/agent-constitution"
STOP_MODULE = "agent_constitution.checks.stop"
STOP_SCRIPT = "agent-constitution-stop"  # the console script running STOP_MODULE's main
UV, NAME, PATH = "uv", "name", "path"
# What versions before the locked-environment launcher wrote for `UV`: always `uv run` (still ours).
LEGACY_UV = "uv-run"
# The console scripts hooks call by name: the name form is chosen only when PATH finds all of them.
SCRIPTS = ("pdks", STOP_SCRIPT, PACKAGE)
# What older versions wrote: still ours, so compile and init replace them instead of adding a second.
LEGACY_PREFIXES = ("", "uv run ", 'cd "$CLAUDE_PROJECT_DIR" && ', 'cd "$CLAUDE_PROJECT_DIR" && uv run ')
_PATH_FORM = re.compile(r"^p='(?P<path>[^']*)'; ")


@dataclass(frozen=True)
class Program:
    """One of our programs as a hook runs it: its name (`pdks`, or `python` for a module run with
    `-m`), found under uv by that name or else by `program_path`, and its arguments; `named`, the
    same run by a console script's name where `tool args` is not one (`agent-constitution-stop`
    for `python -m agent_constitution.checks.stop`).

    `deny`: for a host that blocks on a JSON answer rather than on exit 2 (Cursor, Copilot, Cline), the
    JSON text that blocks, printed on stdout when the program cannot run or crashes, and
    `deny_exit`, the status that goes with it (Copilot and Cline read only the JSON: 0)."""

    tool: str
    args: str        # what follows the program, already shell-quoted
    deny: str | None = None
    deny_exit: int = 2
    named: str | None = None
    # The Stop check's missing-program policy (`[compile] stop-missing-tool`): "warn" lets the
    # session end with a line on stderr, "block" blocks once and lets a repeated stop end (see
    # `_missing`); None (the covenant judge): a missing program blocks.
    missing: str | None = None

    @property
    def shown(self) -> str:
        return f"{self.tool} {self.args}"

    @property
    def by_name(self) -> str:
        return self.named or self.shown


def uses_uv(root: Path) -> bool:
    """A uv project whose lock holds this package: `uv run` finds the tool on every machine."""
    try:
        text = (root / "uv.lock").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return f'name = "{PACKAGE}"' in text


def program_path(tool: str) -> str:
    """The absolute path of `tool` as this process sees it: beside the interpreter, else on PATH."""
    here = Path(sys.executable)
    if tool == "python":
        return str(here)
    beside = here.parent / tool
    if beside.is_file():
        return str(beside)
    return shutil.which(tool) or str(beside)


def on_path(tool: str) -> bool:
    """Whether PATH finds `tool` by its name as the very program the path form would name (a link
    into the tool's environment, as `uv tool install` and pipx make, counts)."""
    found = shutil.which(tool)
    return found is not None and os.path.realpath(found) == os.path.realpath(program_path(tool))


def form(root: Path) -> str:
    """How the hooks of the repository at `root` name our programs: `UV`, `NAME` or `PATH`."""
    if uses_uv(root):
        return UV
    return NAME if all(on_path(tool) for tool in SCRIPTS) else PATH


def _tail(program: Program, shown: str, status: str = "s=$?; ") -> str:
    # Only 0 (go on) and 2 (block, stderr to the model) mean something to a host; anything else
    # is a failure to judge, and a failure to judge blocks. `status`: how `$s` gets the program's
    # status (empty where the command before already set it).
    if program.deny is None:
        return (
            f'{status}[ $s -eq 0 ] && exit 0; [ $s -eq 2 ] || '
            f'echo "agent-constitution: {shown} failed with status $s; {FIX}" >&2; exit 2'
        )
    return (
        f'{status}[ $s -eq 0 ] || [ $s -eq 2 ] && exit $s; '
        f'echo "agent-constitution: {shown} failed with status $s; {FIX}" >&2; {_deny(program)}'
    )


def _deny(program: Program) -> str:
    """After a failure line on stderr: the host's blocking answer, and the exit that goes with it."""
    if program.deny is None:
        return "exit 2"
    if "'" in program.deny:
        raise ValueError("a deny answer is written in single quotes and cannot hold one")
    return f"printf '%s\\n' '{program.deny}'; exit {program.deny_exit}"


def command(root: Path, program: Program) -> str:
    """The shell command running `program` from a hook of the repository at `root`, its messages naming
    the command the repository's user has (`doit compile` where it is wired for doit, else
    `agent-constitution compile`: `wiring.spoken`)."""
    return spoken(wrapped(program, form(root)), root)


def _as_written(text: str) -> str:
    """A hook command read back in the words `wrapped` writes (the spoken fix line, and the older one)."""
    return text.replace(spoken(FIX), FIX).replace(LEGACY_FIX, FIX)


def wrapped(program: Program, how: str) -> str:
    """The command running `program` in the form `how` (`UV`, `NAME` or `PATH`)."""
    if how == UV:
        # The project's environment directly while it matches uv.lock, else `uv run` (locked_env).
        missing = _missing(program, "uv is not on the PATH of this hook", "install uv (https://docs.astral.sh/uv/)")
        return fast_or_uv(program.tool, program.args, missing) + _tail(program, program.shown, status="")
    if how == LEGACY_UV:
        return (
            f'command -v uv >/dev/null 2>&1 || {{ {_missing(program, "uv is not on the PATH of this hook", "install uv (https://docs.astral.sh/uv/)")}; }}; '
            f"uv run --quiet {program.shown}; {_tail(program, program.shown)}"
        )
    if how == NAME:
        name = program.by_name.split(" ", 1)[0]
        return (
            f'command -v {name} >/dev/null 2>&1 || {{ {_missing(program, f"{name} is not on the PATH of this hook", _install(program))}; }}; '
            f"{program.by_name}; {_tail(program, program.by_name)}"
        )
    path = program_path(program.tool)
    if "'" in path:
        raise UserError(f"cannot write a hook command for {path}: its path holds a single quote",
                        fix="install the tool (or its virtual environment) under a path without one")
    return _with_path(program, path)


def _with_path(program: Program, path: str) -> str:
    """The path form of `program` with its program at `path`."""
    return (
        f"p='{path}'; [ -x \"$p\" ] || {{ {_missing(program, '$p is missing', FIX)}; }}; "
        f'"$p" {program.args}; {_tail(program, program.shown)}'
    )


# The Stop check's words when its program is missing. They are read by the model, so they ask it
# to do nothing (installing a tool onto the machine is what rule ac:69 forbids): the fix is the
# user's, and the session cannot be judged here.
CANNOT_JUDGE = ("agent-constitution: this session cannot be judged here ({why}). For the user, not the agent: "
                "{fix}. Agent: install nothing for this; tell the user")
REPEATED = " (said once; this repeated stop ends the session)"
POLICY_VARIABLE = "AGENT_CONSTITUTION_STOP_MISSING"  # block | warn: overrides the committed setting
STOP_POLICIES = ("warn", "block")


def _install(program: Program) -> str:
    # The Stop check's words reach the model: they name no install command it could run.
    if program.missing is None:
        return f"install agent-constitution ({INSTALL}) or {FIX}"
    return f"install agent-constitution where this agent runs (its README says how), or {FIX}"


def _missing(program: Program, why: str, fix: str) -> str:
    """The shell run when the program cannot be found. The covenant judge blocks. The Stop check
    follows its policy (`$AGENT_CONSTITUTION_STOP_MISSING`, else the committed setting): `warn`
    says why on stderr and lets the session end; `block` blocks, unless the payload on stdin says
    the model already went on because of a Stop hook (`stop_hook_active`), when it says why once
    more and lets the session end: a machine without the tool never holds a session in a loop."""
    if program.missing is None:
        return f'echo "agent-constitution: {why}; {fix}" >&2; {_deny(program)}'
    said = CANNOT_JUDGE.format(why=why, fix=fix)
    return (
        f'm="{said}"; case "${{{POLICY_VARIABLE}:-{program.missing}}}" in block) '
        # The payload is read with the shell's own `read`: PATH may hold nothing at all.
        """j=; while IFS= read -r l || [ -n "$l" ]; do j="$j$l"; done; """
        """case "$j" in *'"stop_hook_active": true'*|*'"stop_hook_active":true'*) """
        f'echo "$m{REPEATED}" >&2; exit 0;; esac; echo "$m" >&2; {_deny(program)};; '
        '*) echo "$m" >&2; exit 0;; esac'
    )


def stop_policy(root: Path) -> str:
    """`[compile] stop-missing-tool` of the repository's manifest (`warn` when unset or unreadable:
    the lock stage validates the manifest and says what is wrong), for `pdks init`, which wires the
    Stop hook outside the stages; compile takes it from the resolution (`Settings`)."""
    try:
        table = read_toml(root / MANIFEST).get("compile", {})
    except UserError:
        return "warn"
    value = table.get("stop-missing-tool") if isinstance(table, dict) else None
    return value if value in STOP_POLICIES else "warn"


def runs_stop_check(text: str) -> bool:
    """Whether a hook command runs our Stop check, in any form (by module or by its script)."""
    return STOP_MODULE in text or STOP_SCRIPT in text


def generated(program: Program, text: str) -> bool:
    """Whether `text` is a command this module writes for `program` (in any form, on any machine),
    or what an older version wrote: an entry of ours, which a writer may replace. Anything else
    that runs the program is somebody's deliberate choice and stays."""
    if any(text == prefix + program.shown for prefix in LEGACY_PREFIXES):
        return True
    # Under any missing-program policy, and without one (what versions before the policy wrote).
    variants = [program] if program.missing is None else \
        [replace(program, missing=policy) for policy in (*STOP_POLICIES, None)]
    text = _as_written(text)
    match = _PATH_FORM.match(text)
    for variant in variants:
        if text in (wrapped(variant, UV), wrapped(variant, LEGACY_UV), wrapped(variant, NAME)):
            return True
        if match is not None and text == _with_path(variant, match["path"]):
            return True
    return False


_FAILED = "agent-constitution: the covenant judge could not run; " + FIX


def deny(host: str) -> tuple[str | None, int]:
    """What the hook command prints when the judge cannot run, and its status: the host's JSON
    blocking answer where it blocks on one (`Host.deny`), else nothing and 2."""
    spec = HOSTS.get(host)
    return spec.deny(_FAILED) if spec is not None and spec.deny is not None else (None, 2)


def covenant_hook(host: str) -> Program:
    text, deny_exit = deny(host)
    return Program("pdks", f"hook {shlex.quote(host)}", text, deny_exit)


def stop_hook(host: str | None = None, deny: str | None = None, deny_exit: int = 2,
              missing: str = "warn") -> Program:
    """The Stop check of `host` (none: Claude Code's, which takes no argument), with the
    missing-program policy `missing` (`warn` or `block`)."""
    tail = "" if host is None else f" {shlex.quote(host)}"
    return Program("python", f"-m {STOP_MODULE}{tail}", deny, deny_exit, named=f"{STOP_SCRIPT}{tail}",
                   missing=missing)
