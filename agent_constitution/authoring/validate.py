"""Source validation (`doit validate-source`, part of `doit check` in a rule source repository).

Every rule, group, domain and skill parses and is consistent (`load_source`); the requirements
between its rules have no cycle (also through a choice group: enabling any alternative must not need
the group again), no redundant edge and no conflict with a rule the declaring rule pulls in, the
constraints a manifest that selects those rules would otherwise fail on (`graph_problems`; a rule
that requires a rule of another source is judged when a manifest selects it, with that source at its
locked version); no rule still holds the template `doit new-rule` wrote; compared with the git
history, no rule file was deleted and no new rule took an ID used before (a deleted rule restored
with its title and text is not a new rule); and a rule whose title, text or check (its python module,
or a script of the source its command runs as `{source}/…`) changed since the reference (`--base
REF`, default HEAD) has a higher revision; a draft or trial rule changes in place (same ID), an active
one whose meaning changes is superseded instead (seed 000, 试行规定). Each failure is one `UserError`.

Against the constitution the source publishes (its newest edition under `constitution/`): every rule
names its `authority` and each anchor is a provision of that edition; every `{@…}` in a rule's text
is a provision, `{@rule:N}` a rule of this source, or `{@rule:name:N}` with `name` in source.toml
`[sources]`; and while that edition is a draft, no rule is trial or active (seed 000: 宪法还是草案时，
每条规定都是 draft; superseded and repealed rules keep their place in the history). A source that
publishes no constitution has its anchors resolved where a manifest binds one (compile).

`trial_rules(root, today)` lists the trial rules and their age, which `doit validate-source` prints once the
source is valid (DESIGN §5, decision 9: trial → active is a reviewed change in the source).
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pygit2

from agent_constitution.edition.models import Edition
from agent_constitution.errors import UserError
from agent_constitution.readers import decode, parse_toml, read_toml
from agent_constitution.refs import RULE, parse_rule_reference
from agent_constitution.ruleset.source import RuleSource, load_source
from agent_constitution.authoring.history import History, open_history, working_rule_ids
from agent_constitution.authoring.new_rule import TEMPLATE
from agent_constitution.authoring.published import published_constitution
from agent_constitution.edition import REFERENCE
from agent_constitution.edition.references import OPENING, targets
from agent_constitution.ruleset.graph import REDUNDANT, World, violations

# What counts as a change of the rule that needs a new revision (the check module counts too).
_REVISED = ("title", "text", "check")


def validate_source(root: Path, *, base: str | None = None) -> list[UserError]:
    problems: list[UserError] = []
    try:
        source = load_source(root)
        problems += graph_problems(source)
        edition, failed = published_constitution(root)
        problems += failed + constitution_problems(source, edition) + sentence_problems(source)
    except UserError as error:
        problems.append(error)
    present = working_rule_ids(root)
    current = {rule_id: _toml_file(root / "rules" / f"{rule_id}.toml") for rule_id in present}
    problems += _templates(root, current)
    history = open_history(root)
    if history is None or (head := history.head()) is None:
        return problems  # a plain folder or a repository without commits has no history to compare
    try:
        reference = history.commit(base) if base else head
    except UserError as error:
        return [*problems, error]
    problems += _deleted(root, history, head, present)
    problems += _reused(root, history, reference, present)
    problems += _revisions(root, history, reference, base or "HEAD", current)
    return problems


def graph_problems(source: RuleSource) -> list[UserError]:
    """The requirement-graph constraints of seed 000 over the rules of one source."""
    key = str(source.root)
    # Another source's names lead to keys that are not loaded: the edges to its rules are left out.
    others = {name: f"{name}:" for name in source.config.sources}
    world = World(
        sources={key: source},
        names={key: source.name, **{other: name for name, other in others.items()}},
        dependencies={key: others},
        unloaded=frozenset(others.values()),
    )
    problems = _cycle_problems(source, world, key)
    for violation in violations(world, [(key, rule_id) for rule_id in source.rules], of_a_source=True):
        problems.append(_violation_problem(source, world, violation))
    return problems


def _cycle_problems(source: RuleSource, world, key: str) -> list[UserError]:
    """Each requirement cycle, reported in the file of its lowest rule and read from there."""
    import networkx as nx

    graph = world.graph.copy()
    for group in source.groups:  # enabling a group means enabling one of its alternatives
        graph.add_edges_from(((key, group), (key, child)) for child in source.children[group])
    problems = []
    for component in nx.strongly_connected_components(graph):
        start = min((node for node in component if isinstance(node[1], int)), key=lambda n: n[1], default=None)
        if start is None or (len(component) == 1 and not graph.has_edge(start, start)):
            continue
        cycle = [edge[0] for edge in nx.find_cycle(graph.subgraph(component), start)]
        start = min((node for node in cycle if isinstance(node[1], int)), key=lambda n: n[1])
        cycle = cycle[cycle.index(start) :] + cycle[: cycle.index(start)]
        ring = " → ".join(str(node[1]) for node in [*cycle, cycle[0]])
        problems.append(
            UserError(
                f"the requirements form a cycle: {ring} (each arrow: 'requires' or 'is under'; a group"
                " leads to each of its alternatives)",
                file=source.rule_file(start[1]),
                field="requires",
                fix="drop one requirement of the cycle (a rule's parent rule counts as a requirement)",
            )
        )
    return problems


def _violation_problem(source: RuleSource, world, violation) -> UserError:
    """A redundant requirement, or a conflict the rule pulls in, as the source's authors read it."""
    (node, target), path = violation.nodes, violation.path
    if violation.constraint == REDUNDANT:
        reason = (
            "it is the rule's parent, which counts as a requirement"
            if len(path) == 2
            else "it already follows from " + " → ".join(str(n[1]) for n in path)
        )
        return UserError(
            f"requires lists {target[1]}, but {reason}",
            file=source.rule_file(node[1]),
            field="requires",
            fix=f"remove {target[1]} from requires",
        )
    # PULLED_IN
    declarer = world.declares_conflict(node, target)
    other = target if declarer == node else node
    return UserError(
        f"conflicts lists {other[1]}, but enabling rule {node[1]} pulls rule {target[1]} in: "
        + " → ".join(str(n[1]) for n in path),
        file=source.rule_file(declarer[1]),
        field="conflicts",
        fix=f"remove {other[1]} from conflicts, or drop the requirement that pulls it in",
    )


def constitution_problems(source: RuleSource, edition: Edition | None) -> list[UserError]:
    """Authority anchors and `{@…}` references resolved, and draft rules under a draft constitution."""
    anchors = targets(edition) if edition is not None else None
    draft = edition is not None and edition.index.status == "draft"
    problems = []
    for rule_id, rule in source.rules.items():
        file = source.rule_file(rule_id)
        if not rule.authority:
            problems.append(UserError(
                "authority is empty: a rule names the constitution provisions it refines",
                file=file, field="authority",
                fix='list the anchors of those provisions, e.g. authority = ["must-ask"]',
            ))
        for index, anchor in enumerate(rule.authority):
            if anchors is not None and anchor not in anchors:
                problems.append(_unknown_anchor(file, f"authority.{index}", anchor, edition))
        for language, text in rule.text.items():
            for match in OPENING.finditer(text):
                problem = _reference_problem(source, match[0], anchors, edition)
                if problem:
                    problems.append(UserError(problem[0], file=file, field=f"text.{language}", fix=problem[1]))
        if draft and rule.status in ("trial", "active"):
            problems.append(UserError(
                f"the rule is {rule.status}, but the constitution it refines (edition {edition.index.edition},"
                f" revision {edition.index.revision}) is a draft: while the constitution is a draft, every rule is draft",
                file=file, field="status",
                fix='set status = "draft" (trial and active wait for an approved constitution)',
            ))
    return problems


# A sentence ends at . ! ? before whitespace or the end of the text, or at a full-width 。！？; code
# spans do not count (a path or a command holds periods). The same count as rule 41's check.
_CODE = re.compile(r"`[^`]*`")
_END = re.compile(r"[.!?](?=\s|$)|[。！？]")
SENTENCES = (3, 5)


def sentences(text: str) -> int:
    return len(_END.findall(_CODE.sub("code", text.strip())))


def sentence_problems(source: RuleSource) -> list[UserError]:
    """Every text of a rule in force or on its way (not superseded or repealed, whose texts are
    history) has three to five sentences: the requirement, the reason, how to check (seed 000)."""
    low, high = SENTENCES
    problems = []
    for rule_id, rule in source.rules.items():
        if rule.status in ("superseded", "repealed"):
            continue
        for language, text in rule.text.items():
            if TEMPLATE in text:
                continue  # reported as the template `doit new-rule` wrote
            count = sentences(text)
            if not low <= count <= high:
                problems.append(UserError(
                    f"the {language} text has {count} sentence{'s' if count != 1 else ''}; a rule's text has"
                    f" {low} to {high}: the requirement, the reason and how compliance is checked",
                    file=source.rule_file(rule_id), field=f"text.{language}",
                    fix=("add the reason and how to check it" if count < low
                         else "split the rule: its text states more than one requirement"),
                ))
    return problems


def _unknown_anchor(file: Path, field: str, anchor: str, edition: Edition) -> UserError:
    return UserError(
        f"{anchor!r} is not a provision of constitution edition {edition.index.edition} revision {edition.index.revision}",
        file=file, field=field,
        fix="name an article, section or item (section.item) id of that edition",
    )


def _reference_problem(source: RuleSource, written: str, anchors, edition) -> tuple[str, str] | None:
    """What is wrong with one `{@…}` of a rule's text, as (message, fix), or None."""
    match = REFERENCE.fullmatch(written)
    how = "write {@provision}, {@rule:42} (a rule of this source) or {@rule:name:42} (name from [sources])"
    if match is None:
        return f"{written!r} is not a reference", how
    body = match[1]
    if not body.startswith(RULE):
        if anchors is not None and body not in anchors:
            error = _unknown_anchor(Path(), "", body, edition)
            return f"{written} refers to a provision that does not exist: {error.message}", error.fix
        return None
    parsed = parse_rule_reference(body)
    if parsed is None:
        return f"{written} is not a rule reference", how
    name, number = parsed
    if name is None and number not in source.rules:
        return f"{written} refers to rule {number}, which this source does not have", "refer to a rule of this source, or write {@rule:name:N} for another source's"
    if name is not None and name not in source.config.sources:
        return (f"{written} names source {name!r}, which rules/source.toml [sources] does not declare",
                f"declare {name} in [sources] of rules/source.toml, or refer to a rule of this source")
    return None


def trial_rules(root: Path, today: datetime.date) -> list[str]:
    """One line per trial rule and its age (from `created`): trial → active is a reviewed change."""
    source = load_source(root)
    lines = []
    for rule_id, rule in source.rules.items():
        if rule.status != "trial":
            continue
        days = (today - rule.created).days if rule.created else None
        age = f"on trial for {days} day{'' if days == 1 else 's'} (since {rule.created})" if rule.created else "created: unknown"
        lines.append(f"trial rule {rule_id} {source.title(rule_id)!r}: {age}")
    return lines


def _toml(data: bytes) -> dict | None:
    try:
        return parse_toml(decode(data, "rule"), "rule")
    except UserError:
        return None  # load_source reports the file


def _toml_file(path: Path) -> dict | None:
    try:
        return read_toml(path)
    except UserError:
        return None  # load_source reports the file


def _shown(root: Path, rule_id: int) -> Path:
    return root / "rules" / f"{rule_id}.toml"


def _templates(root: Path, current: dict[int, dict | None]) -> list[UserError]:
    problems = []
    for rule_id, data in sorted(current.items()):
        if data is None:
            continue
        fields = [
            f"{table}.{language}"
            for table in ("title", "text")
            for language, value in (data.get(table) or {}).items()
            if isinstance(value, str) and TEMPLATE in value
        ]
        if fields:
            problems.append(
                UserError(
                    f"{', '.join(fields)} still {'hold' if len(fields) > 1 else 'holds'} the template "
                    "that `doit new-rule` wrote",
                    file=_shown(root, rule_id),
                    fix="write the title and the text (3-5 sentences: requirement, reason, how to check) "
                    "in every language",
                )
            )
    return problems


def _deleted(root: Path, history: History, head: pygit2.Commit, present: set[int]) -> list[UserError]:
    problems = []
    for rule_id, commit in sorted(history.committed_ids([head]).items()):
        if rule_id in present:
            continue
        problems.append(
            UserError(
                f"rule {rule_id} was deleted (its file is in commit {commit.short_id}); rules are never "
                "deleted, so that an ID always means the same requirement",
                file=_shown(root, rule_id),
                fix=f"restore it (git checkout {commit.short_id} -- {history.prefix}rules/{rule_id}.toml) and set "
                'status = "repealed", or status = "superseded" with superseded_by',
            )
        )
    return problems


def _reused(root: Path, history: History, reference: pygit2.Commit, present: set[int]) -> list[UserError]:
    existing = history.rule_blobs(reference)
    used = history.committed_ids([reference])
    problems = []
    for rule_id in sorted(present - set(existing)):
        commit = used.get(rule_id)
        if commit is None:
            continue
        old = _toml(history.rule_blobs(commit)[rule_id].data) or {}
        if _restored(old, _toml_file(_shown(root, rule_id))):
            continue  # the fix for a deleted rule: it is back, with its requirement
        title = next(iter((old.get("title") or {}).values()), "")
        problems.append(
            UserError(
                f"rule {rule_id} is new here, but ID {rule_id} was used before (commit {commit.short_id}: "
                f"{title!r}); IDs are never reused",
                file=_shown(root, rule_id),
                field="id",
                fix=f"give the new rule the next free ID (doit new-rule picks it), and restore the old "
                f"rules/{rule_id}.toml",
            )
        )
    return problems


def _restored(old: dict, now: dict | None) -> bool:
    """A rule file put back after its deletion: the same title and text as its last committed version
    (its status, e.g. repealed, and revision may have changed)."""
    return now is not None and all(now.get(field) == old.get(field) for field in ("title", "text"))


def _revisions(
    root: Path, history: History, reference: pygit2.Commit, ref_name: str, current: dict[int, dict | None]
) -> list[UserError]:
    problems = []
    for rule_id, blob in sorted(history.rule_blobs(reference).items()):
        now, before = current.get(rule_id), _toml(blob.data)
        if now is None or before is None:
            continue  # deleted (reported above) or not valid TOML (load_source reports it)
        old_revision, new_revision = before.get("revision"), now.get("revision")
        if not isinstance(old_revision, int) or not isinstance(new_revision, int):
            continue
        if new_revision < old_revision:
            problems.append(
                UserError(
                    f"the revision went down from {old_revision} (at {ref_name}) to {new_revision}",
                    file=_shown(root, rule_id),
                    field="revision",
                    fix=f"revisions only go up: set revision = {old_revision + 1} if the rule changed, "
                    f"else {old_revision}",
                )
            )
            continue
        changed = _changed(root, history, reference, before, now)
        if changed and new_revision == old_revision:
            if now.get("status") in ("draft", "trial"):
                why = (f"a {now['status']} rule changes in place, also when what counts as compliant changes,"
                       " until it becomes active")
            else:
                why = "if what counts as compliant changed, write a new rule instead and supersede this one"
            problems.append(
                UserError(
                    f"{' and '.join(changed)} changed since {ref_name}, but the revision is still {new_revision}",
                    file=_shown(root, rule_id),
                    field="revision",
                    fix=f"set revision = {new_revision + 1} ({why})",
                )
            )
    return problems


def _changed(root: Path, history: History, reference: pygit2.Commit, before: dict, now: dict) -> list[str]:
    """What of a rule changed since `reference`: its revised fields, its check module, its check scripts."""
    changed = [field for field in _REVISED if before.get(field) != now.get(field)]
    if _check_module_changed(root, history, reference, before, now):
        changed.append("check module")
    return changed + [f"check script {path}" for path in _check_scripts_changed(root, history, reference, before, now)]


def _check_module_changed(root: Path, history: History, reference: pygit2.Commit, before: dict, now: dict) -> bool:
    module = (now.get("check") or {}).get("python")
    if not isinstance(module, str) or module != (before.get("check") or {}).get("python"):
        return False  # no python check, or a renamed module: the [check] table already differs
    relative = f"rules/checks/{module}.py"
    path = root / relative
    return history.blob(reference, relative) != (path.read_bytes() if path.is_file() else None)


def _check_scripts_changed(root: Path, history: History, reference: pygit2.Commit, before: dict, now: dict) -> list[str]:
    """The files of the source an external check runs (`{source}/path` arguments) whose bytes changed."""
    command = (now.get("check") or {}).get("command")
    if not isinstance(command, list) or command != (before.get("check") or {}).get("command"):
        return []  # no command, or a changed one: the [check] table already differs
    changed = []
    for argument in command:
        if not isinstance(argument, str) or not argument.startswith("{source}/"):
            continue
        relative = argument.removeprefix("{source}/")
        path = root / relative
        if not path.resolve().is_relative_to(root.resolve()):
            continue  # outside the source: not part of it (load_source reports a bad command)
        if history.blob(reference, relative) != (path.read_bytes() if path.is_file() else None):
            changed.append(relative)
    return changed
