"""Skills: the skills of the selected rules, installed where the enabled agents look for them.

One job, `agents:skills` (which skills are wanted is known only from the resolutions). The folders
are the fewest that give every enabled agent one it reads (`hosts.agents.skill_folders`), so an
agent that reads two folders is not given both unless two other agents each need one of them; that
case is reported by agent and folder. A skill leaves a folder that is no longer chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agent_constitution import hosts
from agent_constitution.hosts import agents
from agent_constitution.compile.outputs.segment import documents_stamp
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.errors import UserError
from agent_constitution.fsio import confine
from agent_constitution.layout import SKILLS
from agent_constitution.sources.digest import files_digest


class SkillFolders:
    name = "skills"

    def jobs(self, plan: Plan) -> list[Job]:
        folders = ", ".join(f"{f}/" for f in agents.skill_folders(plan.settings.agents))
        return [Job(
            name="skills",
            doc=f"Install the skills of the selected rules into {folders}",
            task_dep=("resolution",),
            before_root=True,
        )]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile import skills  # lazy: skills would add 4.2 ms to a no-op check (no job runs)

        root, folders = plan.root, agents.skill_folders(plan.settings.agents)
        stamp = documents_stamp(plan)  # before the reads: a later change is never missed
        wanted = _wanted_skills(plan.cache, plan.segments)
        # Every skill may be installed before the first is.
        dropped = _check_skills(root, wanted, folders, locked=locked)
        written, removed, outputs = [], [], {}
        for name, (source, folder, trusted, _) in wanted.items():
            for base in folders:
                target = root / base / name
                shown = plan.shown(target)
                if skills.install(folder, target, _origin(source, name), root=root, locked=locked, trusted=trusted):
                    written.append(shown)
                outputs[shown] = files_digest(target)
        for base, name in sorted(_installed(root)):
            if (name not in wanted or base not in folders) and skills.remove(root / base / name, root=root,
                                                                             locked=locked):
                removed.append(f"{base}/{name}")
        _drop_empty(root, tuple(f for f in hosts.skill_folders() if f not in folders))
        lines = dropped + tuple(
            f"warning: {agent} reads the skills in both {' and '.join(read)}, so it lists each skill twice:"
            " drop the agent that needs the other folder from [compile] agents to avoid it"
            for agent, read in agents.overlaps(plan.settings.agents, folders)
        )
        return Step(tuple(written), lines, outputs, _state(wanted, folders), removed=tuple(removed),
                    extra={"resolved": stamp, "folders": list(folders)})

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile.owned import outputs_intact  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        if not values or "state" not in values:
            return False
        folders = agents.skill_folders(plan.settings.agents)
        # The resolutions it read unchanged, so are the skills they want: the installed ones are theirs.
        # A new one reruns it, which costs what comparing the skills they want would.
        if values.get("resolved") != documents_stamp(plan) or values.get("folders") != list(folders):
            return False
        wanted = {name for base, name in _installed_by_step(values)}
        return (
            all(name in wanted and base in folders for base, name in _installed(plan.root))
            and outputs_intact(plan.root, values.get("outputs", {}))
        )

    def clean(self, plan: Plan, job: Job) -> list[str]:
        from agent_constitution.compile import skills  # lazy: skills would add 4.2 ms to a no-op check (no job runs)

        root, removed = plan.root, []
        for base, name in sorted(_installed(root)):
            if skills.remove(root / base / name, root=root):
                removed.append(f"{base}/{name}")
        _drop_empty(root, hosts.skill_folders())
        return removed


def _installed_by_step(values: Mapping) -> set[tuple[str, str]]:
    """(folder, skill name) of every skill the step installed, from the outputs it saved."""
    found = set()
    for shown in values.get("outputs", {}):
        base, _, name = shown.rpartition("/")
        found.add((base, name))
    return found


def _drop_empty(root: Path, bases: tuple[str, ...]) -> None:
    """The folders compile created for the skills go too, once nothing else is in them."""
    for base in bases:
        for folder in (root / base, (root / base).parent):
            if not (folder.is_dir() and not folder.is_symlink() and not any(confine(folder, root).iterdir())):
                break  # a folder above one compile did not empty is not its to take out
            folder.rmdir()


def _installed(root: Path) -> set[tuple[str, str]]:
    """(folder, skill name) of every skill compile installed, in any folder an agent reads."""
    from agent_constitution.compile import skills  # lazy: skills would add 4.2 ms to a no-op check (no job runs)

    return {(base, name) for base in hosts.skill_folders() for name in skills.installed(root, (base,))}


def _origin(source: str, name: str) -> str:
    return f"{source}:rules/skills/{name}"


def _state(wanted: Mapping[str, tuple[str, Path, bool, str]], folders: tuple[str, ...]) -> str:
    # The trust is part of it: trusting a source (or no longer) changes what its skills carry.
    listing = {name: [files, trusted] for name, (_, _, trusted, files) in wanted.items()}
    return digest([listing, folders])


def _wanted_skills(cache: Path, segments: tuple[str, ...]) -> dict[str, tuple[str, Path, bool, str]]:
    """Skill name → (source name, the skill's folder in the source tree, whether the source is
    trusted, the digest of the folder's files), over every segment's rules: what the resolutions
    record of each source's skills (no file of a source is read), from their kept summaries."""
    from agent_constitution.ruleset.summary import summaries  # lazy: only when the skills' step runs

    # (source, place, skill) → (root, trust, digest): a later segment's record of a source wins, as
    # the documents' sources did when every document was read.
    found: dict[tuple[str, int, str], tuple[str, bool, str]] = {}
    for summary in summaries(cache, segments).values():
        for name, place, skill, root, trust, files in summary.skills:
            found[(name, place, skill)] = (root, trust, files)
    wanted: dict[str, tuple[str, Path, bool, str]] = {}
    # In source-name order, then each source's own order of its skills: the first clash is the one reported.
    for (name, _, skill), (root, trust, files) in sorted(found.items()):
        folder = Path(root) / SKILLS / skill
        other = wanted.get(skill)
        if other is not None:
            raise UserError(
                f"two sources ({other[0]} and {name}) both have a skill named {skill!r}"
                " and both are selected; a skill folder can hold only one",
                file=folder / "skill.toml",
                fix="exclude the rules of one of the two skills",
            )
        wanted[skill] = (name, folder, trust, files)
    return dict(sorted(wanted.items()))


def _check_skills(root: Path, wanted: Mapping[str, tuple[str, Path, bool, str]], folders: tuple[str, ...], *,
                  locked: bool) -> tuple[str, ...]:
    """Whether every skill may be installed (an error otherwise), and a warning for each skill the
    policy of its source's trust took something out of."""
    from agent_constitution.compile import skills  # lazy: skills would add 4.2 ms to a no-op check (no job runs)

    lines = []
    for name, (source, folder, trusted, _) in wanted.items():
        for base in folders:
            installed, _ = skills.checked(folder, root / base / name, _origin(source, name), root=root,
                                          locked=locked, trusted=trusted)
        if folders and installed.dropped:
            lines.append(f"warning: the skill {name} of {source}, a source this repository does not trust, is"
                         f" installed as data: compile dropped {'; '.join(installed.dropped)}"
                         f" (trust = true on the source in rules.toml installs it whole)")
    for base, name in sorted(_installed(root)):
        if name not in wanted or base not in folders:
            skills.read_stamp(confine(root / base / name, root))
    return tuple(lines)


OUTPUT = SkillFolders()
