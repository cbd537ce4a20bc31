"""The read-back proof after every output is written (`agents:readback`): each enabled agent's
loader model reads the outputs back, and a rule in force that an agent does not load is a warning,
or with `[compile] over-limit = "error"` an error (the run's rewritten files are then put back).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from agent_constitution.compile.layout import folder_of
from agent_constitution.compile.outputs import aider_read, scoped, shims, summary, vscode_settings, windsurf_rest
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.errors import UserError
from agent_constitution.ruleset.resolved import resolved_path



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

        findings = readback.prove(plan.root, plan.settings.agents, readback.in_force(plan.cache, list(plan.segments)),
                                  plan.settings.copilot)
        failing = readback.problems(findings)
        if failing and plan.settings.over_limit == "error":
            raise UserError("; ".join(failing), file=plan.root / "AGENTS.md",
                            fix=readback.fix_for(failing[0]) + '; or set [compile] over-limit = "warn" to compile with '
                                                              "a warning")
        lines = tuple(f"warning: {line}\n  fix: {readback.fix_for(line)}" for line in failing)
        held = sum(1 for finding in findings if finding.holds)
        return Step(lines=(f"read back: {held} of {len(findings)} agent views load every rule in force",) + lines,
                    state=_state(plan))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return bool(values) and values.get("state") == _state(plan)

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return []


def _state(plan: Plan) -> str:
    """Every instruction file a loader may read, the resolutions and the settings."""
    files = {}
    for path in sorted(_instruction_files(plan)):
        files[path] = hashlib.sha256((plan.root / path).read_bytes()).hexdigest()
    for segment in plan.segments:
        document = resolved_path(plan.cache, segment)
        files[str(document)] = hashlib.sha256(document.read_bytes()).hexdigest() if document.is_file() else None
    return digest([files, list(plan.settings.agents), plan.settings.over_limit, plan.settings.copilot])


_NAMES = {"AGENTS.md", "AGENTS.override.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", ".rules",
          ".cursorrules", ".windsurfrules", ".clinerules", "CONVENTIONS.md"}
_FOLDERS = (".github", ".cursor/rules", ".windsurf/rules", ".kiro/steering", ".claude/rules", ".roo/rules",
            ".clinerules", ".cline/rules", ".grok/rules", ".junie", ".gemini")


def _instruction_files(plan: Plan) -> set[str]:
    found: set[str] = set()
    for segment in plan.segments:
        folder = folder_of(plan.root, segment)
        for name in _NAMES:
            if (folder / name).is_file():
                found.add((folder / name).relative_to(plan.root).as_posix())
    for name in _FOLDERS:
        base = plan.root / name
        if base.is_dir():
            found |= {p.relative_to(plan.root).as_posix() for p in base.rglob("*") if p.is_file() and p.stat().st_size < 1 << 20}
    for name in (".aider.conf.yml", ".vscode/settings.json"):
        if (plan.root / name).is_file():
            found.add(name)
    return found


OUTPUT = ReadBack()
