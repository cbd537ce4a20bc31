"""`agent-constitution completion SHELL`: shell completion for bash, zsh and fish.

Each script is a few lines that ask the command itself what may come next
(`_AGENT_CONSTITUTION_COMPLETE=SHELL agent-constitution WORD ...`), so what it completes is the
parser's own table (`commands/parser.py`): the verbs, each verb's options and `NAME=VALUE`
variables, their values (`--color`, `--output-format`, `undecidable=`, `change=`), help topics, and
the rule IDs of `rules.lock` (in the nearest folder at or above this one) after `rules=`, one
comma-separated item at a time. Only verbs `agent-constitution` accepts are offered (doit's own
completion offers doit's commands, which the verbs are not).

bash breaks words at `=` and `:` (COMP_WORDBREAKS), so its script sends the line (`COMP_LINE` up to
`COMP_POINT`) and gets each candidate from after the last break in the current word; zsh and fish
send their words.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from agent_constitution.commands.parser import BUILTINS, SHELLS, UsageError, output_formats, verb_parser, verbs
from agent_constitution.tasks.verbs import PROG, VERBS
from agent_constitution.console import COLOR_CHOICES
from agent_constitution.errors import UserError
from agent_constitution.layout import LOCKFILE
from agent_constitution.readers import read_toml
from agent_constitution.commands import help

VARIABLE = "_AGENT_CONSTITUTION_COMPLETE"
PROGRAMS = (PROG, "agc")
GLOBAL_OPTIONS = ("-q", "--quiet", "-v", "--verbose", "--color", "-V", "--version", "-h", "--help")
VALUES = {"undecidable": ("warn", "fail"), "change": ("staged", "worktree")}

BASH = """\
# agent-constitution completion for bash: `eval "$(agent-constitution completion bash)"` in ~/.bashrc
_agent_constitution_complete() {
    local IFS=$'\\n'
    COMPREPLY=($(COMP_LINE="$COMP_LINE" COMP_POINT="$COMP_POINT" %(variable)s=bash "${COMP_WORDS[0]}" 2>/dev/null))
}
complete -o default -o nospace -F _agent_constitution_complete %(programs)s
"""

ZSH = """\
#compdef %(programs)s
# agent-constitution completion for zsh: `eval "$(agent-constitution completion zsh)"` in ~/.zshrc
_agent_constitution_complete() {
    local -a found open
    found=(${(f)"$(%(variable)s=zsh ${words[1]} ${words[2,CURRENT]} 2>/dev/null)"})
    open=(${(M)found:#*[=,]})
    found=(${found:#*[=,]})
    (( ${#open} )) && compadd -Q -S '' -- $open
    (( ${#found} )) && compadd -Q -- $found
    (( ${#open} + ${#found} )) || _files
}
compdef _agent_constitution_complete %(programs)s
"""

FISH = """\
# agent-constitution completion for fish: `agent-constitution completion fish | source`
function __agent_constitution_complete
    set -l words (commandline -opc) (commandline -ct)
    env %(variable)s=fish $words
end
%(lines)s
"""


def script(shell: str) -> str:
    names = {"variable": VARIABLE, "programs": " ".join(PROGRAMS)}
    if shell == "bash":
        return BASH % names
    if shell == "zsh":
        return ZSH % names
    lines = "\n".join(f"complete -c {program} -a '(__agent_constitution_complete)'" for program in PROGRAMS)
    return FISH % {**names, "lines": lines}


def main(words: tuple[str, ...] | list[str]) -> int:
    if not words:
        raise UsageError("completion needs a shell", fix=f"`{PROG} completion bash` (or zsh, fish)")
    sys.stdout.write(script(words[0]))
    return 0


def rule_ids(start: Path) -> list[str]:
    """The rules of the nearest rules.lock at or above `start` (none when there is no readable one)."""
    for folder in (start, *start.parents):
        path = folder / LOCKFILE
        if path.is_file():
            try:
                rules = read_toml(path).get("rules", {})
            except UserError:
                return []
            return [ref for ref in rules if isinstance(ref, str)] if isinstance(rules, dict) else []
    return []


def complete(words: list[str], cwd: Path) -> list[str]:
    """The words that may replace the last of `words` (the line after the program's name; the last
    is the word being typed, '' after a space)."""
    *before, current = words or [""]
    verb = _verb(before)
    previous = before[-1] if before else ""
    if previous == "--color":
        return _starting(COLOR_CHOICES, current)
    if verb is None:
        return _starting([*verbs(), *GLOBAL_OPTIONS] if current.startswith("-") else verbs(), current)
    if verb not in VERBS and verb not in BUILTINS:
        return []
    return _of_verb(verb, previous, current, cwd)


def _of_verb(verb: str, previous: str, current: str, cwd: Path) -> list[str]:
    """The completions of a word after a known verb: an option's value, an option, a topic, a variable."""
    if previous == "--output-format":
        return _starting(output_formats(), current)
    if current.startswith("-"):
        return _starting([flag for flag in verb_parser(verb)._option_string_actions if flag.startswith("--")],
                         current)
    if verb == "completion":
        return _starting(SHELLS, current)
    if verb == "help":
        return _starting([*help.topics(), *VERBS], current)
    return _variable(VERBS[verb].variables, current, cwd) if verb in VERBS else []


def _variable(variables, current: str, cwd: Path) -> list[str]:
    """A verb's `NAME=` variables, or the values of the one being typed (`rules=` completes rule refs)."""
    name, equals, value = current.partition("=")
    if not equals:
        return _starting([f"{name}=" for name in variables], current)
    if name == "rules":
        done, _, last = value.rpartition(",")
        head = f"rules={done}," if done else "rules="
        taken = set(done.split(","))
        return [head + ref for ref in rule_ids(cwd) if ref.startswith(last) and ref not in taken]
    return [f"{name}={choice}" for choice in VALUES.get(name, ()) if choice.startswith(value)]


def _verb(before: list[str]) -> str | None:
    skip = False
    for word in before:
        if skip:
            skip = False
        elif word == "--color":
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def _starting(candidates, prefix: str) -> list[str]:
    return [candidate for candidate in candidates if candidate.startswith(prefix)]


def bash_words(line: str) -> list[str]:
    """The words of a bash command line up to the cursor, the program's name left out."""
    try:
        words = shlex.split(line)
    except ValueError:  # an open quote: the words as typed
        words = line.split()
    if not line or line[-1].isspace():
        words.append("")
    return words[1:]


def respond(shell: str, args: list[str], environ=None) -> int:
    """Answer a completion script: one candidate a line on stdout."""
    environ = os.environ if environ is None else environ
    if shell == "bash":
        line = environ.get("COMP_LINE", "")
        point = environ.get("COMP_POINT", "")
        words = bash_words(line[: int(point)] if point.isdigit() else line)
    else:
        words = list(args)
    found = complete(words, Path.cwd())
    if shell == "bash":
        # bash replaces only what follows the last `=` or `:` of the word: give it that part.
        current = words[-1] if words else ""
        cut = max(current.rfind("="), current.rfind(":")) + 1
        found = [candidate[cut:] + ("" if candidate.endswith(("=", ",")) else " ") for candidate in found]
    sys.stdout.write("".join(f"{candidate}\n" for candidate in found))
    return 0
