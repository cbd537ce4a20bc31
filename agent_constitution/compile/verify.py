"""Whether the compiled outputs in the working tree are what compile would write: `check`'s own test.

Each output's step runs as under `--locked` (`owned.refuse_change`, `skills.checked`): it makes the
bytes it would write, compares them with the file, and fails naming the file on any difference,
writing nothing. The banner's digest plays no part (anyone can recompute it after an edit), so a
region edited and resealed in a pull request is caught here as well as by `compile --locked`.

Left out: pruning and the chain report (neither writes an output of its own, and compile
--locked refuses to prune), and git hooks in `.git/`, which no clone carries. A repository where
compile never wrote anything (its root AGENTS.md has no compiled region) is not judged here: rule
ac:5 reports the missing file, and `compile --locked` refuses to create one.
"""

from __future__ import annotations

from agent_constitution.compile.outputs.base import Plan
from agent_constitution.errors import UserError

LEFT_OUT = ("prune", "chains")


def compiled_here(plan: Plan) -> bool:
    from agent_constitution.compile import owned
    from agent_constitution.compile.layout import FILE

    return owned.is_owned_region(plan.file(".", FILE))


def differences(plan: Plan) -> list[UserError]:
    """One error per output that is not what compile would write (the first difference of each job)."""
    from agent_constitution.compile.outputs import REGISTRY

    found = []
    for output in REGISTRY:
        if output.name in LEFT_OUT:
            continue
        for job in output.jobs(plan):
            if not job.checked or job.name.startswith(".git/"):
                continue
            try:
                output.run(plan, job, locked=True)
            except UserError as error:
                found.append(error)
    return found
