"""What reviewers may spend: a group's caps (`[review.<group>]`: max-items calls, max-seconds,
max-tokens, max-cost) and the run's (`review --max-calls/--max-seconds/--max-tokens/--max-cost`).

Calls and seconds are always known; tokens and cost only where the CLI reports them (the claude
preset reports both, codex and gemini tokens only, a plain command neither): a cap on what is never
reported never stops a run, and the run's summary says that nothing was reported. A cached answer
costs nothing. The check is made before each call, so a run stops at the first call that would
start past a cap (the call in flight finishes within its timeout).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RunCaps:
    calls: int | None = None
    seconds: float | None = None
    tokens: int | None = None
    cost: float | None = None


@dataclass
class Spent:
    """What has been spent against `caps` since `started`, and what is left."""

    caps: RunCaps
    scope: str                      # "the run" | "group NAME": what the message names
    calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    reported: bool = False          # the CLI reported tokens or cost at least once
    started: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        return float("inf") if self.caps.seconds is None else self.caps.seconds - (time.monotonic() - self.started)

    def exhausted(self) -> str | None:
        caps = self.caps
        if caps.calls is not None and self.calls >= caps.calls:
            return f"{self.scope}'s budget of {caps.calls} calls is spent"
        if caps.seconds is not None and self.left() <= 0:
            return f"{self.scope}'s budget of {caps.seconds:g} seconds is spent"
        if caps.tokens is not None and self.tokens >= caps.tokens:
            return f"{self.scope}'s budget of {caps.tokens} tokens is spent ({self.tokens} reported)"
        if caps.cost is not None and self.cost >= caps.cost:
            return f"{self.scope}'s budget of {caps.cost:g} USD is spent ({self.cost:.4f} reported)"
        return None

    def spend(self, tokens: int | None, cost: float | None) -> None:
        self.calls += 1
        if tokens is not None:
            self.tokens += tokens
            self.reported = True
        if cost is not None:
            self.cost += cost
            self.reported = True


def group_caps(settings) -> RunCaps:
    return RunCaps(calls=int(settings["max_items"]), seconds=float(settings["max_seconds"]),
                   tokens=settings.get("max_tokens"), cost=settings.get("max_cost"))
