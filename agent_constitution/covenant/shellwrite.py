"""Shell writes read as file changes (POLYDEUKES §5.7).

`shell_evidence` derives the file changes a shell command line computes (redirect, heredoc,
herestring, append) and completes them against the pre-state on disk, so a declaration judges
`echo TODO >> src/a.ts` as the modify it makes; what it cannot compute (sed -i, tee, an opaque or
nested command) is reported so the assembly records it as skipped. Standard library only (hot
path), imported only when a shell call is dispatched.
"""

from __future__ import annotations

import re
from collections import namedtuple
from pathlib import Path

from agent_constitution.covenant.budget import FILE_LIMIT, read_regular
from agent_constitution.covenant.meta import DIRECTORY_CHANGES, cached_tokenize, command_strings, path_segments, resolve_dots
from agent_constitution.covenant.shell import (
    Command,
    Redirect,
    basename,
    command_name,
    is_nested_shell,
    mutation_targets,
    read_only_head,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

NO_PRE_STATE = "a shell write in scope on a surface with no pre-state channel to complete it"
_STDOUT_WRITES = frozenset({">", ">>", ">|", "1>", "1>>", "1>|"})
_FD_REFERENCE = re.compile(r"-|[0-9]+-?")


class ShellWrite(namedtuple("ShellWrite", ["path", "content", "append"])):
    """A computed write: the target as written, the exact bytes, truncate or append."""

    __slots__ = ()


class Uncomputable(namedtuple("Uncomputable", ["path", "reason"])):
    """A detected write this layer cannot compute; `path` is None when the target is unknowable."""

    __slots__ = ()


class Derivation(namedtuple("Derivation", ["writes", "uncomputable"])):
    """The `writes` (ShellWrite list) and `uncomputable` writes (Uncomputable list) of a line."""

    __slots__ = ()


def _write_redirects(command: Command) -> list[Redirect]:
    return [
        r
        for r in command.redirects
        if r.writes and not (r.operator.endswith(">&") and _FD_REFERENCE.fullmatch(r.target.text))
    ]


def _resolve_target(text: str, opaque: bool, moves_directory: bool) -> tuple[str | None, str | None]:
    """(path, None) for a known target, (None, reason) for one this layer cannot know."""
    if opaque:
        return None, f"write target {text} is opaque"
    if text.startswith("~"):
        return None, f"write target {text} is home-relative"
    if moves_directory and not text.startswith("/"):
        return None, f"relative write target {text} beside a directory change"
    return text, None


def _file(derivation: Derivation, text: str, opaque: bool, moves: bool, reason: str) -> None:
    path, why = _resolve_target(text, opaque, moves)
    derivation.uncomputable.append(Uncomputable(path, reason if path is not None else why))


def _content(command: Command) -> tuple[str | None, str | None]:
    """(bytes written to stdout, None) or (None, the reason they are not computed)."""
    if not command.words:
        return "", None
    reads = [r for r in command.redirects if not r.writes]
    if reads or command.heredocs:
        return _stdin_content(command, reads)
    return _echo_content(command)


def _echo_content(command: Command) -> tuple[str | None, str | None]:
    """What a plain `echo` of plain words writes."""
    first = command.words[0]
    if first.opaque:
        return None, "the writing command is opaque"
    if basename(first.text) != "echo":
        return None, f"the output of {first.text} is not computable"
    args = command.words[1:]
    if args and args[0].text.startswith("-"):
        return None, "echo flag semantics are not computed"
    if any(w.opaque for w in args):
        return None, "an echo argument is opaque"
    return " ".join(w.text for w in args) + "\n", None


def _stdin_content(command: Command, reads: list[Redirect]) -> tuple[str | None, str | None]:
    """What a bare `cat` copies from its one stdin source (a heredoc or a herestring)."""
    first = command.words[0]
    if first.opaque or len(command.words) > 1:
        return None, "stdin is transformed by the command, not copied verbatim"
    if basename(first.text) != "cat":
        return None, f"stdin of {first.text} is not copied verbatim"
    if len(command.heredocs) + len(reads) > 1:
        return None, "more than one stdin source"
    if command.heredocs:
        heredoc = command.heredocs[0]
        if not heredoc.literal and any(c in heredoc.body for c in "$`\\"):
            return None, "an unquoted heredoc body carries an expansion or escape"
        return heredoc.body, None
    return _herestring(reads[0])


def _herestring(read: Redirect) -> tuple[str | None, str | None]:
    if read.operator != "<<<":
        return None, f"stdin comes from file {read.target.text}"
    if read.target.opaque:
        return None, "the herestring is opaque"
    return read.target.text + "\n", None


def _derive_command(command: Command, moves: bool, derivation: Derivation) -> None:
    name = command_name(command)
    if is_nested_shell(command):
        derivation.uncomputable.append(Uncomputable(None, f"nested shell execution: {name.text}"))
        return
    writes = _write_redirects(command)
    if _grouped(command):
        reason = "subshell group syntax is not parsed here"
        if not writes:
            derivation.uncomputable.append(Uncomputable(None, reason))
        for redirect in writes:
            _file(derivation, redirect.target.text, redirect.target.opaque, moves, reason)
        return
    _derive_redirects(command, writes, moves, derivation)
    detected = [(rule, word) for rule, word in mutation_targets(command) if rule != "redirect-write"]
    for rule, word in detected:
        _file(derivation, word.text, False, moves, f"{rule} writes content this layer does not compute")
    if not writes and not detected:
        _opaque_unproven(command, derivation)


def _grouped(command: Command) -> bool:
    """A word or redirect target opens or closes a subshell group. Redirect targets count too
    (`(cd x && echo a > b)` ends on the target), which only ever turns a computed write into an
    uncomputable one."""
    tokens = (*command.words, *(r.target for r in command.redirects))
    return any(t.text.startswith("(") or t.text.endswith(")") for t in tokens)


def _derive_redirects(command: Command, writes: list[Redirect], moves: bool, derivation: Derivation) -> None:
    if len(writes) > 1:
        for redirect in writes:
            _file(derivation, redirect.target.text, redirect.target.opaque, moves, "the command carries more than one write")
    elif writes:
        _derive_write(command, writes[0], moves, derivation)


def _derive_write(command: Command, redirect: Redirect, moves: bool, derivation: Derivation) -> None:
    """The one write redirect of a command: computed when it carries stdout of computable content."""
    path, why = _resolve_target(redirect.target.text, redirect.target.opaque, moves)
    if path is None:
        derivation.uncomputable.append(Uncomputable(None, why))
        return
    if redirect.operator not in _STDOUT_WRITES:
        derivation.uncomputable.append(Uncomputable(path, f"redirect {redirect.operator} does not carry stdout"))
        return
    content, reason = _content(command)
    if content is None:
        derivation.uncomputable.append(Uncomputable(path, reason))
    else:
        derivation.writes.append(ShellWrite(path, content, redirect.operator.endswith(">>")))


def _opaque_unproven(command: Command, derivation: Derivation) -> None:
    """A command writing nothing this layer sees, with an opaque word and no read-only head."""
    if any(w.opaque for w in command.words) and not read_only_head(command):
        first = command.words[0].text if command.words else "a command"
        derivation.uncomputable.append(
            Uncomputable(None, f"opaque token under {first} that is not proven read-only")
        )


def derive_shell_writes(line: str) -> Derivation:
    """The writes one command line proves, and the detected ones it cannot compute. Pure."""
    tokenized = cached_tokenize(line)
    moves = False
    for command in tokenized.commands:
        name = command_name(command)
        if name is not None and not name.opaque and basename(name.text) in DIRECTORY_CHANGES:
            moves = True
    derivation = Derivation([], [Uncomputable(None, span.reason) for span in tokenized.unread])
    for command in tokenized.commands:
        _derive_command(command, moves, derivation)
    return derivation


class ShellEvidence(namedtuple("ShellEvidence", ["changes", "uncomputable", "unknown"])):
    """What a shell call's command lines mean as file changes, for the discipline assembly.

    `changes`: FileChange dicts completed from disk (none without a pre-state channel);
    `uncomputable`: (repo-relative path, reason) for writes to a known file that are not computed;
    `unknown`: reasons for writes whose target cannot be determined.
    """

    __slots__ = ()


def _repo_relative(path: str, root: Path) -> str:
    if path.startswith("/"):
        try:
            return Path(path).relative_to(root).as_posix()
        except ValueError:
            return path
    return "/".join(resolve_dots(path_segments(path))) or path


def _read_pre(root: Path, path: str) -> str | None:
    """The target's text on disk, or None when it does not exist; unreadable raises (fail-closed)."""
    try:  # a FIFO or device raises Refused: the shell-evidence judge then cannot judge, and blocks
        return read_regular(root / path, FILE_LIMIT, "write target").decode("utf-8")
    except FileNotFoundError:
        return None


def shell_evidence(call: dict[str, Any], assembly: Any) -> ShellEvidence:
    """The file changes a shell call computes, completed from `assembly.root` (§5.7).

    Without a session (no pre-state channel: Grok, the change-set surface) computable writes are
    reported as uncomputable, with upstream's no-pre-state reason decided by the assembly. Reading an
    existing but unreadable target raises: the caller judges that as unjudgeable.
    """
    evidence = ShellEvidence([], [], [])
    if call.get("name") not in assembly.shell:
        return evidence
    root = Path(assembly.root)
    current: dict[str, str | None] = {}  # path -> its text after the writes so far
    for line in command_strings(call, tuple(assembly.command_args)):
        derivation = derive_shell_writes(line)
        for item in derivation.uncomputable:
            if item.path is None:
                evidence.unknown.append(item.reason)
            else:
                evidence.uncomputable.append((_repo_relative(item.path, root), item.reason))
        for write in derivation.writes:
            if assembly.session is None:
                evidence.uncomputable.append((_repo_relative(write.path, root), NO_PRE_STATE))
            else:
                evidence.changes.append(_change(write, root, current))
    return evidence


def _change(write: ShellWrite, root: Path, current: dict[str, str | None]) -> dict[str, Any]:
    """The FileChange of one computed write, from the text the writes before it left (`current`)."""
    if write.path not in current:
        current[write.path] = _read_pre(root, write.path)
    pre = current[write.path]
    post = (pre or "") + write.content if write.append else write.content
    current[write.path] = post
    if pre is None:
        return {"kind": "create", "path": write.path, "post": post}
    return {"kind": "modify", "path": write.path, "pre": pre, "post": post}
