"""The covenant's names in one place: the config file names, the declaration language (fixed
sources, channels, relations, steps, mechanisms; §2, §3) and the agent hosts the judge is wired into.

Standard library only, no imports: the hot path, the loader, `pdks init` and compile all read it.
"""

from __future__ import annotations

FIXED_SOURCES = ("target.path", "pre", "post", "state", "changes", "command", "actor")
STRING_SOURCES = ("target.path", "pre", "post", "command")
SESSION_CHANNELS = frozenset({"transcript", "channel", "command", "actor"})
META_LABELS = ("self-mod", "shell-mod", "transcript-mod")
LISTS = ("disciplines", "sessionDisciplines", "changeSetDisciplines")
SOURCE_KINDS = ("file", "sidecar", "transcript")
SUPPLY_POLICIES = ("error", "pass", "empty")

RELATIONS = ("empty", "nonEmpty", "equal", "subset", "implies", "ordered", "unchanged")
COMBINATORS = ("union", "onlyIn", "intersect")
# step -> (argument -> (required, kind)); kinds: str, bool, regex, names, when. The registry of
# extract steps: the compiler checks arguments against it, `STEPS` is its names in order.
STEP_ARGS: dict[str, dict[str, tuple[bool, str]]] = {
    "source": {"of": (True, "str")},
    "json": {},
    "select": {"path": (True, "str")},
    "items": {},
    "keyBy": {"field": (True, "str")},
    "keyByPattern": {"re": (True, "regex"), "i": (False, "bool")},
    "field": {"name": (True, "str")},
    "filter": {"when": (True, "when")},
    "flattenKeys": {},
    "sort": {},
    "lines": {},
    "matches": {"re": (True, "regex"), "i": (False, "bool")},
    "toolUses": {"names": (False, "names"), "subagentType": (False, "str")},
    "userTexts": {"re": (True, "regex"), "i": (False, "bool")},
    "agentType": {"is": (True, "str")},
    "first": {},
    "ageMs": {},
}
STEPS = tuple(STEP_ARGS)
AXES = ("change", "actor", "world", "history")

# name -> (allowed axes, allowed body relations, the scope source it pins or None)
MECHANISMS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str | None]] = {
    "pairing": (("world",), ("equal", "subset"), None),
    "companion": (("change", "world"), ("implies",), None),
    "monotonic-order": (("change", "world"), ("ordered",), None),
    "fingerprint-sync": (("world",), ("equal",), None),
    "producer-owned": (("actor",), ("empty", "nonEmpty"), None),
    "self-absolution-ban": (("change",), ("unchanged", "empty"), None),
    "actor-scope": (("actor",), ("empty", "nonEmpty"), None),
    "precedent": (("history", "world"), ("nonEmpty",), None),
    "phase-order": (("history",), ("ordered",), None),
    "turn-locality": (("history",), ("nonEmpty",), None),
    "stated-ground": (("history",), ("nonEmpty",), None),
    "controlled-vocabulary": (("change", "world"), ("subset",), None),
    "naming": (("change",), ("empty", "nonEmpty"), "target.path"),
    "added-only": (("change",), ("empty",), None),
    "one-way-marker": (("change",), ("subset",), None),
    "delegated-scope": ((), (), None),
    "scoped-valve": (AXES, RELATIONS, None),
    "forbidden-command": (("change",), ("empty",), "command"),
}
RESERVED = "delegated-scope"


# The config file, in the order discovery lists them; `pdks init` writes the first.
CONFIG_NAMES = ("polydeukes.config.yaml", "polydeukes.config.yml", "polydeukes.config.json")


class Stop:
    """A host's stop-like event, where the change-scoped checks run (`python -m
    agent_constitution.checks.stop <host>`; docs/covenant.md, "Hosts").

    `event`: its name in the settings file; `file`: where it is registered when that is not the
    host's settings file (Cline runs one executable per event); `handler`: the handler's keys other
    than the command."""

    __slots__ = ("event", "file", "handler")

    def __init__(self, event, *, file=None, handler=None):
        self.event, self.file, self.handler = event, file, {"type": "command"} if handler is None else handler


class Host:
    """One agent host the judge is wired into: where its hook is registered and how.

    `adapter`: the module under `covenant/adapters` translating its payload; `file`: the settings
    file holding the hook, root-relative; `events`: (event, matcher or None) pairs the hook is
    registered under; `grouped`: the file nests handlers in matcher groups (`{matcher, hooks: [...]}`)
    rather than listing them under the event; `command_key`: the handler key holding the command;
    `handler`: the handler's other keys (type, timeout, fail-closed flags); `top`: keys the file
    needs at its top level; `script`: the hook is an executable file of its own (Cline), not an
    entry in a settings file; `whole`: the file is a hooks file of ours alone, written whole (Kiro's
    `.kiro/hooks/<name>.json`); `stop`: its stop-like event, where it has one that takes feedback.
    Which repositories use a host is `compile/agents.py`'s to say (`Agent.markers`), once.
    """

    __slots__ = ("name", "adapter", "file", "events", "grouped", "command_key", "handler", "top", "script", "whole",
                 "stop")

    def __init__(self, name, adapter, file, events, *, grouped=True, command_key="command", handler=None,
                 top=None, script=False, whole=False, stop=None):
        self.name, self.adapter, self.file, self.events = name, adapter, file, events
        self.grouped, self.command_key, self.handler = grouped, command_key, handler or {"type": "command"}
        self.top, self.script, self.whole, self.stop = top or {}, script, whole, stop

    @property
    def stop_file(self):
        """The file holding the stop hook, or None without a stop-like event."""
        return None if self.stop is None else self.stop.file or self.file

    @property
    def files(self):
        """Every file compile and `pdks init` write for the host: the judge's, then the stop hook's."""
        return tuple(dict.fromkeys(name for name in (self.file, self.stop_file) if name))


# The keys a shipped adapter reads from its `adapters.<host>` namespace in the config; any other
# key there is refused rather than silently ignored.
ADAPTER_SETTINGS = ("mutatingTools",)

HOSTS: dict[str, Host] = {
    host.name: host
    for host in (
        # `mcp__.*`: an MCP tool that writes files must reach the judge to be judged at all. Claude
        # Code (2.1.295 and later) blocks the call when a handler with `onFailure: block` cannot
        # start, times out or exits with a status other than 0 and 2: no wrapper can catch a timeout.
        Host("claude-code", "claude_code", ".claude/settings.json",
             (("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*"),),
             handler={"type": "command", "onFailure": "block"}, stop=Stop("Stop")),
        Host("codex", "codex", ".codex/hooks.json", (("PreToolUse", "apply_patch|Bash"),), stop=Stop("Stop")),
        # Grok's default timeout (5 s) is shorter than a cold plan compile. Grok has no stop-like
        # event that blocks (PreToolUse is its only blocking event).
        Host("grok", "grok", ".grok/hooks/covenant-pretooluse.json",
             (("PreToolUse", "write|search_replace|run_terminal_command"),),
             handler={"type": "command", "timeout": 60}),
        # Gemini CLI's timeout is in milliseconds (default 60,000).
        Host("gemini-cli", "gemini_cli", ".gemini/settings.json",
             (("BeforeTool", "write_file|replace|run_shell_command"),),
             handler={"type": "command", "timeout": 60000},
             stop=Stop("AfterAgent", handler={"type": "command", "timeout": 60000})),
        # Cursor lists handlers under the event; `failClosed` makes a hook that fails block (not
        # on `stop`, where a block is a follow-up message: the wrapper sends one itself).
        Host("cursor", "cursor", ".cursor/hooks.json",
             (("preToolUse", "Write|StrReplace|Edit|Delete|MultiEdit"), ("beforeShellExecution", None)),
             grouped=False, handler={"failClosed": True}, top={"version": 1}, stop=Stop("stop", handler={})),
        # Copilot CLI and the cloud agent read `.github/hooks/*.json`; the command is `bash`.
        Host("copilot", "copilot", ".github/hooks/covenant.json", (("preToolUse", None),), grouped=False,
             command_key="bash", handler={"type": "command", "timeoutSec": 60}, top={"version": 1},
             stop=Stop("agentStop", handler={"type": "command", "timeoutSec": 60})),
        # Cline runs the executable named after the hook in `.clinerules/hooks/`.
        Host("cline", "cline", ".clinerules/hooks/PreToolUse", (("PreToolUse", None),), script=True,
             stop=Stop("TaskComplete", file=".clinerules/hooks/TaskComplete")),
        # Windsurf lists handlers under the event, with no matcher; exit 2 blocks a pre-hook, and
        # `show_output` puts what the hook says in the Cascade view. No stop-like event blocks.
        Host("windsurf", "windsurf", ".windsurf/hooks.json",
             (("pre_write_code", None), ("pre_run_command", None), ("pre_mcp_tool_use", None)),
             grouped=False, handler={"show_output": True}),
        # Kiro CLI 3 reads every `.kiro/hooks/*.json` for all agents of the workspace: a file of
        # ours alone, `fs_write` its one documented tool name (its `Stop` cannot block). Timeout in
        # seconds.
        Host("kiro", "kiro", ".kiro/hooks/covenant.json", (("PreToolUse", "fs_write"),), whole=True,
             handler={"timeout": 60}),
    )
}


def quoted(names: object) -> str:
    """`'a', 'b'` — how every message lists names."""
    return ", ".join(f"'{name}'" for name in names)  # type: ignore[attr-defined]
