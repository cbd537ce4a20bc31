"""`review --audit N`: N passing results per run sent to the reviewers, the riskiest first, so that a
check that wrongly passes (a false negative, never queued otherwise) is found and proposed for a fix
like a false positive.

Risk, highest first: the rule's past disagreements on record (each proposal to fix its check counts
two); its check changed since a reviewer last judged it (its revision is above every recorded
verdict's on it) or was never judged; then a draw seeded by the date, so that each day's run samples
other results among the equally risky ones and every passing result is audited in time.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence

from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.verdicts import Memory


def risk(result: Result, memory: Memory) -> float:
    proposals = sum(1 for proposal in memory.proposals if proposal.rule == result.ref)
    judged = [verdict.revision for verdict in memory.verdicts if verdict.rule == result.ref]
    changed = not judged or result.revision > max(judged)
    return 2.0 * proposals + (1.0 if changed else 0.0)


def choose(results: Sequence[Result], n: int, memory: Memory, today: datetime.date | None = None) -> list[Result]:
    """The `n` passing results to audit, riskiest first."""
    if n <= 0:
        return []
    day = (today or datetime.date.today()).isoformat()

    def draw(result: Result) -> bytes:
        return hashlib.sha256(f"{day}\0{result.segment}\0{result.ref}".encode()).digest()

    passing = [result for result in results if result.outcome is Outcome.PASS]
    return sorted(passing, key=lambda result: (-risk(result, memory), draw(result)))[:n]
