"""Task families, one module per stage.

Each family module has `NAME` (its doit basename), `GROUPS` (the group tasks it belongs to) and
`tasks(project)`, a generator of doit task dicts that wire pure stage functions to files. The order
of `FAMILIES` is the order `doit list` shows.
"""

from agent_constitution.tasks import render

FAMILIES = (render,)

GROUPS = {
    "compile": "Build everything agents read: the constitution, the lock, AGENTS.md, skills and hooks.",
    "check": "Run the checks: the constitution's, the rule source's and the selected rules'.",
}
