"""Root-only summaries: one file at the root holding every nested segment's rules, for an agent that
reads nothing below the root and has a file of its own that no other agent reads.

- Zed reads the first of its names at the root, `.rules` first: compile writes `.rules` holding the
  root `AGENTS.md` (its hand-written text too, which Zed would otherwise lose) and then, under a
  heading per folder, each nested segment's compiled text.
- Roo Code reads `.roo/rules/` (recursively) and the root `AGENTS.md`: compile writes
  `.roo/rules/agent-constitution.md` holding the nested segments' texts only.
- Junie reads `.junie/guidelines.md` (its default guidelines path): compile writes it as Zed's `.rules`.
- Aider reads what `.aider.conf.yml` names under `read:`: compile writes `CONVENTIONS.md` as Zed's
  `.rules`, and `aider_read.py` makes the configuration read it.
- Cline's SDK (its CLI and its SDK-based extension) reads the root `AGENTS.md` and every rule file of
  `.clinerules` and `.cline/rules`, whatever their `paths:`, and no nested `AGENTS.md`: compile writes
  `.cline/rules/agent-constitution.md` holding the nested segments' texts but those already in
  `.clinerules` (scoped.py). The legacy extension, which reads the nested `AGENTS.md` files itself,
  does not read `.cline/rules`.

No other agent reads these names, so no agent loads a text twice. A repository without nested
segments gets only Zed's file (Zed would read the root `AGENTS.md` anyway, but a `CLAUDE.md` link or
`.github/copilot-instructions.md` earlier in its order would shadow it). Each file is owned like
every output (banner, hand edits stale, `--locked` compares); it goes when its agent is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agent_constitution.compile.layout import FILE
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest


@dataclass(frozen=True)
class Summary:
    agent: str
    path: str
    with_root: bool  # the root AGENTS.md's whole text first (the agent reads this file alone)
    always: bool  # written without nested segments too
    listed_only: bool = False  # only the segments Cline's legacy listing reaches (the rest are in .clinerules)


SUMMARIES = (
    Summary("zed", ".rules", with_root=True, always=True),
    Summary("roo", ".roo/rules/agent-constitution.md", with_root=False, always=False),
    Summary("junie", ".junie/guidelines.md", with_root=True, always=True),
    Summary("aider", "CONVENTIONS.md", with_root=True, always=True),
    Summary("cline", ".cline/rules/agent-constitution.md", with_root=False, always=False, listed_only=True),
)


class Summaries:
    name = "summaries"

    def jobs(self, plan: Plan) -> list[Job]:
        found = []
        for summary in SUMMARIES:
            if summary.agent not in plan.settings.agents and not (plan.root / summary.path).is_file():
                continue
            segments = tuple(f"agents:{plan.shown(plan.file(s, FILE))}" for s in plan.segments)
            found.append(Job(name=summary.path, doc=f"Every segment's rules in one root file for {summary.agent}",
                             subject=summary, task_dep=segments))
        return found

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile import owned
        from agent_constitution.fsio import confine

        summary: Summary = job.subject
        path = confine(plan.root / summary.path, plan.root)
        body = _body(plan, summary)
        if body is None:
            removed = owned.remove_owned(path, root=plan.root, locked=locked)
            for folder in path.relative_to(plan.root).parents:  # the folders it created, once emptied
                full = plan.root / folder
                if folder.name and full.is_dir() and not full.is_symlink() and not any(full.iterdir()):
                    full.rmdir()
            return Step(state=_state(plan, summary), removed=(summary.path,) if removed else ())
        changed = owned.write_owned(path, body, plan.settings.origin, root=plan.root, locked=locked,
                                    what=f"the rules for {summary.agent}")
        return Step((summary.path,) if changed else (), (), {summary.path: owned.owned_digest(path, False)},
                    _state(plan, summary))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile import owned

        summary: Summary = job.subject
        if not values or values.get("state") != _state(plan, summary):
            return False
        if not values.get("outputs"):
            return not owned.is_owned(plan.root / summary.path)
        return owned.outputs_intact(plan.root, values["outputs"])

    def clean(self, plan: Plan, job: Job) -> list[str]:
        from agent_constitution.compile import owned

        path = plan.root / job.subject.path
        return [job.subject.path] if owned.remove_owned(path, root=plan.root) else []


def _texts(plan: Plan) -> list[tuple[str, str]]:
    """(segment, the text its AGENTS.md holds for an agent) for every segment with a file."""
    from agent_constitution.compile import region
    from agent_constitution.readers import read_text

    found = []
    for segment in plan.segments:
        path = plan.file(segment, FILE)
        if not path.is_file():
            continue
        parsed = region.Region.parse(read_text(path), path)
        inside = region.body(parsed.inside) if parsed.inside is not None else ""
        text = parsed.before + inside + parsed.after if segment == "." else inside
        found.append((segment, text.strip("\n")))
    return found


def _body(plan: Plan, summary: Summary) -> str | None:
    """The file's text, or None when it is not wanted (its agent dropped, or nothing nested for it)."""
    if summary.agent not in plan.settings.agents:
        return None
    from agent_constitution.hosts.loaders.others import cline_skips  # lazy: the loaders cost 11 ms at task creation

    texts = _texts(plan)
    nested = [(segment, text) for segment, text in texts if segment != "."
              and not (summary.listed_only and cline_skips(segment.split("/")))]
    if not nested and not summary.always:
        return None
    parts = [text for segment, text in texts if segment == "."] if summary.with_root else []
    parts += [f"# Instructions for `{segment}/`\n\nThese apply to the files under `{segment}/`, in addition to the"
              f" ones above.\n\n{text}" for segment, text in nested]
    return "\n\n".join(parts) + "\n"


def _state(plan: Plan, summary: Summary) -> str:
    import hashlib

    files = {}
    for segment in plan.segments:
        path = plan.file(segment, FILE)
        files[segment] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return digest([summary.path, summary.agent in plan.settings.agents, files])


OUTPUT = Summaries()
