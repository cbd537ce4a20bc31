"""The agents compile serves (`[compile] agents`), and what each one reads by itself.

Standard library only: task creation needs it. Every fact here comes from the table "Agents and
what they read" in docs/compile.md, which cites each agent's documentation; an agent is served
only the outputs it would not find otherwise, so no agent loads the same text twice:

- `shim`: a file beside each segment's AGENTS.md holding `@AGENTS.md`, for an agent that reads its
  own file name and expands `@` imports (Claude Code `CLAUDE.md`, Gemini CLI `GEMINI.md`);
- `scoped`: a path-scoped rule file per nested segment, for an agent that reads the root AGENTS.md
  but not nested ones, and has rule files with globs (Copilot in VS Code, Kiro);
- `skills`: the project skill folders it reads, in order of preference;
- `chain_bytes` / `file_chars`: the documented limit on what it auto-loads, from `compile.limits`
  (Codex: 32 KiB over the root→cwd chain; Windsurf: 12,000 characters per rule file, and a folder's
  AGENTS.md is one);
- `markers` and `host`: the files that show a repository uses the agent, and its `pdks hook` host:
  the one place that decides which agents and hosts a repository uses (`detect`, `hosts`), for
  compile's default and for the hooks it wires.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_constitution.compile.limits import LIMITS

AGENTS_MD = "agents-md"  # every agent that reads AGENTS.md root→cwd by itself (Codex first)
CHAIN_LIMIT = LIMITS["codex"]["chain_bytes"]  # Codex's project_doc_max_bytes
PROJECT_RESERVE = 8 * 1024  # of each chain, left to the repository's own hand-written instructions


@dataclass(frozen=True)
class Scoped:
    """A path-scoped rule file: where it goes and the front matter that scopes it to a folder."""

    folder: str  # relative to the repository root
    suffix: str  # after the segment's slug
    front: str  # front matter with `{glob}` for the segment's files
    keys: frozenset[str]  # the front-matter keys the agent's documentation defines


@dataclass(frozen=True)
class Agent:
    name: str
    shim: str | None = None
    scoped: Scoped | None = None
    skills: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()  # files or folders whose presence shows the repository uses it
    host: str | None = None  # its `pdks hook <host>` adapter (covenant.catalogue.HOSTS), where it has one

    # Its documented limits (`compile.limits`, the one table of them, with citations).
    @property
    def chain_bytes(self) -> int | None:
        return LIMITS[self.name]["chain_bytes"]

    @property
    def file_chars(self) -> int | None:
        return LIMITS[self.name]["file_chars"]


COPILOT = Scoped(
    ".github/instructions",
    ".instructions.md",
    # The cloud agent reads the nearest AGENTS.md itself: excluded, so it does not read the text twice.
    '---\napplyTo: "{glob}"\nexcludeAgent: "coding-agent"\n---\n',
    frozenset({"applyTo", "excludeAgent", "description", "name"}),
)
KIRO = Scoped(
    ".kiro/steering",
    ".md",
    '---\ninclusion: fileMatch\nfileMatchPattern: "{glob}"\n---\n',
    frozenset({"inclusion", "fileMatchPattern", "name", "description"}),
)
CONTINUE = Scoped(
    ".continue/rules",
    ".md",
    # alwaysApply false: included when a file matching `globs` is in the context.
    '---\nname: "agent-constitution: {glob}"\nglobs: "{glob}"\nalwaysApply: false\n---\n',
    frozenset({"name", "globs", "regex", "description", "alwaysApply"}),
)

AGENTS = {
    agent.name: agent
    for agent in (
        Agent(AGENTS_MD, skills=(".agents/skills",)),
        Agent("claude-code", host="claude-code", shim="CLAUDE.md", skills=(".claude/skills",), markers=(".claude", "CLAUDE.md")),
        Agent("codex", host="codex", skills=(".agents/skills",), markers=(".codex",)),
        Agent("gemini", host="gemini-cli", shim="GEMINI.md", skills=(".agents/skills", ".gemini/skills"),
              markers=(".gemini", "GEMINI.md")),
        Agent("copilot", host="copilot", scoped=COPILOT, skills=(".agents/skills", ".claude/skills", ".github/skills"),
              markers=(".github/copilot-instructions.md", ".github/hooks", ".github/instructions")),
        Agent("cursor", host="cursor", skills=(".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"),
              markers=(".cursor", ".cursorrules")),
        Agent("windsurf", host="windsurf", skills=(".windsurf/skills",), markers=(".windsurf", ".windsurfrules")),
        Agent("cline", host="cline", skills=(".cline/skills", ".clinerules/skills"), markers=(".clinerules",)),
        Agent("roo", skills=(".roo/skills",), markers=(".roo", ".roorules")),
        Agent("kiro", host="kiro", scoped=KIRO, skills=(".kiro/skills",), markers=(".kiro",)),
        Agent("opencode", skills=(".agents/skills", ".claude/skills", ".opencode/skills"),
              markers=(".opencode", "opencode.json")),
        Agent("amp", skills=(".agents/skills", ".claude/skills")),
        Agent("continue", scoped=CONTINUE, skills=(".continue/skills",), markers=(".continue",)),
        Agent("grok", host="grok", skills=(".grok/skills",), markers=(".grok",)),
        Agent("zed", markers=(".rules",)),
        Agent("aider", markers=(".aider.conf.yml",)),
        Agent("junie", markers=(".junie",)),
    )
}
NAMES = tuple(AGENTS)
SHIMS = tuple(sorted({agent.shim for agent in AGENTS.values() if agent.shim}))
SKILL_FOLDERS = tuple(dict.fromkeys(folder for agent in AGENTS.values() for folder in agent.skills))


def detect(root: Path) -> tuple[str, ...]:
    """The default of `[compile] agents`: AGENTS.md readers, Claude Code (compile always writes its
    hook settings), and every agent whose marker file or folder the repository has. The one place
    that decides which agents (and so which hook hosts) a repository uses."""
    found = [AGENTS_MD, "claude-code"]
    found += [name for name, agent in AGENTS.items()
              if name not in found and any(_shows(root / marker) for marker in agent.markers)]
    return tuple(found)


def hosts(enabled: tuple[str, ...]) -> list[str]:
    """The `pdks hook` hosts of the enabled agents, in the catalogue's order."""
    from agent_constitution.covenant.catalogue import HOSTS

    named = {AGENTS[name].host for name in enabled if name in AGENTS}
    return [host for host in HOSTS if host in named]


def _shows(path: Path) -> bool:
    """Whether `path` shows the agent is used: it exists and holds more than compile's own outputs
    (else an agent enabled once would stay enabled by default after it is dropped from the manifest)."""
    if path.is_file():
        return not _ours(path)
    if not path.is_dir():
        return False
    children = list(path.iterdir())
    if not children:
        return True  # made by hand for the agent (compile takes out the folders it emptied)
    for child in children:
        if child.is_dir() and child.name == "skills":  # skills compile installed carry its stamp
            if any(not (skill / ".agent-constitution.json").is_file() for skill in child.iterdir()):
                return True
        elif child.is_dir() and child.name in ("steering", "instructions", "hooks", "rules"):  # rule and hook files
            if any(not (entry.is_file() and _ours(entry)) for entry in child.iterdir()):
                return True
        elif not (child.is_file() and _ours(child)):
            return True
    return False


def _ours(path: Path) -> bool:
    """A file compile writes by itself: one with its banner, or a host's hook file holding only the
    stop hook of the change-scoped checks. (A hook running the covenant judge shows the host: it is
    there because `pdks init --host` or a covenant config asked for that host.)"""
    try:
        with path.open("rb") as file:
            head = file.read(1024)
    except OSError:
        return False
    if b"<!-- generated by agent-constitution from " in head or head.startswith(_STOP_SCRIPT):
        return True
    return path.suffix == ".json" and _only_our_stop_hooks(path)


# The stop hook script's first lines (compile/host_files.py SCRIPT_BANNER, compile/stop_hooks.py).
_STOP_SCRIPT = b"#!/bin/sh\n# written by agent-constitution (pdks init, compile): the change-scoped checks"
# How a hook command runs the stop check: by module, or by its console script (compile/launcher.py).
_STOP_PROGRAMS = ("agent_constitution.checks.stop", "agent-constitution-stop")


def _only_our_stop_hooks(path: Path) -> bool:
    """A JSON settings file whose only keys are `hooks` (and a `version`) and whose every hook
    command runs the stop check."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict) or set(data) - {"hooks", "version"}:
        return False
    commands = list(_commands(data["hooks"]))
    return bool(commands) and all(any(program in text for program in _STOP_PROGRAMS) for text in commands)


def _commands(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("command", "bash") and isinstance(item, str):
                yield item
            else:
                yield from _commands(item)
    elif isinstance(value, list):
        for item in value:
            yield from _commands(item)


def skill_folders(enabled: tuple[str, ...]) -> tuple[str, ...]:
    """The fewest folders such that every enabled agent with skills reads one: an agent that already
    reads a chosen folder gets no other (so it does not list a skill twice); else its first."""
    chosen: list[str] = []
    for name in sorted(enabled, key=lambda n: len(AGENTS[n].skills)):  # the least choice first
        agent = AGENTS[name]
        if agent.skills and not set(agent.skills) & set(chosen):
            chosen.append(agent.skills[0])
    return tuple(folder for folder in SKILL_FOLDERS if folder in chosen)


def overlaps(enabled: tuple[str, ...], folders: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    """(agent, folders) for every enabled agent that reads more than one of the chosen folders."""
    return [
        (name, read) for name in enabled
        if len(read := tuple(f for f in folders if f in AGENTS[name].skills)) > 1
    ]


def slug(segment: str) -> str:
    """A segment's name for a file in a flat folder of rule files: `services/api` → `services-api`."""
    return segment.replace("/", "-")
