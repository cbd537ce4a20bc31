"""Load one rule source from a folder: `load_source(root: Path) -> RuleSource`.

`root` is the source's tree (a git snapshot from the user cache, or a plain local folder); it holds
`rules/source.toml`, `rules/<id>.toml`, `rules/checks/`, `rules/skills/<name>/` and optionally
`constitution/<edition>/`. Everything is validated (docs/formats.md): unknown keys, a file name that
is not the rule's id, a parent, requirement, conflict or successor that does not exist in the source,
title/text languages that differ from `languages`, a title or text that would break AGENTS.md
(a region marker, a title that is not one line of heading text, a text holding a heading:
`ruleset.texts`), a skill naming an unknown rule, a cycle in the parent tree, `supersedes` and
`superseded_by` that do not name each other or a cycle of successors. Each failure is one
`UserError` naming the file and the field.

The returned `RuleSource` is frozen and holds:

- `root`, `config` (the parsed `SourceConfig` of source.toml), `name` (its name hint);
- `rules`: id → `Rule`, ascending ids; `skills`: name → `Skill`, by name;
- `domains`: the domain ids in source.toml order (the roots of the tree);
- `groups`: group id → `Group`, in tree order;
- `parents`: node → parent node and `children`: node → child nodes. A node is an `int` (a rule)
  or a `str` (a domain or group id; they share one namespace). The children of a node are its groups
  in source.toml order, then its rules by ascending id. Domains have no parent.

Helpers: `kind(node)` ("domain" | "group" | "rule"), `subtree(node)` (pre-order, the node first),
`tree_order()` (every node, pre-order over the domains), `domain_of(node)`, `rule_file(id)`,
`check_file(id)` (the python check module, or None) and `rule_digest(id)` ("sha256:…" of the rule
file and its python check module: what the lockfile pins besides the revision).

The digest of a whole source is `agent_constitution.sources.tree_digest`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from agent_constitution import ids
from agent_constitution.errors import UserError
from agent_constitution.layout import RULE_CHECKS, RULES, SKILLS, SOURCE_FILE
from agent_constitution.refs import parse_ref
from agent_constitution.ruleset.models import Group, Rule, Skill, SourceConfig, load, parse
from agent_constitution.ruleset.texts import marker_problem, text_problem, title_problem
from agent_constitution.sources.digest import files_digest
from agent_constitution.sources.parsed import parsed_files

Node = int | str


@dataclass(frozen=True)
class RuleSource:
    root: Path
    config: SourceConfig
    rules: Mapping[int, Rule]
    skills: Mapping[str, Skill]
    groups: Mapping[str, Group]
    parents: Mapping[Node, Node]
    children: Mapping[Node, tuple[Node, ...]]
    # rule id → its digest: those the load had the bytes of, the others taken on first use (a rule
    # file is read at most once in a process: `sources.parsed`).
    digests: dict[int, str] = field(default_factory=dict, compare=False, repr=False)
    # skill name → `files_digest` of its folder, the same way
    skill_digests: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def domains(self) -> tuple[str, ...]:
        return tuple(self.config.domains)

    def kind(self, node: Node) -> str:
        if isinstance(node, int):
            return "rule"
        return "domain" if node in self.config.domains else "group"

    def has(self, node: Node) -> bool:
        return node in self.rules if isinstance(node, int) else node in self.children

    def subtree(self, node: Node) -> Iterator[Node]:
        return _preorder(self.children, (node,))

    def tree_order(self) -> Iterator[Node]:
        return _preorder(self.children, self.domains)

    def domain_of(self, node: Node) -> str:
        while node in self.parents:
            node = self.parents[node]
        return node  # type: ignore[return-value]

    def rule_file(self, rule_id: int) -> Path:
        return self.root / RULES / f"{rule_id}.toml"

    def check_file(self, rule_id: int) -> Path | None:
        check = self.rules[rule_id].check
        if check is None or check.python is None:
            return None
        return self.root / RULE_CHECKS / f"{check.python}.py"

    def rule_digest(self, rule_id: int) -> str:
        found = self.digests.get(rule_id)
        if found is None:
            found = self.digests[rule_id] = rule_file_digest(self.rule_file(rule_id), self.check_file(rule_id))
        return found

    def skill_digest(self, name: str) -> str:
        """`files_digest` of the skill's folder: what compile installs of it (`compile.skills`)."""
        found = self.skill_digests.get(name)
        if found is None:
            found = self.skill_digests[name] = files_digest(self.root / SKILLS / name)
        return found

    def title(self, node: Node) -> str:
        """The node's title in the source's first language (for messages)."""
        language = self.config.languages[0]
        if isinstance(node, int):
            return self.rules[node].title[language]
        table = self.config.domains.get(node) or self.groups[node]
        return table.title[language]


def load_source(root: Path) -> RuleSource:
    """Read and validate the source in `root` (see the module docstring).

    Loaded once per version of its files in a process (`upgrade` and `outdated` resolve more than
    once). The version is every file's size and modification time under `rules/` (one directory
    scan), so an edited, added or removed file loads the source again; a load parses only the rule
    files whose bytes changed since a run last parsed them (`sources.parsed`), and validates all."""
    signature, statuses = _signature(root)
    found = _loaded.get(root)
    if found is not None and found[0] == signature:
        return found[1]
    source = _load(root, statuses)
    _loaded[root] = (signature, source)
    return source


# root → (the signature of its files when loaded, the source): the sources this process has read.
_loaded: dict[Path, tuple[int, RuleSource]] = {}


def _signature(root: Path) -> tuple[int, dict[str, os.stat_result]]:
    """A hash of every file's path, size and modification time under `rules/` (scandir order is
    stable for an unchanged folder; a changed order only costs a reload), and each file's status
    (path → status): the parsed-rule cache checks a rule file by the status taken here, so a load
    stats each file once."""
    found = {}
    stack = [str(root / RULES)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            stack.append(entry.path)
                        continue
                    status = entry.stat()
                except OSError:
                    continue
                found[entry.path] = status
    return hash(tuple((path, status.st_mtime_ns, status.st_size) for path, status in found.items())), found


def _load(root: Path, statuses: Mapping[str, os.stat_result] | None = None) -> RuleSource:
    folder = root / RULES
    parsed = parsed_files(root)
    config_file = str(folder / SOURCE_FILE)
    config = parse(SourceConfig, parsed.table(config_file, SOURCE_FILE, _shown(root, SOURCE_FILE), (statuses or {}).get(config_file)),
                   _shown(root, SOURCE_FILE))
    languages = set(config.languages)
    for kind, table in (("domains", config.domains), ("groups", config.groups)):
        for node_id, node in table.items():
            _texts(node.title, languages, _shown(root, SOURCE_FILE), f"{kind}.{node_id}.title", _title)
            if node.description is not None:
                _texts(node.description, languages, _shown(root, SOURCE_FILE), f"{kind}.{node_id}.description")
    rules = _load_rules(root, folder, languages, statuses or {}, parsed)
    _check_references(root, config, rules)
    _check_succession(root, rules)
    parents: dict[Node, Node] = {group_id: group.parent for group_id, group in config.groups.items()}
    parents.update({rule_id: rule.parent for rule_id, rule in rules.items()})
    children: dict[Node, list[Node]] = {node: [] for node in [*config.domains, *config.groups, *rules]}
    for node, parent in parents.items():  # groups first (source.toml order), then rules by id
        children[parent].append(node)
    _check_tree(root, config, parents, children)
    skills = _load_skills(root, languages, rules, parsed)
    digests = _digests(root, rules, parsed, statuses or {})
    skill_digests = {name: found for name in skills
                     if (found := files_digest(root / SKILLS / name, parsed.noted_sum)) is not None}
    parsed.save()
    frozen_children = {node: tuple(kids) for node, kids in children.items()}
    ordered_groups = {
        node: config.groups[node] for node in _preorder(frozen_children, config.domains) if node in config.groups
    }
    return RuleSource(
        root=root,
        config=config,
        rules=MappingProxyType(rules),
        skills=MappingProxyType(skills),
        groups=MappingProxyType(ordered_groups),
        parents=MappingProxyType(parents),
        children=MappingProxyType(frozen_children),
        digests=digests,
        skill_digests=skill_digests,
    )


def _digests(root: Path, rules: Mapping[int, Rule], parsed, statuses: Mapping[str, os.stat_result]) -> dict[int, str]:
    """The digest of every rule whose files this process has read (`rule_file_digest` of the same bytes)."""
    found = {}
    for rule_id, rule in rules.items():
        path = f"{root}/{RULES}/{rule_id}.toml"
        data = parsed.noted(path, statuses.get(path))
        python = rule.check.python if rule.check is not None else None
        check_path = f"{root}/{RULE_CHECKS}/{python}.py"
        check = b"" if python is None else parsed.noted(check_path, statuses.get(check_path))
        if data is None or check is None:
            continue
        digest = hashlib.sha256(data)
        if python is not None:
            digest.update(b"\0" + check)
        found[rule_id] = "sha256:" + digest.hexdigest()
    return found


def _preorder(children: Mapping[Node, tuple[Node, ...]], roots: tuple[Node, ...]) -> Iterator[Node]:
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children.get(node, ())))


def _shown(root: Path, name: str) -> str:
    # Messages name files as `rules/<name>` under the source root the user knows. (Called once per
    # rule file: string formatting, not Path arithmetic, keeps loading 5,000 rules fast.)
    return f"{root}/rules/{name}"


def _languages(texts: Mapping[str, str], languages: set[str], file: str, field: str) -> None:
    if set(texts) != languages:
        missing = sorted(languages - set(texts))
        extra = sorted(set(texts) - languages)
        detail = "; ".join(
            part
            for part in (f"missing {', '.join(missing)}" if missing else "", f"not declared {', '.join(extra)}" if extra else "")
            if part
        )
        raise UserError(
            f"languages must be exactly those of source.toml ({', '.join(sorted(languages))}): {detail}",
            file=file,
            field=field,
            fix="give one entry per language listed in source.toml `languages`",
        )


def _texts(texts: Mapping[str, str], languages: set[str], file: str, field: str,
           check: Callable[[str], tuple[str, int | None] | None] | None = None) -> None:
    """A title, text or description: one entry per language, none holding a comment compile writes
    (a region marker inside a rule would end the region early), and each passing `check`
    (`ruleset.texts`: what would break the heading outline of AGENTS.md)."""
    _languages(texts, languages, file, field)
    for language, text in texts.items():
        problem = marker_problem(text)
        found = (problem, None) if problem else check(text) if check is not None else None
        if found is not None:
            raise UserError(
                found[0] if found[1] is None else f"{found[0]} (line {found[1]} of the value)",
                file=file,
                field=f"{field}.{language}",
                fix="remove the marker (or change its spelling) from the text" if problem else _FIX_TEXT,
            )


_FIX_TEXT = "change the value (docs/formats.md, \"Titles and texts\", says what a title and a text may hold)"


def _title(title: str) -> tuple[str, int | None] | None:
    problem = title_problem(title)
    return None if problem is None else (problem, None)


def _load_rules(root: Path, folder: Path, languages: set[str], statuses: Mapping[str, os.stat_result],
                parsed) -> dict[int, Rule]:
    found: dict[int, Rule] = {}
    # Names and strings, not Path objects: pathlib's glob and properties cost a third of a load
    # whose tables are all kept (`sources.parsed`).
    with os.scandir(folder) as listing:
        entries = [(entry.path, entry.name) for entry in listing if entry.name.endswith(".toml")]
    for path, name in entries:
        if name == SOURCE_FILE:
            continue
        rule = load_rule(root, name, languages, lambda shown, path=path, name=name: parsed.table(path, name, shown, statuses.get(path)))
        found[rule.id] = rule
    return dict(sorted(found.items()))


def load_rule(root: Path, name: str, languages: set[str], table: Callable[[str], Mapping]) -> Rule:
    """The rule file `rules/<name>` of the source at `root`, validated on its own (what a load checks of
    each rule file before the checks across rules); `table(shown)` gives its parsed TOML, errors
    naming `shown`. The lock stage's short way for text edits (`ruleset.relock`) reads an edited rule
    file through this too, so both ways give the same rule and the same messages."""
    shown = _shown(root, name)
    stem = name[: -len(".toml")]
    # ASCII digits only: `rules/೧.toml` must not pass for rule 1 (str.isdigit and int accept it).
    number = ids.rule_number(stem)
    if number is None:
        raise UserError(
            "a rule file is named by its numeric id (ASCII digits 0-9, no leading zero, at most 9 digits)",
            file=repr(shown) if not shown.isprintable() else shown,
            fix="rename it to rules/<id>.toml, e.g. rules/42.toml",
        )
    rule = parse(Rule, table(shown), shown)
    if rule.id != number:
        raise UserError(
            f"id is {rule.id} but the file is named {name}",
            file=shown,
            field="id",
            fix=f"rename the file to rules/{rule.id}.toml or set id = {stem}",
        )
    _texts(rule.title, languages, shown, "title", _title)
    _texts(rule.text, languages, shown, "text", text_problem)
    if rule.check is not None and rule.check.python is not None:
        if not (root / RULE_CHECKS / f"{rule.check.python}.py").is_file():
            raise UserError(
                f"check module rules/checks/{rule.check.python}.py does not exist",
                file=shown,
                field="check.python",
                fix="add the module or correct the name",
            )
    return rule


def rule_file_digest(rule_file: Path | str, check_file: Path | str | None) -> str:
    """"sha256:…" of a rule file's bytes, then a NUL and its python check module's, if it has one:
    what the lockfile pins of a rule besides its revision."""
    with open(rule_file, "rb") as file:
        digest = hashlib.sha256(file.read())
    if check_file is not None:
        digest.update(b"\0")
        with open(check_file, "rb") as file:
            digest.update(file.read())
    return "sha256:" + digest.hexdigest()


def _check_references(root: Path, config: SourceConfig, rules: dict[int, Rule]) -> None:
    nodes = set(config.domains) | set(config.groups)
    for group_id, group in config.groups.items():
        parent = group.parent
        if parent in config.groups or (isinstance(parent, str) and parent not in nodes) or (
            isinstance(parent, int) and parent not in rules
        ):
            raise UserError(
                f"parent {parent!r} is not a domain or rule of this source",
                file=_shown(root, SOURCE_FILE),
                field=f"groups.{group_id}.parent",
                fix="a group's parent is a domain id or a rule id",
            )
    for rule_id, rule in rules.items():
        shown = _shown(root, f"{rule_id}.toml")
        if (isinstance(rule.parent, int) and rule.parent not in rules) or (
            isinstance(rule.parent, str) and rule.parent not in nodes
        ):
            raise UserError(
                f"parent {rule.parent!r} is not a domain, group or rule of this source",
                file=shown,
                field="parent",
                fix="set parent to a domain or group id from source.toml, or to a rule id",
            )
        for index, target in enumerate(rule.requires):
            _check_requirement(root, config, rules, rule_id, index, target)
        for index, other in enumerate(rule.conflicts):
            if other not in rules:
                raise UserError(
                    f"rule {other} does not exist in this source",
                    file=shown,
                    field=f"conflicts.{index}",
                    fix="conflicts name rules of the same source",
                )
        for field in ("supersedes", "superseded_by"):
            other = getattr(rule, field)
            if other is not None and other not in rules:
                raise UserError(
                    f"rule {other} does not exist in this source",
                    file=shown,
                    field=field,
                    fix="only a rule of the same source can supersede a rule",
                )


def _check_succession(root: Path, rules: dict[int, Rule]) -> None:
    """A rule's `supersedes` (optional) names a rule whose `superseded_by` names it back, and no chain
    of successors returns to a rule. (`superseded_by` alone suffices: several rules may merge into
    one, which can name only one of them.)"""
    for rule_id, rule in rules.items():
        predecessor = rule.supersedes
        if predecessor is not None and rules[predecessor].superseded_by != rule_id:
            raise UserError(
                f"supersedes = {predecessor}, but rule {predecessor} does not say superseded_by = {rule_id}",
                file=_shown(root, f"{predecessor}.toml"),
                field="superseded_by",
                fix=f"set status = \"superseded\" and superseded_by = {rule_id} in rules/{predecessor}.toml,"
                f" or correct supersedes in rules/{rule_id}.toml",
            )
    done: set[int] = set()
    for start in rules:
        chain: dict[int, int] = {}  # rule → its place in the chain (insertion-ordered)
        node: int | None = start
        while node is not None and node not in done:
            if node in chain:
                cycle = list(chain)[chain[node]:] + [node]
                raise UserError(
                    "the succession has a cycle: " + " → ".join(f"rule {n}" for n in cycle) + " (each arrow: 'superseded by')",
                    file=_shown(root, f"{node}.toml"),
                    field="superseded_by",
                    fix="a chain of successors ends at a rule that is not superseded; change one superseded_by in the cycle",
                )
            chain[node] = len(chain)
            node = rules[node].superseded_by
        done.update(chain)


def _check_requirement(
    root: Path, config: SourceConfig, rules: dict[int, Rule], rule_id: int, index: int, target: Node
) -> None:
    shown, field = _shown(root, f"{rule_id}.toml"), f"requires.{index}"
    if isinstance(target, int):
        if target not in rules:
            raise UserError(
                f"rule {target} does not exist in this source",
                file=shown,
                field=field,
                fix="require a rule id or group id of this source, or `name:id` of a source in source.toml",
            )
        return
    ref = parse_ref(target)
    if ref is not None:
        if ref.source not in config.sources:
            raise UserError(
                f"{target!r} names source {ref.source!r}, which source.toml does not declare",
                file=shown,
                field=field,
                fix=f"add [sources.{ref.source}] with its url and versions to rules/source.toml",
            )
        if ref.node == "":
            raise UserError(f"{target!r} names no rule or group", file=shown, field=field)
        return
    if target in config.domains:
        raise UserError(
            f"{target!r} is a domain; a rule can require a rule or a choice group, not a domain",
            file=shown,
            field=field,
            fix="require the group or the rule that is actually needed",
        )
    if target not in config.groups:
        raise UserError(
            f"{target!r} is not a group of this source",
            file=shown,
            field=field,
            fix="require a group id from source.toml, a rule id, or `name:id` in another source",
        )


def _check_tree(
    root: Path, config: SourceConfig, parents: dict[Node, Node], children: dict[Node, list[Node]]
) -> None:
    reached: set[Node] = set()
    stack: list[Node] = list(config.domains)
    while stack:
        node = stack.pop()
        reached.add(node)
        stack.extend(children[node])
    stray = [node for node in parents if node not in reached]
    if not stray:
        return
    # Every node outside the tree walks up into a cycle; report that cycle in parent order.
    path: list[Node] = []
    node = min(stray, key=lambda n: (isinstance(n, str), str(n)))
    while node not in path:
        path.append(node)
        node = parents[node]
    cycle = path[path.index(node) :] + [node]
    shown_file = (
        _shown(root, f"{cycle[0]}.toml") if isinstance(cycle[0], int) else _shown(root, SOURCE_FILE)
    )
    raise UserError(
        "the parent tree has a cycle: " + " → ".join(_label(n) for n in cycle) + " (each arrow: 'has parent')",
        file=shown_file,
        field="parent" if isinstance(cycle[0], int) else f"groups.{cycle[0]}.parent",
        fix="every chain of parents must end at a domain; change one parent in the cycle",
    )


def _label(node: Node) -> str:
    return f"rule {node}" if isinstance(node, int) else f"group {node}"


def _load_skills(root: Path, languages: set[str], rules: dict[int, Rule], parsed) -> dict[str, Skill]:
    skills: dict[str, Skill] = {}
    base = root / SKILLS
    if not base.is_dir():
        return skills
    for path in sorted(base.iterdir()):
        if not path.is_dir() or path.name == "__pycache__":
            continue
        shown = str(root / SKILLS / path.name / "skill.toml")
        skill = load(Skill, path / "skill.toml", shown, data=parsed.noted(str(path / "skill.toml")))
        if skill.name != path.name:
            raise UserError(
                f"name is {skill.name!r} but the folder is {path.name!r}",
                file=shown,
                field="name",
                fix="the skill's name equals its folder name",
            )
        _texts(skill.description, languages, shown, "description")
        for index, rule_id in enumerate(skill.implements):
            if rule_id not in rules:
                raise UserError(
                    f"rule {rule_id} does not exist in this source",
                    file=shown,
                    field=f"implements.{index}",
                    fix="a skill implements rules of its own source",
                )
        if not (path / "SKILL.md").is_file():
            raise UserError("SKILL.md is missing", file=str(path), fix="add SKILL.md next to skill.toml")
        skills[skill.name] = skill
    return skills
