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
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest


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
        from agent_constitution.compile import skills
        from agent_constitution.sources.digest import files_digest

        root, folders = plan.root, agents.skill_folders(plan.settings.agents)
        wanted, read = _wanted_skills(plan.cache, plan.segments)
        # Every skill may be installed before the first is.
        dropped = _check_skills(root, wanted, folders, locked=locked)
        written, removed, outputs = [], [], {}
        for name, (source, folder, trusted) in wanted.items():
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
        return Step(tuple(written), lines, outputs, _state(wanted, folders, read), removed=tuple(removed))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile.owned import outputs_intact
        from agent_constitution.errors import UserError

        if not values or "state" not in values:
            return False
        folders = agents.skill_folders(plan.settings.agents)
        try:  # every skill.toml as the run that wrote the state read it: the quick reading is enough
            wanted, read = _wanted_skills(plan.cache, plan.segments, quick=True)
        except UserError:
            return False
        return (
            _state(wanted, folders, read) == values["state"]
            and all(name in wanted and base in folders for base, name in _installed(plan.root))
            and outputs_intact(plan.root, values.get("outputs", {}))
        )

    def clean(self, plan: Plan, job: Job) -> list[str]:
        from agent_constitution.compile import skills

        root, removed = plan.root, []
        for base, name in sorted(_installed(root)):
            if skills.remove(root / base / name, root=root):
                removed.append(f"{base}/{name}")
        _drop_empty(root, hosts.skill_folders())
        return removed


def _drop_empty(root: Path, bases: tuple[str, ...]) -> None:
    """The folders compile created for the skills go too, once nothing else is in them."""
    from agent_constitution.fsio import confine

    for base in bases:
        for folder in (root / base, (root / base).parent):
            if not (folder.is_dir() and not folder.is_symlink() and not any(confine(folder, root).iterdir())):
                break  # a folder above one compile did not empty is not its to take out
            folder.rmdir()


def _installed(root: Path) -> set[tuple[str, str]]:
    """(folder, skill name) of every skill compile installed, in any folder an agent reads."""
    from agent_constitution.compile import skills

    return {(base, name) for base in hosts.skill_folders() for name in skills.installed(root, (base,))}


def _origin(source: str, name: str) -> str:
    return f"{source}:rules/skills/{name}"


def _state(wanted: Mapping[str, tuple[str, Path, bool]], folders: tuple[str, ...], read: str) -> str:
    from agent_constitution.sources.digest import files_digest

    # The trust is part of it: trusting a source (or no longer) changes what its skills carry.
    # `read`, the digest of every skill.toml: a no-op reads them without validating them.
    listing = {name: [files_digest(folder), trusted] for name, (_, folder, trusted) in wanted.items()}
    return digest([listing, folders, read])


class _Quick:
    """A skill.toml's `name` and `implements` read with tomllib alone (no pydantic: most of a
    no-op compile otherwise). Used only when every skill.toml is byte for byte what the last
    validating run read (their digest is in the state); anything unexpected is not fresh."""

    def __init__(self, path: Path) -> None:
        import tomllib

        from agent_constitution.errors import UserError

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            raise UserError("unreadable", file=path) from None
        self.name, self.implements = data.get("name"), data.get("implements")
        if not isinstance(self.name, str) or not isinstance(self.implements, list) or not all(
                type(rule) is int for rule in self.implements):
            raise UserError("unexpected", file=path)


def _wanted_skills(cache: Path, segments: tuple[str, ...], *,
                   quick: bool = False) -> tuple[dict[str, tuple[str, Path, bool]], str]:
    """(skill name → (source name, the skill's folder in the source tree, whether the source is
    trusted), over every segment's rules; the digest of every skill.toml read).

    Reads each source's `rules/skills/*/skill.toml` only: loading whole sources to learn which
    skills they have would cost more than the rest of a no-op build. `quick`: read as `_Quick`.
    """
    import hashlib

    from agent_constitution.compile import skills
    from agent_constitution.compile.inputs import read_resolved, resolved_path
    from agent_constitution.errors import UserError

    if quick:
        load = lambda _, path: _Quick(path)  # noqa: E731
    else:
        from agent_constitution.ruleset.models import Skill, load
    read = hashlib.sha256()

    selected: set[tuple[str, int]] = set()
    roots: dict[str, Path] = {}
    trust: dict[str, bool] = {}
    for segment in segments:
        resolved = read_resolved(resolved_path(cache, segment))
        selected |= resolved.selected
        roots.update({name: Path(item.root) for name, item in resolved.sources.items()})
        trust.update({name: item.trust for name, item in resolved.sources.items()})
    wanted: dict[str, tuple[str, Path, bool]] = {}
    for name, root in sorted(roots.items()):
        for folder in sorted((root / "rules" / "skills").glob("*/")):
            try:
                read.update(f"{name}\0{folder.name}\0".encode() + (folder / skills.SOURCE_ONLY).read_bytes())
            except OSError:
                pass  # the loading below says what is wrong
            skill = load(None if quick else Skill, folder / skills.SOURCE_ONLY)
            if not any((name, rule_id) in selected for rule_id in skill.implements):
                continue
            other = wanted.get(skill.name)
            if other is not None:
                raise UserError(
                    f"two sources ({other[0]} and {name}) both have a skill named {skill.name!r}"
                    " and both are selected; a skill folder can hold only one",
                    file=folder / skills.SOURCE_ONLY,
                    fix="exclude the rules of one of the two skills",
                )
            wanted[skill.name] = (name, folder, trust[name])
    return dict(sorted(wanted.items())), read.hexdigest()


def _check_skills(root: Path, wanted: Mapping[str, tuple[str, Path, bool]], folders: tuple[str, ...], *,
                  locked: bool) -> tuple[str, ...]:
    """Whether every skill may be installed (an error otherwise), and a warning for each skill the
    policy of its source's trust took something out of."""
    from agent_constitution.compile import skills
    from agent_constitution.fsio import confine

    lines = []
    for name, (source, folder, trusted) in wanted.items():
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
