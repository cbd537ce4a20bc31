"""The personal layer's values as a block of the user-level AGENTS.md (never of a repository's).

`render(person, machine, language) -> str`: a `## The person and the machine` section listing what
`[person]` and `[machine]` of the user-level manifest set, in the file's language, or "" when they
set nothing. The user-tier rules say what to do with each value; this block says what the values are.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_constitution.ruleset.personal import Machine, Person


@dataclass(frozen=True)
class _Words:
    heading: str
    lead: str
    language: str  # {tag}
    dictates: str
    credentials: str  # {stores}
    separator: str
    repositories: str  # {folder}
    worktrees: str
    scratch: str


_WORDS = {
    "en": _Words(
        heading="The person and the machine",
        lead="Set by the person in the user-level manifest (`[person]`, `[machine]`); the rules below refer to these values.",
        language="Reply in the language `{tag}`.",
        dictates="The person dictates: read each message as a speech-to-text transcript.",
        credentials="Credentials live in: {stores}.",
        separator="; ",
        repositories="Repositories are cloned into `{folder}`.",
        worktrees="Extra git worktrees go in `{folder}`.",
        scratch="Throwaway files go in `{folder}`.",
    ),
    "zh": _Words(
        heading="人与机器",
        lead="本人在用户级规定清单 (`[person]`、`[machine]`) 里设定的内容；下面的规定引用这些设定。",
        language="用 `{tag}` 这种语言回复。",
        dictates="本人口述消息：把每条消息都当作语音转文字的结果来读。",
        credentials="凭证存放在：{stores}。",
        separator="；",
        repositories="仓库克隆到 `{folder}`。",
        worktrees="额外的 git worktree 放在 `{folder}`。",
        scratch="临时文件放在 `{folder}`。",
    ),
}


def render(person: Person, machine: Machine, language: str) -> str:
    words = _WORDS.get(language, _WORDS["en"])
    lines = []
    if person.language is not None:
        lines.append(words.language.format(tag=person.language))
    if person.dictates:
        lines.append(words.dictates)
    if machine.credentials:
        lines.append(words.credentials.format(stores=words.separator.join(map(_store, machine.credentials))))
    folders = machine.folders
    for name in ("repositories", "worktrees", "scratch"):
        folder = getattr(folders, name)
        if folder is not None:
            lines.append(getattr(words, name).format(folder=folder))
    if not lines:
        return ""
    return f"## {words.heading}\n\n{words.lead}\n\n" + "\n".join(f"- {line}" for line in lines)


def _store(text: str) -> str:
    """A path as code, anything else (a program, a service) as written."""
    return f"`{text}`" if text.startswith(("/", "~")) else text
