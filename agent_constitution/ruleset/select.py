"""Resolve one segment's selection into the set of enabled rules, and check every constraint.

`select(world, request) -> ResolvedSegment`. In order:

1. the references exist; choices name a group and one of its alternatives;
2. explicit rules are enabled (`selected`); a repealed one is an error, a superseded one a warning
   with its successor and `doit replace`, one of the other tier a warning naming the tier;
3. packages are expanded (`package <ref>`): the subtree, entering a choice group only through its
   chosen alternative (from `[choices]`, or the alternative selected explicitly); an undecided group
   is an error listing the options; excluded, superseded, repealed and other-tier rules are left
   out with their subtrees;
4. requirements are closed over (`required-by <ref>`): a missing rule is added unless `strict`; a
   group requirement is met by an enabled alternative or else by the chosen one, and is an error
   listing the options otherwise; a requirement on an excluded rule is an error;
5. constraints: no cycle in requires (through the alternative enabled for a group), no redundant
   requires edge, no conflict with a rule the declaring rule pulls in, at most one alternative of a
   group, no two enabled rules in conflict, the constitution revision inside every enabled rule's
   range. Warnings: a requires edge to a rule in another domain, three or more mutual conflicts.

Each failure raises one `UserError` whose message gives, for each rule involved, the chain that
enabled it, from what the manifest says down to the rule, and a fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agent_constitution.errors import UserError
from agent_constitution.ruleset.graph import ALTERNATIVES, PULLED_IN, REDUNDANT, Node, World, is_acyclic, violations
from agent_constitution.ruleset.layout import ROOT_SEGMENT
from agent_constitution.ruleset.manifest import Ref, Selection


@dataclass(frozen=True)
class SelectedRule:
    source: str  # the source's name in the manifest (or the lock)
    id: int
    revision: int
    why: str  # "selected" | "required-by <ref>" | "package <ref>"


@dataclass(frozen=True)
class ResolvedSegment:
    path: str  # "." for the repository root
    rules: tuple[SelectedRule, ...]  # source name, then tree order
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    path: str
    selection: Selection
    strict: bool
    tiers: Mapping[tuple[str, int], str]
    tier: str  # the manifest's tier: "repo" (a repository) or "user" (the user-level manifest)
    revision: str | None  # the constitution revision in force; None: ranges are the caller's to check
    revision_note: str  # how it was chosen, for messages
    file: str  # the root manifest, as messages name it


@dataclass
class _Why:
    kind: str  # selected | package | required-by | chosen
    ref: Ref | None = None
    by: Node | None = None
    edge: str = ""  # parent | requires (for required-by / chosen)
    group: Node | None = None


@dataclass
class _State:
    world: World
    request: Request
    enabled: dict[Node, _Why] = field(default_factory=dict)
    excluded: set[Node] = field(default_factory=set)
    excluded_by: dict[Node, Ref] = field(default_factory=dict)  # each excluded node → the `exclude` entry
    warnings: list[str] = field(default_factory=list)


def select(world: World, request: Request) -> ResolvedSegment:
    state = _State(world, request)
    selection = request.selection
    for ref in (*selection.rules, *selection.exclude, *selection.choices, *selection.choices.values()):
        _exists(state, ref)
    choices = _choices(state)
    for ref in selection.exclude:
        nodes = list(world.sources[ref.source].subtree(ref.node)) if ref.package else [ref.node]
        state.excluded.update((ref.source, node) for node in nodes)
        for node in nodes:
            state.excluded_by.setdefault((ref.source, node), ref)
    for ref in selection.rules:
        if not ref.package:
            _enable_explicit(state, ref)
    for ref in selection.rules:  # after the explicit rules: an explicit alternative decides a group
        if ref.package:
            _expand(state, ref, choices)
    _close(state, choices)
    _check_constraints(state)
    ordered = sorted(state.enabled, key=world.position)
    rules = tuple(
        SelectedRule(world.names[node[0]], node[1], world.rule(node).revision, _why_text(world, state.enabled[node]))
        for node in ordered
    )
    return ResolvedSegment(request.path, rules, tuple(dict.fromkeys(state.warnings)))


# --- steps ---------------------------------------------------------------------------------------


def _exists(state: _State, ref: Ref) -> None:
    world = state.world
    if not world.exists((ref.source, ref.node)):
        raise UserError(
            f"{ref.text} ({ref.origin}) does not exist in source {world.names[ref.source]} at the locked version",
            file=state.request.file,
            fix="check the id; `doit outdated` shows whether a newer version of the source has it",
        )


def _choices(state: _State) -> dict[Node, Node]:
    world = state.world
    chosen: dict[Node, Node] = {}
    for group_ref, alternative_ref in state.request.selection.choices.items():
        group = (group_ref.source, group_ref.node)
        alternative = (alternative_ref.source, alternative_ref.node)
        if world.kind(group) != "group":
            raise UserError(
                f"{group_ref.text} ({group_ref.origin}) is a {world.kind(group)}, not a choice group",
                file=state.request.file,
                fix="[choices] maps a choice group to one of its alternatives",
            )
        if alternative not in world.children(group):
            raise UserError(
                f"{alternative_ref.text} is not an alternative of group {group_ref.text} ({group_ref.origin})",
                file=state.request.file,
                fix=f"choose one of: {_options(world, group)}",
            )
        if world.kind(alternative) == "rule" and world.rule(alternative).status == "superseded":
            successor = (alternative[0], world.rule(alternative).superseded_by)
            state.warnings.append(
                f"{world.named(alternative)} ({alternative_ref.origin}, for {group_ref.text}) is superseded by"
                f" {world.named(successor)}; run `doit replace` to use the successor"
            )
        chosen[group] = alternative
    return chosen


def _enable_explicit(state: _State, ref: Ref) -> None:
    world, node = state.world, (ref.source, ref.node)
    if node in state.excluded:
        return  # exclude wins over rules in the same manifest
    rule = world.rule(node)
    if rule.status == "repealed":
        raise UserError(
            f"{world.named(node)} ({ref.origin}) is repealed: it was withdrawn without a successor",
            file=state.request.file,
            fix=f"remove {ref.text} from the manifest",
        )
    if rule.status == "superseded":
        successor = (node[0], rule.superseded_by)
        state.warnings.append(
            f"{world.named(node)} ({ref.origin}) is superseded by {world.named(successor)};"
            " run `doit replace` to use the successor"
        )
    tier = state.request.tiers.get(node, rule.tier)  # type: ignore[arg-type]
    if tier != state.request.tier:
        state.warnings.append(
            f"{world.named(node)} ({ref.origin}) is a {tier}-tier rule, selected in a {state.request.tier}-level"
            f" manifest; set [tiers] \"{ref.text}\" = \"{state.request.tier}\" if that is intended"
        )
    state.enabled.setdefault(node, _Why("selected", ref))


def _decided(state: _State, group: Node, choices: dict[Node, Node]) -> Node | None:
    if group in choices:
        return choices[group]
    picked = [child for child in state.world.children(group) if child in state.enabled]
    return picked[0] if picked else None


def _expand(state: _State, ref: Ref, choices: dict[Node, Node]) -> None:
    world = state.world
    stack: list[Node] = [(ref.source, ref.node)]
    undecided: list[Node] = []
    while stack:
        node = stack.pop()
        if node in state.excluded:
            continue
        kind = world.kind(node)
        if kind == "group":
            alternative = _decided(state, node, choices)
            if alternative is None:
                undecided.append(node)
            else:
                stack.append(alternative)
            continue
        if kind == "rule":
            rule = world.rule(node)
            tier = state.request.tiers.get(node, rule.tier)  # type: ignore[arg-type]
            if rule.status in ("superseded", "repealed") or tier != state.request.tier:
                continue
            state.enabled.setdefault(node, _Why("package", ref))
        stack.extend(reversed(world.children(node)))
    if undecided:
        # Every undecided group at once, so that one edit of [choices] settles the package.
        where = "[choices]" if state.request.path == ROOT_SEGMENT else f"[segment.choices] of segment {state.request.path}"
        raise UserError(
            f"package {ref.text} ({ref.origin}) contains "
            + " and ".join(world.named(group) for group in undecided)
            + f", and no alternative is chosen for {'it' if len(undecided) == 1 else 'them'}"
            + " (a package needs a choice for every group in it)",
            file=state.request.file,
            fix=f"add to {where}: "
            + "; ".join(f'"{world.show(group)}" = one of {_options(world, group)}' for group in undecided)
            + f"; or leave {'it' if len(undecided) == 1 else 'them'} out: add "
            + ", ".join(f'"{world.show(group)}"' for group in undecided)
            + " to `exclude`",
        )


def _close(state: _State, choices: dict[Node, Node]) -> None:
    world, request = state.world, state.request
    queue = list(state.enabled)
    pending: list[tuple[Node, Node]] = []
    while queue or pending:
        while queue:
            node = queue.pop(0)
            for target, edge in world.requirements(node):
                if world.kind(target) == "group":
                    pending.append((target, node))
                    continue
                if target in state.enabled:
                    continue
                why = _Why("required-by", by=node, edge=edge)
                if target in state.excluded:
                    raise _excluded_failure(state, node, target, f"{world.named(target)}, which {world.show(node)} requires")
                if request.strict:
                    raise _failure(
                        state,
                        f"{world.show(node)} requires {world.named(target)}, which is not selected (strict = true)",
                        [node],
                        f"add \"{world.show(target)}\" to `rules`"
                        + ("" if request.path == ROOT_SEGMENT else f" of segment {request.path}")
                        + ", or set strict = false to add requirements automatically",
                    )
                if world.rule(target).status == "repealed":
                    raise _failure(
                        state,
                        f"{world.show(node)} requires {world.named(target)}, which is repealed",
                        [node],
                        f"{_stop(state, node)}; its source {world.names[node[0]]} must drop the requirement",
                    )
                state.enabled[target] = why
                queue.append(target)
        waiting, pending = pending, []
        for group, by in waiting:
            if any(child in state.enabled for child in world.children(group)):
                continue
            alternative = choices.get(group)
            if alternative is None:
                raise _failure(
                    state,
                    f"{world.show(by)} requires {world.named(group)}, and no alternative of it is chosen or enabled",
                    [by],
                    f'add [choices] "{world.show(group)}" = one of: {_options(world, group)}',
                )
            if alternative in state.excluded:
                raise _excluded_failure(
                    state, by, alternative,
                    f"{world.named(alternative)}, the chosen alternative of {world.named(group)}, which"
                    f" {world.show(by)} requires",
                    another=f"choose another alternative of {world.show(group)} in [choices]",
                )
            state.enabled[alternative] = _Why("chosen", by=by, group=group)
            queue.append(alternative)


def _check_constraints(state: _State) -> None:
    world, enabled = state.world, state.enabled
    _check_cycles(state)
    for violation in violations(world, enabled):  # the graph constraints, in their order
        node, target, path = violation.nodes[0], violation.nodes[1], violation.path
        if violation.constraint == REDUNDANT:
            via = " → ".join(world.show(n) for n in path)
            reason = "its parent counts as a requirement" if len(path) == 2 else f"it already follows from {via}"
            raise _failure(
                state,
                f"{world.show(node)} lists {world.show(target)} in `requires`, but {reason}",
                [node],
                _source_fault(state, node, f"remove {target[1] if target[0] == node[0] else world.show(target)} from"
                              f" `requires` of rules/{node[1]}.toml"),
            )
        if violation.constraint == PULLED_IN:
            declarer = world.declares_conflict(node, target)
            other = target if declarer == node else node
            raise _failure(
                state,
                f"{world.show(node)} and {world.show(target)} conflict, but enabling {world.show(node)} pulls"
                f" {world.show(target)} in: " + " → ".join(world.show(n) for n in path),
                [node],
                _source_fault(state, node, f"remove {other[1]} from `conflicts` of rules/{declarer[1]}.toml, or drop"
                              " the requirement that pulls it in"),
            )
        if violation.constraint == ALTERNATIVES:
            first, second, group = violation.nodes
            raise _failure(
                state,
                f"{world.show(first)} and {world.show(second)} are both enabled, but they are alternatives of"
                f" {world.named(group)}: at most one may be enabled",
                [first, second],
                f"keep one: {_stop(state, first)}, or {_stop(state, second)}",
            )
        raise _failure(  # CONFLICT
            state,
            f"{world.show(node)} and {world.show(target)} are both enabled, but they conflict",
            [node, target],
            f"keep one: {_stop(state, node)}, or {_stop(state, target)}",
        )
    for node in enabled if state.request.revision is not None else ():
        allowed = world.rule(node).constitution
        if not allowed.contains(state.request.revision):
            raise _failure(
                state,
                f"{world.named(node)} is compatible with constitution revisions {allowed}, but the manifest binds"
                f" revision {state.request.revision}{state.request.revision_note}",
                [node],
                f"bind a revision inside the range in [constitution], or {_stop(state, node)}",
            )
    for node in enabled:
        for target, edge in world.requirements(node):
            if edge == "requires" and world.kind(target) == "rule" and world.domain_of(target) != world.domain_of(node):
                state.warnings.append(
                    f"{world.show(node)} (in {world.named(world.domain_of(node))}) requires {world.show(target)}"
                    f" in another subtree ({world.named(world.domain_of(target))}); a requirement across subtrees"
                    " should name a choice group"
                )
    for clique in world.mutual_conflicts:
        if any(node in enabled for node in clique):
            state.warnings.append(
                f"{', '.join(world.show(n) for n in clique)} all conflict with each other: they are alternatives"
                " and should be a choice group in their source"
            )


def _check_cycles(state: _State) -> None:
    world, enabled = state.world, state.enabled
    cycle = _rule_cycle(state) if not world.acyclic else None
    if cycle is None:
        cycle = _group_cycle(state)
    if cycle is None:
        return
    # Start where a person meets the cycle: at the rule enabled first.
    order = {node: index for index, node in enumerate(enabled)}
    ring = cycle[:-1]
    start = min(range(len(ring)), key=lambda i: order.get(ring[i], len(order)))
    cycle = ring[start:] + ring[:start] + [ring[start]]
    first = cycle[0] if cycle[0] in enabled else next(node for node in cycle if node in enabled)
    raise _failure(
        state,
        "the requirements form a cycle: " + " → ".join(world.show(n) for n in cycle) + " (each arrow: 'requires')",
        [first],
        _source_fault(state, first, "drop one requirement of the cycle")
        + "".join(
            f"; or choose another alternative of {world.named(group)} in [choices]"
            for group in dict.fromkeys(cycle)
            if world.kind(group) == "group"
        ),
    )


def _rule_cycle(state: _State) -> list[Node] | None:
    """A cycle among the enabled rules (only looked for when the sources' rule graph has one)."""
    enabled = state.enabled
    edges = {node: {t: None for t in state.world.edges.get(node, ()) if t in enabled} for node in enabled}
    if is_acyclic(edges):
        return None
    import networkx as nx  # to explain the failure only: a resolution that succeeds never imports it

    graph = state.world.graph.subgraph(state.enabled)
    edges = nx.find_cycle(graph)
    return [edge[0] for edge in edges] + [edges[0][0]]


def _group_cycle(state: _State) -> list[Node] | None:
    """A cycle through groups: a group's enabled alternative leads (by requirements) back to the group.

    The rule graph itself has no cycle here, so every cycle passes through a requirement on a group,
    which the segment's enabled alternative meets: a graph of groups (g → h when g's alternative needs
    h) has a cycle exactly when the segment's requirements have one.
    """
    world = state.world
    alternative: dict[Node, Node] = {}
    for node in state.enabled:
        parent = world.parent(node)
        if parent is not None and world.kind(parent) == "group":
            alternative[parent] = node
    edges = [(group, needed) for group, chosen in alternative.items() for needed in world.groups_needed(chosen)
             if needed in alternative]
    adjacent: dict[Node, dict[Node, None]] = {}
    for group, needed in edges:
        adjacent.setdefault(group, {})[needed] = None
        adjacent.setdefault(needed, {})
    if is_acyclic(adjacent):
        return None
    import networkx as nx  # to explain the failure only

    graph = nx.DiGraph()
    graph.add_edges_from(edges)
    path: list[Node] = []
    for group, needed, *_ in nx.find_cycle(graph):
        path += [group, *nx.shortest_path(world.graph, alternative[group], needed)[:-1]]
    return path + [path[0]]


# --- explanations --------------------------------------------------------------------------------


def _chain(state: _State, node: Node) -> list[str]:
    """Why `node` is enabled, from the manifest entry down to it."""
    world = state.world
    steps: list[str] = []
    seen: set[Node] = set()
    while node not in seen:
        seen.add(node)
        why = state.enabled[node]
        if why.kind == "selected":
            steps.append(f"you selected {world.named(node)} in {why.ref.origin}")
            break
        if why.kind == "package":
            steps.append(f"you selected package {why.ref.text} in {why.ref.origin}, which contains {world.named(node)}")
            break
        if why.kind == "chosen":
            steps.append(
                f"{world.show(why.by)} requires {world.named(why.group)}, for which you chose {world.named(node)}"
            )
        elif why.edge == "parent":
            steps.append(f"{world.show(why.by)} is under {world.named(node)}, so it requires it")
        else:
            steps.append(f"{world.show(why.by)} requires {world.named(node)}")
        node = why.by
    return list(reversed(steps))


def _excluded_failure(state: _State, by: Node, target: Node, what: str, another: str = "") -> UserError:
    """An enabled rule needs what an `exclude` entry leaves out: the message starts from the user's
    own line (that entry, in its file and table), not from the rule that needs it."""
    world, request = state.world, state.request
    entry = state.excluded_by.get(target)
    table = "`exclude`" if request.path == ROOT_SEGMENT else f"`exclude` of segment {request.path}"
    if entry is None:  # not reached: every excluded node has its entry
        return _failure(state, f"{world.show(by)} requires {world.named(target)}, which is excluded", [by],
                        f"remove {world.show(target)} from {table}, or exclude {world.show(by)} as well")
    whole = "" if (entry.source, entry.node) == target else f" (it excludes all of {entry.text})"
    error = _failure(
        state,
        f"`exclude` entry {entry.text!r}" + ("" if request.path == ROOT_SEGMENT else f" of segment {request.path}")
        + f" leaves out {what}{whole}",
        [by],
        "; ".join(filter(None, [
            f"remove {entry.text!r} from {table}",
            f"exclude only what you mean to leave out (e.g. the rules of {entry.text} other than"
            f" {world.show(target)})" if whole else "",
            another,
            f"or leave out what needs it: {_stop(state, by)}",
        ])),
    )
    error.line = entry.line
    return error


def _failure(state: _State, headline: str, nodes: list[Node], fix: str) -> UserError:
    world, request = state.world, state.request
    where = "" if request.path == ROOT_SEGMENT else f" (segment {request.path})"
    lines = [headline + where]
    for node in nodes:
        lines.append(f"  {world.show(node)} is enabled because:")
        lines.extend(f"    {step}" for step in _chain(state, node))
    return UserError("\n".join(lines), file=request.file, fix=fix)


def _stop(state: _State, node: Node) -> str:
    """What to change in the manifest so that `node` is no longer enabled: every manifest entry that
    leads to it (through requirements and chosen alternatives), not only the one its chain shows."""
    world = state.world
    needed_by: dict[Node, list[Node]] = {}
    for rule in state.enabled:
        for target, _ in world.requirements(rule):
            met = [target] if world.kind(target) == "rule" else world.children(target)
            for other in met:
                if other in state.enabled:
                    needed_by.setdefault(other, []).append(rule)
    found, stack = {node}, [node]
    while stack:
        for rule in needed_by.get(stack.pop(), ()):
            if rule not in found:
                found.add(rule)
                stack.append(rule)
    where = "`exclude`" if state.request.path == ROOT_SEGMENT else f"`exclude` of segment {state.request.path}"
    own = f"{state.request.file} `" + ("" if state.request.path == ROOT_SEGMENT else "segment.")
    changes = []
    for rule in sorted(found, key=world.position):
        why = state.enabled[rule]
        if why.kind == "selected" and why.ref.origin.startswith(own):
            changes.append(f'remove "{why.ref.text}" from {why.ref.origin}')
        elif why.kind == "selected":  # a base's (or, in a segment, the root's) selection: leave it out here
            changes.append(f'add "{world.show(rule)}" to {where}')
        elif why.kind == "package":
            changes.append(f'add "{world.show(rule)}" to {where} (package {why.ref.text} brings it in)')
    return " and ".join(changes)


def _source_fault(state: _State, node: Node, change: str) -> str:
    """The fix for a defect of a source: its maintainers change it; until then the user leaves the rule out."""
    name = state.world.names[node[0]]
    return (
        f"the source {name} must {change} (`doit source` reports this in its repository);"
        f" until it does, {_stop(state, node)}"
    )


def _options(world: World, group: Node) -> str:
    return ", ".join(world.named(child) for child in world.children(group) if world.kind(child) == "rule")


def _why_text(world: World, why: _Why) -> str:
    if why.kind == "selected":
        return "selected"
    if why.kind == "package":
        rooted_at_rule = isinstance(why.ref.node, int)
        return f"package {world.show((why.ref.source, why.ref.node))}{'/*' if rooted_at_rule else ''}"
    return f"required-by {world.show(why.by)}"
