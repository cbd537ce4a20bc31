"""The compile steps: each a function from the resolved segments and the sources to files.

Each step returns a `Step`: what it wrote (for the user), the files it owns now with a digest of
the part it owns (`outputs`), and what it read (`state`: a digest of the inputs it used). The doit
wiring stores both as task values and calls `fresh(...)` to decide whether the step must run: it
must when an input changed or an output is missing or was edited by hand (doit itself only checks
that a target exists).

- `segment_files`: the region of `<segment>/AGENTS.md` and its part files;
- `claude_shim`: `<segment>/CLAUDE.md` holding `@AGENTS.md` (strategy `import`), or none;
- `install_skills`: the skills of the selected rules, into `.claude/skills/` and `.agents/skills/`;
- `hook_file`: `.claude/settings.json`, and `.pre-commit-config.yaml` / a lefthook file when present
  (or `.git/hooks/pre-commit` under `[compile] git-hook = "plain"`);
- `chain_report`: the bytes of each root→leaf chain of AGENTS.md files (Codex reads at most 32 KiB).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from agent_constitution.compile import hooks, launcher, owned, skills
from agent_constitution.compile.document import Segment, render
from agent_constitution.compile.layout import (
    CLAUDE,
    FILE,
    MANIFEST,
    PART_GLOB,
    PLAIN_HOOKS,
    SegmentJob,
    Settings,
    folder_of,
)
from agent_constitution.compile.region import Region
from agent_constitution.compile.inputs import (
    Reads,
    Resolved,
    constitution_files,
    load_constitution,
    load_library,
    read_resolved,
    resolved_path,
)
from agent_constitution.compile.tokens import count_tokens
from agent_constitution.errors import UserError
from agent_constitution.fsio import confine, write_atomic, write_if_changed
from agent_constitution.readers import read_bytes, read_text
from agent_constitution.ruleset.models import Skill, load

CLAUDE_SHIM = "@AGENTS.md\n"
CHAIN_LIMIT = 32 * 1024


@dataclass(frozen=True)
class Step:
    written: tuple[str, ...] = ()  # relative paths whose bytes changed
    lines: tuple[str, ...] = ()  # the report printed for the user
    outputs: Mapping[str, str] = field(default_factory=dict)  # relative path → digest of what we own
    state: str = ""  # digest of the resolution the step used
    reads: Mapping[str, str] = field(default_factory=dict)  # "source:path" → sha256 of files it read
    removed: tuple[str, ...] = ()  # relative paths of outputs it took out

    def values(self) -> dict:
        return {"outputs": dict(self.outputs), "state": self.state, "reads": dict(self.reads)}


def _digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


# --- one segment's AGENTS.md and parts ---------------------------------------------------------


def segment_state(cache: Path, job: SegmentJob) -> tuple[str, Resolved, Resolved | None]:
    """The digest of what the segment's text depends on in its (and its parent's) resolution."""
    resolved = read_resolved(resolved_path(cache, job.path))
    parent = read_resolved(resolved_path(cache, job.parent)) if job.parent is not None else None
    c = resolved.constitution
    git = resolved.sources.get(c.source) is not None and resolved.sources[c.source].commit is not None
    data = {
        "segment": job.path,
        "nested": list(job.nested),
        "rules": sorted(f"{r.source}:{r.id}" for r in resolved.rules),
        "above": sorted(f"{r.source}:{r.id}" for r in parent.rules) if parent else [],
        "constitution": [c.source, c.edition, c.revision, c.commit if git else None],
        "sources": {name: item.key for name, item in resolved.sources.items()},
    }
    return _digest(data), resolved, parent


def segment_files(root: Path, cache: Path, job: SegmentJob, settings: Settings, *, locked: bool) -> Step:
    state, resolved, parent = segment_state(cache, job)
    return write_segment(root, job, resolved, parent, settings, state, locked=locked)


def write_segment(
    root: Path,
    job: SegmentJob,
    resolved: Resolved,
    parent: Resolved | None,
    settings: Settings,
    state: str,
    *,
    locked: bool,
    tier: str = "repo",
) -> Step:
    """Render a segment's files from its resolution (and its parent's) and write what changed."""
    library = load_library(resolved)
    constitution = load_constitution(resolved, root)
    segment = Segment(
        path=job.path,
        selected=resolved.selected,
        inherited=parent.selected if parent is not None else frozenset(),
        nested=job.nested,
        tier=tier,
    )
    document = render(segment, library, constitution, settings.max_tokens)
    folder = folder_of(root, job.path)
    if not folder.is_dir():
        raise UserError(
            f"the segment's folder {job.path}/ does not exist",
            file=settings.origin,
            field="segment.path",
            fix="create the folder, or correct or remove the [[segment]] entry",
        )
    # Every file is checked and its bytes made before the first is written: a part file in the way
    # fails the step with AGENTS.md as it was.
    prepared = []
    for item in document.files:
        path = folder / item.name
        if item.name == FILE:
            text = owned.region_text(path, item.text, settings.origin, root=root, locked=locked)
        else:
            text = owned.owned_text(path, item.text, settings.origin, root=root, locked=locked,
                                    what="a part of the rules")
        prepared.append((item, path, text))
    written, lines, outputs = [], [], {}
    for item, path, text in prepared:
        shown = _relative(root, path)
        if write_if_changed(path, text, within=root):
            written.append(shown)
        whole = text if item.name == FILE else item.text
        outputs[shown] = _owned_digest(path, item.name == FILE)
        size = len(whole.encode("utf-8"))
        lines.append(f"{shown}: {count_tokens(whole)} tokens, {size} bytes")
    if len(document.files) > 1:
        lines.append(
            f"{_relative(root, folder / FILE)}: the rules ({document.tokens} tokens) exceed max-tokens"
            f" {settings.max_tokens}, split into {len(document.files) - 1} parts"
        )
    removed = [
        _relative(root, stale)
        for stale in sorted(folder.glob(PART_GLOB))
        if _relative(root, stale) not in outputs and owned.remove_owned(stale, root=root)
    ]
    reads: dict[str, list[str]] = {}
    for name, rule_id in sorted(document.rules_read):
        reads.setdefault(name, []).append(f"rules/{rule_id}.toml")
    for name in sorted(document.sources_read | {key[0] for key in document.rules_read}):
        reads.setdefault(name, []).append("rules/source.toml")
    if document.constitution_read:
        base = Path(resolved.constitution.root)
        reads["constitution"] = [_relative(base, path) for path in constitution_files(resolved)]
    return Step(tuple(written), tuple(lines), outputs, state, Reads.of(resolved, reads).files, tuple(removed))


def _owned_digest(path: Path, region: bool) -> str:
    text = path.read_bytes().decode("utf-8")
    if region:
        text = Region.parse(text, path).inside or ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def outputs_intact(root: Path, outputs: Mapping[str, str]) -> bool:
    """Whether every output still holds exactly what the step wrote (a hand edit makes it stale)."""
    for relative, digest in outputs.items():
        path = root / relative
        try:
            if path.name == FILE:
                if not owned.region_intact(path) or _owned_digest(path, True) != digest:
                    return False
            elif path.is_dir():
                if not skills.intact(path) or _tree_digest(path) != digest:
                    return False
            elif _owned_digest(path, False) != digest:
                return False
        except (FileNotFoundError, UserError):
            return False
    return True


def segment_fresh(root: Path, cache: Path, job: SegmentJob, values: Mapping) -> bool:
    if not values or "state" not in values:
        return False
    try:
        state, resolved, _ = segment_state(cache, job)
    except UserError:
        return False
    return (
        state == values["state"]
        and Reads(values.get("reads", {})).unchanged(resolved)
        and outputs_intact(root, values.get("outputs", {}))
    )


def remove_segment(root: Path, segment: str) -> list[str]:
    """Take out everything compile wrote for a segment: its region, its parts and its CLAUDE.md shim."""
    folder = folder_of(root, segment)
    removed = []
    if owned.remove_region(folder / FILE, root=root):
        removed.append(_relative(root, folder / FILE))
    for path in sorted(folder.glob(PART_GLOB)) + [folder / CLAUDE]:
        if owned.remove_owned(path, root=root):
            removed.append(_relative(root, path))
    return removed


# --- CLAUDE.md ---------------------------------------------------------------------------------


def claude_shim(root: Path, segment: str, settings: Settings, *, locked: bool) -> Step:
    path = confine(folder_of(root, segment) / CLAUDE, root)
    shown = _relative(root, path)
    state = _digest(settings.claude)
    if settings.claude == "none":
        return Step(state=state, removed=(shown,) if owned.remove_owned(path, root=root) else ())
    if path.exists() and not owned.is_owned(path):
        text = read_text(path)
        lines = ()
        if "@AGENTS.md" not in text:
            lines = (
                f"warning: {shown} is hand-written and does not import @AGENTS.md, so Claude Code will not"
                " read the rules: add a line `@AGENTS.md` to it",
            )
        return Step((), lines, {}, state)
    changed = owned.write_owned(path, CLAUDE_SHIM, settings.origin, root=root, locked=locked, what="a CLAUDE.md shim")
    return Step((shown,) if changed else (), (), {shown: _owned_digest(path, False)}, state)


def claude_fresh(root: Path, segment: str, settings: Settings, values: Mapping) -> bool:
    if not values or values.get("state") != _digest(settings.claude):
        return False
    path = folder_of(root, segment) / CLAUDE
    if settings.claude == "none":
        return not owned.is_owned(path)
    if not values.get("outputs"):
        # A hand-written CLAUDE.md was left alone: fresh while it is still there and not ours.
        return path.exists() and not owned.is_owned(path)
    return outputs_intact(root, values["outputs"])


# --- skills ------------------------------------------------------------------------------------


def _wanted_skills(cache: Path, segments: list[str]) -> dict[str, tuple[str, Path]]:
    """skill name → (source name, the skill's folder in the source tree), over every segment's rules.

    Reads each source's `rules/skills/*/skill.toml` only: loading whole sources to learn which
    skills they have would cost more than the rest of a no-op build.
    """
    selected: set[tuple[str, int]] = set()
    roots: dict[str, Path] = {}
    for segment in segments:
        resolved = read_resolved(resolved_path(cache, segment))
        selected |= resolved.selected
        roots.update({name: Path(item.root) for name, item in resolved.sources.items()})
    wanted: dict[str, tuple[str, Path]] = {}
    for name, root in sorted(roots.items()):
        for folder in sorted((root / "rules" / "skills").glob("*/")):
            skill = load(Skill, folder / skills.SOURCE_ONLY)
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
            wanted[skill.name] = (name, folder)
    return dict(sorted(wanted.items()))


def skills_state(cache: Path, segments: list[str]) -> tuple[str, dict[str, str]]:
    wanted = _wanted_skills(cache, segments)
    listing = {name: _tree_digest(folder) for name, (_, folder) in wanted.items()}
    return _digest(listing), listing


def install_skills(root: Path, cache: Path, segments: list[str], *, locked: bool) -> Step:
    wanted = _wanted_skills(cache, segments)
    _check_skills(root, wanted, locked=locked)  # every skill may be installed before the first is
    written, removed, outputs = [], [], {}
    for name, (source, folder) in wanted.items():
        for base in skills.FOLDERS:
            target = root / base / name
            shown = _relative(root, target)
            if skills.install(folder, target, f"{source}:rules/skills/{name}", root=root, locked=locked):
                written.append(shown)
            outputs[shown] = _tree_digest(target)
    for name in sorted(skills.installed(root) - set(wanted)):
        for base in skills.FOLDERS:
            if skills.remove(root / base / name, root=root):
                removed.append(f"{base}/{name}")
    state, _ = skills_state(cache, segments)
    return Step(tuple(written), (), outputs, state, removed=tuple(removed))


def _check_skills(root: Path, wanted: Mapping[str, tuple[str, Path]], *, locked: bool) -> None:
    for name, (_, folder) in wanted.items():
        for base in skills.FOLDERS:
            skills.checked(folder, root / base / name, root=root, locked=locked)
    for name in sorted(skills.installed(root) - set(wanted)):
        for base in skills.FOLDERS:
            skills.read_stamp(confine(root / base / name, root))


def skills_fresh(root: Path, cache: Path, segments: list[str], values: Mapping) -> bool:
    if not values or "state" not in values:
        return False
    try:
        state, listing = skills_state(cache, segments)
    except UserError:
        return False
    return (
        state == values["state"]
        and not (skills.installed(root) - set(listing))
        and outputs_intact(root, values.get("outputs", {}))
    )


def _tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for directory, subdirectories, files in sorted(os.walk(folder)):
        subdirectories.sort()
        for name in sorted(files):
            path = Path(directory) / name
            if name.endswith(".pyc") or "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


# --- hooks -------------------------------------------------------------------------------------

def hook_state(root: Path) -> str:
    # What the commands depend on besides the settings: whether there is a covenant, how the tools
    # are launched (uv, or absolute paths of this installation).
    return _digest({
        "covenant": hooks.has_covenant(root),
        "uv": launcher.uses_uv(root),
        "paths": None if launcher.uses_uv(root) else [launcher.program_path(t) for t in ("python", "pdks", "doit")],
    })


def _write_hook(root: Path, name: str) -> None:
    if name == hooks.SETTINGS:
        hooks.write_claude_settings(root)
    elif name in hooks.HOST_FILES:
        hooks.write_host_hook(root, name)
    elif name == hooks.PRE_COMMIT:
        hooks.write_pre_commit(root)
    elif name in PLAIN_HOOKS:
        hooks.write_plain_hook(root, name)
    else:
        hooks.write_lefthook(root / name, root)


def hook_file(root: Path, name: str, *, locked: bool) -> Step:
    path = confine(root / name, root)
    before = read_bytes(path, name) if os.path.lexists(path) else None
    _write_hook(root, name)
    after = path.read_bytes() if os.path.lexists(path) else None  # an agent host's file with only ours: removed
    if before is not None and before != after and locked:
        write_atomic(path, before, within=root)  # under --locked / CI the file stays as it was
        raise UserError(
            "the hook configuration compile merges into this file is missing or was edited",
            file=path,
            fix="run `doit compile` without --locked (outside CI) and commit the result",
        )
    changed = before != after
    digests = {} if after is None else {name: hashlib.sha256(after).hexdigest()}
    return Step((name,) if changed else (), (), digests, hook_state(root))


def wiring_hint(root: Path) -> str:
    return hooks.wiring_hint(root)


def hook_fresh(root: Path, values: Mapping) -> bool:
    if not values or values.get("state") != hook_state(root):
        return False
    for name, digest in values.get("outputs", {}).items():
        try:
            if hashlib.sha256((root / name).read_bytes()).hexdigest() != digest:
                return False
        except FileNotFoundError:
            return False
    return True


def remove_hook_file(root: Path, name: str) -> list[str]:
    """Take our entries out of a hook file; returns `[name]` when it changed (for `doit clean`)."""
    confine(root / name, root)
    if name == hooks.SETTINGS:
        changed = hooks.remove_claude_settings(root)
    elif name in hooks.HOST_FILES:
        changed = hooks.remove_host_hook(root, name)
    elif name == hooks.PRE_COMMIT:
        changed = hooks.remove_pre_commit(root)
    elif name in PLAIN_HOOKS:
        changed = hooks.remove_plain_hook(root, name)
    else:
        changed = hooks.remove_lefthook(root / name)
    return [name] if changed else []


# --- segments that are gone, and chain sizes ---------------------------------------------------


def prune_segments(root: Path, segments: list[str]) -> Step:
    """Remove what compile wrote in folders that are no longer segments of the manifest.

    The outputs are found by the banner compile writes into each of them (the region of an AGENTS.md,
    a part file, a CLAUDE.md shim), not by a record of earlier builds, so a fresh clone finds them
    too. A folder below one holding its own manifest belongs to another project (a rule source kept
    in the repository, say): its files are left alone.
    """
    from agent_constitution.checks.scan import scan

    folders = set()
    for relative in scan(root).files:
        path = PurePosixPath(relative)
        if path.name in (FILE, CLAUDE) or fnmatch(path.name, PART_GLOB):
            folders.add(path.parent.as_posix())
    removed = []
    for folder in sorted(folders - set(segments)):
        if not _another_project(root, PurePosixPath(folder)):
            removed.extend(remove_segment(root, folder))
    return Step(state=_digest(sorted(segments)), removed=tuple(removed))


def _another_project(root: Path, folder: PurePosixPath) -> bool:
    return any((root / above / MANIFEST).is_file() for above in (folder, *folder.parents) if above.name)


def chain_report(root: Path, segments: list[str]) -> list[str]:
    """One line per root→leaf chain of AGENTS.md files: their total bytes; a warning above 32 KiB."""
    inside = {s for s in segments if any(o != s and (s == "." or o.startswith(s + "/")) for o in segments)}
    lines = []
    for leaf in (s for s in segments if s not in inside):
        chain = [s for s in segments if s == "." or leaf == s or leaf.startswith(s + "/")]
        chain.sort(key=lambda s: (s != ".", s.count("/"), s))
        paths = [folder_of(root, s) / FILE for s in chain]
        total = sum(path.stat().st_size for path in paths if path.exists())
        shown = " → ".join(_relative(root, path) for path in paths)
        line = f"chain {shown}: {total} bytes"
        if total > CHAIN_LIMIT:
            line = f"warning: {line}, above 32 KiB: Codex reads at most 32 KiB of the chain and drops the rest"
        lines.append(line)
    return lines
