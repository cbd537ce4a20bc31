"""`agent-constitution init`: the starter manifest for a repository, and optionally the doit wiring.

The starter `rules.toml` follows this project's own rule source at the commit the installed tool was
built from (`rev`; a release tag `v<version>` when the installation does not record its commit), so
a fresh machine compiles exactly the rules this version was made with. It trusts the source (its
python checks may run; rule ac:38 wants a trusted source pinned, never a branch), binds the
constitution it publishes, and selects the packages that fit the repository's shape.

`choose(shape, source) -> Starter` is that selection, over the source's tree at the pinned commit
(which init fetches into the user cache, as compile would):

- the packages: `STARTER_PACKAGES`, which fit every repository, then each package the shape shows
  (`agent_constitution.commands.shape`), each only if the source has that domain and is not opt-in
  (`OPT_IN_PACKAGES`, a commented line instead); init keeps of these the ones whose compiled region
  fits what the repository's agents load (`fitted_starter`, commands/fit.py), each left out one a
  commented line with its size;
- a choice for every choice group in them: the alternative whose title (in English) names a tool
  the shape shows (`uv.lock` shows uv, `.gitlab-ci.yml` GitLab CI: `shape.TOOLS`), the first in
  tree order when several do. A group nothing shows is excluded, with a comment naming its
  alternatives, for the user to choose;
- `exclude` for `STARTER_EXCLUDE`, for every rule of the packages outside the default set (a rule
  file's `default = false`: opt-in, `OPT_IN_RULE` names it) and for every rule whose `requires` the
  selection cannot meet (a group no alternative of which is selected, a rule not selected), so the
  manifest resolves. The packages stay whole in `rules`, so a rule the source adds to one later
  joins at an upgrade, and opting into a rule is deleting its line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, distribution, version
from importlib.resources import files
from pathlib import Path
from types import MappingProxyType

import tomlkit
from tomlkit.exceptions import TOMLKitError

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.layout import LOCKFILE, MANIFEST, schema_url
from agent_constitution.readers import parse_toml, read_text
from agent_constitution.ruleset.source import Node, RuleSource, load_source
from agent_constitution.commands.shape import Shape, detect
from agent_constitution.wiring import LOADER
from agent_constitution.checks.scan import scan
from agent_constitution.commands.fit import fit, room
from agent_constitution.commands.project_section import section
from agent_constitution.commands.workspace import proposals
from agent_constitution.compile.inputs import constitution_at
from agent_constitution.hosts.agents import detect as agents_of
from agent_constitution.provenance import commit_of
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.sources.snapshot import fetch

SOURCE_URL = "https://github.com/Luolc/agent-constitution"
# Tests point the starter at a local clone; users edit rules.toml instead.
URL_VARIABLE = "AGENT_CONSTITUTION_STARTER_URL"
# Written into the package by hatch_build.py when a wheel is built from a git checkout.
COMMIT_FILE = "_commit"
EDITION = "2026-10"
REVISION = "0.3"
# Packages (domains) of the project's source that fit any repository; the others join by shape.
STARTER_PACKAGES = ("instructions", "git", "security", "session")
# Packages the catalogue calls opt-in (docs/rule-catalogue.md): never selected by init, listed in the
# manifest as a commented line for the user to enable.
OPT_IN_PACKAGES: Mapping[str, str] = MappingProxyType({
    "ci-hardening": "opt-in, for workflows that spend money or hold secrets",
})
# Rules the starter leaves out whatever the shape, each with the reason written beside it: none
# today (rule 13, once in conflict with rule 5, lets compiled files be committed since revision 2).
STARTER_EXCLUDE: Mapping[Node, str] = MappingProxyType({})
# The comment on the `exclude` line of a rule outside the default set (`default = false` in its file):
# the package stays selected, so its new rules still arrive with an upgrade; deleting the line opts in.
OPT_IN_RULE = "opt-in, not in the default set: {title}"
DODO = "from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n"
CACHE_GITIGNORE = "*\n!.gitignore\n"


@dataclass(frozen=True)
class Step:
    """One thing init did or left alone, as a line for the user."""

    path: str
    done: str


def starter_url() -> str:
    return os.environ.get(URL_VARIABLE) or SOURCE_URL


def built_from() -> str | None:
    """The commit the installed tool was built from, or None when the installation does not say
    (`provenance.commit_of`: a git install's `direct_url.json`, an editable install's checkout, a
    wheel's `_commit`)."""
    try:
        direct = distribution("agent-constitution").read_text("direct_url.json")
    except PackageNotFoundError:
        direct = None
    baked = files("agent_constitution").joinpath(COMMIT_FILE)
    return commit_of(direct, baked.read_text(encoding="utf-8") if baked.is_file() else None)


def pin_of() -> tuple[str, str]:
    """("rev", the commit) of this installation, else ("tag", "v<version>") (the project tags releases)."""
    commit = built_from()
    return ("rev", commit) if commit else ("tag", f'v{version("agent-constitution")}')


def starter_pin() -> str:
    """The pin as the manifest writes it: `rev = "<commit>"` or `tag = "v<version>"`."""
    kind, value = pin_of()
    return f'{kind} = "{value}"'


@dataclass(frozen=True)
class Starter:
    """What the starter manifest selects for one shape of repository."""

    packages: tuple[str, ...]
    found: dict[str, str] = field(default_factory=dict)  # package → the file that showed it
    choices: tuple[tuple[str, int, str], ...] = ()  # (group, the alternative rule, the file that showed it)
    exclude: tuple[tuple[Node, str], ...] = ()  # (node, why), for the manifest's comments
    left_out: tuple[tuple[str, int], ...] = ()  # (package, the bytes it would add): over the room (commands/fit.py)
    room: object = None  # the fit.Room the selection was held to, None when it was not measured
    region: int = 0  # the bytes of the compiled region it makes, when measured
    opt_in: tuple[str, ...] = ()  # opt-in packages the shape shows, for the manifest's comments


@dataclass(frozen=True)
class Selected:
    starter: Starter
    rules: set[int]  # every rule the starter's packages enable


def wanted_packages(shape: Shape, source: RuleSource) -> tuple[str, ...]:
    """The packages that fit the shape, in the starter's order, opt-in packages left out."""
    wanted = dict.fromkeys([*STARTER_PACKAGES, *shape.packages])
    return tuple(package for package in wanted if package in source.domains and package not in OPT_IN_PACKAGES)


def choose(shape: Shape, source: RuleSource) -> Starter:
    """The packages, choices and exclusions that fit `shape` (see the module docstring), unmeasured."""
    return select(shape, source, wanted_packages(shape, source)).starter


def select(shape: Shape, source: RuleSource, packages: tuple[str, ...], *, defaults: bool = True) -> Selected:
    """The choices and exclusions that make `packages` resolve in `shape`, and the rules they enable:
    with `defaults`, only the default rules of each package (the rest excluded, `OPT_IN_RULE`)."""
    excluded: dict[Node, str] = dict(STARTER_EXCLUDE)
    while True:
        selected, chosen, open_groups, opt_in = _walk(source, packages, excluded, shape.tools, defaults)
        for rule in opt_in:
            excluded[rule] = OPT_IN_RULE.format(title=source.title(rule))
        for group in open_groups:
            names = ", ".join(f"ac:{alternative} {source.title(alternative)}" for alternative in _alternatives(source, group))
            excluded[group] = f"nothing here shows which: choose one of {names} under [choices] and drop this line"
        unmet = next(
            ((rule, target) for rule in sorted(selected) for target in source.rules[rule].requires
             if not _met(source, target, selected, chosen)),
            None,
        )
        if unmet is None:
            break
        rule, target = unmet
        shown = f"ac:{target}" if ":" not in str(target) else str(target)
        excluded[rule] = f"requires {shown}, which nothing here selects"
    return Selected(Starter(
        packages=packages,
        found={package: shape.found[package] for package in packages if package in shape.found},
        choices=tuple((group, rule, why) for group, (rule, why) in chosen.items()),
        exclude=tuple((node, why) for node, why in excluded.items() if _reachable(source, node, packages)),
        opt_in=tuple(package for package in OPT_IN_PACKAGES if package in source.domains and shape.shows_ci),
    ), selected)


def _walk(source: RuleSource, packages, excluded, tools, defaults: bool = False):
    """The rules the packages enable (as the resolver selects: excluded, superseded, repealed and
    user-tier rules left out with their subtrees), the choice made for each group, the groups
    nothing in the repository decides and, with `defaults`, the rules it reached that are not in the
    default set (left out with their subtrees, as the `exclude` lines naming them will)."""
    selected: set[int] = set()
    chosen: dict[str, tuple[int, str]] = {}
    open_groups: list[str] = []
    opt_in: list[int] = []
    pending: list[Node] = list(reversed(packages))
    while pending:
        node = pending.pop()
        if node in excluded:
            continue
        if isinstance(node, int):
            rule = source.rules[node]
            if rule.status in ("superseded", "repealed") or rule.tier != "repo":
                continue
            if defaults and not rule.default:
                opt_in.append(node)
                continue
            selected.add(node)
            pending.extend(reversed(source.children[node]))
        elif node in source.groups:
            pick = _pick(source, node, tools)
            if pick is None:
                open_groups.append(node)
            else:
                chosen[node] = pick
                pending.append(pick[0])
        else:
            pending.extend(reversed(source.children[node]))
    return selected, chosen, open_groups, opt_in


def _alternatives(source: RuleSource, group: str) -> list[int]:
    return [
        child for child in source.children[group]
        if isinstance(child, int) and source.rules[child].status not in ("superseded", "repealed")
        and source.rules[child].tier == "repo"
    ]


def _pick(source: RuleSource, group: str, tools: Mapping[str, str]) -> tuple[int, str] | None:
    """The first alternative whose title names a tool the repository shows, and the file showing it."""
    for alternative in _alternatives(source, group):
        titles = source.rules[alternative].title
        title = titles.get("en", next(iter(titles.values())))
        for tool, path in tools.items():
            if re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", title, re.IGNORECASE):
                return alternative, path
    return None


def _met(source: RuleSource, target, selected: set[int], chosen: dict[str, tuple[int, str]]) -> bool:
    if isinstance(target, int):
        return target in selected
    if ":" in target:
        return True  # a rule of another source: this source's tree cannot tell, the resolver will
    if target in source.groups:
        return target in chosen and chosen[target][0] in selected
    return any(isinstance(node, int) and node in selected for node in source.subtree(target))


def _reachable(source: RuleSource, node: Node, packages: tuple[str, ...]) -> bool:
    """Whether an excluded node lies in a selected package (only those need an `exclude` line)."""
    return source.has(node) and source.domain_of(node) in packages


def starter_manifest(url: str, pin: str, starter: Starter | None = None) -> str:
    """The manifest text; without `starter`, the packages that fit every repository."""
    starter = starter or Starter(STARTER_PACKAGES, exclude=tuple(STARTER_EXCLUDE.items()))
    selection = _rules_array(starter)
    shown = "; ".join(f"{package}: {path}" for package, path in starter.found.items())
    found = f"# Found here: {shown}.\n" if shown else ""
    listed = "".join(f'    "ac:{node}",  # {why}\n' for node, why in starter.exclude)
    excluded = f"exclude = [\n{listed}]\n" if listed else ""
    choices = "".join(f'"ac:{group}" = "ac:{rule}"  # shown by {why}\n' for group, rule, why in starter.choices)
    if not choices:
        choices = '# "ac:python-package-manager" = "ac:<rule id of uv, Poetry or Bazel>"\n'
    return f"""#:schema {schema_url("rules.schema.json")}
# The rules agents follow in this repository. `agent-constitution compile` locks them in rules.lock
# and writes AGENTS.md; `agent-constitution check` checks them. Add a package or a rule with its ref,
# e.g. "ac:python" (then choose its alternatives under [choices]) or "ac:20"; drop one with `exclude`.
{found}rules = {selection}
{excluded}
[constitution]
source = "ac"
edition = "{EDITION}"
revision = "{REVISION}"

[sources]
# Pinned (trusted code runs only as reviewed); `agent-constitution upgrade` moves the pin to newer commits.
ac = {{ url = "{url}", {pin}, trust = true }}

[choices]
{choices}{_compile_table()}"""


def _compile_table() -> str:
    """`claude = "link"` where the file system has symbolic links: Claude Code loads the CLAUDE.md of
    every folder from the root to where a session starts, but expands `@` imports only in the folder
    it starts in (read back with the real client, docs/compile.md "The read-back proof"), so an
    importing CLAUDE.md loses every rule for a session started in a subfolder. On Windows a checkout
    without symbolic links would hold a one-line file instead: there the import stays, and compile's
    read-back warning says what a subfolder session misses."""
    if os.name == "nt":
        return ""
    return ("\n[compile]\n"
            "# CLAUDE.md as a link to AGENTS.md: Claude Code then has the rules in a session started in any folder\n"
            "# (it does not expand an ancestor CLAUDE.md's @ imports). \"import\" keeps a file that imports AGENTS.md.\n"
            'claude = "link"\n')


def _rules_array(starter: Starter) -> str:
    """`rules = [...]`: one line per package, then each package left out as a commented line (the
    line that adds it back) with why."""
    selection = ", ".join(f'"ac:{package}"' for package in starter.packages)
    if not starter.left_out and not starter.opt_in:
        return f"[{selection}]"
    lines = [f'    "ac:{package}",' for package in starter.packages]
    if starter.left_out:
        lines.append(f"    # Left out so that AGENTS.md fits: {starter.room.why}, so the compiled part may hold"
                     f" {starter.room.bytes} bytes and holds {starter.region}. Uncomment a line to add it back"
                     " (compile then warns of what an agent will not load):")
        lines += [f'    # "ac:{package}",  # {size} more bytes' for package, size in starter.left_out]
    for package in starter.opt_in:
        lines.append(f'    # "ac:{package}",  # {OPT_IN_PACKAGES[package]}')
    return "[\n" + "\n".join(lines) + "\n]"


def starter_source(url: str, pin: tuple[str, str], root: Path) -> RuleSource:
    """The starter's rule source at its pin (`pin_of()`), fetched into the user cache (compile reuses it)."""
    kind, value = pin
    return load_source(fetch(url=url, base_dir=root, **{kind: value}).root)


def init_project(root: Path, *, doit: bool = False) -> list[Step]:
    """Write rules.toml, cache/.gitignore and (with `doit`) the doit wiring where they are missing; report each."""
    if not root.is_dir():
        raise UserError(f"{root} is not a folder", fix="run init in (or name) the repository's root folder")
    # What can fail comes first (the fetch, then the doit wiring), so that a failure writes nothing.
    manifest = None
    own = project_layer(root)
    fitted: Starter | None = None
    if not (root / "rules.toml").exists():
        url, pin = starter_url(), pin_of()
        shape, source = detect(root), starter_source(url, pin, root)
        fitted = fitted_starter(root, shape, source, url, pin[1], own.text if own else "")
        manifest = starter_manifest(url, f'{pin[0]} = "{pin[1]}"', fitted) + segment_proposals(root, shape, fitted, source)
    wiring = _wire_doit(root) if doit else None
    return [
        _create(root, "rules.toml", manifest) if manifest else Step("rules.toml", "exists, left unchanged"),
        *_fit_steps(fitted),
        *([_create(root, "AGENTS.md", own.text)] if own else []),
        *[Step("AGENTS.md", f"note: {note}") for note in (own.notes if own else ())],
        _create(root, "cache/.gitignore", CACHE_GITIGNORE),
        lock_manifest(root, written=manifest is not None),
        *([wiring] if wiring else []),
    ]


def project_layer(root: Path):
    """The project section init proposes for a new AGENTS.md (commands/project_section.py), or None
    when the repository has one (init never overwrites it; its text is counted as it is)."""
    return None if (root / "AGENTS.md").exists() or (root / "AGENTS.md").is_symlink() else section(root)


def fitted_starter(root: Path, shape: Shape, source: RuleSource, url: str, commit: str | None, section: str, *,
                   defaults: bool = True) -> Starter:
    """The starter for `shape`, held to what the repository's enabled agents load (commands/fit.py);
    `defaults=False` keeps every rule of the packages (the field corpus measures both)."""
    folder = source.root / "constitution" / EDITION
    if not folder.is_dir():  # a source without this edition's constitution: compile will say so
        return select(shape, source, wanted_packages(shape, source), defaults=defaults).starter
    constitution = constitution_at(folder, url, EDITION, REVISION, commit)
    return fit(wanted_packages(shape, source), lambda packages: select(shape, source, packages, defaults=defaults), source,
               room(root, agents_of(root), section), constitution)


def _fit_steps(starter: Starter | None) -> list[Step]:
    if starter is None or starter.room is None:
        return []
    steps = [Step("rules.toml", f"the compiled part of AGENTS.md will be {starter.region} bytes, within"
                                f" {starter.room.bytes} ({starter.room.why})")]
    if starter.left_out:
        listed = ", ".join(f"ac:{package} ({size} bytes)" for package, size in starter.left_out)
        steps.append(Step("rules.toml", f"left out to fit: {listed}; uncomment its line in `rules` to add it back"))
    return steps


def lock_manifest(root: Path, *, written: bool) -> Step:
    """Lock the starter manifest init `written` into rules.lock, as `agent-constitution lock` does
    (never under --locked: init writes). A manifest that was there before, and an existing lock, are
    left to `compile`, which locks. A starter manifest that does not lock is taken out again, so a
    failed init leaves no manifest behind."""
    if (root / LOCKFILE).exists():
        return Step(LOCKFILE, "exists, left unchanged")
    if not written:
        return Step(LOCKFILE, f"not written: `agent-constitution compile` locks the {MANIFEST} that was here")
    try:
        sync_lock(root, locked=False)
    except UserError:
        if written:
            (root / MANIFEST).unlink(missing_ok=True)
        raise
    return Step(LOCKFILE, f"written (the rules of {MANIFEST}, locked)")


def segment_proposals(root: Path, shape: Shape, starter: Starter, source: RuleSource) -> str:
    """Commented-out `[[segment]]` blocks for the workspace members init finds (commands/workspace.py)."""
    return proposals(root, scan(root).files, shape, starter, source, choose)


def _create(root: Path, name: str, text: str) -> Step:
    path = root / name
    if path.exists():
        return Step(name, "exists, left unchanged")
    write_atomic(path, text)
    return Step(name, "written")


def _wire_doit(root: Path) -> Step:
    dodo, pyproject = root / "dodo.py", root / "pyproject.toml"
    if dodo.exists():
        if "agent_constitution.loader" in read_text(dodo):
            return Step("dodo.py", "already loads agent-constitution")
        # doit reads dodo.py only without a [tool.doit] loader, so the user's tasks must stay there.
        return Step(
            "dodo.py",
            "exists, left unchanged; add these lines to it to get the tasks:\n    "
            + DODO.strip().replace("\n\n", "\n").replace("\n", "\n    "),
        )
    if not pyproject.exists():
        write_atomic(dodo, DODO)
        return Step("dodo.py", "written")
    try:
        text = read_text(pyproject)
        parse_toml(text, pyproject)  # the one TOML reader's messages (line, nesting, huge integers)
    except UserError as error:
        error.fix = error.fix or "fix the file, then run init again"
        raise
    try:  # tomlkit keeps the file's layout for the edit
        document = tomlkit.parse(text)
    except TOMLKitError as error:
        raise UserError(f"not valid TOML: {error}", file=pyproject, fix="fix the file, then run init again") from None
    tool = document.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        document.append("tool", tool)
    doit = tool.get("doit")
    if doit is None:
        doit = tomlkit.table()
        tool.append("doit", doit)
    loader = doit.get("loader")
    if loader == LOADER:
        return Step("pyproject.toml", "[tool.doit] already uses the agent-constitution loader")
    if loader is not None:
        raise UserError(
            f"[tool.doit] loader is {str(loader)!r}, another task loader",
            file=pyproject,
            field="tool.doit.loader",
            fix=f'set loader = "{LOADER}", or load agent-constitution\'s tasks from your dodo.py '
            "(globals().update(namespace()) from agent_constitution.loader)",
        )
    doit["loader"] = LOADER
    write_atomic(pyproject, tomlkit.dumps(document))
    return Step("pyproject.toml", '[tool.doit] loader = "agent-constitution" added')
