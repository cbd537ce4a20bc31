"""Registration assembly: what one surface judges, in upstream's order (POLYDEUKES §4.6).

Order: `self-mod`, `shell-mod`, `transcript-mod` (the meta-covenants, from `meta.py`), then one
registration per discipline entry (the shared list, then the surface's list, in config order: a
judging registration, or a skip registration carrying its `config-fault`), then the per-entry shell
skip arms, then the one common `shell-unjudgeable` skip registration.

Interfaces with the other covenant modules (all standard library only: they run on the hot path)
----------------------------------------------------------------------------------------------

A registration is any object with these members (duck-typed):

    label: str                # telemetry label: entry id, 'self-mod', 'shell-mod', ...
    kind: str                 # 'meta' | 'declare' | 'skip'  (the kind column of `pdks explain`)
    level: str | None         # the entry's declared enforce ('block'|'advise'); None = observer
                              # posture (meta-covenants carry no entry level)
    describe() -> str         # the description column of `pdks explain`
    route(call, run) -> str | None
                              # the subject when this registration judges `call`, else None;
                              # raising means "routing failed" (forces block, §4.6)
    judge(call, subject, run) -> Outcome

`call` is one IR toolCall (a dict: name, args?, fileChange?), `run` is a `Run` (below): the
assembly facts plus what the runner read once for the whole input.

`meta.py` provides
    meta_registrations(assembly: Assembly) -> list[Registration]
        self-mod / shell-mod / transcript-mod in §4.6 order, each only when its condition holds
        (mutating roster non-empty / shell roster non-empty / session.evidencePath present).
`shellwrite.py` provides
    shell_evidence(call: dict, assembly: Assembly) -> ShellEvidence
        the file changes a shell call's command line computes (§5.7). `ShellEvidence` has
        `changes: list[dict]` (FileChange dicts {kind, path, pre?, post?} completed from disk;
        empty when `assembly.session is None`: no pre-state channel), `uncomputable: list[tuple[str,
        str]]` (repo-relative path, reason text) for writes in a known file that cannot be computed
        (and, without a pre-state channel, the computable ones too) and `unknown: list[str]` (reason
        texts of writes whose target cannot be determined).
`witness.py` provides
    human_valve(witness: dict | None, session: dict | None) -> Callable[[], bool] | None
        the TTL valve shared by every registration of a run (None when not armed); calling it
        reads the clock and answers whether it is open now.
    valve_state_line(witness, session, config_file, now_ms) -> str | None
        the one stderr line after a session run that blocked with the valve shut.
`shell.py` provides
    executed_text(line: str) -> str     the `command` source: the line minus its stdin-data spans.
"""

from __future__ import annotations

import time

from agent_constitution.covenant import engine, meta, worlds
from agent_constitution.covenant.catalogue import AXES, RELATIONS
from agent_constitution.covenant.record import record
from agent_constitution.covenant.shell import executed_text
from agent_constitution.covenant.values import js_trim
from agent_constitution.covenant.worlds import NO_SUBJECT

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SHELL_UNJUDGEABLE = "shell-unjudgeable"
UNKNOWN_TARGET = "a shell command whose write target this layer cannot determine"
UNCOMPUTABLE_IN_SCOPE = "a shell write in scope whose result this layer cannot compute"
DEFAULT_MUTATING = ("staged-write", "staged-delete")


def _witness_valve(declaration: dict[str, Any], world: dict[str, Any]) -> Callable[[], bool]:
    return lambda: engine.witness_opens(declaration, world)


class Outcome(record("Outcome", ["code", "reason", "skip", "witnesses", "valve"], defaults=[None] * 4)):
    """What a registration's body answered: `code` 0 upheld, 1 broken, 2 unjudgeable; `reason`;
    `skip`: a reason token when the registration could not judge (code 0); `witnesses`: the fifth
    telemetry field on a declaration break; `valve`: the declaration's own witness block (a
    callable answering whether it opens), if it has one."""

    __slots__ = ()


class Assembly(
    record(
        "Assembly",
        ["root", "config_path", "protected", "mutating", "shell", "command_args", "session", "witness", "surface",
         "unseen_writes"],
        defaults=["block"],
    )
):
    """The facts one surface's registrations are assembled from: the `root` folder (a str on the
    hook path, or a Path); `config_path`, the bare config file name, root-relative; `protected`, the normalised protectedPaths with the
    config file included; the host's `mutating`, `shell` and `command_args` names (tuples);
    `session`, the IR's session, None when the input carries none; `witness`, the config's witness
    section; `surface`, 'session' or 'change-set'; `unseen_writes`, the config's `unseenWrites`
    (`block` or `allow`: what shell-mod does with a write the command's words do not show)."""

    __slots__ = ()


class Run:
    """One run of `pdks covenant check`: the assembly plus what is read once for all calls."""

    def __init__(
        self,
        assembly: Assembly,
        changes: list[str],
        files: dict[str, str | None],
        actor: dict[str, Any] | None,
        observed_at: int = 0,
    ) -> None:
        self.assembly = assembly
        self.changes = changes  # paths of every toolCall carrying evidence, in input order, as given
        self.files = files  # file sources read once: repo-relative path -> text, None = absent
        self.actor = actor
        self.observed_at = observed_at  # epoch ms of the run's start: the transcript's observedAtMs
        self._snapshot: dict[str, Any] | None = None
        self._worlds: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        self._evidence: dict[int, Any] = {}

    def evidence(self, call: dict[str, Any]) -> Any:
        """The file changes a shell call's command line computes (None for any other call)."""
        if worlds.command_of(call, self.assembly.shell, self.assembly.command_args) is None:
            return None
        if id(call) not in self._evidence:
            from agent_constitution.covenant.shellwrite import shell_evidence  # lazy: 15 ms, for shell calls only

            self._evidence[id(call)] = shell_evidence(call, self.assembly)
        return self._evidence[id(call)]

    def worlds(self, call: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(subject, world) of every observation in one dispatched call, computed once."""
        if id(call) not in self._worlds:
            self._worlds[id(call)] = self._build(call)
        return self._worlds[id(call)]

    def _build(self, call: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        common: dict[str, Any] = {"changes": self.changes}
        line = worlds.command_of(call, self.assembly.shell, self.assembly.command_args)
        if line is not None:
            common["command"] = executed_text(line)
        if self.actor is not None:
            common["actor"] = self.actor
        changes = [call["fileChange"]] if "fileChange" in call else []
        evidence = self.evidence(call)
        if evidence is not None:
            changes += evidence.changes
        found = [w for w in (worlds.change_world(c, self.assembly.root, common) for c in changes) if w]
        if not changes and line is not None:
            found = [(NO_SUBJECT, common)]
        return found

    def snapshot(self) -> dict[str, Any] | None:
        """The transcript source, when the input has a session: built on first use, as the session's
        messages may be read only then."""
        if self._snapshot is None and self.assembly.session is not None:
            self._snapshot = worlds.snapshot(self.assembly.session, self.observed_at)
        return self._snapshot

    def bind(self, declaration: dict[str, Any], call: dict[str, Any], world: dict[str, Any]) -> dict[str, Any]:
        """The world plus the declaration's own `sources` (file, sidecar, transcript)."""
        if not declaration["sources"]:
            return world
        bound = dict(world)
        session = self.assembly.session
        for name, binding in declaration["sources"].items():
            value: Any = None
            if "file" in binding:
                value = self._file(binding["file"], call)
            elif "sidecar" in binding:
                channels = (session or {}).get("channels") or {}
                value = channels.get("sidecar")
            else:
                value = self.snapshot()
            if value is not None:
                bound[name] = value
        return bound

    def _file(self, path: str, call: dict[str, Any]) -> str | None:
        for subject, world in self.worlds(call):
            if subject == path:
                hunks_only = self.assembly.surface == "change-set" and "state" in world
                if not hunks_only:
                    return world.get("post")
        return self.files.get(path)


def _fold(why: str | None) -> str:
    """`why` on one line: every run of CR/LF becomes one space. String operations, not `re.sub`:
    every entry of the plan is folded on every call, and `re`'s flag handling costs more per call."""
    if not why:
        return ""
    text = why.replace("\r", "\n")
    while "\n\n" in text:
        text = text.replace("\n\n", "\n")
    return js_trim(text.replace("\n", " "))


class Discipline:
    """A compiled discipline entry judged on every world its scope admits."""

    kind = "declare"

    def __init__(self, entry: dict[str, Any]) -> None:
        self.label = entry["id"]
        self.level = entry["enforce"] or "advise"
        self.declared = entry["enforce"]
        self.why = _fold(entry["why"])
        self.declaration = entry["declaration"]

    def describe(self) -> str:
        d = self.declaration
        sources = d["sources"].values()
        sidecars = sum("sidecar" in b for b in sources)
        transcripts = sum("transcript" in b for b in sources)
        counts = f" (sidecar {sidecars}, transcript {transcripts})" if sidecars or transcripts else ""
        axes = ",".join(a for a in AXES if a in d["axes"])
        relations = ",".join(r for r in RELATIONS if r in d["relations"])
        scope = d["scope"]
        text = (
            f"{d['mechanism']} · {axes} · {relations} {', '.join(r['id'] for r in d['relate'])} · "
            + (f"scope {scope['source']}" if scope else "scope every world")
            + f" · include {len(scope['include']) if scope else 0} · exclude {len(scope['exclude']) if scope else 0}"
            + f" · sources {len(d['sources'])}{counts} · valve {'✓' if d['witness'] else '—'}"
            + f" · why {'✓' if self.why else '—'}"
        )
        return text + (f" · enforce: {self.declared}" if self.declared else "")

    def _admitted(self, call: dict[str, Any], run: Run) -> list[tuple[str, dict[str, Any]]]:
        """(subject, world with the declaration's own sources) of every world its scope admits."""
        bound = [(subject, run.bind(self.declaration, call, world)) for subject, world in run.worlds(call)]
        return [(subject, world) for subject, world in bound if engine.in_scope(self.declaration["scope"], world)]

    def route(self, call: dict[str, Any], run: Run) -> str | None:
        admitted = self._admitted(call, run)
        return admitted[0][0] if admitted else None

    def judge(self, call: dict[str, Any], subject: str, run: Run) -> Outcome:
        passed = False
        judged = False
        for where, bound in self._admitted(call, run):
            verdict = engine.judge_world(self.declaration, bound)
            if verdict.kind == "broken":
                reason = f"discipline '{self.label}' broken on {where}: {verdict.breaks[0].message}"
                if self.why:
                    reason += f" — why: {self.why}"
                valve = None
                if self.declaration["witness"] is not None:
                    valve = _witness_valve(self.declaration, bound)
                return Outcome(1, reason, witnesses=engine.witness_field(verdict.breaks), valve=valve)
            if verdict.kind == "supply-error":
                return Outcome(
                    2, f"discipline '{self.label}' cannot judge {where}: {verdict.source} — {verdict.reason}"
                )
            if verdict.kind == "supply-pass":
                passed = True
            else:
                judged = True
        if passed and not judged:
            return Outcome(0, skip="supply-pass")
        return Outcome(0)


class ConfigFault:
    """A declaration the compiler could not resolve: routes nothing, shown by `pdks explain`."""

    kind = "skip"
    level = None

    def __init__(self, entry: dict[str, Any]) -> None:
        self.label = entry["id"]
        self.fault = f"{entry['fault']['location']}: {entry['fault']['reason']}"

    def describe(self) -> str:
        return self.fault

    def route(self, call: dict[str, Any], run: Run) -> str | None:
        return None

    def judge(self, call: dict[str, Any], subject: str, run: Run) -> Outcome:
        return Outcome(0, skip="config-fault")


class ShellSkipArm:
    """Owns the shell writes in an entry's `target.path` scope that this layer cannot compute."""

    kind = "skip"
    level = None

    def __init__(self, entry: dict[str, Any]) -> None:
        self.label = entry["id"]
        self.scope = entry["declaration"]["scope"]

    def describe(self) -> str:
        return UNCOMPUTABLE_IN_SCOPE

    def route(self, call: dict[str, Any], run: Run) -> str | None:
        evidence = run.evidence(call)
        for path, _reason in evidence.uncomputable if evidence else []:
            if engine.in_scope(self.scope, {"target.path": path}):
                return path
        return None

    def judge(self, call: dict[str, Any], subject: str, run: Run) -> Outcome:
        return Outcome(0, skip="no-observation")


class ShellUnjudgeable:
    """The common registration for shell writes whose target cannot be determined."""

    kind = "skip"
    level = None
    label = SHELL_UNJUDGEABLE

    def describe(self) -> str:
        return UNKNOWN_TARGET

    def route(self, call: dict[str, Any], run: Run) -> str | None:
        evidence = run.evidence(call)
        return NO_SUBJECT if evidence is not None and evidence.unknown else None

    def judge(self, call: dict[str, Any], subject: str, run: Run) -> Outcome:
        return Outcome(0, skip="no-observation")


SURFACE_LISTS = {"session": "sessionDisciplines", "change-set": "changeSetDisciplines"}


def surface_entries(plan: dict[str, Any], surface: str) -> list[dict[str, Any]]:
    """The entries a surface compiles: `disciplines`, then its own list, in config order."""
    own = SURFACE_LISTS[surface]
    return [e for e in plan["entries"] if e["list"] == "disciplines"] + [e for e in plan["entries"] if e["list"] == own]


def assemble(plan: dict[str, Any], assembly: Assembly) -> list[Any]:
    """Every registration of one surface, in §4.6 order."""
    registrations: list[Any] = list(meta.meta_registrations(assembly))
    entries = surface_entries(plan, assembly.surface)
    for entry in entries:
        registrations.append(ConfigFault(entry) if "fault" in entry else Discipline(entry))
    if assembly.shell and assembly.command_args:
        for entry in entries:
            scope = entry.get("declaration", {}).get("scope")
            if "fault" not in entry and (scope is None or scope["source"] != "command"):
                registrations.append(ShellSkipArm(entry))
    registrations.append(ShellUnjudgeable())
    return registrations


def fault_lines(registrations: list[Any]) -> list[str]:
    """The stderr line of every skip registration that carries a config fault."""
    return [
        f"discipline '{r.label}': {r.fault} — skipped, not judged" for r in registrations if isinstance(r, ConfigFault)
    ]


def human_valve(assembly: Assembly) -> Callable[[], bool] | None:
    """The TTL witness valve of this run, armed only with a config witness and a session."""
    if assembly.witness is None or assembly.session is None:
        return None
    from agent_constitution.covenant import witness  # lazy: 0.7 ms, for a config with a witness or a block only

    return witness.human_valve(assembly.witness, assembly.session)


def valve_state(assembly: Assembly, shut: int) -> str | None:
    """After a session run with blocked results: the one line saying how a person can open it."""
    if not shut or assembly.session is None:
        return None
    from agent_constitution.covenant import witness  # lazy: 0.7 ms, for a config with a witness or a block only

    return witness.valve_state_line(assembly.witness, assembly.session, assembly.config_path, time.time() * 1000)
