"""Task families, one module per stage.

Each family module has `NAME` (its doit basename), `GROUPS` (the group tasks it belongs to) and
`tasks(project)`, a generator of doit task dicts that wire pure stage functions to files, all with
the basename `NAME` unless the family is not `DELAYED`. A `DELAYED = True` family is created only
when a command reaches it. An `ALONE = True` family's task depends on no other: `doit run` asked for
it alone creates only its tasks (`POS_ARG`: it takes the rest of the command line). The order of
`FAMILIES` is the order the stages run in a build.

Every doit command (even `doit list`) imports every family module and creates the tasks of every
family that is not `DELAYED`, so a family module imports its stage modules inside the functions that
use them: creating its tasks imports only what creating them needs, and an action or an up-to-date
check imports its stage when it runs.
"""

from agent_constitution.tasks import (
    agents,
    baseline,
    checks,
    fleet,
    constitution_checks,
    fetch,
    impact,
    lock,
    outdated,
    readback,
    render,
    replace,
    resolution,
    review,
    review_ingest,
    site,
    upgrade,
    validate_source,
    verify,
)

FAMILIES = (
    # compile: the constitution, the sources, the lock, the resolution, then what agents read
    render,
    fetch,
    lock,
    verify,
    resolution,
    agents,
    # check
    constitution_checks,
    validate_source,
    checks,
    # on demand
    baseline,
    review,
    review_ingest,
    upgrade,
    outdated,
    readback,
    replace,
    site,
    impact,
    fleet,
)

# A family's old doit name, kept as an alias that runs it (users' scripts name it): `doit resolve`
# resolved nothing (the lock stage resolves), `doit source` named a thing where it runs a validation.
OLD_NAMES = {resolution.NAME: "resolve", validate_source.NAME: "source"}

# Options of a group task, passed on to its members (see loader._group).
GROUP_OPTIONS = {
    "compile": [
        {"name": "locked", "long": "locked", "type": bool, "default": False,
         "help": "fail instead of changing rules.lock or any output that is not what compile writes (CI set: the same)"},
    ],
}

GROUPS = {
    "compile": "Build everything agents read: the constitution, the lock, AGENTS.md, skills and hooks.",
    "check": "Run the checks: the constitution's, the rule source's and the selected rules'.",
}
