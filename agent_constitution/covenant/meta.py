"""The meta-covenants that protect the judging chain.

Three built-in registrations (POLYDEUKES §5): `self-mod` (a mutating tool aimed at a protected
path), `shell-mod` (a shell command writing to, or mentioning without read-only proof, a protected
path) and `transcript-mod` (anything touching the session transcript). Each answers upheld, broken
with upstream's reason, or unjudgeable (a misassembled registration, or an exception inside a judge):
cannot judge means block.

Standard library only (hot path), with `record`s and `patterns.fixed` for the same import-cost
reason as `shell.py`.
The objects here satisfy the `Registration` protocol described in
`registrations.py` by duck typing, and read `Assembly` / `Run` by attribute, so this module imports
nothing from the assembly (which imports it).
"""

from __future__ import annotations

import os

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant.patterns import fixed
from agent_constitution.covenant.record import record
from agent_constitution.covenant.shell import (
    Command,
    Tokenized,
    Word,
    basename,
    command_name,
    inline_programs,
    is_nested_shell,
    mutation_targets,
    proves_read_only,
    tokenize,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

UPHELD, BROKEN, UNJUDGEABLE = 0, 1, 2
# Commands that change the directory later relative paths resolve against.
DIRECTORY_CHANGES = frozenset({"cd", "pushd", "popd"})


class MetaOutcome(
    record("MetaOutcome", ["code", "reason", "skip", "witnesses", "valve"], defaults=[None] * 4)
):
    """A meta-covenant's answer, shaped like the assembly's `Outcome` (meta rows carry no extras)."""

    __slots__ = ()


# --- path matching (§5.1) -----------------------------------------------------------------------


def path_segments(path: str) -> list[str]:
    """Leading `./` and trailing `/` stripped, split on `/`, empty segments dropped."""
    while path.startswith("./"):
        path = path[2:]
    return [segment for segment in path.rstrip("/").split("/") if segment]


def resolve_dots(segments: list[str]) -> list[str]:
    """`.` dropped; `..` cancels the previous segment, or is kept when there is none to cancel."""
    resolved: list[str] = []
    for segment in segments:
        if segment == ".":
            continue
        if segment == ".." and resolved and resolved[-1] != "..":
            resolved.pop()
            continue
        resolved.append(segment)
    return resolved


def _segments_match(candidate: list[str], protected: list[str]) -> bool:
    if not candidate:
        return False
    width = len(protected)
    for start in range(len(candidate) - width + 1):
        if candidate[start : start + width] == protected:
            return True
    # A relative ancestor (`rm -rf packages/core`) names the protected path too; an absolute one
    # is not caught (declared limit).
    return len(candidate) < width and candidate == protected[: len(candidate)]


def path_matches_protected(candidate: str, protected: str) -> bool:
    """The candidate is the protected path, inside it, or a root-anchored ancestor of it."""
    wanted = path_segments(protected)
    if not wanted:
        return False
    segments = path_segments(candidate)
    return _segments_match(segments, wanted) or _segments_match(resolve_dots(segments), wanted)


_ROOTED = fixed(r"[/~$]")
_CANDIDATE_SPLIT = fixed(r"[\s=,()`]+")
_LINE_SPLIT = fixed(r"[;&|<>]+")


def path_candidates(token: str) -> list[str]:
    """Path-like fragments of one token: split on whitespace, `=`, `,`, parentheses, backtick."""
    return [fragment for fragment in _CANDIDATE_SPLIT.split(token) if fragment]


def untokenizable_line_candidates(line: str) -> list[str]:
    """The text of an unread span, plus its fragments cut at the operators no tokenizer ate."""
    return [line] + [f for f in _LINE_SPLIT.split(line) if f and f != line]


def iter_strings(value: Any) -> Iterator[str]:
    """Every string value at any depth (keys are never read)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from iter_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_strings(item)


def mentions_path(value: Any, protected: str) -> bool:
    """Some string inside `value` has a path candidate naming `protected`."""
    first = (path_segments(protected) or [""])[0]
    return bool(first) and any(
        path_matches_protected(candidate, protected)
        for text in iter_strings(value)
        if first in text
        for candidate in path_candidates(text)
        if first in candidate
    )


def proven_change_path(call: dict[str, Any]) -> str | None:
    """The path a call's `fileChange` evidence proves, or None when it proves none."""
    change = call.get("fileChange")
    if not isinstance(change, dict):
        return None
    path = change.get("path")
    if not isinstance(path, str) or change.get("kind") not in ("create", "modify", "delete"):
        return None
    return path if any(s != "." for s in path_segments(path)) else None


# Inside an inline program a path sits in the program's own string literals, calls and lists.
_PROGRAM_SPLIT = fixed(r"""[\s=,()`'"\[\]{};+<>|&]+""")


def program_candidates(program: str) -> list[str]:
    """Path-like fragments of an inline interpreter program, its quotes and punctuation cut away."""
    return [fragment for fragment in _PROGRAM_SPLIT.split(program) if fragment]


def program_mention(command: Command, protected: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
    """(interpreter, protected path) when an inline program of `command` names a protected path."""
    name, programs = inline_programs(command)
    for program in programs:
        candidates = program_candidates(program.text)
        for path in protected:
            if any(path_matches_protected(candidate, path) for candidate in candidates):
                return name, path
    return None


# One reading per string: routing, shell-mod, transcript-mod and the shell evidence all read the
# same command line, and a long one costs the tokenizer milliseconds. Tokenized values are immutable.
def _memo(function, size: int):
    """`functools.lru_cache(size)(function)` for one hashable argument, without `functools` (and
    the `collections` it imports): the cache is emptied when full rather than trimmed by age."""
    cache: dict[Any, Any] = {}

    def cached(argument: Any) -> Any:
        try:
            return cache[argument]
        except KeyError:
            pass
        if len(cache) >= size:
            cache.clear()
        value = cache[argument] = function(argument)
        return value

    return cached


cached_tokenize = _memo(tokenize, 16)


def _string_candidates(text: str) -> tuple[tuple[str, ...], bool]:
    """The path candidates of one argument string read as a command line, and whether it was fully
    read. Cached: self-mod and shell-mod route the same call, and a Write's content can be large."""
    tokenized = cached_tokenize(text)
    found: list[str] = []
    for command in tokenized.commands:
        for word in command.words:
            found.extend(path_candidates(word.text))
        for redirect in command.redirects:
            found.extend(path_candidates(redirect.target.text))
        for program in inline_programs(command)[1]:
            found.extend(program_candidates(program.text))
    return tuple(found), tokenized.fully_read


_string_candidates = _memo(_string_candidates, 64)


def path_route(protected: tuple[str, ...] | list[str], calls: list[dict[str, Any]]) -> str | None:
    """Path-mention routing (§4.6): the first protected path, in list order, that a candidate names.

    Candidates are the words and redirect targets of every string in the calls' args, read by the
    tokenizer, plus each proven change path whole. A string the tokenizer could not finish reading
    routes on the first protected path (fail-closed).
    """
    paths = [p for p in protected if p]
    if not paths:
        return None
    candidates: list[str] = []
    failed = False
    for call in calls:
        for text in iter_strings(call.get("args")):
            found, fully_read = _string_candidates(text)
            candidates.extend(found)
            failed = failed or not fully_read
        proven = proven_change_path(call)
        if proven is not None:
            candidates.append(proven)
    for path in paths:
        # Any match contains the protected path's first segment (a descendant holds all of them, an
        # ancestor starts with it), so a substring test discards almost every candidate cheaply.
        first = (path_segments(path) or [""])[0]
        if first and any(first in c and path_matches_protected(c, path) for c in candidates):
            return path
    return paths[0] if failed else None


# --- symlinks and globs (§5.1, resolved before the comparison) ----------------------------------

_GLOB_CHARS = frozenset("*?[{")
_BRACE_FORMS = 1024  # more forms than this from one word's braces: not compared, the word blocks
PATH_ARGS = ("file_path", "notebook_path", "path")  # mutating-tool arguments that name a target


class Undecidable(FailClosed):
    """A word whose reach this layer cannot compare with the protected paths; the call blocks."""


class Reach:
    """Where words land on disk, read once per run (the disk may change between runs): the root
    and each protected path with its symlinks resolved (`real_root`, `real_protected`), and the
    protected paths that are (or lie under) a link (`linked`)."""

    __slots__ = ("root", "real_root", "protected", "real_protected", "linked", "_memo", "unseen", "unseen_memo")

    def __init__(self, root: str, protected: tuple[str, ...], unseen: str = "block") -> None:
        self.root, self.protected = root, protected
        self.unseen = unseen  # `unseenWrites`: what a write the words do not show does
        self.unseen_memo: dict[Any, Any] = {}
        self.real_root = os.path.realpath(root)
        self.real_protected = tuple(os.path.realpath(os.path.join(self.real_root, p)) for p in protected)
        self.linked = frozenset(
            p
            for p, real in zip(protected, self.real_protected)
            if real != os.path.normpath(os.path.join(self.real_root, p))
        )
        self._memo: dict[str, str | None] = {}

    def through_links(self, candidate: str) -> str | None:
        """The first protected path `candidate` reaches once symlinks are resolved (the path
        itself, inside it, or a folder inside the root that holds it), when a link is involved."""
        if candidate not in self._memo:
            self._memo[candidate] = self._through_links(candidate)
        return self._memo[candidate]

    def _through_links(self, candidate: str) -> str | None:
        if not candidate or len(candidate) > 4096 or "\0" in candidate or candidate[0] in "-~$":
            return None
        lexical = os.path.normpath(os.path.join(self.real_root, candidate))
        first = candidate.split("/", 1)[0]
        if first not in ("", ".", "..") and not self.linked and not os.path.lexists(os.path.join(self.real_root, first)):
            return None  # most words name nothing on disk: one lstat decides
        real = _realpath(lexical)
        for path, target in zip(self.protected, self.real_protected):
            if real == lexical and path not in self.linked:
                continue  # no link on either side: the textual comparison already decided
            if real == target or real.startswith(target + "/"):
                return path
            if real.startswith(self.real_root + "/") and target.startswith(real + "/"):
                return path
        return None

    def glob_names(self, word: str, anchored: bool) -> str | None:
        """The first protected path a glob (or brace) word can match. Anchored: the word is read
        from the root (or is absolute); otherwise (after a directory change) at any depth."""
        # The root as the host spelled it and as it really is: an absolute word may use either.
        roots = {tuple(path_segments(self.real_root)), tuple(path_segments(os.path.abspath(self.root)))}
        forms = [(form, path_segments(form)) for form in _brace_forms(word)]
        for path in self.protected:
            wanted = path_segments(path)
            for form, segments in forms:
                if not segments:
                    continue
                if not anchored:
                    hit = _glob_window(segments, wanted)
                elif form.startswith("/"):
                    hit = any(_glob_anchored(resolve_dots(segments), [*r, *wanted], len(r)) for r in roots)
                else:
                    base = list(path_segments(self.real_root))
                    hit = _glob_anchored(resolve_dots(base + segments), base + wanted, len(base))
                if hit:
                    return path
        return None


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _brace_forms(word: str) -> list[str]:
    """Bash's brace expansion of `word` (`a{b,c}d` -> abd, acd), at most _BRACE_FORMS forms."""
    open_at = word.find("{")
    if open_at == -1:
        return [word]
    depth, parts, start = 0, [], open_at + 1
    for index in range(open_at, len(word)):
        ch = word[index]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                parts.append(word[start:index])
                if len(parts) < 2:  # `{x}` is literal in bash
                    return [word[: index + 1] + f for f in _brace_forms(word[index + 1 :])]
                forms = [
                    word[:open_at] + middle + tail
                    for part in parts
                    for middle in _brace_forms(part)
                    for tail in _brace_forms(word[index + 1 :])
                ]
                if len(forms) > _BRACE_FORMS:
                    raise Undecidable(f"{word} expands to more than {_BRACE_FORMS} paths")
                return forms
        elif ch == "," and depth == 1:
            parts.append(word[start:index])
            start = index + 1
    return [word]  # an unclosed brace is literal


def _segment_matches(name: str, pattern: str) -> bool:
    if not any(c in pattern for c in "*?["):
        return name == pattern
    from fnmatch import fnmatchcase  # only when a glob is met

    # Conservative on dot-files: `shopt -s dotglob` makes `*` match `.claude`, so it always does.
    return fnmatchcase(name, pattern.replace("**", "*"))


def _glob_anchored(pattern: list[str], target: list[str], floor: int) -> bool:
    """The pattern matches the target, a path inside it, or (below `floor`, the root's depth) a
    folder that holds it."""
    width = min(len(pattern), len(target))
    if not all(_segment_matches(target[i], pattern[i]) for i in range(width)):
        return False
    return len(pattern) >= len(target) or len(pattern) > floor


def _glob_window(pattern: list[str], wanted: list[str]) -> bool:
    width = len(wanted)
    for start in range(len(pattern) - width + 1):
        if all(_segment_matches(wanted[i], pattern[start + i]) for i in range(width)):
            return True
    return len(pattern) < width and all(_segment_matches(wanted[i], pattern[i]) for i in range(len(pattern)))


def _pure_glob(word: Any) -> bool:
    """A word made opaque only by glob characters: its reach is a set of paths this layer compares."""
    return not ("$" in word.text or "`" in word.text or word.text.startswith(("<(", ">(")))


def reach_of_word(word: Any, reach: Reach | None, anchored: bool) -> str | None:
    """The protected path a shell word reaches through a symlink or as a glob, else None."""
    if reach is None:
        return None
    text = word.text
    if any(c in _GLOB_CHARS for c in text) and _pure_glob(word):
        return reach.glob_names(text, anchored)
    return reach.through_links(text) if not word.opaque else None


# --- the three judges -----------------------------------------------------------------------------


def command_strings(call: dict[str, Any], command_args: tuple[str, ...]) -> list[str]:
    args = call.get("args")
    if not isinstance(args, dict):
        return []
    return [args[name] for name in command_args if isinstance(args.get(name), str)]


def judge_self_mod(
    calls: list[dict[str, Any]], protected: tuple[str, ...], mutating: tuple[str, ...], reach: Reach | None = None
) -> str | None:
    """The break reason when a mutating call targets a protected path, else None (§5.5). With a
    `reach`, a target that is a protected path once symlinks are resolved is one too."""
    for call in calls:
        if call.get("name") not in mutating:
            continue
        change_path = proven_change_path(call)
        if change_path is not None:
            found = _change_reason(call["name"], change_path, protected, reach)
            if found is not None:
                return found
            continue
        for path in protected:
            if mentions_path(call.get("args"), path):
                return f"{call['name']} would modify protected path {path}"
        named = _linked_target(call, reach)
        if named is not None:
            return f"{call['name']} would modify protected path {named[0]} through the symlink {named[1]}"
    return None


def _change_reason(name: str, change_path: str, protected: tuple[str, ...], reach: Reach | None) -> str | None:
    """Why a call whose file change names `change_path` modifies a protected path, or None."""
    if any(path_matches_protected(change_path, p) for p in protected):
        return f"{name} would modify protected path {change_path}"
    linked = reach.through_links(change_path) if reach is not None else None
    if linked is not None:
        return f"{name} would modify protected path {linked} through the symlink {change_path}"
    return None


def _linked_target(call: dict[str, Any], reach: Reach | None) -> tuple[str, str] | None:
    """(protected path, argument) when a target argument reaches a protected path through a link."""
    args = call.get("args")
    if reach is None or not isinstance(args, dict):
        return None
    for key in PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str):
            linked = reach.through_links(value)
            if linked is not None:
                return linked, value
    return None


def _strip_quoting(text: str) -> str:
    # The shell would remove these before the path existed, so `sr"c"` must read as `src`.
    return text.replace("'", "").replace('"', "").replace("\\", "")


def _shell_mod_command(
    command: Command, protected: tuple[str, ...], tokenized: Tokenized, reach: Reach | None = None, anchored: bool = True,
    depth: int = 0,
) -> str | None:
    try:
        return _shell_mod_reason(command, protected, tokenized, reach, anchored, depth)
    except Undecidable as error:
        return f"{error}: a word this layer cannot compare with the protected paths"


def _shell_mod_reason(
    command: Command, protected: tuple[str, ...], tokenized: Tokenized, reach: Reach | None, anchored: bool,
    depth: int = 0,
) -> str | None:
    found = _mutation_reason(command, protected, reach, anchored)
    if found is not None:
        return found
    mentioned, through, opaque_mention = _mention(command, protected, reach, anchored)
    if mentioned is None:
        # What the words do not show may sit inside an inline program, code this layer does not
        # read: a path it names may be written, as an opaque token is judged
        # (`python3 -c "open('.claude/settings.json','w')"`).
        inline = program_mention(command, protected)
        if inline is not None:
            return f"protected path {inline[1]} inside an inline {inline[0]} program"
        unseen = unseen_of(command, protected, reach, anchored, depth)
        return None if unseen is None else unseen[1]
    if opaque_mention:
        return f"protected path {mentioned} inside an opaque token"
    return _mention_reason(command, tokenized, mentioned, through)


def _mutation_reason(command: Command, protected: tuple[str, ...], reach: Reach | None, anchored: bool) -> str | None:
    """A fixed mutation rule's target that names or reaches a protected path."""
    for rule, target in mutation_targets(command):
        path = next((p for p in protected if mentions_path(target.text, p)), None)
        if path is not None:
            return f"{rule} targets protected path {path}"
        reached = reach_of_word(target, reach, anchored)
        if reached is not None:
            return f"{rule} targets protected path {reached} through {target.text}"
    return None


def _mention(
    command: Command, protected: tuple[str, ...], reach: Reach | None, anchored: bool,
) -> tuple[str | None, str | None, bool]:
    """The first protected path a word or redirect target names or reaches, the word it is reached
    through (None when spelled), and whether any opaque token spells one."""
    mentioned = through = None
    opaque_mention = False
    for token in (*command.words, *(r.target for r in command.redirects)):
        spelled = next((p for p in protected if mentions_path(token.text, p)), None)
        if spelled is not None:
            mentioned, through = (spelled, None) if mentioned is None else (mentioned, through)
            opaque_mention = opaque_mention or token.opaque
            continue
        # A symlink or glob is read for where it lands; a glob that lands on a protected path
        # names it (not an opaque mention: what it can match has just been compared).
        reached = reach_of_word(token, reach, anchored)
        if reached is not None and mentioned is None:
            mentioned, through = reached, token.text
    return mentioned, through, opaque_mention


def _mention_reason(command: Command, tokenized: Tokenized, mentioned: str, through: str | None) -> str | None:
    """Why a command whose words mention a protected path is blocked; None when it is proven read-only."""
    if any(r.writes and r.target.opaque for r in command.redirects):
        return f"opaque redirect target alongside protected path {mentioned}"
    if proves_read_only(command, tokenized):
        return None
    first = command.words[0].text if command.words else ""
    name = command_name(command)
    if name is not None and not name.opaque and basename(name.text) == "ln":
        return f"ln would create an alias to protected path {mentioned}"
    if through is not None:
        return f"{first} reaches protected path {mentioned} through {through} without read-only proof"
    return f"{first} mentions protected path {mentioned} without read-only proof"


NESTING = 4  # nested shell programs read into (`bash -c "sh -c '…'"`); deeper ones are not


def unseen_of(
    command: Command, protected: tuple[str, ...], reach: Reach | None, anchored: bool, depth: int = 0
) -> tuple[str, str] | None:
    """(protected path, reason) when `command` may write a protected path its words do not name
    (`unseen.py`), a nested shell's program read as a command line of its own. Only with a
    `reach` whose policy is `block` (the session surface, `unseenWrites: block`)."""
    if reach is None or reach.unseen != "block" or not protected:
        return None
    from agent_constitution.covenant import unseen  # lazy: 2 ms, for a judged shell command only

    if not is_nested_shell(command) and unseen.plainly_unseen_free(command):
        return None
    key = (command, protected, anchored, depth)
    if key in reach.unseen_memo:
        return reach.unseen_memo[key]
    context = unseen.Context(reach.root, protected, anchored, reach, path_matches_protected)
    if is_nested_shell(command):
        found = None
        name, programs = inline_programs(command)
        if basename(name) == "eval" and programs:
            programs = [Word(" ".join(w.text for w in programs), any(w.opaque for w in programs))]
        for program in programs:
            if unseen.computed(program):
                found = context.every(f"{name} runs the computed program {program.text[:60]}")
            elif depth >= NESTING:
                found = context.every(f"{name} programs nest more than {NESTING} deep")
            else:
                found = _nested(program.text, protected, reach, anchored, depth + 1)
            if found is not None:
                break
    else:
        found = unseen.unseen_write(command, context)
    reach.unseen_memo[key] = found
    return found


def _nested(line: str, protected: tuple[str, ...], reach: Reach, anchored: bool, depth: int) -> tuple[str, str] | None:
    tokenized = cached_tokenize(line)
    anchored = anchored and not _moves_directory(tokenized)
    for command in tokenized.commands:
        reason = _shell_mod_command(command, protected, tokenized, reach, anchored, depth)
        if reason is not None:
            return protected[0], f"inside a nested shell program: {reason}"
    return None


def judge_shell_mod(
    calls: list[dict[str, Any]],
    protected: tuple[str, ...],
    shell: tuple[str, ...],
    command_args: tuple[str, ...],
    reach: Reach | None = None,
) -> str | None:
    """The break reason when a shell call writes to or mentions a protected path unproven (§5.4).
    With a `reach`, words are also read through symlinks and as globs."""
    for call in calls:
        if call.get("name") not in shell:
            continue
        lines = command_strings(call, command_args)
        if not lines:
            return (
                f"unjudgeable shell call {call['name']}: no command string under any command-arg name"
            )
        for line in lines:
            reason = _shell_mod_line(cached_tokenize(line), protected, reach)
            if reason is not None:
                return reason
    return None


def _shell_mod_line(tokenized: Tokenized, protected: tuple[str, ...], reach: Reach | None) -> str | None:
    """The break reason of one command line: an unread span mentioning a protected path, or a command's."""
    for span in tokenized.unread:
        candidates = untokenizable_line_candidates(_strip_quoting(span.text))
        for path in protected:
            if any(mentions_path(candidate, path) for candidate in candidates):
                return f"untokenizable command line mentions protected path {path}"
    anchored = not _moves_directory(tokenized)
    for command in tokenized.commands:
        reason = _shell_mod_command(command, protected, tokenized, reach, anchored)
        if reason is not None:
            return reason
    return None


def _moves_directory(tokenized: Tokenized) -> bool:
    """A `cd`/`pushd`/`popd` in the line: relative words then start somewhere this layer does not know."""
    for command in tokenized.commands:
        name = command_name(command)
        if name is not None and (name.opaque or basename(name.text) in DIRECTORY_CHANGES):
            return True
    return False


class Transcript(record("Transcript", ["path", "target", "home_prefixes", "home_segments"])):
    """The session transcript as one canonical path, with the home spellings that also name it
    (`target`, `home_prefixes`, `home_segments`: tuples of strings)."""

    __slots__ = ()

    @classmethod
    def resolve(cls, path: str, home: str | None) -> "Transcript | None":
        """None for a degenerate path (no real segment): the covenant then upholds everything."""
        segments = path_segments(path)
        if not any(s != "." for s in segments):
            return None
        prefixes: tuple[str, ...] = ()
        home_segments: tuple[str, ...] = ()
        if home and home.startswith("/"):
            home_path = home.rstrip("/")
            home_segments = tuple(path_segments(home_path))
            if home_segments and path.startswith(home_path + "/"):
                prefixes = ("~", "$HOME", "${HOME}", "~" + home_segments[-1])
        return cls(path, tuple(resolve_dots(segments)), prefixes, home_segments)

    def named_by(self, candidate: str) -> bool:
        segments = path_segments(candidate)
        if segments and segments[0] in self.home_prefixes:
            segments = [*self.home_segments, *segments[1:]]
        return tuple(resolve_dots(segments)) == self.target

    def named_in(self, token: str) -> bool:
        for candidate in path_candidates(token):
            forms = [candidate]
            if candidate[:1] not in ("/", "~", "$"):
                rooted = _ROOTED.search(candidate)
                if rooted:
                    forms.append(candidate[rooted.start() :])
            if any(self.named_by(form) for form in forms):
                return True
        return False


def _transcript_command(command: Command, transcript: Transcript, tokenized: Tokenized) -> str | None:
    for rule, target in mutation_targets(command):
        if transcript.named_in(target.text):
            return f"{rule} targets the session transcript {transcript.path}"
    tokens = (*command.words, *(r.target for r in command.redirects))
    if not any(transcript.named_in(token.text) for token in tokens):
        name, programs = inline_programs(command)  # as shell-mod: code this layer does not read
        if any(transcript.named_by(c) for program in programs for c in program_candidates(program.text)):
            return f"the session transcript {transcript.path} inside an inline {name} program"
        return None
    if any(r.writes and r.target.opaque for r in command.redirects):
        return f"opaque redirect target alongside the session transcript {transcript.path}"
    if proves_read_only(command, tokenized):
        return None
    first = command.words[0].text if command.words else ""
    return f"{first} names the session transcript {transcript.path} without read-only proof"


def judge_transcript_mod(
    calls: list[dict[str, Any]],
    transcript: Transcript | None,
    shell: tuple[str, ...],
    command_args: tuple[str, ...],
    mutating: tuple[str, ...],
) -> str | None:
    """The break reason when a call writes or names the session transcript unproven (§5.6)."""
    if transcript is None:
        return None
    for call in calls:
        name = call.get("name")
        if name in shell:
            for line in command_strings(call, command_args):
                tokenized = cached_tokenize(line)
                for span in tokenized.unread:
                    candidates = untokenizable_line_candidates(_strip_quoting(span.text))
                    if any(transcript.named_in(c) for c in candidates):
                        return f"untokenizable command line names the session transcript {transcript.path}"
                for command in tokenized.commands:
                    reason = _transcript_command(command, transcript, tokenized)
                    if reason is not None:
                        return reason
        elif name in mutating:
            change_path = proven_change_path(call)
            if change_path is not None:
                if transcript.named_by(change_path):
                    return f"{name} would modify the session transcript {change_path}"
                continue
            if any(transcript.named_in(text) for text in iter_strings(call.get("args"))):
                return f"{name} names the session transcript {transcript.path} with no proven target"
    return None


# --- registrations --------------------------------------------------------------------------------


def _outcome(judge, *args) -> MetaOutcome:
    try:
        reason = judge(*args)
    except Exception:  # a judge that cannot read its input cannot uphold it
        return MetaOutcome(UNJUDGEABLE)
    return MetaOutcome(UPHELD) if reason is None else MetaOutcome(BROKEN, reason)


class PathCovenant(
    record(
        "PathCovenant",
        ["label", "protected", "mutating", "shell", "command_args", "kind", "level", "reach"],
        defaults=["meta", None, None],
    )
):
    """`self-mod` or `shell-mod`: routed by a protected-path mention, subject = that path. With a
    `reach` (the session surface) targets and shell words are also read through symlinks and globs."""

    __slots__ = ()

    def describe(self) -> str:
        if self.label == "self-mod":
            return f"protected paths against the mutating tools {', '.join(self.mutating)}"
        return f"protected paths against the shell tools {', '.join(self.shell)}"

    def _reach(self) -> Reach | None:
        return self.reach if self.reach is not None and self.reach.protected else None

    def route(self, call: dict[str, Any], run: Any = None) -> str | None:
        subject = path_route(self.protected, [call])
        reach = self._reach()
        if subject is not None or reach is None:
            return subject
        try:
            return self._reached(call, reach)
        except Undecidable:  # the judge then says why
            return reach.protected[0]

    def _reached(self, call: dict[str, Any], reach: Reach) -> str | None:
        """The protected path this covenant's own kind of call reaches through a link or a glob."""
        name = call.get("name")
        if self.label == "self-mod":
            if name not in self.mutating:
                return None
            change_path = proven_change_path(call)
            if change_path is not None:
                return reach.through_links(change_path)
            named = _linked_target(call, reach)
            return named[0] if named else None
        if name not in self.shell:
            return None
        for line in command_strings(call, tuple(self.command_args)):
            tokenized = cached_tokenize(line)
            anchored = not _moves_directory(tokenized)
            for command in tokenized.commands:
                for token in (*command.words, *(r.target for r in command.redirects)):
                    hit = reach_of_word(token, reach, anchored)
                    if hit is not None:
                        return hit
            for command in tokenized.commands:
                found = unseen_of(command, reach.protected, reach, anchored)
                if found is not None:
                    return found[0]
        return None

    def judge(self, call: dict[str, Any], subject: str = "-", run: Any = None) -> MetaOutcome:
        protected = tuple(p for p in self.protected if p)
        if self.label == "self-mod":
            mutating = tuple(n for n in self.mutating if n)
            if not protected or not mutating:
                return MetaOutcome(UNJUDGEABLE)
            return _outcome(judge_self_mod, [call], protected, mutating, self._reach())
        shell = tuple(n for n in self.shell if n)
        command_args = tuple(n for n in self.command_args if n)
        if not protected or not shell or not command_args:
            return MetaOutcome(UNJUDGEABLE)
        return _outcome(judge_shell_mod, [call], protected, shell, command_args, self._reach())


class TranscriptCovenant(
    record(
        "TranscriptCovenant",
        ["path", "home", "mutating", "shell", "command_args", "label", "kind", "level"],
        defaults=["transcript-mod", "meta", None],
    )
):
    """`transcript-mod`: routed by its own judge (subject = the transcript path)."""

    __slots__ = ()

    def describe(self) -> str:
        return f"the session transcript {self.path}"

    def _axes_empty(self) -> bool:
        return not (self._axis("mutating") and self._axis("shell") and self._axis("command_args"))

    def _axis(self, key: str) -> tuple[str, ...]:
        return tuple(n for n in getattr(self, key) if n)

    def _verdict(self, call: dict[str, Any]) -> str | None:
        transcript = Transcript.resolve(self.path, self.home)
        return judge_transcript_mod(
            [call], transcript, self._axis("shell"), self._axis("command_args"), self._axis("mutating")
        )

    def route(self, call: dict[str, Any], run: Any = None) -> str | None:
        # A misassembled registration routes every call, so its unjudgeable answer is heard.
        if self._axes_empty():
            return self.path
        return None if self._verdict(call) is None else self.path

    def judge(self, call: dict[str, Any], subject: str = "-", run: Any = None) -> MetaOutcome:
        if self._axes_empty():
            return MetaOutcome(UNJUDGEABLE)
        return _outcome(self._verdict, call)


def _home() -> str | None:
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return home if home.startswith("/") else None


def meta_registrations(assembly: Any) -> list[PathCovenant | TranscriptCovenant]:
    """self-mod, shell-mod, transcript-mod in registration order (§4.6), each when its condition holds."""
    found: list[PathCovenant | TranscriptCovenant] = []
    common = (tuple(assembly.protected), tuple(assembly.mutating), tuple(assembly.shell), tuple(assembly.command_args))
    # Only the session surface looks at the disk: a change set's paths are the ones git recorded.
    reach = None
    if getattr(assembly, "surface", "session") == "session" and (assembly.mutating or assembly.shell):
        reach = Reach(str(assembly.root), tuple(p for p in assembly.protected if p), getattr(assembly, "unseen_writes", "block"))
    if assembly.mutating:
        found.append(PathCovenant("self-mod", *common, reach=reach))
    if assembly.shell:
        found.append(PathCovenant("shell-mod", *common, reach=reach))
    session = assembly.session
    evidence_path = session.get("evidencePath") if isinstance(session, dict) else None
    if isinstance(evidence_path, str):
        found.append(
            TranscriptCovenant(
                evidence_path,
                _home(),
                tuple(assembly.mutating),
                tuple(assembly.shell),
                tuple(assembly.command_args),
            )
        )
    return found
