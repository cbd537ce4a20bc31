"""What a skill may carry into the folders agents read: the policy by the trust of its source.

A skill is text an agent reads, but a host also acts on parts of it: Claude Code pre-approves the
tools `allowed-tools` names, runs the commands of a `hooks:` block while the skill is active, runs
it in a subagent or with another model (`context`, `agent`, `model`), and, before the model sees
the body, replaces every `` !`command` `` and every fenced block opened with ```` ```! ```` with
that command's output (the preprocessor reads the raw text, code spans and fences do not protect
it). A skill of a source the repository does not trust is therefore installed as data only:

- its `SKILL.md` front matter keeps the Agent Skills spec's descriptive keys (`name`,
  `description`, `license`, `compatibility`, `metadata`); every other key (`allowed-tools`,
  `hooks`, `model`, `context`, `agent`, `shell`, …) is dropped;
- its body loses every line a host would run: a line holding `` !` ``, a line whose first
  character (after blanks) is `!` (a Markdown image `![…` excepted), and a fenced block opened
  with ```` ```! ```` or ```` ~~~! ```` (the whole block);
- its files lose their executable bit.

What was dropped is said by compile, naming the skill, the key or the line. A trusted source's
skill is installed as it is: its python checks already run with the user's rights, so holding its
skills to less would protect nothing. Either way the front matter is parsed first (ruamel.yaml's
safe loader) and hostile YAML is refused with one message: more than `MAX_FRONT` bytes, anchors and
aliases (a few lines can stand for billions of nodes), nesting deeper than `MAX_DEPTH`, tags,
duplicate keys, a document that is not a mapping.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError

SKILL_FILE = "SKILL.md"
# The Agent Skills spec's keys that only describe (https://agentskills.io/specification): what an
# untrusted skill keeps. `allowed-tools` is the spec's too, but it grants tools.
DATA_KEYS = ("name", "description", "license", "compatibility", "metadata")
MAX_FRONT = 64 * 1024
MAX_DEPTH = 16

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_FIX = "correct the skill's SKILL.md in its rule source (or ask its authors to)"


@dataclass(frozen=True)
class Installed:
    """A skill's files as compile installs them, and what the policy took out of them."""

    files: dict[str, bytes]
    executable: frozenset[str]  # the files installed with their executable bit
    dropped: tuple[str, ...]  # one phrase per key or line taken out


def apply(files: dict[str, bytes], executable: frozenset[str], *, trusted: bool, shown: Path) -> Installed:
    """The installed form of a skill's files (relative path → bytes); `shown`: its folder, for errors."""
    path = shown / SKILL_FILE
    if trusted:
        if SKILL_FILE in files:
            _front_of(files[SKILL_FILE], path)  # hostile YAML is refused from any source
        return Installed(files, executable, ())
    dropped = [f"the executable bit of {name}" for name in sorted(executable)]
    data = files.get(SKILL_FILE)
    if data is None:
        return Installed(files, frozenset(), tuple(dropped))
    front, body, body_line, mapping = _front_of(data, path)
    rewritten = False
    if mapping is not None:
        extra = [key for key in mapping if key not in DATA_KEYS]
        if extra:
            dropped.extend(f"the front-matter key `{key}` of SKILL.md" for key in extra)
            front = _dump({key: value for key, value in mapping.items() if key in DATA_KEYS})
            rewritten = True
        _check_types(mapping, path)
    kept, lines = strip_commands(body)
    if lines:
        rewritten = True
        dropped.append(f"line{'s' if len(lines) > 1 else ''} {_numbers([n + body_line for n in lines])} of SKILL.md"
                       " (a shell command a host runs when the skill loads)")
    if not rewritten:
        return Installed(files, frozenset(), tuple(dropped))
    rebuilt = (f"---\n{front}---\n" if front is not None else "") + kept
    return Installed({**files, SKILL_FILE: rebuilt.encode("utf-8")}, frozenset(), tuple(dropped))


def _front_of(data: bytes, path: Path) -> tuple[str | None, str, int, dict[str, Any] | None]:
    """(the front matter's text, the body, the lines before it, the parsed front matter) of SKILL.md."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError("SKILL.md is not UTF-8 text", file=path, fix=_FIX) from None
    front, body, body_line = split(text, path)
    return front, body, body_line, parse_front(front, path) if front is not None else None


def split(text: str, path: Path) -> tuple[str | None, str, int]:
    """(the front matter's text or None, the body, the number of lines before the body)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None, text, 0
    for number, line in enumerate(lines[1:], 1):
        if line.rstrip("\r\n") == "---":
            return "".join(lines[1:number]), "".join(lines[number + 1:]), number + 1
    raise UserError("SKILL.md opens front matter with `---` but never closes it", file=path, line=1, fix=_FIX)


def parse_front(front: str, path: Path) -> dict[str, Any]:
    """The front matter as a mapping, or one `UserError` for hostile or malformed YAML."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, NodeEvent

    size = len(front.encode("utf-8"))
    if size > MAX_FRONT:
        raise UserError(f"SKILL.md's front matter is {size} bytes, more than the {MAX_FRONT} compile reads",
                        file=path, fix=_FIX + ": the spec's keys take a few hundred bytes")
    yaml = YAML(typ="safe", pure=True)
    try:
        depth = 0
        for event in yaml.parse(front):
            line = _line(event)
            if isinstance(event, AliasEvent) or (isinstance(event, NodeEvent) and event.anchor):
                raise UserError("SKILL.md's front matter uses a YAML anchor or alias, which compile does not read",
                                file=path, line=line, fix=_FIX + ": write each value out")
            if isinstance(event, NodeEvent) and event.tag is not None:
                raise UserError(f"SKILL.md's front matter has the YAML tag {event.tag}, which compile does not read",
                                file=path, line=line, fix=_FIX + ": remove the tag")
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise UserError(f"SKILL.md's front matter nests more than {MAX_DEPTH} levels", file=path,
                                    line=line, fix=_FIX)
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
        loaded = yaml.load(front)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise UserError(f"SKILL.md's front matter is not valid YAML: {error.problem or error.context}",
                        file=path, line=None if mark is None else mark.line + 2, fix=_FIX) from None
    except (YAMLError, RecursionError, ValueError) as error:
        raise UserError(f"SKILL.md's front matter is not valid YAML: {error}", file=path, fix=_FIX) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict) or not all(isinstance(key, str) for key in loaded):
        raise UserError("SKILL.md's front matter is not a mapping of names to values", file=path, line=2,
                        fix=_FIX + ": write `name: …` and `description: …` lines between the `---` lines")
    return loaded


def _line(event) -> int | None:
    mark = getattr(event, "start_mark", None)
    return None if mark is None else mark.line + 2  # the front matter starts on the file's line 2


def _check_types(mapping: dict[str, Any], path: Path) -> None:
    """The kept keys of an untrusted skill hold what the spec says they hold."""
    for key in DATA_KEYS:
        if key not in mapping:
            continue
        value = mapping[key]
        if key == "metadata":
            good = isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
            expected = "a mapping of strings to strings"
        else:
            good, expected = isinstance(value, str), "a string"
        if not good:
            raise UserError(f"SKILL.md's front matter has `{key}` that is not {expected}", file=path, field=key,
                            fix=_FIX + " (Agent Skills spec)")


def _dump(mapping: dict[str, Any]) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False
    yaml.width = 4096
    out = io.StringIO()
    if mapping:
        yaml.dump(mapping, out)
    return out.getvalue()


def strip_commands(body: str) -> tuple[str, list[int]]:
    """`body` without the lines a host runs as shell commands, and their numbers (1 = the body's first)."""
    kept, dropped = [], []
    fence: tuple[str, int] | None = None  # the open fence's character and length
    running = False  # whether the open fence is a ```! block
    for number, line in enumerate(body.splitlines(keepends=True), 1):
        match = _FENCE.match(line.rstrip("\r\n"))
        if fence is not None:
            closes = match is not None and match[1][0] == fence[0] and len(match[1]) >= fence[1] and not match[2].strip()
            if running or _runs(line):
                dropped.append(number)
            else:
                kept.append(line)
            if closes:
                fence, running = None, False
            continue
        if match is not None:
            fence, running = (match[1][0], len(match[1])), match[2].lstrip().startswith("!")
            if running:
                dropped.append(number)
                continue
        if _runs(line):
            dropped.append(number)
        else:
            kept.append(line)
    return "".join(kept), dropped


def _runs(line: str) -> bool:
    stripped = line.lstrip()
    return "!`" in line or (stripped.startswith("!") and not stripped.startswith("!["))


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return shown + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")
