"""The tool list: the external tools the selected rules' checks run, as seed 000 asks compile to say.

Read from each segment's resolution (the rules' `[check] tools` and `[check.install]`, data, so no
check code runs), printed one line per tool and written to `cache/tools.json` for a CI step to install
them before `doit check`:

    {"version": 1, "tools": [{"tool": "zizmor", "pypi": "zizmor==1.32.0", "rules": ["ac:75"]},
                             {"tool": "gofmt", "url": "https://go.dev/doc/install", "rules": ["ac:108"]}]}

A tool a rule lists without saying how to install it has neither `pypi`, `npm` nor `url`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from agent_constitution import fsio
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.compile.outputs.segment import documents_stamp
from agent_constitution.layout import TOOLS
from agent_constitution.refs import rule_key

RESOLVE = "resolution"
VERSION = 1


class ToolList:
    name = "tools"

    def jobs(self, plan: Plan) -> list[Job]:
        return [Job(
            name="tools",
            doc=f"List the external tools the selected rules' checks run, with their pinned versions, in cache/{TOOLS}",
            task_dep=(RESOLVE,),
            cleaned=False,
        )]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        stamp = documents_stamp(plan)  # before the reads: a later change is never missed
        tools = needed_tools(plan)
        text = json.dumps({"version": VERSION, "tools": tools}, indent=2, ensure_ascii=False) + "\n"
        fsio.write_if_changed(plan.cache / TOOLS, text, within=plan.cache)
        return Step(lines=tuple(tool_lines(tools)), state=digest([tools]), extra={"resolved": stamp})

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        # The resolutions it was read from, unchanged: the same list (reading them all was a third of a
        # no-op at 1,000 segments). A new one reruns it, which costs what comparing its list would.
        return bool(values) and values.get("resolved") == documents_stamp(plan) and (plan.cache / TOOLS).is_file()

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return []


def needed_tools(plan: Plan) -> list[dict]:
    """Every tool of a selected rule's check, once, with how to install it and the rules that run it."""
    from agent_constitution.compile.inputs import resolved_path  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)
    from agent_constitution.ruleset.summary import summaries  # lazy: only when the tool list's step runs

    # A segment that selects nothing has no resolution of its own.
    present = [segment for segment in plan.segments if resolved_path(plan.cache, segment).is_file()]
    found: dict[str, dict] = {}
    # From the kept summaries (the rules whose check names tools, in each document's order): a
    # one-rule edit reads the documents it changed, not every one.
    for summary in summaries(plan.cache, present).values():
        for ref, tools, install in summary.checks:
            for tool in tools:
                entry = found.setdefault(tool, {"tool": tool, **{way: pin for way, pin in (install.get(tool) or {}).items()
                                                                if pin is not None}, "rules": []})
                if ref not in entry["rules"]:
                    entry["rules"].append(ref)
    return [{**entry, "rules": sorted(entry["rules"], key=_rule_order)} for _, entry in sorted(found.items())]


def _rule_order(ref: str) -> tuple[str, int]:
    return rule_key(ref)


def tool_lines(tools: list[dict]) -> list[str]:
    """One summary line per tool: `tool zizmor: pypi zizmor==1.32.0 (ac:75)`."""
    lines = []
    for entry in tools:
        rules = ", ".join(entry["rules"])
        if "pypi" in entry or "npm" in entry:
            way = "pypi" if "pypi" in entry else "npm"
            lines.append(f"tool {entry['tool']}: {way} {entry[way]} ({rules})")
        elif "url" in entry:
            lines.append(f"tool {entry['tool']}: install from {entry['url']} ({rules})")
        else:
            lines.append(f"tool {entry['tool']}: no install given ({rules})")
    return lines


OUTPUT = ToolList()
