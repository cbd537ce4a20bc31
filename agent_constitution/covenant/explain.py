"""`pdks explain`: both surfaces' registrations, in upstream's layout, without running a verdict (§8.1).

The session surface is assembled as a host with a session and no tool rosters would assemble it
(self-mod over the staged tool names, transcript-mod, no shell-mod, no shell skip arms); the
change-set surface as `--diff` assembles it. Drafts are listed on both surfaces as unpromoted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agent_constitution.covenant.plan import PlanError, load_plan
from agent_constitution.covenant.registrations import DEFAULT_MUTATING, Assembly, assemble

HEADERS = {
    "session": "input: call IR (one call, stdin) · disciplines {d} · sessionDisciplines {s}"
    " · disciplines: advise unless enforce: block · meta: block",
    "change-set": "input: --diff (change set, stdin) · disciplines {d} · changeSetDisciplines {c}"
    " · disciplines: advise unless enforce: block",
}
EXPLAIN_SESSION = {"evidencePath": "session.evidencePath", "userMessages": [], "toolCalls": []}


def _meta_text(label: str, protected: int) -> str:
    if label == "self-mod":
        return f"paths {protected} (common; includes the config file itself)"
    if label == "shell-mod":
        return f"paths {protected} (common)"
    return "content predicate · conditional: session.evidencePath"


def _header(plan: dict[str, Any], surface: str) -> str:
    lists = {name: n or 0 for name, n in plan["lists"].items()}
    return HEADERS[surface].format(d=lists["disciplines"], s=lists["sessionDisciplines"], c=lists["changeSetDisciplines"])


def _tally(registrations: list[Any], drafts: list[tuple[str, str, str]]) -> str:
    count = {kind: sum(r.kind == kind for r in registrations) for kind in ("meta", "declare", "skip")}
    return (f"  registrations {len(registrations)} · declare {count['declare']} · skip {count['skip']}"
            f" · meta {count['meta']} · draft {len(drafts)}")


def _surface(plan: dict[str, Any], root: Path, surface: str) -> list[str]:
    assembly = Assembly(
        root=root,
        config_path=plan["config"],
        protected=tuple(plan["protected"]),
        mutating=DEFAULT_MUTATING,
        shell=(),
        command_args=(),
        session=EXPLAIN_SESSION if surface == "session" else None,
        witness=plan["witness"],
        surface=surface,
    )
    registrations = assemble(plan, assembly)
    rows = [
        (r.kind, r.label, _meta_text(r.label, len(plan["protected"])) if r.kind == "meta" else r.describe())
        for r in registrations
    ]
    drafts = [("draft", d["id"], "unpromoted — no judgment") for d in plan["drafts"]]
    width = max(len(label) for _, label, _ in rows + drafts)
    return [_header(plan, surface), _tally(registrations, drafts)] + [f"  {kind:<8} {label:<{width}} {text}" for kind, label, text in rows + drafts]


def render(root: Path) -> str:
    plan = load_plan(root)
    lines = [f"pdks explain — {plan['config']}", ""]
    lines += _surface(plan, root, "session") + [""]
    lines += _surface(plan, root, "change-set") + [""]
    return "\n".join(lines) + "\n"


def main(root: Path) -> int:
    try:
        text = render(root)
    except PlanError as error:
        print(f"pdks explain: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # never a traceback, never half a layout on stdout
        print(f"pdks explain: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0
