"""The read-back proof: for every enabled agent and every segment, the rules in force there that the
agent's loaded text does not state.

Each agent's loader model (`hosts.loaders`) gives what a session working on a file of the segment's
folder loads; a rule counts as loaded where its statement is: its line in the compact form
(`- ac:9 …`) or its heading in the full form (`### ac:9 …`). A rule in force that no loaded piece
states is missed; when the piece that held it was cut at the agent's limit it is named as cut.
What the documentation leaves open is the worst case (the models say so in `View.unknown`).

The rules in force in a segment are its resolution (`cache/resolved/<segment>.json`), the same
documents compile renders from, so the proof checks the outputs against their inputs, not against
themselves.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_constitution.compile.tokens import count_tokens
from agent_constitution.hosts.loaders import loader
from agent_constitution.hosts.loaders.common import Repo, View
from agent_constitution.ruleset.resolved import read_resolved, resolved_path
from agent_constitution.hosts.loaders.common import status
from agent_constitution.hosts.loaders.others import cline_listed

PROBE = "file"  # the name of the file a session works on in a segment's folder (any name: globs take `<folder>/**`)
# A folder below a segment's that has no instruction file of its own: where a session may also start.
BELOW = "any-folder"
_STATED = re.compile(r"^(?:- |#+ (?:<a id=\"[^\"]*\"></a>)?)([\w.-]+:\d+)\b", re.M)


@dataclass(frozen=True)
class Finding:
    """One agent's view of one segment, and what it misses."""

    segment: str
    view: View
    missed: tuple[str, ...]  # rules in force the loaded text does not state
    cut: tuple[str, ...]  # of those, the ones a limit cut off
    twice: tuple[str, ...] = ()  # rules stated in more than one of the files it loads

    @property
    def holds(self) -> bool:
        """Every rule in force loaded, none of them twice."""
        return not self.missed and not self.twice


_NOT_IN_FORCE = re.compile(r"^## Not in force here\n.*?(?=^#{1,2} |\Z)", re.M | re.S)


# The mark of a rule a nested file names only as the parent of its own (compile/document.py `elsewhere`).
_ELSEWHERE = re.compile(r"^.*(?: \(stated in a file above\)|（见上层文件）)[ \t]*$", re.M)


@lru_cache(maxsize=4096)
def stated(text: str) -> frozenset[str]:
    """The rules a text states (compact lines and headings), by their `source:id` label; a segment's
    list of the rules not in force there states none, nor does a heading or line of a rule it names
    only as stated in a file above."""
    return frozenset(_STATED.findall(_ELSEWHERE.sub("", _NOT_IN_FORCE.sub("", text))))


def probe(segment: str) -> str:
    return PROBE if segment == "." else f"{segment}/{PROBE}"


def in_force(cache: Path, segments: list[str]) -> dict[str, tuple[str, ...]]:
    """segment → the labels of the rules in force there, from the resolution compile renders."""
    return {segment: tuple(rule.ref for rule in read_resolved(resolved_path(cache, segment)).rules)
            for segment in segments}


def prove(root: Path, agents: tuple[str, ...], rules: dict[str, tuple[str, ...]],
          copilot: str = "editor") -> list[Finding]:
    """Every enabled agent's every view of every segment, with the rules it misses (Copilot's products:
    those `[compile] copilot` serves)."""
    repo = Repo(root)
    return [finding for segment, wanted in rules.items() for finding in prove_segment(repo, segment, wanted, agents, copilot)]


def prove_segment(repo: Repo, segment: str, wanted: tuple[str, ...], agents: tuple[str, ...],
                  copilot: str = "editor") -> list[Finding]:
    """Every enabled agent's every view of one segment (`prove`); `repo.asked` gets what they read."""
    found: list[Finding] = []
    below = probe(BELOW if segment == "." else f"{segment}/{BELOW}")
    for agent in agents:
        load = loader(agent, copilot)
        for view in load(repo, probe(segment)):
            found.append(_finding(repo, segment, view, wanted))
        # What depends on the working folder is proved for a session started in a folder below too
        # (Claude Code does not expand an ancestor's imports there).
        for view in load(repo, below):
            if view.scenario.startswith("session started in"):
                found.append(_finding(repo, segment, view, wanted))
    return found


def answer(repo: Repo, asked: tuple, *, recorded: bool = False):
    """What `repo` answers to one question a loader asked (`Repo.asked`), as JSON data (lists, as a
    kept answer reads back): a file by its status (`recorded`: the one taken before it was read), a
    folder by whether it is one, a listing by what it lists."""
    kind = asked[0]
    if kind == "text":
        return repo.status(asked[1]) if recorded else status(repo.root / asked[1])
    if kind == "dir":
        return repo.is_dir(asked[1])
    if kind == "files":
        return repo.files(*asked[1:])
    found, depth, crossed = cline_listed(repo)  # ("cline-listed",)
    return [list(found), depth, crossed]


def kept(finding: Finding) -> dict:
    """A finding as the read-back keeps it between runs: what its report needs (not the loaded text)."""
    view = finding.view
    return {"view": [view.agent, view.product, view.scenario, view.limit, list(view.unknown)],
            "missed": list(finding.missed), "cut": list(finding.cut), "twice": list(finding.twice)}


def from_kept(segment: str, data: dict) -> Finding:
    agent, product, scenario, limit, unknown = data["view"]
    return Finding(segment, View(agent, product, scenario, (), limit, tuple(unknown)), tuple(data["missed"]),
                   tuple(data["cut"]), tuple(data["twice"]))


def _finding(repo: Repo, segment: str, view: View, wanted: tuple[str, ...]) -> Finding:
    # A line a limit cuts in two is not a loaded statement: only whole lines count.
    each = [stated(_whole_lines(piece)) for piece in view.pieces]
    loaded = frozenset().union(*each)
    missed = tuple(rule for rule in wanted if rule not in loaded)
    tails: set[str] = set()
    for piece in view.pieces:
        if piece.lost:
            whole = repo.text(piece.path) or ""
            tails |= stated(whole) - stated(_whole_lines(piece))
    counts = Counter(rule for labels in each for rule in labels) if len(each) > 1 else {}
    twice = tuple(sorted((rule for rule, count in counts.items() if count > 1), key=_order))
    return Finding(segment, view, missed, tuple(rule for rule in missed if rule in tails), twice)


def _whole_lines(piece) -> str:
    if not piece.lost or piece.text.endswith("\n"):
        return piece.text
    return piece.text[: piece.text.rfind("\n") + 1]


def _order(rule: str) -> tuple[str, int]:
    source, _, number = rule.rpartition(":")
    return source, int(number) if number.isdigit() else 0


def explain(root: Path, agent: str, path: str, copilot: str | None = None) -> list[View]:
    """One agent's views of a session working on `path` (relative to the root)."""
    return loader(agent, copilot)(Repo(root), path)


def problems(findings: list[Finding]) -> list[str]:
    """One line per agent, product and way of working that misses a rule in force (or loads one twice)
    somewhere: how many segments, and the first with the rules it misses."""
    lines = []
    for kind in ("missed", "twice"):
        groups: dict[tuple[str, str, str], list[Finding]] = {}
        for finding in findings:
            if getattr(finding, kind):
                view = finding.view
                groups.setdefault((view.agent, view.product, _way(finding)), []).append(finding)
        for (agent, product, way), found in groups.items():
            first = found[0]
            rules = getattr(first, kind)
            where = "the root segment" if first.segment == "." else f"segment {first.segment}"
            others = len({f.segment for f in found} - {first.segment})
            more = f" (and {others} more segment{'s' if others > 1 else ''})" if others else ""
            if kind == "missed":
                cut = f", {len(first.cut)} of them cut at its limit ({first.view.limit})" if first.cut else ""
                lines.append(f"{agent} ({product}, {_said(first)}) misses {len(rules)} of the rules in force "
                             f"in {where}{more}: {_some(rules)}{cut}")
            else:
                lines.append(f"{agent} ({product}, {_said(first)}) loads {len(rules)} rules twice in "
                             f"{where}{more}: {_some(rules)}")
    return lines


# What makes each known gap hold, by agent (and product): the fix line of its warning.
FIXES = {
    "claude-code": 'set claude = "link" under [compile] in rules.toml: each CLAUDE.md becomes a link to the AGENTS.md '
                   "beside it, which Claude Code reads in every folder of the path (an ancestor's @ import it does not "
                   "expand)",
    "aider": "add CONVENTIONS.md to the `read:` list of .aider.conf.yml (compile adds a `read:` line only to a "
             "configuration that has none)",
    "Copilot in VS Code": 'when it loads the root rules twice: set "chat.useClaudeMdFile" to false in '
                          ".vscode/settings.json, or delete that key and compile writes it (VS Code reads the root "
                          'CLAUDE.md beside AGENTS.md, one text with claude = "link"); else run '
                          "`agent-constitution agents --explain PATH --agent copilot`",
    "Cline legacy extension": "none in the repository: the legacy extension loads every AGENTS.md its file listing "
                              "reaches for every task (cline/cline legacy-extension external-rules.ts L135-L202), "
                              "and Codex needs each segment's rules in the AGENTS.md of its folder; Cline's SDK "
                              "(its CLI, and the SDK extension now rolling out) reads .cline/rules, which holds",
    "junie": "clear Junie's Guidelines path (Settings | Tools | Junie | Project Settings) so that it reads "
             ".junie/guidelines.md, which compile writes",
}
GENERAL_FIX = ("run `agent-constitution agents --explain PATH --agent NAME` to see that agent's view; docs/compile.md "
               "(\"The read-back proof\") names the layout that holds for it")


def fix_for(line: str) -> str:
    """The fix of a `problems` line: the known one for its agent or product, else how to look closer."""
    agent, _, rest = line.partition(" (")
    product = rest.partition(",")[0]
    return FIXES.get(product) or FIXES.get(agent) or GENERAL_FIX


def _way(finding: Finding) -> str:
    """The way of working without its folder: "session started in" for "session started in svc/"."""
    scenario, segment = finding.view.scenario, finding.segment
    for folder in (f"{segment}/{BELOW}/", f"{BELOW}/", f"{segment}/", "the root"):
        scenario = scenario.replace(folder, "…")
    return scenario


def _said(finding: Finding) -> str:
    """The way of working as a reader says it: the probe folder below a segment is "a subfolder"."""
    scenario, segment = finding.view.scenario, finding.segment
    if segment != ".":
        scenario = scenario.replace(f"{segment}/{BELOW}/", f"a subfolder of {segment}/")
    return scenario.replace(f"{BELOW}/", "a subfolder")


def _some(rules: tuple[str, ...]) -> str:
    return ", ".join(rules[:8]) + (f" and {len(rules) - 8} more" if len(rules) > 8 else "")


def table(findings: list[Finding], tokens: bool = True) -> str:
    """The proof as a Markdown table: a row per segment, agent and view."""
    # A root-only agent loads the same text in every segment: counted once.
    counted = lru_cache(maxsize=None)(count_tokens)
    rows = ["| segment | agent | product, way of working | loads (bytes) | tokens | misses | cut at the limit | twice |"
            " unknown |", "|---|---|---|---:|---:|---|---|---|---|"]
    for finding in findings:
        view = finding.view
        count = str(counted(view.text)) if tokens else "—"
        rows.append(f"| {finding.segment} | {view.agent} | {view.product}, {view.scenario} | {view.size} | {count} | "
                    f"{_some(finding.missed) or 'none'} | {_some(finding.cut) or '—'} | {_some(finding.twice) or '—'} | "
                    f"{'; '.join(view.unknown) or '—'} |")
    failing = sum(1 for finding in findings if not finding.holds)
    rows.append("")
    rows.append(f"{len(findings)} views, {failing} missing a rule in force or loading one twice" if failing else
                f"{len(findings)} views: every agent loads every rule in force in every segment")
    return "\n".join(rows)


def explained(views: list[View], path: str, wanted: tuple[str, ...] = ()) -> str:
    """One agent's view of one file: each piece it loads, why, its bytes and what a limit cut."""
    lines = []
    for view in views:
        lines.append(f"{view.agent}: {view.product}, {view.scenario}, working on {path}")
        for piece in view.pieces:
            cut = f", {piece.lost} not loaded ({view.limit})" if piece.lost else ""
            lines.append(f"  {piece.path}: {len(piece.text.encode('utf-8'))} bytes, {piece.why}{cut}")
        if not view.pieces:
            lines.append("  (no instruction file)")
        lines.append(f"  total: {view.size} bytes, {count_tokens(view.text)} tokens; limit: {view.limit}")
        if wanted:
            missed = [rule for rule in wanted if rule not in stated(view.text)]
            lines.append(f"  rules in force here not loaded: {_some(tuple(missed))}" if missed
                         else f"  every rule in force here is loaded ({len(wanted)})")
        lines.extend(f"  unknown: {item}" for item in view.unknown)
        lines.extend(f"  source: {cite.url} (read {cite.read}): {cite.says}" for cite in view.cites)
    return "\n".join(lines)


def segment_of(path: str, segments: list[str]) -> str:
    """The segment whose folder holds `path`: the deepest enclosing one, else the root."""
    above = [s for s in segments if s != "." and (path == s or path.startswith(s + "/"))]
    return max(above, key=len) if above else "."
