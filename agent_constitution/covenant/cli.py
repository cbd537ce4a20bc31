"""`pdks`: the covenant judge's command line (POLYDEUKES §4.7).

`pdks covenant check [--diff [--staged | --worktree | --range <from>..<to>]] [--enforce advise|block]`,
`pdks explain`, `pdks init …`, `pdks hook <host>`. Exit codes are only 0 and 2; a
usage error prints the usage line and reads no stdin. Only the standard library is imported until a
subcommand needs more (the hook path never does while the compiled plan is current), and on the
hook path not `pathlib`, `re`, `json`, `collections` or `functools` either (docs/covenant.md, "Speed").
"""

from __future__ import annotations

import os
import sys

# The hook path imports the host table anyway (covenant/adapters): naming the hosts from it costs nothing.
from agent_constitution.covenant import budget
from agent_constitution.covenant.adapters import main as hook
from agent_constitution.hosts import HOSTS


def usage() -> str:
    """The usage line, naming the hosts of the host table."""
    return ("usage: pdks covenant check [--diff [--staged | --worktree | --range <from>..<to>]]"
            f" [--enforce advise|block] | pdks explain | pdks init | pdks hook {'|'.join(HOSTS)}")


GIT_MODES = ("--staged", "--worktree", "--range")
HELP = {
    "": """usage: pdks COMMAND ...

The covenant judge: enforces the disciplines declared in polydeukes.config.yaml at each agent tool
call (hook) and on a change set (covenant check --diff).

Commands:
  covenant check   judge one tool call (JSON on stdin), or a change set with --diff
  explain          print the compiled config: every covenant, what it covers and why
  init             write a starter polydeukes.config.yaml and wire a host's hook
  hook HOST        the agent host hook (the payload on stdin), HOST one of:
                   {listed}

Options:
  -h, --help       show this help (COMMAND --help: that command's help)
  --version        show the version

Exit status: 0 allowed (advisories on stderr), 2 blocked or an error.
Reference: https://github.com/Luolc/agent-constitution/blob/main/docs/covenant.md
""",
    "covenant": """usage: pdks covenant check [--diff [--staged | --worktree | --range <from>..<to>]] [--enforce advise|block]

Judge one tool call, read as JSON from stdin; with --diff, judge a change set: a unified diff on
stdin, or the one git computes (--staged: the index, --worktree: the working tree, --range A..B).

Options:
  --diff                 judge a change set instead of one tool call
  --staged               the change set is the staged change (git diff --cached)
  --worktree             the change set is the working tree's change against HEAD
  --range <from>..<to>   the change set is the diff between two commits
  --enforce advise|block what a violation of an advisory covenant does (default: advise)
  -h, --help             show this help
""",
    "explain": """usage: pdks explain

Print the compiled config of polydeukes.config.yaml in this folder: every covenant, what it covers
and why. Options: -h, --help.
""",
    "hook": """usage: pdks hook {hosts}

The PreToolUse hook of an agent host: reads the host's payload on stdin, judges the tool call, and
answers the way that host documents (exit 2 with the reason on stderr, or the host's JSON answer).
Options: -h, --help.
""",
}


def help_text(command: str) -> str:
    """The help of `command` ("" for pdks itself), naming the hosts of the host table."""
    names = list(HOSTS)
    listed = ", ".join(names[:-1]) + f" or {names[-1]}"
    return HELP[command].replace("{listed}", listed).replace("{hosts}", "|".join(names))


def _usage() -> int:
    print(usage(), file=sys.stderr)
    return 2


def _check_flags(flags: list[str]) -> dict[str, str] | None:
    """The parsed flags of `covenant check`, or None for a usage error."""
    options: dict[str, str] = {}
    i = 0
    while i < len(flags):
        flag = flags[i]
        if flag == "--enforce" or flag == "--range":
            if flag in options or i + 1 >= len(flags):
                return None
            value = flags[i + 1]
            if flag == "--enforce" and value not in ("advise", "block"):
                return None
            if flag == "--range" and (".." not in value or value.startswith("--")):
                return None
            options[flag] = value
            i += 2
            continue
        if flag not in ("--diff", "--staged", "--worktree") or flag in options:
            return None
        options[flag] = ""
        i += 1
    if sum(mode in options for mode in GIT_MODES) > 1 or (
        any(mode in options for mode in GIT_MODES) and "--diff" not in options
    ):
        return None
    return options


def _covenant_check(flags: list[str]) -> int:
    options = _check_flags(flags)
    if options is None:
        return _usage()
    from agent_constitution.covenant.check import run_check  # lazy: the judge (7 ms) loads only when it judges

    root = os.getcwd()
    posture = options.get("--enforce", "advise")
    change_set = "--diff" in options
    budget.start(budget.CHANGE_SET_BUDGET if change_set else budget.SESSION_BUDGET)
    if change_set:  # the change-set readers work on a Path (the session surface does without pathlib)
        from pathlib import Path

        root = Path(root)
    try:
        if change_set and any(mode in options for mode in GIT_MODES):
            from agent_constitution.covenant import gitdiff  # lazy: pygit2 (97 ms), for git's own diff only

            try:
                text, reader = gitdiff.read(root, staged="--staged" in options, revision_range=options.get("--range"))
            except (gitdiff.GitError, budget.OverBudget) as error:
                return run_check(root, "", change_set=True, posture=posture, failure=str(error))
            return run_check(root, text, change_set=True, posture=posture, read_file=reader)
        limit = budget.DIFF_LIMIT if change_set else budget.PAYLOAD_LIMIT
        try:
            data = budget.read_stdin(sys.stdin.buffer, limit, "diff" if change_set else "input")
        except budget.OverBudget as error:
            return run_check(root, "", change_set=change_set, posture=posture, failure=str(error))
        text = data.decode("utf-8", errors="replace")
        reader = None
        if change_set:
            from agent_constitution.covenant.piped import tree_reader  # lazy: 13 ms, for a piped diff only

            reader = tree_reader(root, text)
        return run_check(root, text, change_set=change_set, posture=posture, read_file=reader)
    finally:
        budget.stop()


def _version() -> int:
    from importlib.metadata import version

    print(f"pdks {version('agent-constitution')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--version" in args:
        return _version()
    # `pdks init --help` is argparse's, below; every other command's help is here.
    if ("-h" in args or "--help" in args) and args[:1] != ["init"]:
        print(help_text(args[0] if args[0] in HELP else ""), end="")
        return 0
    try:
        if args[:2] == ["covenant", "check"]:
            return _covenant_check(args[2:])
        if args == ["explain"]:
            from pathlib import Path

            from agent_constitution.covenant.explain import main as explain  # lazy: 22 ms the hook never needs

            return explain(Path.cwd())
        if args[:1] == ["init"]:
            from agent_constitution.covenant.init import main as init  # lazy: 54 ms the hook never needs

            return init(args[1:])
        if args[:1] == ["hook"]:
            return hook(args[1:])
    except KeyboardInterrupt:
        return 2
    except Exception as error:  # exit codes are only 0 and 2, never a traceback
        print(f"pdks: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    return _usage()


def run() -> None:
    """The `pdks` script: `main()`'s status as the exit status.

    A hook call ends without the interpreter's teardown (module clean-up and a last garbage
    collection: about 4 ms, a sixth of a warm call), once its answer is flushed: every file the
    judge writes (telemetry, baseline, plan) is closed by then. A flush that fails (the host
    closed the pipe) blocks rather than exit 120, as a normal exit would. Every other command
    exits normally."""
    args = sys.argv[1:]
    status = main(args)
    if args[:1] != ["hook"]:
        sys.exit(status)
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        status = 2
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        status = 2
    os._exit(status)
