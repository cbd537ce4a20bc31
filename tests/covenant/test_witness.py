"""The human witness valve (seed 003 witness section; POLYDEUKES §6, §10.4)."""

import pytest

from agent_constitution.covenant.witness import expired_at, human_valve, invokes, is_open, valve_state_line

TOKEN = "pdks witness"
NOW = 1_789_466_400_000
TTL_MS = 10 * 60_000
WITNESS = {"token": TOKEN, "ttlMinutes": 10}


def session(*messages):
    return {"userMessages": list(messages), "toolCalls": []}


def message(text, at=NOW):
    return {"text": text} if at is None else {"text": text, "timestampMs": at}


@pytest.mark.parametrize(
    ("text", "opens"),
    [
        ("pdks witness\n\n이제 훅 파일을 고쳐줘", True),  # the seed's invoking message
        ("그런데 `pdks witness` 는 언제 만료되나요?", False),  # the seed's mention
        ("pdks witness", True),
        ("  pdks witness \r\nthen fix the hook", True),
        ("\u00a0pdks witness\u3000", True),
        ("`pdks witness`", False),
        ("\npdks witness", False),
        ("please pdks witness", False),
        ("pdks witness please", False),
        ("fix it\npdks witness", False),
        ("pdks witnessed", False),
        ("pdks witness\rmore", False),  # a lone CR is not a line break
    ],
)
def test_only_the_first_line_alone_invokes(text, opens):
    assert invokes(text, TOKEN) is opens
    assert is_open(TOKEN, 10, session(message(text)), NOW) is opens


@pytest.mark.parametrize(
    ("at", "opens"),
    [
        (None, False),  # no timestamp: freshness unprovable
        (NOW - TTL_MS - 1, False),
        (NOW - TTL_MS, True),  # the interval is closed
        (NOW, True),
        (NOW + 1, False),  # a future timestamp is refused
    ],
)
def test_time_window(at, opens):
    assert is_open(TOKEN, 10, session(message(TOKEN, at)), NOW) is opens


def test_any_fresh_human_message_opens():
    old, fresh = message(TOKEN, NOW - 3 * TTL_MS), message(TOKEN, NOW - 1000)
    assert is_open(TOKEN, 10, session(old, message("unrelated"), fresh), NOW)


def test_valve_is_armed_only_with_a_witness_section_and_a_session():
    armed = human_valve(WITNESS, session(message(TOKEN)), clock=lambda: NOW)
    assert armed is not None and armed() is True
    assert human_valve(None, session(message(TOKEN))) is None
    assert human_valve(WITNESS, None) is None
    shut = human_valve(WITNESS, session(message(TOKEN, NOW - TTL_MS - 1)), clock=lambda: NOW)
    assert shut() is False


def test_the_clock_is_read_at_each_judgment():
    ticks = iter([NOW, NOW + TTL_MS + 1])
    valve = human_valve(WITNESS, session(message(TOKEN)), clock=lambda: next(ticks))
    assert valve() is True
    assert valve() is False


def test_malformed_messages_never_open():
    assert not is_open(TOKEN, 10, {"userMessages": [{"text": 3}, "x", {"timestampMs": NOW}]}, NOW)
    assert not is_open(TOKEN, 10, session({"text": TOKEN, "timestampMs": True}), NOW)
    assert not is_open(TOKEN, 10, {"userMessages": "nope"}, NOW)


def test_expiry_instant_and_valve_state_line():
    stale = session(message(TOKEN, NOW - TTL_MS - 5000))
    assert expired_at(TOKEN, 10, stale, NOW) == NOW - 5000
    assert expired_at(TOKEN, 10, session(message(TOKEN)), NOW) is None
    line = valve_state_line(WITNESS, stale, "polydeukes.config.yaml", NOW)
    assert line == (
        "a person can open this for 10 minutes by sending the witness token alone on the first line "
        "of a message; the last witness expired at 2026-09-15T09:59:55.000Z"
    )
    assert TOKEN not in line
    assert valve_state_line(None, stale, "polydeukes.config.yaml", NOW) == (
        "no witness is configured; a person can add witness: { token, ttlMinutes } to "
        "polydeukes.config.yaml, or make this change themselves"
    )
    assert valve_state_line(WITNESS, session(), "polydeukes.config.yaml", NOW) is None
