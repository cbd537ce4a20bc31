"""The agent hosts: one `Host` record per agent, the one table compile, the checks, the judge and
`pdks init` read.

A record says everything the stages need to know about one agent (docs/compile.md, "Agents and
what they read", and docs/covenant.md, "Hosts", cite each agent's documentation for each fact):

- what it reads by itself: `shim` (a file beside each segment's AGENTS.md holding `@AGENTS.md`, for
  an agent that reads its own file name and expands `@` imports), `scoped` (a path-scoped rule
  file per nested segment, for an agent that reads the root AGENTS.md but not nested ones),
  `skills` (the project skill folders it reads, in order of preference), `chain_bytes` /
  `file_chars` (the documented limit on what it auto-loads, from `hosts.limits`, the one table of
  them with their citations);
- `markers`: the files or folders whose presence shows a repository uses it (`hosts.agents.detect`);
- its pre-tool hook, where the judge is wired into it (`hook`: its `pdks hook <hook>` name):
  `adapter` (the module translating its payload: a name under `covenant/adapters`, or a dotted
  module path), `file` (the settings file holding the hook, root-relative), `events` ((event,
  matcher or None) pairs), `grouped` (handlers nested in matcher groups `{matcher, hooks: [...]}`
  rather than listed under the event), `command_key` (the handler key holding the command),
  `handler` (the handler's other keys), `top` (keys the file needs at its top level), `script`
  (the hook is an executable file of its own, as Cline runs one), `whole` (the file is a hooks
  file of ours alone, written whole, as Kiro's), `project` (the environment variable naming the
  project, where the host sets one), `deny(text)` (where the host blocks on a JSON answer rather
  than on exit 2: that answer and its status, which the hook command's wrapper prints when the
  judge cannot run at all);
- `stop`: its stop-like event, where the change-scoped checks run and how it is answered (`Stop`).

Adding a host is one record in `TABLE` plus its adapter module. `registered(host)` adds one for
the length of a `with` block (the tests' fake host).

Standard library only, importing only `hosts.limits` (a plain table): the pre-tool hook, the Stop hook, task creation and
the loader all read it.
"""

from __future__ import annotations

from agent_constitution.hosts.limits import LIMITS

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from collections.abc import Callable


class Answer:
    """What a hook prints and the status it exits with."""

    __slots__ = ("stdout", "stderr", "status")

    def __init__(self, stdout: str | None = None, stderr: str | None = None, status: int = 0) -> None:
        self.stdout, self.stderr, self.status = stdout, stderr, status

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Answer) and (self.stdout, self.stderr, self.status) == (
            other.stdout, other.stderr, other.status)

    def __repr__(self) -> str:
        return f"Answer(stdout={self.stdout!r}, stderr={self.stderr!r}, status={self.status!r})"


def _json(value: dict) -> str:
    import json  # only the Stop hook answers in JSON; the pre-tool hook imports no json

    return json.dumps(value, ensure_ascii=False)


def exit_code_block(text: str) -> Answer:
    """Exit 2 with the reasons on stderr makes the model go on with them."""
    return Answer(stderr=text, status=2)


def system_message(text: str | None, clean: str | None = None) -> Answer:
    """The lines go to the user as a JSON `systemMessage` and the stop goes through."""
    return Answer(stdout=clean) if text is None else Answer(stdout=_json({"systemMessage": text}))


def active(payload: dict) -> bool:
    """The model already went on because of this hook (`stop_hook_active`)."""
    return payload.get("stop_hook_active") is True


def looped(payload: dict) -> bool:
    """Cursor's mark of a continuation: `loop_count` above 0."""
    count = payload.get("loop_count")
    return isinstance(count, int) and not isinstance(count, bool) and count > 0


class Stop:
    """A host's stop-like event, where the change-scoped checks run (`python -m
    agent_constitution.checks.stop <hook>`; docs/covenant.md, "Hosts").

    `event`: its name in the settings file; `file`: where it is registered when that is not the
    host's settings file (Cline runs one executable per event); `handler`: the handler's keys other
    than the command; `roots`: the payload keys naming the project folder (a string, or a list whose
    first item is one), tried in order; `record`: the payload key of a transcript
    `checks/records.py` reads; `continuing(payload)`: the model already went on because of this
    hook; `block(text)`: the answer that sends the lines back; `through(text)`: the stop goes
    through, telling `text` (None: a clean stop)."""

    __slots__ = ("event", "file", "handler", "roots", "record", "continuing", "block", "through")

    def __init__(self, event: str, *, file: str | None = None, handler: dict | None = None,
                 roots: tuple[str, ...] = ("cwd",), record: str | None = None,
                 continuing: Callable[[dict], bool] = active, block: Callable[[str], Answer] = exit_code_block,
                 through: Callable[[str | None], Answer] = system_message) -> None:
        self.event, self.file = event, file
        self.handler = {"type": "command"} if handler is None else handler
        self.roots, self.record, self.continuing, self.block, self.through = roots, record, continuing, block, through

    def deny(self, text: str) -> tuple[str | None, int]:
        """What the hook's wrapper prints when the checks cannot run at all, and its status: the
        host's JSON blocking answer where it reads only JSON at this event, else nothing and 2."""
        answer = self.block(text)
        return (answer.stdout, answer.status) if answer.stdout is not None else (None, 2)


class Scoped:
    """A path-scoped rule file: where it goes, the front matter that scopes it to a folder, and
    whose text it holds (`parent`: the parent segment's, for an agent that reads only the nearest
    AGENTS.md; else the segment's own); `unreached`: written only for the segments whose AGENTS.md
    the agent's own search never reaches (Cline's)."""

    __slots__ = ("folder", "suffix", "front", "keys", "parent", "unreached")

    def __init__(self, folder: str, suffix: str, front: str, keys: frozenset[str], parent: bool = False,
                 unreached: bool = False) -> None:
        self.folder = folder  # relative to the repository root
        self.suffix = suffix  # after the segment's slug
        self.front = front  # front matter with `{glob}` for the segment's files
        self.keys = keys  # the front-matter keys the agent's documentation defines
        self.parent, self.unreached = parent, unreached


class Host:
    """One agent host: what it reads by itself, how a repository shows it uses it, and its hooks
    (the fields are described in the module's text)."""

    __slots__ = ("name", "shim", "scoped", "skills", "_chain_bytes", "_file_chars", "markers", "hook", "adapter",
                 "file", "events", "grouped", "command_key", "handler", "top", "script", "whole", "project", "deny",
                 "stop")

    def __init__(self, name: str, *, shim: str | None = None, scoped: Scoped | None = None,
                 skills: tuple[str, ...] = (), chain_bytes: int | None = None, file_chars: int | None = None,
                 markers: tuple[str, ...] = (), hook: str | None = None, adapter: str | None = None,
                 file: str | None = None, events: tuple[tuple[str, str | None], ...] = (), grouped: bool = True,
                 command_key: str = "command", handler: dict | None = None, top: dict | None = None,
                 script: bool = False, whole: bool = False, project: str | None = None,
                 deny: Callable[[str], tuple[str, int]] | None = None, stop: Stop | None = None) -> None:
        self.name, self.shim, self.scoped, self.skills = name, shim, scoped, skills
        # A limit given here overrides `hosts.limits` (a host not in that table, as the tests' fake).
        self._chain_bytes, self._file_chars, self.markers = chain_bytes, file_chars, markers
        self.hook, self.adapter, self.file, self.events = hook, adapter, file, events
        self.grouped, self.command_key, self.handler = grouped, command_key, handler or {"type": "command"}
        self.top, self.script, self.whole, self.project = top or {}, script, whole, project
        self.deny, self.stop = deny, stop

    @property
    def chain_bytes(self) -> int | None:
        """Its documented limit on the root→cwd chain of AGENTS.md files (`hosts.limits`)."""
        return self._chain_bytes if self._chain_bytes is not None else LIMITS.get(self.name, {}).get("chain_bytes")

    @property
    def file_chars(self) -> int | None:
        """Its documented limit on one instruction file, in characters (`hosts.limits`)."""
        return self._file_chars if self._file_chars is not None else LIMITS.get(self.name, {}).get("file_chars")

    @property
    def stop_file(self) -> str | None:
        """The file holding the stop hook, or None without a stop-like event."""
        return None if self.stop is None else self.stop.file or self.file

    @property
    def files(self) -> tuple[str, ...]:
        """Every file compile and `pdks init` write for the host: the judge's, then the stop hook's."""
        return tuple(dict.fromkeys(name for name in (self.file, self.stop_file) if name))

    @property
    def adapter_module(self) -> str:
        """The dotted name of its payload adapter."""
        assert self.adapter is not None, self.name
        return self.adapter if "." in self.adapter else f"agent_constitution.covenant.adapters.{self.adapter}"


AGENTS_MD = "agents-md"  # every agent that reads AGENTS.md root→cwd by itself (Codex first)
CHAIN_LIMIT = LIMITS["codex"]["chain_bytes"]  # Codex's project_doc_max_bytes
PROJECT_RESERVE = 8 * 1024  # of each chain, left to the repository's own hand-written instructions

COPILOT = Scoped(
    ".github/instructions",
    ".instructions.md",
    # The cloud agent reads the nearest AGENTS.md itself: excluded, so it does not read the text twice.
    '---\napplyTo: "{glob}"\nexcludeAgent: "coding-agent"\n---\n',
    frozenset({"applyTo", "excludeAgent", "description", "name"}),
)
# The coding agent reads only the nearest AGENTS.md: for a nested segment, the text of the segment
# above it (the root's, or a nested parent's delta), scoped to the segment's files; hidden from code
# review, which reads the root AGENTS.md and the segment's own file (COPILOT) instead.
COPILOT_ABOVE = Scoped(
    ".github/instructions",
    ".above.instructions.md",
    '---\napplyTo: "{glob}"\nexcludeAgent: "code-review"\n---\n',
    frozenset({"applyTo", "excludeAgent", "description", "name"}),
    parent=True,
)
# Cline reads every AGENTS.md its file listing finds, but the listing never enters `pkg/`, `dist/`,
# `vendor/`, hidden folders and a few more (hosts/loaders/others.py): a segment there gets a
# conditional rule (`paths:`), which Cline applies to the files it matches.
CLINE = Scoped(
    ".clinerules",
    ".md",
    '---\npaths:\n  - "{glob}"\n---\n',
    frozenset({"paths"}),
    unreached=True,
)
# `[compile] copilot` → the path-scoped files it needs (hosts/loaders/copilot.py LAYOUTS: the products
# each serves). The CLI reads every folder's AGENTS.md on the path itself: nothing more.
COPILOT_LAYOUTS = {"editor": (COPILOT,), "cloud": (COPILOT, COPILOT_ABOVE), "cli": ()}
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

TABLE: list[Host] = [
    Host(AGENTS_MD, skills=(".agents/skills",)),
    # `mcp__.*`: an MCP tool that writes files must reach the judge to be judged at all.
    Host("claude-code", shim="CLAUDE.md", skills=(".claude/skills",), markers=(".claude", "CLAUDE.md"),
         hook="claude-code", adapter="claude_code", file=".claude/settings.json",
         events=(("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*"),),
         handler={"type": "command"}, project="CLAUDE_PROJECT_DIR",
         stop=Stop("Stop", record="transcript_path")),
    Host("codex", skills=(".agents/skills",), markers=(".codex",),
         hook="codex", adapter="codex", file=".codex/hooks.json", events=(("PreToolUse", "apply_patch|Bash"),),
         stop=Stop("Stop", record="transcript_path")),
    # Gemini CLI's timeout is in milliseconds (default 60,000); stdout is read as JSON only, so a
    # clean stop answers `{}`.
    Host("gemini", shim="GEMINI.md", skills=(".agents/skills", ".gemini/skills"), markers=(".gemini", "GEMINI.md"),
         hook="gemini-cli", adapter="gemini_cli", file=".gemini/settings.json",
         events=(("BeforeTool", "write_file|replace|run_shell_command"),),
         handler={"type": "command", "timeout": 60000}, project="GEMINI_PROJECT_DIR",
         stop=Stop("AfterAgent", handler={"type": "command", "timeout": 60000}, record="transcript_path",
                   through=lambda text: system_message(text, clean="{}"))),
    # Copilot CLI and the cloud agent read `.github/hooks/*.json`; the command is `bash`. At
    # `agentStop` a JSON `decision: block` makes the reason the next prompt (exit 2 only warns);
    # no message to the user is documented there, so a repeated violation is left on stderr.
    Host("copilot", scoped=COPILOT, skills=(".agents/skills", ".claude/skills", ".github/skills"),
         markers=(".github/copilot-instructions.md", ".github/hooks", ".github/instructions"),
         hook="copilot", adapter="copilot", file=".github/hooks/covenant.json", events=(("preToolUse", None),),
         grouped=False, command_key="bash", handler={"type": "command", "timeoutSec": 60}, top={"version": 1},
         deny=lambda text: (_json({"permissionDecision": "deny", "permissionDecisionReason": text}), 0),
         stop=Stop("agentStop", handler={"type": "command", "timeoutSec": 60},
                   block=lambda text: Answer(stdout=_json({"decision": "block", "reason": text})),
                   through=lambda text: Answer(stderr=text))),
    # Cursor lists handlers under the event; `failClosed` makes a hook that fails block (not on
    # `stop`, where a block is a follow-up message: the wrapper sends one itself). `loop_count`
    # marks a continuation (Cursor caps them with the handler's `loop_limit`).
    Host("cursor", skills=(".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"),
         markers=(".cursor", ".cursorrules"),
         hook="cursor", adapter="cursor", file=".cursor/hooks.json",
         events=(("preToolUse", "Write|StrReplace|Edit|Delete|MultiEdit"), ("beforeShellExecution", None)),
         grouped=False, handler={"failClosed": True}, top={"version": 1},
         deny=lambda text: (_json({"permission": "deny", "user_message": text, "agent_message": text}), 2),
         stop=Stop("stop", handler={}, roots=("workspace_roots", "cwd"), continuing=looped,
                   block=lambda text: Answer(stdout=_json({"followup_message": text})),
                   through=lambda text: Answer(stdout="{}", stderr=text))),
    # Windsurf lists handlers under the event, with no matcher; exit 2 blocks a pre-hook, and
    # `show_output` puts what the hook says in the Cascade view. No stop-like event blocks.
    Host("windsurf", skills=(".windsurf/skills",), markers=(".windsurf", ".windsurfrules"),
         hook="windsurf", adapter="windsurf", file=".windsurf/hooks.json",
         events=(("pre_write_code", None), ("pre_run_command", None), ("pre_mcp_tool_use", None)),
         grouped=False, handler={"show_output": True}),
    # Cline runs the executable named after the hook in `.clinerules/hooks/`. `TaskComplete` runs
    # after the task completed, so it cannot hold it: the lines go to the model as
    # `contextModification` (the next request sees them), with `cancel: false`.
    Host("cline", scoped=CLINE, skills=(".cline/skills", ".clinerules/skills"), markers=(".clinerules",),
         hook="cline", adapter="cline", file=".clinerules/hooks/PreToolUse", events=(("PreToolUse", None),),
         script=True, deny=lambda text: (_json({"cancel": True, "errorMessage": text}), 0),
         stop=Stop("TaskComplete", file=".clinerules/hooks/TaskComplete", roots=("workspaceRoots",),
                   continuing=lambda payload: False,
                   block=lambda text: Answer(stdout=_json({"cancel": False, "contextModification": text})),
                   through=lambda text: Answer(stdout=_json({"cancel": False})))),
    Host("roo", skills=(".roo/skills",), markers=(".roo", ".roorules")),
    # Kiro CLI 3 reads every `.kiro/hooks/*.json` for all agents of the workspace: a file of ours
    # alone, `fs_write` its one documented tool name (its `Stop` cannot block). Timeout in seconds.
    Host("kiro", scoped=KIRO, skills=(".kiro/skills",), markers=(".kiro",),
         hook="kiro", adapter="kiro", file=".kiro/hooks/covenant.json", events=(("PreToolUse", "fs_write"),),
         whole=True, handler={"timeout": 60}),
    Host("opencode", skills=(".agents/skills", ".claude/skills", ".opencode/skills"),
         markers=(".opencode", "opencode.json")),
    Host("amp", skills=(".agents/skills", ".claude/skills")),
    Host("continue", scoped=CONTINUE, skills=(".continue/skills",), markers=(".continue",)),
    # Grok's default timeout (5 s) is shorter than a cold plan compile. Grok has no stop-like event
    # that blocks (PreToolUse is its only blocking event).
    Host("grok", skills=(".grok/skills",), markers=(".grok",),
         hook="grok", adapter="grok", file=".grok/hooks/covenant-pretooluse.json",
         events=(("PreToolUse", "write|search_replace|run_terminal_command"),),
         handler={"type": "command", "timeout": 60}),
    Host("zed", markers=(".rules",)),
    Host("aider", markers=(".aider.conf.yml",)),
    Host("junie", markers=(".junie",)),
]
# The order the judge's hooks are listed and wired in (usage lines, docs, settings files): the order
# the hosts were added in. A host not named here follows, in the table's order.
HOOK_ORDER = ("claude-code", "codex", "grok", "gemini-cli", "cursor", "copilot", "cline", "windsurf", "kiro")

AGENTS: dict[str, Host] = {}  # agent name -> record (`[compile] agents`)
HOSTS: dict[str, Host] = {}  # `pdks hook` name -> record, in HOOK_ORDER


def _index() -> None:
    """Fill AGENTS and HOSTS from TABLE, in place (every reader holds the same two dicts)."""
    AGENTS.clear()
    AGENTS.update((host.name, host) for host in TABLE)
    hooked = [host for host in TABLE if host.hook]
    rank = {name: index for index, name in enumerate(HOOK_ORDER)}
    HOSTS.clear()
    HOSTS.update((host.hook, host) for host in sorted(hooked, key=lambda h: rank.get(h.hook, len(rank))))


_index()


def names() -> tuple[str, ...]:
    """The agent names, in the table's order."""
    return tuple(AGENTS)


def scopes(name: str, copilot: str = "editor") -> tuple[Scoped, ...]:
    """The path-scoped rule files an agent gets per nested segment (Copilot's per `[compile] copilot`)."""
    host = AGENTS[name]
    if host.scoped is COPILOT:
        return COPILOT_LAYOUTS[copilot]
    return (host.scoped,) if host.scoped else ()


def shims() -> tuple[str, ...]:
    """Every shim file name, sorted."""
    return tuple(sorted({host.shim for host in AGENTS.values() if host.shim}))


def skill_folders() -> tuple[str, ...]:
    """Every skill folder any agent reads, in the table's order."""
    return tuple(dict.fromkeys(folder for host in AGENTS.values() for folder in host.skills))


def stop_hosts() -> dict[str, Host]:
    """The hosts with a stop-like event, by `pdks hook` name."""
    return {name: host for name, host in HOSTS.items() if host.stop is not None}


def hook_of(agent: str) -> str | None:
    """The `pdks hook` name of an agent, or None."""
    host = AGENTS.get(agent)
    return host.hook if host else None


def folder(stop: Stop, payload: dict) -> str | None:
    """The project folder a stop payload names, or None."""
    for key in stop.roots:
        value = payload.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, str) and value:
            return value
    return None


def registered(host: Host) -> _Registration:
    """`with registered(host):` the table holds `host` too (appended), and not after the block."""
    return _Registration(host)


class _Registration:
    def __init__(self, host: Host) -> None:
        self.host = host

    def __enter__(self) -> Host:
        if self.host.name in AGENTS or (self.host.hook and self.host.hook in HOSTS):
            raise ValueError(f"host {self.host.name!r} is already registered")
        TABLE.append(self.host)
        _index()
        return self.host

    def __exit__(self, *exc: object) -> None:
        TABLE.remove(self.host)
        _index()


__all__ = ["AGENTS", "AGENTS_MD", "CHAIN_LIMIT", "HOOK_ORDER", "HOSTS", "PROJECT_RESERVE", "TABLE", "Answer", "Host",
           "Scoped", "Stop", "folder", "hook_of", "names", "registered", "scopes", "shims", "skill_folders",
           "stop_hosts"]
