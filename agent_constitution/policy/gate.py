"""The policy at the stages: `locked_policy(resolution)` for the lock stage, `check_gate(root)` for checks.

The lock stage enforces the policy on every resolution and records its digest in `rules.lock`
(`[manifest] policy`), so CI can assert which policy a repository was built under, and a locked run
(`--locked`, CI) whose policy in force is not the one the lock records fails. The check stage reads
the resolution the lock stage wrote; it holds the baseline file and the waivers to the policy (they
change without a new lock) and sends a repository whose lock was made under another policy back
to the lock stage.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from doit import get_var

from agent_constitution.errors import OutOfDate
from agent_constitution.policy.discover import discover, specs
from agent_constitution.ruleset.locked import locked_run


def locked_policy(resolution, today: datetime.date | None = None) -> str | None:
    """Enforce the policy in force on `resolution` (and the repository's baseline file); its digest."""
    found = discover(resolution.project_root)
    if not found.layers:
        return None
    from agent_constitution.checks import baseline  # lazy: pydantic models, read only under a policy
    from agent_constitution.policy.apply import enforce  # lazy: pydantic models, read only under a policy

    enforce(resolution, found, today, baseline.read(resolution.project_root))
    return found.digest


def check_gate(root: Path) -> None:
    """For the check stage: nothing without a policy (a stat of the managed path). With one: a locked
    run whose `rules.lock` records another policy's digest fails; the resolution is enforced again
    unless the lock records this policy and the policy says nothing of waivers and baselines (which
    change without a new lock)."""
    locked, because = locked_run(variable=_variable("locked"))
    if not specs() and not locked:
        return
    from agent_constitution.ruleset.lockfile import read_lock  # lazy: pydantic models, read only under a policy

    found = discover(root)
    lock = read_lock(root)
    recorded = lock.manifest.policy if lock is not None else None
    if recorded != found.digest:
        if locked:
            raise OutOfDate(stale(recorded, found.digest, because), file="rules.lock",
                            fix="run `agent-constitution compile` under the policy that is to govern the repository,"
                                " and commit rules.lock")
    if not found.layers or (recorded == found.digest and not any(model.waivers.model_fields_set for model in found.models)):
        return
    from agent_constitution.checks import baseline  # lazy: pydantic models, read only under a policy
    from agent_constitution.policy.apply import enforce  # lazy: pydantic models, read only under a policy
    from agent_constitution.ruleset.resolve import resolve  # lazy: the resolver, run only under a policy

    enforce(resolve(root, lock), found, None, baseline.read(root))


def stale(recorded: str | None, digest: str | None, because: str) -> str:
    made = f"under the policy {recorded}" if recorded else "under no organisation policy"
    now = f"the policy in force is {digest}" if digest else "no policy is in force now"
    return (f"rules.lock was made {made}, but {now}, and {because}: a repository is checked under the policy"
            " its lock records")


def _variable(name: str) -> str | None:
    """A doit command-line variable (`locked=1`, what `check --locked` passes), outside doit none."""
    return get_var(name)
