"""The personal layer: `[person]` and `[machine]` of the user-level manifest (seed 000, 放在哪里).

What is about the person and the machine, not about any project, is set once in the user-level
`rules.toml` and compiled into the user-level `AGENTS.md` only, never into a repository (a
repository's manifest, or any base it extends, that sets these tables is an error: clones, CI and
cloud agents would otherwise carry one person's machine around):

    [person]
    language = "zh"                # the language to reply in, a BCP 47 tag (en, zh, pt-BR)
    dictates = true                # messages are dictated: read them as speech-to-text transcripts

    [machine]
    credentials = ["the macOS keychain", "~/.config/gh/hosts.yml"]   # where credentials live
    [machine.folders]              # the machine's folder layout
    repositories = "~/src"         # where repositories are cloned
    worktrees = "~/src/.worktrees" # where extra git worktrees go
    scratch = "/tmp/scratch"       # where throwaway files go

Every key is optional; an unknown key is an error, like everywhere in the manifest. The user-tier
rules (ac:46 language, ac:130 dictated approvals, ac:48 and ac:121 credentials, ac:120 folders) refer to
these values; `agent_constitution.compile.personal` renders them.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictBool, StrictStr

from agent_constitution.errors import UserError

_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _tag(text: str) -> str:
    if not _TAG.fullmatch(text):
        raise ValueError(f"expected a BCP 47 language tag such as en, zh or pt-BR (found {text!r})")
    return text


def _line(text: str) -> str:
    if not text.strip() or text != text.strip() or _CONTROL.search(text) or len(text) > 200:
        raise ValueError(f"expected one line of at most 200 characters, without spaces at either end (found {text!r})")
    # The value is shown in AGENTS.md: a backtick would end its code span, a comment hide the rest.
    if "`" in text or "<!--" in text or "-->" in text:
        raise ValueError(f"expected text without backticks or HTML comment marks (found {text!r})")
    return text


def _folder(text: str) -> str:
    _line(text)
    if not (text.startswith(("/", "~/")) or text == "~"):
        raise ValueError(f"expected an absolute folder or one under the home folder, like ~/src (found {text!r})")
    return text


LanguageTag = Annotated[StrictStr, AfterValidator(_tag)]
Line = Annotated[StrictStr, AfterValidator(_line)]  # a store: a path, a program or a service
Folder = Annotated[StrictStr, AfterValidator(_folder)]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Person(_Table):
    language: LanguageTag | None = None
    dictates: StrictBool = False


class Folders(_Table):
    repositories: Folder | None = None
    worktrees: Folder | None = None
    scratch: Folder | None = None


class Machine(_Table):
    credentials: tuple[Line, ...] = ()
    folders: Folders = Folders()


def is_set(person: Person, machine: Machine) -> bool:
    """Whether either table holds a value (what a repository's manifest must not)."""
    return person != Person() or machine != Machine()


def refuse_personal(manifest, file: str) -> None:
    """A repository's manifest (`manifest`: its parsed `Manifest`) that sets the personal layer is an error."""
    if is_set(manifest.person, manifest.machine):
        table = "person" if manifest.person != Person() else "machine"
        raise UserError(
            f"[{table}] belongs in the user-level manifest, not in a repository's: clones, CI and cloud"
            " agents would read one person's settings",
            file=file,
            field=table,
            fix="move [person] and [machine] into your user-level rules.toml, where `doit compile:user` reads them",
        )
