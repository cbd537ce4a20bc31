"""The human witness valve: a person's token reopens a blocked verdict for `ttlMinutes` (§6).

A person types the configured token alone on the first line of a message; from that message's
timestamp the valve is open for `ttlMinutes`, then blocking resumes by itself (no stored state:
every judgment re-reads the clock). Invoking differs from talking about it: the token quoted,
backticked, asked about or placed below the first line does not open it. The token is not a secret;
the defence is provenance: only messages the adapter attested as human input (`session.userMessages`)
are read, never tool arguments, top-level `userMessages` or the agent's own text.

The runner consults the valve after the verdict and only when it translated to `blocked`; passed and
advised results are never touched. A declaration's own `witness` block is a second, OR-ed path that
the engine evaluates. Standard library only (hot path).
"""

from __future__ import annotations

import math
import time

from agent_constitution.covenant.values import js_trim

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any


def invokes(text: str, token: str) -> bool:
    """The message's first line (up to the first LF), trimmed, is exactly the trimmed token."""
    return js_trim(text.split("\n", 1)[0]) == js_trim(token)


def _timestamp(message: dict[str, Any]) -> float | None:
    stamp = message.get("timestampMs")
    if isinstance(stamp, bool) or not isinstance(stamp, int | float) or not math.isfinite(stamp):
        return None
    return float(stamp)


def _human_messages(session: dict[str, Any]) -> Iterable[dict[str, Any]]:
    messages = session.get("userMessages")
    if not isinstance(messages, list):
        return ()
    return (m for m in messages if isinstance(m, dict) and isinstance(m.get("text"), str))


def is_open(token: str, ttl_minutes: float, session: dict[str, Any], now_ms: float) -> bool:
    """Some human message invokes the token and `0 <= now - timestamp <= ttl` (closed interval).

    A message without a timestamp cannot prove freshness and never opens; a future one neither.
    """
    if not js_trim(token):
        return False
    ttl_ms = ttl_minutes * 60000
    for message in _human_messages(session):
        if not invokes(message["text"], token):
            continue
        stamp = _timestamp(message)
        if stamp is not None and 0 <= now_ms - stamp <= ttl_ms:
            return True
    return False


def now_ms() -> float:
    return time.time() * 1000


def human_valve(
    witness: dict[str, Any] | None,
    session: dict[str, Any] | None,
    clock: Callable[[], float] = now_ms,
) -> Callable[[], bool] | None:
    """The valve shared by every registration of a run; None when it is not armed.

    Armed only when the config has `witness` and the input carries a `session` (a host that proves
    no human messages, such as Grok, never opens it). Calling the result reads the clock once.
    """
    if not witness or not isinstance(session, dict):
        return None
    token = witness.get("token")
    ttl = witness.get("ttlMinutes")
    if not isinstance(token, str) or isinstance(ttl, bool) or not isinstance(ttl, int | float):
        return None
    return lambda: is_open(token, ttl, session, clock())


def expired_at(token: str, ttl_minutes: float, session: dict[str, Any], now: float) -> float | None:
    """When the last witness expired (epoch ms), or None when no past token message proves one."""
    latest = None
    for message in _human_messages(session):
        stamp = _timestamp(message)
        if stamp is None or stamp > now or not invokes(message["text"], token):
            continue
        latest = stamp if latest is None else max(latest, stamp)
    if latest is None or latest + ttl_minutes * 60000 >= now:
        return None
    return latest + ttl_minutes * 60000


def valve_state_line(
    witness: dict[str, Any] | None, session: dict[str, Any], config_file: str, now: float
) -> str | None:
    """The one stderr line after a session run that blocked with the valve shut (never the token).

    None when the session holds no human message (nobody to tell).
    """
    if not any(True for _ in _human_messages(session)):
        return None
    if not witness:
        return (
            "no witness is configured; a person can add witness: { token, ttlMinutes } to "
            f"{config_file}, or make this change themselves"
        )
    ttl = witness["ttlMinutes"]
    shown = int(ttl) if float(ttl).is_integer() else ttl
    line = (
        f"a person can open this for {shown} minutes by sending the witness token alone on the "
        "first line of a message"
    )
    expired = expired_at(witness["token"], ttl, session, now)
    if expired is not None:
        seconds, millis = divmod(int(expired), 1000)
        instant = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        line += f"; the last witness expired at {instant}.{millis:03d}Z"
    return line
