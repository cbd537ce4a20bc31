"""The rule graph over every loaded source, and its structural facts (checked with networkx).

A node is `(source key, node)`: `node` an int (a rule) or a str (a domain or group id). Edges of the
dependency graph go from a rule to what enabling it needs:

- `requires`: each entry of the rule's `requires` (a rule or a group, possibly in another source);
- `parent`: the parent rule, an implicit requirement; a rule under a group needs the group's parent
  (when that is a rule), since enabling an alternative enables the group.

The facts that do not depend on a selection (redundant requires edges, a conflict naming a rule the
declaring rule pulls in, three or more mutual conflicts) are computed here once and looked up per
segment; descendant sets are memoized. The facts every resolution needs (the requirement edges, whether
they have a cycle, descendants, conflicts) are plain dictionaries and searches here; networkx
(about 0.2 s to import) is built and searched only to explain a failure (a path, a cycle) and for
three or more mutual conflicts, so a resolution that succeeds never imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from agent_constitution.errors import UserError
from agent_constitution.refs import format_ref, parse_ref
from agent_constitution.ruleset.models import Rule
from agent_constitution.ruleset.source import RuleSource

if TYPE_CHECKING:
    import networkx as nx

Node = tuple[str, int | str]


@dataclass(frozen=True)
class World:
    """Every source of one resolution, the names used for them, and their cross-source names."""

    sources: Mapping[str, RuleSource]  # key → source
    names: Mapping[str, str]  # key → name shown in messages and the lock
    dependencies: Mapping[str, Mapping[str, str]]  # key → {source.toml name → key}
    # Keys of sources named but not loaded (one source validated alone): a requirement of a rule in one
    # of them is left out of the graph, judged where a manifest loads that source at its locked version.
    unloaded: frozenset[str] = frozenset()
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def show(self, node: Node) -> str:
        return format_ref(self.names[node[0]], node[1])

    def named(self, node: Node) -> str:
        """`ac:42 "Title"` for a rule, `group ac:ci-service`, `domain ac:python`."""
        source = self.sources[node[0]]
        kind = source.kind(node[1])
        if kind == "rule":
            return f'{self.show(node)} "{source.title(node[1])}"'
        return f"{kind} {self.show(node)}"

    def exists(self, node: Node) -> bool:
        return node[0] in self.sources and self.sources[node[0]].has(node[1])

    def kind(self, node: Node) -> str:
        return self.sources[node[0]].kind(node[1])

    def rule(self, node: Node) -> Rule:
        return self.sources[node[0]].rules[node[1]]  # type: ignore[index]

    def children(self, node: Node) -> list[Node]:
        return [(node[0], child) for child in self.sources[node[0]].children.get(node[1], ())]

    def parent(self, node: Node) -> Node | None:
        parent = self.sources[node[0]].parents.get(node[1])
        return None if parent is None else (node[0], parent)

    def domain_of(self, node: Node) -> Node:
        return (node[0], self.sources[node[0]].domain_of(node[1]))

    def requirements(self, rule: Node) -> list[tuple[Node, str]]:
        """What enabling `rule` needs: (node, "parent" | "requires"), the parent rule first."""
        memo = self._memo.setdefault("requirements", {})
        if rule not in memo:
            memo[rule] = self._requirements(rule)
        return memo[rule]

    def _requirements(self, rule: Node) -> list[tuple[Node, str]]:
        found: list[tuple[Node, str]] = []
        parent = self.parent(rule)
        if parent is not None and self.kind(parent) == "group":
            parent = self.parent(parent)
        if parent is not None and self.kind(parent) == "rule":
            found.append((parent, "parent"))
        for target in self.rule(rule).requires:
            node = self.target(rule[0], target)
            if node[0] in self.unloaded:
                continue
            if not self.exists(node):
                raise UserError(
                    f"{self.show(rule)} requires {self.show(node)}, which does not exist in source"
                    f" {self.names[node[0]]} at the version in use",
                    file=str(self.sources[rule[0]].rule_file(rule[1])),  # type: ignore[arg-type]
                    field="requires",
                    fix="correct the requirement in the source, or follow a version of that source that has it",
                )
            found.append((node, "requires"))
        return found

    def target(self, key: str, written: int | str) -> Node:
        """A `requires` entry of a rule in source `key` as a node (another source through its name)."""
        if isinstance(written, int):
            return (key, written)
        ref = parse_ref(written)
        if ref is None:
            return (key, written)
        return (self.dependencies[key][ref.source], ref.node)

    def position(self, node: Node) -> tuple[str, int]:
        """Sort key: the source's name, then tree order within the source."""
        order = self._memo.get(("order", node[0]))
        if order is None:
            order = {n: i for i, n in enumerate(self.sources[node[0]].tree_order())}
            self._memo[("order", node[0])] = order
        return (self.names[node[0]], order[node[1]])

    @cached_property
    def edges(self) -> dict[Node, dict[Node, set[str]]]:
        """Rule → {what enabling it needs → {"parent", "requires"}}, in the order of `requirements`."""
        found: dict[Node, dict[Node, set[str]]] = {}
        for key, source in self.sources.items():
            for rule_id in source.rules:
                node = (key, rule_id)
                targets = found.setdefault(node, {})
                try:
                    requirements = self.requirements(node)
                except UserError:
                    continue  # a broken requirement is reported if and when its rule is enabled
                for target, kind in requirements:
                    found.setdefault(target, {})
                    targets.setdefault(target, set()).add(kind)
        return found

    @cached_property
    def graph(self) -> nx.DiGraph:
        """`edges` as a networkx graph, for the searches that explain a failure."""
        import networkx as nx

        graph = nx.DiGraph()
        for key, source in self.sources.items():  # nodes in the order the searches always met them
            for rule_id in source.rules:
                node = (key, rule_id)
                graph.add_node(node)
                for target, kinds in self.edges[node].items():
                    graph.add_edge(node, target, kinds=set(kinds))
        return graph

    @cached_property
    def acyclic(self) -> bool:
        return is_acyclic(self.edges)

    def groups_needed(self, rule: Node) -> list[Node]:
        """The groups that enabling `rule` requires, directly or through other rules."""
        memo = self._memo.setdefault("groups", {})
        if rule not in memo:
            memo[rule] = [node for node in self.descendants(rule) if self.kind(node) == "group"]
        return memo[rule]

    def descendants(self, node: Node) -> set[Node]:
        memo = self._memo.setdefault("descendants", {})
        if node not in memo:
            memo[node] = descendants(self.edges, node)
        return memo[node]

    def redundant(self, rule: Node) -> tuple[Node, list[Node]] | None:
        """A `requires` target also reached through another requirement, with that path."""
        edges = self.edges.get(rule, {})
        for target, kinds in edges.items():
            if "requires" not in kinds or self.kind(target) != "rule":
                continue
            if "parent" in kinds:
                return target, [rule, target]
            for other in edges:
                if other != target and self.kind(other) == "rule" and target in self.descendants(other):
                    import networkx as nx  # to explain the failure only

                    return target, [rule, *nx.shortest_path(self.graph, other, target)]
        return None

    def pulled_in_conflict(self, rule: Node) -> tuple[Node, list[Node]] | None:
        """A rule in conflict with this one (declared on either side) that enabling this one pulls in."""
        for target in sorted(self.conflicts_of(rule), key=lambda node: node[1]):
            if target in self.descendants(rule):
                import networkx as nx  # to explain the failure only

                return target, nx.shortest_path(self.graph, rule, target)
        return None

    def declares_conflict(self, rule: Node, other: Node) -> Node:
        """Which of two conflicting rules writes the conflict (it is written on one side)."""
        return rule if other[1] in self.rule(rule).conflicts else other

    def conflicts_of(self, rule: Node) -> set[Node]:
        """Declared on either side (conflicts are symmetric)."""
        return set(self.conflicts.get(rule, ()))

    @cached_property
    def conflicts(self) -> dict[Node, dict[Node, None]]:
        """Rule → the rules it conflicts with (either side declaring), in declaration order."""
        found: dict[Node, dict[Node, None]] = {}
        for key, source in self.sources.items():
            for rule_id, rule in source.rules.items():
                for other in rule.conflicts:
                    found.setdefault((key, rule_id), {})[(key, other)] = None
                    found.setdefault((key, other), {})[(key, rule_id)] = None
        return found

    @cached_property
    def mutual_conflicts(self) -> list[list[Node]]:
        """Sets of three or more rules that all conflict with each other: they should be a group."""
        adjacent = self.conflicts
        if not any(b in adjacent[a] for a, near in adjacent.items() for b in near for c in near if b != c and c in adjacent[b]):
            return []  # no three rules conflict pairwise: no clique to look for
        import networkx as nx

        graph = nx.Graph()
        for key, source in self.sources.items():
            for rule_id, rule in source.rules.items():
                for other in rule.conflicts:
                    graph.add_edge((key, rule_id), (key, other))
        return [sorted(clique, key=self.position) for clique in nx.find_cliques(graph) if len(clique) >= 3]


def descendants(edges: Mapping[Node, Mapping[Node, object]], node: Node) -> set[Node]:
    """Every node reachable from `node`, never `node` itself, found breadth first (as networkx does)."""
    seen, found, queue = {node}, set(), [node]
    for here in queue:
        for target in edges.get(here, ()):
            if target not in seen:
                seen.add(target)
                found.add(target)
                queue.append(target)
    return found


def is_acyclic(edges: Mapping[Node, Mapping[Node, object]]) -> bool:
    """Whether the directed graph has no cycle (Kahn's algorithm)."""
    incoming = {node: 0 for node in edges}
    for targets in edges.values():
        for target in targets:
            incoming[target] = incoming.get(target, 0) + 1
    ready = [node for node, count in incoming.items() if count == 0]
    seen = 0
    while ready:
        node = ready.pop()
        seen += 1
        for target in edges.get(node, ()):
            incoming[target] -= 1
            if incoming[target] == 0:
                ready.append(target)
    return seen == len(incoming)


# --- the graph constraints -------------------------------------------------------------------------
# One ordered list, checked in this order by resolution (over a segment's enabled rules: the first
# violation fails it) and by source validation (over every rule of one source: each violation is one
# problem, for the constraints that hold for a whole source). Each constraint yields its violations
# in the order of `nodes`; every caller words the message for its reader.

REDUNDANT = "redundant"  # nodes (rule, target): a `requires` target reached through another requirement
PULLED_IN = "pulled-in-conflict"  # nodes (rule, target): enabling the rule pulls in a rule it conflicts with
ALTERNATIVES = "alternatives"  # nodes (first, second, group): two alternatives of one choice group enabled
CONFLICT = "conflict"  # nodes (rule, other): two conflicting rules enabled


@dataclass(frozen=True)
class Violation:
    constraint: str
    nodes: tuple[Node, ...]
    path: tuple[Node, ...] = ()  # the requirements that show it, from nodes[0]


@dataclass(frozen=True)
class Constraint:
    of_a_source: bool  # also holds for every rule of one source, selected or not
    find: Callable[[World, Collection[Node]], Iterator[Violation]]


def _requirements(world: World, nodes: Collection[Node]) -> Iterator[Violation]:
    # Per rule: a redundant requirement before a pulled-in conflict, the order both callers report.
    for node in nodes:
        found = world.redundant(node)
        if found:
            yield Violation(REDUNDANT, (node, found[0]), tuple(found[1]))
        found = world.pulled_in_conflict(node)
        if found:
            yield Violation(PULLED_IN, (node, found[0]), tuple(found[1]))


def _alternatives(world: World, nodes: Collection[Node]) -> Iterator[Violation]:
    by_group: dict[Node, list[Node]] = {}
    for node in nodes:
        parent = world.parent(node)
        if parent is not None and world.kind(parent) == "group":
            by_group.setdefault(parent, []).append(node)
    for group, members in by_group.items():
        if len(members) > 1:
            first, second = sorted(members, key=world.position)[:2]
            yield Violation(ALTERNATIVES, (first, second, group))


def _conflicts(world: World, nodes: Collection[Node]) -> Iterator[Violation]:
    enabled = set(nodes)
    for node in nodes:
        others = world.conflicts_of(node)
        for other in sorted(others, key=world.position) if others else ():
            if other in enabled and world.position(node) < world.position(other):
                yield Violation(CONFLICT, (node, other))


CONSTRAINTS = (
    Constraint(True, _requirements),  # REDUNDANT and PULLED_IN, rule by rule
    Constraint(False, _alternatives),
    Constraint(False, _conflicts),
)


def violations(world: World, nodes: Collection[Node], *, of_a_source: bool = False) -> Iterator[Violation]:
    """Every violation among `nodes` (in their order), constraint by constraint in CONSTRAINTS' order
    (with `of_a_source`, only the constraints that hold for a whole source). A cycle is looked for
    first, by each caller on its own graph (a source's, with its groups; a segment's enabled rules)."""
    for constraint in CONSTRAINTS:
        if constraint.of_a_source or not of_a_source:
            yield from constraint.find(world, nodes)
