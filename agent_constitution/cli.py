"""The `agent-constitution` command (alias `agc`): start a repository, and run the task graph.

`agent-constitution init` writes the starter manifest; `compile`, `check`, `upgrade`, … run this
project's doit tasks in-process (commands/run.py), so the repository needs no Python project and no
doit; `agent-constitution doit ARGS` is any doit command line over the same tasks. Every command has
`--help` / `-h` and `--version` (stdout, exit 0); an error is one `error:` message with a `fix:` on
stderr and exit 1; a usage error exits 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.wiring import PROG, spoken


def version() -> str:
    from importlib.metadata import version as installed

    from agent_constitution.commands.starter import built_from

    commit = built_from()
    return f"{PROG} {installed('agent-constitution')}" + (f" ({commit[:12]})" if commit else "")


def overview() -> str:
    from agent_constitution.commands.run import VERBS

    lines = [
        f"usage: {PROG} COMMAND [ARGS ...]   (alias: agc)",
        "",
        "Govern AI coding agents: a constitution, rules with checks, compiled agent instructions.",
        "",
        "Commands:",
        f"  {'init':<14} write a starter rules.toml and lock it (never overwrites a file)",
    ]
    lines.extend(f"  {verb.name:<14} {verb.summary.rstrip('.')}" for verb in VERBS.values())
    lines += [
        f"  {'doit':<14} any doit command line over the same tasks (`{PROG} doit list`, `doit -n 4 compile`)",
        f"  {'help':<14} the reference pages (`{PROG} help TOPIC`)",
        "",
        "Options:",
        "  -h, --help     show this help (COMMAND --help: that command's options and variables)",
        "  --version      show the version and the commit it was built from",
    ]
    return "\n".join(lines) + "\n"


def _init_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} init",
        description=(
            "Write a starter rules.toml (this project's rule source, trusted, following its main branch, "
            "with the constitution it publishes), lock it in rules.lock at the commit this tool was built "
            "from, and write cache/.gitignore. Existing files are left as they are."
        ),
    )
    parser.add_argument("root", nargs="?", type=Path, default=Path.cwd(), metavar="DIR",
                        help="the repository's root folder (default: the current folder)")
    parser.add_argument("--doit", action="store_true",
                        help='also wire doit for `doit compile`: [tool.doit] loader = "agent-constitution" '
                             "in an existing pyproject.toml, or a three-line dodo.py")
    parser.add_argument("--version", action="version", version=version())
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(args)
    except UserError as error:
        from agent_constitution.commands.run import find_root

        # A fix line names the command the user has (`agent-constitution compile`, not `doit compile`).
        print(spoken(str(error), find_root(Path.cwd().resolve())), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _dispatch(args: list[str]) -> int:
    if "--version" in args:
        print(version())
        return 0
    from agent_constitution.commands import run

    if not args:
        sys.stderr.write(overview())
        return 2
    verb, rest = args[0], args[1:]
    if verb in ("-h", "--help"):
        sys.stdout.write(overview())
        return 0
    if verb == "init":
        from agent_constitution.commands.init import init

        try:
            options = _init_parser().parse_args(rest)
        except SystemExit as done:
            return int(done.code or 0)
        return init(options.root, doit=options.doit)
    if verb == "help":
        from agent_constitution.commands import help

        if rest and rest[0] in run.VERBS:
            return run.show_usage(run.VERBS[rest[0]])
        return help.show(rest[0] if rest else None)
    if verb == "doit":
        return run.doit(run.find_root(Path.cwd().resolve()), rest)
    if verb not in run.VERBS:
        print(f"error: unknown command {verb!r}\n  fix: run `{PROG} --help` for the commands", file=sys.stderr)
        return 2
    if "-h" in rest or "--help" in rest:
        return run.show_usage(run.VERBS[verb])
    return run.run(run.VERBS[verb], rest)


if __name__ == "__main__":
    sys.exit(main())
