"""The `agent-constitution` command (alias `agc`): start a repository, and run the task graph.

`agent-constitution init` writes the starter manifest; `compile`, `check`, `upgrade`, … run this
project's doit tasks in-process (commands/run.py), so the repository needs no Python project and no
doit; `agent-constitution doit ARGS` is any doit command line over the same tasks. The command line
is read by one parser (commands/parser.py): every verb has `--help` / `-h` and `-V` / `--version`
(stdout, exit 0), `-q`, `-v` / `-vv` and `--color`. Exit status: 0 done, 1 findings, 2 a usage or
input error (one `error:` message with a `fix:` on stderr), 3 or more an internal error.
"""

from __future__ import annotations

import os
import sys

from agent_constitution.provenance import built_from, version as installed

# Nothing else at the top but what `--version` prints: `--version` and `--help` import only what
# they use (a verb imports its own modules when it runs).
PROG = "agent-constitution"  # wiring.PROG


def version() -> str:
    commit = built_from()
    return f"{PROG} {installed()}" + (f" ({commit[:12]})" if commit else "")


def overview() -> str:
    from agent_constitution.commands.parser import BUILTINS, EXIT_CODES  # lazy: --version loads cli and provenance only (bench/regress.py)
    from agent_constitution.commands.run import VERBS  # lazy: --version loads cli and provenance only (bench/regress.py)

    lines = [
        f"usage: {PROG} [-q | -v] [--color WHEN] COMMAND [OPTIONS] [NAME=VALUE ...]   (alias: agc)",
        "",
        "Govern AI coding agents: a constitution, rules with checks, compiled agent instructions.",
        "",
        "Commands:",
    ]
    width = max(map(len, [*VERBS, *BUILTINS]))
    lines.extend(f"  {verb.name:<{width}} {verb.summary.rstrip('.')}" for verb in VERBS.values())
    lines.extend(f"  {builtin.name:<{width}} {builtin.summary.rstrip('.')}" for builtin in BUILTINS.values())
    lines += [
        "",
        "Global options (before or after COMMAND):",
        "  -q, --quiet    print only findings and errors",
        "  -v, --verbose  -v: also doit's task lines; -vv: also everything the tasks print",
        "  --color WHEN   auto (default: on a terminal; NO_COLOR turns it off, FORCE_COLOR on), always, never",
        "  -h, --help     show this help (COMMAND --help: that command's options and variables)",
        "  -V, --version  show the version and the commit it was built from",
        "",
        EXIT_CODES,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    shell = os.environ.get("_AGENT_CONSTITUTION_COMPLETE")
    if shell:  # a completion script asks what may come next (commands/completion.py)
        from agent_constitution.commands.completion import respond  # lazy: --version loads cli and provenance only (bench/regress.py)

        return respond(shell, args)
    if args[:1] in (["-V"], ["--version"]):  # the fast path: no verb table, no doit
        print(version())
        return 0
    from pathlib import Path

    from agent_constitution.console import lines_in_order  # lazy: --version loads cli and provenance only (bench/regress.py)
    from agent_constitution.errors import UserError  # lazy: --version loads cli and provenance only (bench/regress.py)
    from agent_constitution.wiring import spoken  # lazy: --version loads cli and provenance only (bench/regress.py)

    lines_in_order()  # after the fast paths: `console` imports dataclasses (about 10 ms)

    try:
        return _dispatch(args)
    except UserError as error:  # a usage or input error
        from agent_constitution.commands.run import find_root  # lazy: --version loads cli and provenance only (bench/regress.py)

        # A fix line names the command the user has (`agent-constitution compile`, not `doit compile`).
        print(spoken(str(error), find_root(Path.cwd().resolve())), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _dispatch(args: list[str]) -> int:
    if not args:
        sys.stderr.write(overview())
        return 2
    if args[:1] in (["-h"], ["--help"]):
        sys.stdout.write(overview())
        return 0
    from agent_constitution import console  # lazy: --version loads cli and provenance only (bench/regress.py)
    from agent_constitution.commands import parser  # lazy: --version loads cli and provenance only (bench/regress.py)

    try:
        invocation = parser.parse(args)
    except parser.Done as done:
        if "-V" in args or "--version" in args:
            print(version())
        return done.code
    console.settings.verbosity = invocation.verbosity
    # `agent-constitution doit ARGS` is doit's own command line: doit's own voice too.
    console.settings.show_tasks = invocation.verb == "doit" or invocation.verbosity >= console.VERBOSE
    console.settings.color = console.use_color(invocation.color, sys.stdout)
    console.settings.output_format = invocation.output_format
    return _run(invocation)


def _run(invocation) -> int:
    from pathlib import Path

    from agent_constitution.commands import run  # lazy: --version loads cli and provenance only (bench/regress.py)

    verb = invocation.verb
    if verb == "init":
        from agent_constitution.commands.init import init  # lazy: --version loads cli and provenance only (bench/regress.py)

        root = Path(invocation.words[0]) if invocation.words else Path.cwd()
        return init(root, doit=bool(invocation.options.get("doit")))
    if verb == "help":
        from agent_constitution.commands import help  # lazy: --version loads cli and provenance only (bench/regress.py)
        from agent_constitution.commands.parser import BUILTINS, verb_parser  # lazy: --version loads cli and provenance only (bench/regress.py)

        topic = invocation.words[0] if invocation.words else None
        if topic in run.VERBS or topic in BUILTINS:
            sys.stdout.write(verb_parser(topic).format_help())
            return 0
        return help.show(topic)
    if verb == "completion":
        from agent_constitution.commands import completion  # lazy: --version loads cli and provenance only (bench/regress.py)

        return completion.main(invocation.words)
    if verb == "doit":
        run.console.settings.failures.clear()
        status = run.doit(run.find_root(Path.cwd().resolve()), list(invocation.rest))
        return run.exit_code(status, run.console.settings.failures)
    return run.run(run.VERBS[verb], invocation)


if __name__ == "__main__":
    sys.exit(main())
