"""Operations shared by three or more checks of this source."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from io import StringIO

from agent_constitution.checks.api import Repository, Undecidable

def text_files(repo: Repository) -> Iterator[tuple[str, str]]:
    """(path, text) of every file of the repository that is UTF-8 text; binaries and files over
    4 MiB (data, not text an agent wrote: rule 12 reports them) are skipped. Every check of a run
    shares one read of each file (`Repository.text`)."""
    for path in repo.files:
        text = repo.text(path)
        if text is not None:
            yield path, text


def read_toml(repo: Repository, path: str) -> dict:
    """A TOML file of the repository; a file that does not parse makes the check undecidable."""
    try:
        return tomllib.loads(repo.read_text(path))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise Undecidable(f"{path} is not valid TOML: {error}") from None


def parse_yaml(text: str) -> tuple[object, str | None]:
    """(data, None) for YAML text that parses, (None, the parser's message) for text that does not."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="safe", pure=True).load(StringIO(text)), None
    except YAMLError as error:
        return None, " ".join(str(error).split())


def workflow_files(repo: Repository, folder: str) -> list[str]:
    """The workflow files of a GitHub or Forgejo Actions folder (`.github/workflows`)."""
    return sorted(repo.glob(f"{folder}/*.yml") + repo.glob(f"{folder}/*.yaml"))


_OPERATORS = {";", "&&", "||", "|", "&", "|&", ";;", "(", ")"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def simple_commands(script: str) -> list[list[str]]:
    """The simple commands of a shell script, as words, split at newlines, `;`, `&&`, `||` and pipes.

    Leading variable assignments and `env`, `sudo`, `command`, `exec` and `time` prefixes are dropped,
    so the first word is the program. A line that does not tokenize is split on whitespace.
    """
    return [words for _, words in commands_with_env(script) if words]


def commands_with_env(script: str) -> list[tuple[dict[str, str], list[str]]]:
    """(the variables a command sets for itself or exports, its words) for every simple command of a
    script, as `simple_commands` splits them: `A=1 git commit`, `env A=1 git commit` and `export A=1`
    all give A."""
    commands: list[tuple[dict[str, str], list[str]]] = []
    for line in script.replace("\\\n", " ").splitlines():
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            words = list(lexer)
        except ValueError:
            words = line.split()
        current: list[str] = []
        for word in words + [";"]:
            if word in _OPERATORS:
                env: dict[str, str] = {}
                while current and (
                    _ASSIGNMENT.match(current[0]) or current[0] in {"env", "sudo", "command", "exec", "time"}
                ):
                    word_ = current.pop(0)
                    if _ASSIGNMENT.match(word_):
                        env.update([word_.split("=", 1)])
                if current and current[0] in ("export", "declare", "typeset", "local", "readonly"):
                    env.update(arg.split("=", 1) for arg in current[1:] if _ASSIGNMENT.match(arg))
                if current or env:
                    commands.append((env, current))
                current = []
            else:
                current.append(word)
    return commands


@dataclass(frozen=True)
class GitCall:
    """One `git` invocation: its global options (`-C dir`, `-c key=value`), subcommand and arguments."""

    options: tuple[str, ...]
    command: str
    args: tuple[str, ...]


def git_calls(script: str) -> Iterator[GitCall]:
    """Every git invocation of a shell script."""
    for words in simple_commands(script):
        if words[0] != "git":
            continue
        options: list[str] = []
        rest = words[1:]
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            options.append(option)
            if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and rest:
                options.append(rest.pop(0))
        if rest:
            yield GitCall(tuple(options), rest[0], tuple(rest[1:]))


def short_flags(args: tuple[str, ...] | list[str]) -> set[str]:
    """The letters of every short option cluster (`-fdx` gives f, d and x)."""
    return {letter for arg in args if arg.startswith("-") and not arg.startswith("--") for letter in arg[1:]}


def rule_files(repo: Repository) -> Iterator[tuple[str, dict]]:
    """(path, parsed table) of every rule file `rules/<id>.toml` of a rule source in the repository."""
    for path in repo.glob("rules/*.toml"):
        if re.fullmatch(r"rules/[0-9]+\.toml", path):
            yield path, read_toml(repo, path)
