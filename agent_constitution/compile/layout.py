"""Where compile's outputs go, and the settings and jobs its tasks are made of.

Standard library only: every doit command creates the compile tasks, and creating them needs only
these names. The steps that write the outputs (`build`, with ruamel.yaml, pydantic and tiktoken
behind it) are imported when an action or an up-to-date check runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_constitution.hosts import HOSTS
from agent_constitution.layout import AGENTS as FILE, has_covenant
from agent_constitution.layout import (
    CLAUDE,
    HUSKY,
    LEFTHOOK,
    MANIFEST,
    PART_GLOB,
    PLAIN_HOOK,
    PLAIN_HOOKS,
    PLAIN_MESSAGE_HOOK,
    PRE_COMMIT,
    SETTINGS,
    SIMPLE_GIT_HOOKS,
)

__all__ = [
    "CLAUDE", "FILE", "HUSKY", "LEFTHOOK", "MANIFEST", "PART_GLOB", "PLAIN_HOOK", "PLAIN_HOOKS", "PLAIN_MESSAGE_HOOK",
    "PRE_COMMIT", "SETTINGS", "SIMPLE_GIT_HOOKS", "SegmentJob", "Settings", "folder_of", "hook_files", "husky_hooks",
    "lefthook_file", "simple_git_hooks_file", "has_covenant",
]


def agent_hook_files(root: Path, hosts: list[str]) -> list[str]:
    """The files of `hosts` other than Claude Code that compile merges hooks into: the stop hook's
    (a manifest is there whenever compile runs), the judge's with a covenant config, and any of
    them that exists, to clean."""
    covenant, manifest = has_covenant(root), (root / MANIFEST).is_file()
    files: list[str] = []
    for name, spec in HOSTS.items():
        if name not in hosts or name == "claude-code":
            continue
        files += [file for file in spec.files if (file == spec.stop_file and manifest)
                  or (file == spec.file and covenant) or (root / file).is_file()]
    return list(dict.fromkeys(files))


def hook_files(root: Path, git_hook: str) -> list[str]:
    """The hook files compile merges into: the Claude Code settings, and the git hook runner the
    repository already uses (pre-commit, lefthook), else a plain git hook when asked for one."""
    names = [SETTINGS]
    if (root / PRE_COMMIT).is_file():
        names.append(PRE_COMMIT)
    lefthook = lefthook_file(root)
    if lefthook is not None:
        names.append(lefthook.name)
    names.extend(husky_hooks(root))
    simple = simple_git_hooks_file(root)
    if simple is not None:
        names.append(simple)
    if len(names) == 1 and git_hook == "plain":
        names.extend(PLAIN_HOOKS)
    return names


@dataclass(frozen=True)
class Settings:
    """`[compile]` of the manifest, and how banners name the manifest."""

    max_tokens: int = 8000
    claude: str = "import"
    origin: str = MANIFEST
    git_hook: str = "auto"  # auto: wire pre-commit / lefthook where used | plain: else .git/hooks/pre-commit
    agents: tuple[str, ...] = ("agents-md", "claude-code")  # `[compile] agents`, AGENTS.md readers first
    program: str = "doit"  # the command banners name (`wiring.command`): a new one rewrites them
    over_limit: str = "warn"  # warn | error: what a file or chain above an agent's limit does
    copilot: str = "editor"  # editor | cloud | cli: the Copilot products the layout serves
    stop_missing_tool: str = "warn"  # warn | block: what the Stop hook does where the tool is missing

    def as_dict(self) -> dict:
        return {"max-tokens": self.max_tokens, "claude": self.claude, "origin": self.origin, "git-hook": self.git_hook,
                "agents": list(self.agents), "program": self.program, "over-limit": self.over_limit,
                "copilot": self.copilot, "stop-missing-tool": self.stop_missing_tool}


@dataclass(frozen=True)
class SegmentJob:
    path: str
    parent: str | None  # the nearest ancestor segment ("." for a top folder), None for the root
    nested: tuple[str, ...]  # root only: every other segment


def folder_of(root: Path, segment: str) -> Path:
    return root if segment == "." else root / segment


def husky_hooks(root: Path) -> list[str]:
    """husky's scripts compile merges into, when the repository uses husky (a `.husky/` folder)."""
    return [f"{HUSKY}/pre-commit", f"{HUSKY}/commit-msg"] if (root / HUSKY).is_dir() else []


def simple_git_hooks_file(root: Path) -> str | None:
    """The file holding the repository's simple-git-hooks configuration: its own JSON file, or the
    `simple-git-hooks` key of package.json (compile never creates one)."""
    for name in SIMPLE_GIT_HOOKS[:2]:
        if (root / name).is_file():
            return name
    try:
        import json

        data = json.loads((root / SIMPLE_GIT_HOOKS[2]).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return SIMPLE_GIT_HOOKS[2] if isinstance(data, dict) and isinstance(data.get("simple-git-hooks"), dict) else None


def lefthook_file(root: Path) -> Path | None:
    """The repository's lefthook file, if it uses lefthook (compile never creates one)."""
    return next((root / name for name in LEFTHOOK if (root / name).is_file()), None)


# Above this many bytes a region takes the compact form: every byte of AGENTS.md is loaded into each
# session of every agent, and the starter's region stays within it (docs/compile.md, "The compact form").
COMPACT_BYTES = 12 * 1024
