"""The one argument parser of `agent-constitution`: every verb's options, variables and help, from tables.

The task verbs come from `tasks/verbs.py` (`VERBS`: a new verb is one entry there); the verbs
that run no doit task (`init`, `help`, `doit`, `completion`) are `BUILTINS` here. Each verb's
parser is argparse (the standard library: nothing to import at start-up) with the global options
(`-q`, `-v`/`-vv`, `--color`, `-V`, `-h`), the verb's options (the doit task's `params`) and its
`NAME=VALUE` variables. An unknown option, variable or verb is a `UsageError`: one `error:` line
with a `fix:` naming the nearest known word (difflib), exit 2.

`parse(args) -> Invocation` only reads the command line; running it is `cli.py`'s.
"""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_constitution.tasks.verbs import ALIASES, PROG, VERBS, Verb
from agent_constitution.console import COLOR_CHOICES, NORMAL, QUIET
from agent_constitution.errors import UserError, docs_url
from agent_constitution.layout import MANIFEST, SOURCE_CONFIG

EXIT_CODES = (
    "Exit status: 0 done (no violation); 1 findings (a violation, or a file --locked would change);\n"
    "2 a usage or input error (the error: line says which); 3 or more an internal error (a bug: please report it)."
)
SHELLS = ("bash", "zsh", "fish")


class UsageError(UserError):
    """A mistake on the command line: exit 2."""


@dataclass(frozen=True)
class Builtin:
    """A verb that runs no doit task: its summary, its reference page, its own arguments."""

    name: str
    summary: str
    topic: str
    positional: tuple[str, str, str] | None = None  # (metavar, nargs, help)
    flags: tuple[tuple[str, str], ...] = ()  # (--flag, help) of boolean flags
    choices: tuple[str, ...] = ()  # the positional's values, when it has a fixed set
    description: str = ""  # its --help's text, when longer than the summary


BUILTINS = {
    builtin.name: builtin
    for builtin in (
        Builtin("init", "Write a starter rules.toml and lock it (never overwrites a file)", "sources",
                ("DIR", "?", "the repository's root folder (default: the current folder)"),
                (("--doit", 'also wire doit for `doit compile`: [tool.doit] loader = "agent-constitution" in an '
                            "existing pyproject.toml, or a three-line dodo.py"),),
                description="Write a starter rules.toml (this project's rule source, trusted, pinned to the commit "
                            "this tool was built from, with the constitution it publishes), lock it in rules.lock, "
                            "and write cache/.gitignore. Existing files are left as they are."),
        Builtin("help", "Print a reference page shipped with the package (`help TOPIC`; `help VERB`: its options)",
                "structure", ("TOPIC", "?", "a reference page (docs/TOPIC.md) or a verb")),
        Builtin("doit", f"Any doit command line over the same tasks (`{PROG} doit list`, `doit -n 4 compile`)",
                "structure"),
        Builtin("completion", "Print the shell completion script for SHELL (bash, zsh or fish)", "structure",
                ("SHELL", "?", "bash, zsh or fish"), choices=SHELLS),
    )
}


@dataclass(frozen=True)
class Invocation:
    """A parsed command line."""

    verb: str
    verbosity: int = NORMAL
    color: str = "auto"
    options: dict[str, object] = field(default_factory=dict)  # a task verb's options, by their `name`
    variables: dict[str, str] = field(default_factory=dict)
    words: tuple[str, ...] = ()  # a task verb's SEGMENT / SOURCE names, a builtin's positional
    output_format: str = "full"
    jobs: int | None = None
    rest: tuple[str, ...] = ()  # `doit ARGS`, as given
    policy: str | None = None  # `--policy`: an organisation policy layer
    asked: str = ""  # the verb's old name, when the user typed one (`source`: tasks.verbs.ALIASES)


class Done(Exception):
    """`--help` or `--version` was answered: exit with `code`."""

    def __init__(self, code: int) -> None:
        self.code = code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own errors (a missing value, a bad choice)
        raise UsageError(f"{self.prog}: {message}", fix=f"`{self.prog} --help` lists the options")

    def exit(self, status: int = 0, message: str | None = None):
        if message:
            self.error(message.strip())
        raise Done(status)


def nearest(word: str, known: Sequence[str]) -> str | None:
    found = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return found[0] if found else None


def _choice(name: str, choices: Sequence[str]):
    def check(value: str) -> str:
        if value in choices:
            return value
        near = nearest(value, choices)
        hint = f" (did you mean {near!r}?)" if near else ""
        raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(choices)}{hint}")

    check.__name__ = name  # argparse names the type in its message
    return check


def _jobs(value: str) -> int:
    if value.isdigit() and int(value) > 0:
        return int(value)
    raise argparse.ArgumentTypeError(f"{value!r} is not a positive number")


def _globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # In a verb's parser the defaults are suppressed, so that `-v check` and `check -v` add up.
    default = {} if top else {"default": argparse.SUPPRESS}
    group = parser.add_argument_group("Global options")
    group.add_argument("-q", "--quiet", action="store_true", help="print only findings and errors", **default)
    group.add_argument("-v", "--verbose", action="count",
                       help="-v: also doit's task lines; -vv: also everything the tasks print", **default)
    group.add_argument("--color", type=_choice("--color", COLOR_CHOICES), metavar="auto|always|never",
                       help="colour the output (default: auto: on a terminal, off under NO_COLOR, on under "
                            "FORCE_COLOR)", **default)
    group.add_argument("-V", "--version", action="store_true", help="show the version and exit", **default)
    group.add_argument("-h", "--help", action="help", help="show this help and exit")


def _new(prog: str, description: str, epilog: str) -> _Parser:
    return _Parser(prog=prog, description=description, epilog=epilog, add_help=False, allow_abbrev=False,
                   formatter_class=argparse.RawDescriptionHelpFormatter)


def output_formats() -> tuple[str, ...]:
    from agent_constitution.checks import FORMATS  # lazy: --help loads no checks (a constant of checks/__init__)

    return FORMATS


def default_format(environ=None) -> str:
    """`github` in a GitHub Actions job (GITHUB_ACTIONS=true), else `full`."""
    environ = os.environ if environ is None else environ
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "full"


def verb_parser(name: str) -> _Parser:
    """The parser of one verb (a task verb or a builtin)."""
    if name in BUILTINS:
        return _builtin_parser(BUILTINS[name])
    return _task_parser(VERBS[name])


def _reference(topic: str) -> str:
    return f"Reference: {docs_url(topic)} (offline: {PROG} help {topic})"


def _task_parser(verb: Verb) -> _Parser:
    positional = f" [{verb.subtask} ...]" if verb.subtask else ""
    epilog = []
    if verb.variables:
        epilog.append("Variables (NAME=VALUE, anywhere on the command line):")
        epilog.extend(f"  {f'{name}={values}':<30} {text}" for name, (values, text) in verb.variables.items())
        epilog.append("")
    if verb.needs:
        epilog += [f"Runs in the nearest folder at or above this one with a {MANIFEST} or a {SOURCE_CONFIG}.", ""]
    epilog += [EXIT_CODES, "", _reference(verb.topic)]
    parser = _new(f"{PROG} {verb.name}", verb.summary.rstrip(".") + ".", "\n".join(epilog))
    parser.usage = f"{PROG} {verb.name}{positional} [OPTIONS] [NAME=VALUE ...]"
    group = parser.add_argument_group("Options")
    for option in verb.options:
        flags = [f"-{option['short']}"] if option.get("short") else []
        flags.append(f"--{option['long']}")
        if option["type"] is bool:
            group.add_argument(*flags, dest=option["name"], action="store_true", help=option["help"])
        else:
            group.add_argument(*flags, dest=option["name"], metavar="TEXT", help=option["help"])
    if verb.output_formats:
        formats = output_formats()
        group.add_argument("--output-format", type=_choice("--output-format", formats), metavar="FORMAT",
                           help=f"how findings are printed: {', '.join(formats)} (default: full; github "
                                "when GITHUB_ACTIONS=true)")
    if verb.policy:
        group.add_argument("--policy", metavar="FILE|URL#COMMIT", help="also hold the repository to this organisation "
                           "policy (a file outside it, or a git URL pinned by commit); see docs/fleet.md")
        if "locked" in verb.variables:
            group.add_argument("--locked", action="store_true", help="fail when rules.lock was made under another "
                               "organisation policy (CI set: the same)")
    group.add_argument("-j", "--jobs", type=_jobs, metavar="N", help="run N tasks at a time (doit -n N)")
    _globals(parser, top=False)
    return parser


def _builtin_parser(builtin: Builtin) -> _Parser:
    parser = _new(f"{PROG} {builtin.name}", builtin.description or builtin.summary.rstrip(".") + ".",
                  f"{EXIT_CODES}\n\n{_reference(builtin.topic)}")
    if builtin.positional:
        metavar, nargs, text = builtin.positional
        kind = _choice(metavar, builtin.choices) if builtin.choices else None
        parser.add_argument("word", metavar=metavar, nargs=nargs, help=text, type=kind)
    for flag, text in builtin.flags:
        parser.add_argument(flag, action="store_true", help=text)
    _globals(parser, top=False)
    return parser


def _top_parser() -> _Parser:
    parser = _new(PROG, "", "")
    _globals(parser, top=True)
    parser.add_argument("verb", nargs="?")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def verbs() -> list[str]:
    return [*BUILTINS, *VERBS]


def parse(args: Sequence[str], environ=None) -> Invocation:
    """The invocation `args` asks for; `Done` for `--help` / `--version`; `UsageError` for a mistake."""
    top = _top_parser().parse_args(list(args))
    asked, top.verb = top.verb, ALIASES.get(top.verb, top.verb)
    _known_verb(top)
    if top.verb == "doit":  # doit's own command line, as given
        return Invocation("doit", _verbosity(top), top.color or "auto", rest=tuple(top.rest))
    parser = verb_parser(top.verb)
    if top.verb in BUILTINS:  # before argparse, which would take `NAME=VALUE` for the positional
        _no_variables(parser, top.rest)
    known, extras = parser.parse_known_args(top.rest)
    if getattr(known, "version", False):
        raise Done(0)
    verbosity = _verbosity(top, known)
    color = getattr(known, "color", None) or top.color or "auto"
    if top.verb in BUILTINS:
        return _builtin(parser, top.verb, known, extras, verbosity, color)
    verb = VERBS[top.verb]
    variables, words = _split(parser, verb, extras)
    if getattr(known, "locked", False) and "locked" in verb.variables:
        variables.setdefault("locked", "1")
    options = {option["name"]: getattr(known, option["name"]) for option in verb.options
               if getattr(known, option["name"]) not in (None, False)}
    output_format = getattr(known, "output_format", None) or default_format(environ)
    return Invocation(verb.name, verbosity, color, options, variables, tuple(words),
                      output_format if verb.output_formats else "full", known.jobs,
                      policy=getattr(known, "policy", None), asked=asked if asked != verb.name else "")


def _known_verb(top: argparse.Namespace) -> None:
    """`--version` alone is done; no verb, or one that is neither a builtin nor a task verb, a UsageError."""
    if top.version and top.verb is None:
        raise Done(0)
    if top.verb is None:
        raise UsageError("no command given", fix=f"`{PROG} --help` lists the commands")
    if top.verb not in BUILTINS and top.verb not in VERBS:
        near = nearest(top.verb, verbs())
        raise UsageError(f"unknown command {top.verb!r}",
                         fix=(f"did you mean `{PROG} {near}`? " if near else "")
                         + f"`{PROG} --help` lists the commands")


def _no_variables(parser: argparse.ArgumentParser, rest: Sequence[str]) -> None:
    for word in rest:
        name, equals, _ = word.partition("=")
        if equals and not word.startswith("-") and "/" not in name:
            raise UsageError(f"unknown variable {name!r} for `{parser.prog}`",
                             fix=f"it takes no NAME=VALUE variables (`{parser.prog} --help`)")


def _builtin(parser: argparse.ArgumentParser, name: str, known: argparse.Namespace, extras: Sequence[str],
             verbosity: int, color: str) -> Invocation:
    _unknown_options(parser, extras)
    if extras:
        raise UsageError(f"unexpected argument {extras[0]!r} for `{parser.prog}`",
                         fix=f"`{parser.prog} --help` shows its usage")
    word = getattr(known, "word", None)
    words = (word,) if word else ()
    flags = {flag.lstrip("-"): getattr(known, flag.lstrip("-")) for flag, _ in BUILTINS[name].flags}
    return Invocation(name, verbosity, color, options=flags, words=words)


def _verbosity(top: argparse.Namespace, known: argparse.Namespace | None = None) -> int:
    quiet = top.quiet or getattr(known, "quiet", False)
    verbose = (top.verbose or 0) + (getattr(known, "verbose", 0) or 0)
    if quiet and verbose:
        raise UsageError("-q and -v were both given", fix="give one of them")
    return QUIET if quiet else verbose


def _unknown_options(parser: argparse.ArgumentParser, extras: Sequence[str]) -> None:
    for word in extras:
        if word.startswith("-") and word != "-":
            flag = word.partition("=")[0]
            near = nearest(flag, [s for s in parser._option_string_actions if s.startswith("--")] or
                           list(parser._option_string_actions))
            raise UsageError(f"unknown option {flag!r} for `{parser.prog}`",
                             fix=(f"did you mean {near!r}? " if near else "")
                             + f"`{parser.prog} --help` lists the options")


def _split(parser: argparse.ArgumentParser, verb: Verb, extras: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """A task verb's extra words: its `NAME=VALUE` variables and its SEGMENT / SOURCE names."""
    _unknown_options(parser, extras)
    variables: dict[str, str] = {}
    words: list[str] = []
    for word in extras:
        name, equals, value = word.partition("=")
        if equals:
            if name not in verb.variables:
                near = nearest(name, list(verb.variables))
                known = ", ".join(f"{known}=" for known in verb.variables) or "none"
                raise UsageError(f"unknown variable {name!r} for `{parser.prog}`",
                                 fix=(f"did you mean {near + '='!r}? " if near else "")
                                 + f"its variables: {known} (`{parser.prog} --help`)")
            if name in variables:
                raise UsageError(f"{name}= was given twice", fix="give it once")
            variables[name] = value
        elif verb.subtask:
            words.append(word)
        else:
            raise UsageError(f"unexpected argument {word!r} for `{parser.prog}`",
                             fix=f"it takes options and NAME=VALUE variables only (`{parser.prog} --help`)")
    return variables, words
