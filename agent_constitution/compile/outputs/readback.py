"""The read-back proof after every output is written (`agents:readback`): each enabled agent's
loader model reads the outputs back, and a rule in force that an agent does not load is a warning,
or with `[compile] over-limit = "error"` an error (the run's rewritten files are then put back).
Each segment's findings are kept in `cache/readback.json` with what its proof read, and proved
again only when that changed (`_proved`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping

from agent_constitution.compile.layout import folder_of
from agent_constitution.compile.outputs import aider_read, scoped, shims, summary, vscode_settings, windsurf_rest
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.errors import UserError
from agent_constitution.ruleset.resolved import resolved_path
from agent_constitution import fsio
from agent_constitution.compile.outputs.segment import documents_stamp



class ReadBack:
    name = "readback"

    def jobs(self, plan: Plan) -> list[Job]:
        outputs = (scoped.OUTPUT, shims.OUTPUT, summary.OUTPUT, aider_read.OUTPUT, windsurf_rest.OUTPUT,
                   vscode_settings.OUTPUT)
        before = [f"agents:{job.name}" for output in outputs for job in plan.jobs_of(output)]
        before += ["agents:chains", "agents:prune"]  # prune may take VS Code's setting out
        return [Job(name="readback", doc="Read the outputs back as each enabled agent loads them; warn (or fail) "
                                         "when one misses a rule in force", task_dep=tuple(before), cleaned=False)]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile import readback  # lazy: the agents' loader models would add 13 ms to a no-op compile

        stamp = _stamp(plan)  # before the reads: a later change is never missed
        findings = _proved(plan)
        failing = readback.problems(findings)
        if failing and plan.settings.over_limit == "error":
            raise UserError("; ".join(failing), file=plan.root / "AGENTS.md",
                            fix=readback.fix_for(failing[0]) + '; or set [compile] over-limit = "warn" to compile with '
                                                              "a warning")
        lines = tuple(f"warning: {line}\n  fix: {readback.fix_for(line)}" for line in failing)
        held = sum(1 for finding in findings if finding.holds)
        return Step(lines=(f"read back: {held} of {len(findings)} agent views load every rule in force",) + lines,
                    state=_state(plan), extra={"stamp": stamp})

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return bool(values) and (values.get("stamp") == _stamp(plan) or values.get("state") == _state(plan))

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return []


KEPT = "readback.json"  # in the repository's cache: each segment's proof, by what its loaders read


def _proved(plan: Plan) -> list:
    """Every segment's proof (`readback.prove`). A segment's is the last run's while its resolution
    file is the one it was proved from and every question its loaders asked (a file's status, a
    folder, a listing: `Repo.asked`) has the same answer; compile replaces each file it changes by
    renaming a new one into place, so a rewritten file has a new status. At 1,000 segments proving
    them all was half of a one-rule edit."""
    from agent_constitution.compile import readback  # lazy: the loader models, not for creating the tasks
    from agent_constitution.hosts.loaders.common import Repo, status  # lazy: as above
    from agent_constitution.ruleset.resolved import read_resolved, resolved_path  # lazy: pydantic, as above

    key = digest([plan.code, list(plan.settings.agents), plan.settings.copilot])
    try:
        data = json.loads((plan.cache / KEPT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    before = data.get("segments") if isinstance(data, dict) and data.get("key") == key else None
    before = before if isinstance(before, dict) else {}
    proving, checking = Repo(plan.root), Repo(plan.root)
    answers: dict[tuple, object] = {}  # question → today's answer: every segment asks for the root's files

    def holds(asked: list, answer) -> bool:
        question = tuple(asked)
        if question not in answers:
            answers[question] = readback.answer(checking, question)
        return answers[question] == answer

    found, keep = [], {}
    for segment in plan.segments:
        document = resolved_path(plan.cache, segment)
        stamp = status(document)  # before the read: a later change is never missed
        entry = before.get(segment)
        if (isinstance(entry, dict) and stamp is not None and entry.get("document") == stamp
                and all(holds(asked, answer) for asked, answer in entry["asked"])):
            found += [readback.from_kept(segment, item) for item in entry["findings"]]
            keep[segment] = entry
            continue
        wanted = tuple(rule.ref for rule in read_resolved(document).rules)
        proving.asked.clear()
        proved = readback.prove_segment(proving, segment, wanted, plan.settings.agents, plan.settings.copilot)
        found += proved
        keep[segment] = {"document": stamp, "findings": [readback.kept(finding) for finding in proved],
                         "asked": [[list(asked), readback.answer(proving, asked, recorded=True)]
                                   for asked in sorted(proving.asked, key=repr)]}
    fsio.write_if_changed(plan.cache / KEPT, json.dumps({"key": key, "segments": keep}), within=plan.cache)
    return found


def _state(plan: Plan) -> str:
    """Every instruction file a loader may read, the resolutions and the settings."""
    files = {}
    for path in sorted(_instruction_files(plan)):
        files[path] = hashlib.sha256((plan.root / path).read_bytes()).hexdigest()
    for segment in plan.segments:
        document = resolved_path(plan.cache, segment)
        files[str(document)] = hashlib.sha256(document.read_bytes()).hexdigest() if document.is_file() else None
    return digest([files, list(plan.settings.agents), plan.settings.over_limit, plan.settings.copilot])


def _stamp(plan: Plan) -> str:
    """`_state` by each file's inode, modification time and size instead of its bytes: while it is the
    same, nothing is read (reading and hashing every file was a fifth of a no-op at 1,000 segments);
    a file rewritten with the same bytes (a hand edit undone) gets a new one, and `_state` decides."""
    files = {path: _status(plan.root / path) for path in sorted(_instruction_files(plan))}
    return digest([files, documents_stamp(plan), list(plan.settings.agents), plan.settings.over_limit,
                   plan.settings.copilot])


def _status(path) -> list | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_ino, status.st_mtime_ns, status.st_size]


_NAMES = {"AGENTS.md", "AGENTS.override.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", ".rules",
          ".cursorrules", ".windsurfrules", ".clinerules", "CONVENTIONS.md"}
_FOLDERS = (".github", ".cursor/rules", ".windsurf/rules", ".kiro/steering", ".claude/rules", ".roo/rules",
            ".clinerules", ".cline/rules", ".grok/rules", ".junie", ".gemini")


def _instruction_files(plan: Plan) -> set[str]:
    found: set[str] = set()
    for segment in plan.segments:
        # One listing per folder, not a status per name it may hold.
        try:
            names = _NAMES.intersection(os.listdir(folder_of(plan.root, segment)))
        except OSError:
            continue
        prefix = "" if segment == "." else f"{segment}/"
        found |= {f"{prefix}{name}" for name in names if os.path.isfile(plan.root / f"{prefix}{name}")}
    for name in _FOLDERS:
        base = plan.root / name
        if base.is_dir():
            found |= {p.relative_to(plan.root).as_posix() for p in base.rglob("*") if p.is_file() and p.stat().st_size < 1 << 20}
    for name in (".aider.conf.yml", ".vscode/settings.json"):
        if (plan.root / name).is_file():
            found.add(name)
    return found


OUTPUT = ReadBack()
