"""The review loop under attack: where a verdict came from, a `[review]` command changed in a pull request,
a reviewer that prints without end, and any `rules.review.toml` a contributor may write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.checks.reviewer import BadAnswer, Reviewer, ask
from agent_constitution.checks.verdicts import (
    KEY_ENV,
    REVIEW_FILE,
    Memory,
    Recorded,
    admitted,
    answer_digest,
    read_memory,
    refusal,
    seal,
    write_memory,
)
from agent_constitution.errors import UserError

from .test_reviewer import calibrated, review, reviewed  # noqa: F401 - the fixture
from .test_tasks import doit

COMMAND = ("claude", "-p", "--output-format", "json", "--json-schema", "{schema}")


def verdict(**fields) -> Recorded:
    base = dict(rule="ac:2", segment=".", revision=1, subject="sha256:" + "a" * 64, check_said="violation",
                verdict="satisfied", reason="fine", reviewer="default")
    return Recorded(**{**base, **fields})


def test_what_counts_under_each_requirement():
    key = b"team-key"
    hand = verdict()
    recorded = verdict(command=COMMAND, answer=answer_digest('{"verdict": "satisfied"}'))
    sealed = verdict(command=COMMAND, answer=recorded.answer)
    sealed = Recorded(**{**sealed.__dict__, "seal": seal(sealed, key)})
    assert all(refusal(v, "any", COMMAND, None) is None for v in (hand, recorded, sealed))
    assert refusal(hand, "reviewed", COMMAND, None) == "it was written by hand (no reviewer command and answer recorded)"
    assert refusal(recorded, "reviewed", COMMAND, None) is None
    assert "recorded by another command" in refusal(recorded, "reviewed", ("other-reviewer",), None)
    assert refusal(recorded, "sealed", COMMAND, key) == (
        "its seal does not verify under the review key (written or edited without it)")
    assert refusal(sealed, "sealed", COMMAND, key) is None
    assert refusal(sealed, "sealed", COMMAND, None) == f"its seal cannot be verified: {KEY_ENV} is not set in this environment"
    # A seal covers every field: an edited reason (or verdict) no longer verifies.
    edited = Recorded(**{**sealed.__dict__, "reason": "the reviewer said so"})
    assert refusal(edited, "sealed", COMMAND, key) is not None


def test_the_requirement_is_the_rules_group_not_the_one_a_verdict_names(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    groups = {"strict": {"rules": ["ac:*"], "command": list(COMMAND), "verdicts": "reviewed"},
              "lax": {"rules": ["team:*"], "verdicts": "any"}}
    forged = verdict(reviewer="lax")  # written by hand, naming a group that takes any verdict
    kept, notes = admitted(Memory((forged,)), groups)
    assert kept.verdicts == ()
    assert notes == ["the verdict on ac:2 in . (satisfied) does not count: it was written by hand (no reviewer"
                     " command and answer recorded), and its reviewer group requires reviewed verdicts"]


def _enable(root: Path, line: str) -> None:
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().replace('preset = "claude"\n', f'preset = "claude"\n{line}\n'))


def _forge(root: Path) -> None:
    """A contributor's own `satisfied` verdict for the violation, its subject copied from queue.json."""
    items = json.loads((root / "cache/review/queue.json").read_text())["items"]
    item = next(item for item in items if item["result"]["ref"] == "ac:2")
    document = tomlkit.document()
    entry = tomlkit.table()
    for name, value in (("rule", "ac:2"), ("segment", "."), ("revision", 1), ("subject", item["digest"]),
                        ("check-said", "violation"), ("verdict", "satisfied"), ("reason", "looks fine to me"),
                        ("reviewer", "default")):
        entry.add(name, value)
    table = tomlkit.aot()
    table.append(entry)
    document.add("verdict", table)
    (root / REVIEW_FILE).write_text(tomlkit.dumps(document))


def test_a_hand_written_verdict_is_reported_and_a_team_can_refuse_it(reviewed: Path, tmp_path: Path):  # noqa: F811
    assert doit(reviewed, "checks").returncode == 1
    _forge(reviewed)
    taken = doit(reviewed, "checks")
    assert taken.returncode == 0, taken.stdout + taken.stderr  # by default it counts, but not silently
    assert "note: the verdict on ac:2 in . (satisfied) was written by hand: no reviewer command and answer" in taken.stderr
    _enable(reviewed, 'verdicts = "reviewed"')
    assert doit(reviewed, "lock").returncode == 0
    refused = doit(reviewed, "checks")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "does not count: it was written by hand" in refused.stderr
    assert "requires reviewed verdicts" in refused.stderr


def test_doit_review_records_provenance_and_seals_under_the_team_key(reviewed: Path, tmp_path: Path, monkeypatch):  # noqa: F811
    _enable(reviewed, 'verdicts = "sealed"')
    assert doit(reviewed, "checks").returncode == 1
    run, _ = review(reviewed, tmp_path, **{KEY_ENV: "s3cret-team-key"})
    assert run.returncode == 0, run.stdout + run.stderr
    entry = next(v for v in tomllib.loads((reviewed / REVIEW_FILE).read_text())["verdict"] if v["rule"] == "ac:2")
    assert entry["command"] == list(COMMAND)
    log = json.loads(next((reviewed / "cache/review/log").glob("ac-2-*.json")).read_text())
    assert entry["answer"] == answer_digest(log["answer"])  # the digest is over the raw answer
    assert entry["seal"].startswith("hmac-sha256:") and "s3cret" not in (reviewed / REVIEW_FILE).read_text()
    env = {**os.environ, KEY_ENV: "s3cret-team-key"}
    # A group that requires sealed verdicts is gated by a sealed calibration only: the fixture's is not.
    advised = subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=reviewed, capture_output=True, text=True, env=env)
    assert advised.returncode == 1 and "no sealed calibration of its command verifies" in advised.stderr
    calibrated(reviewed, key=b"s3cret-team-key")
    checked = subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=reviewed, capture_output=True, text=True, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # Without the key the seal cannot be checked: the verdict does not count, and the check says why.
    unkeyed = doit(reviewed, "checks")
    assert unkeyed.returncode == 1 and f"its seal cannot be verified: {KEY_ENV} is not set" in unkeyed.stderr
    # An edit of the recorded reason breaks the seal.
    text = (reviewed / REVIEW_FILE).read_text()
    (reviewed / REVIEW_FILE).write_text(text.replace("the TODO is inside a string", "all good"))
    edited = subprocess.run([sys.executable, "-m", "doit", "checks"], cwd=reviewed, capture_output=True, text=True, env=env)
    assert edited.returncode == 1 and "its seal does not verify" in edited.stderr


def test_a_changed_review_command_is_reported_by_a_locked_run_and_never_run_in_ci(reviewed: Path, tmp_path: Path):  # noqa: F811
    assert doit(reviewed, "lock").returncode == 0
    assert 'review = "sha256:' in (reviewed / "rules.lock").read_text()
    assert doit(reviewed, "checks").returncode == 1
    # In CI, nothing runs unless the job allows it.
    run, calls = review(reviewed, tmp_path, CI="1")
    assert run.returncode != 0 and calls == []
    assert "`doit review` runs no reviewer command in CI unless the job allows it" in run.stdout + run.stderr
    run, calls = review(reviewed, tmp_path, CI="1", AGENT_CONSTITUTION_REVIEW_IN_CI="1")
    assert run.returncode == 0 and sorted(calls) == ["ac:2", "ac:3"], run.stdout + run.stderr
    # A pull request changes the command: compile --locked says so, and CI runs nothing.
    manifest = reviewed / "rules.toml"
    manifest.write_text(manifest.read_text().replace('preset = "claude"\n', 'command = ["sh", "-c", "env"]\n'))
    locked = doit(reviewed, "lock", "--locked")
    assert locked.returncode != 0
    assert "records other [review] commands than rules.toml names now" in locked.stdout + locked.stderr
    (reviewed / REVIEW_FILE).unlink()
    run, calls = review(reviewed, tmp_path, CI="1", AGENT_CONSTITUTION_REVIEW_IN_CI="1")
    assert run.returncode != 0 and calls == []
    assert "differs from what rules.lock records, so no reviewer command runs in CI" in run.stdout + run.stderr


def test_a_reviewer_that_prints_without_end_is_stopped_at_the_cap(tmp_path: Path):
    script = tmp_path / "flood.py"
    # 64 MiB, four times the cap (issue 37 measured a 200 MB answer: 2.6 GB of memory, a 1.2 GB log).
    script.write_text("import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(64):\n    sys.stdout.write(chunk)\n")
    reviewer = Reviewer("default", (sys.executable, str(script)), "answer", 60.0)
    with pytest.raises(BadAnswer) as raised:
        ask(reviewer, "judge this\n", 60.0)
    assert str(raised.value) == ("output cap: stdout passed 16 MiB, the cap for a reviewer's stdout; the command"
                                 " was stopped")


def _is_user_error_or_memory(data: bytes, root: Path) -> None:
    (root / REVIEW_FILE).write_bytes(data)
    try:
        memory = read_memory(root)
    except UserError:
        return
    # Whatever was read is usable: written back and read again as the same memory.
    write_memory(root, memory)
    assert read_memory(root) == memory


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_any_bytes_are_a_memory_or_one_user_error(tmp_path: Path, data: bytes):
    _is_user_error_or_memory(data, tmp_path)


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 10**30), st.floats(allow_nan=True),
                     st.text(max_size=8), st.dates(), st.sampled_from(["ac:2", ".", "satisfied", "violation",
                                                                        "false-positive", "sha256:x"]))
_KEYS = st.sampled_from(["rule", "segment", "revision", "subject", "check-said", "verdict", "reason", "reviewer",
                         "locations", "command", "answer", "seal", "kind", "fixture", "draft", "issue", "check",
                         "other"])
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
                       max_leaves=12)
_DOCUMENTS = st.dictionaries(st.sampled_from(["verdict", "proposal", "version"]),
                             st.lists(st.dictionaries(_KEYS, _VALUES, max_size=10), max_size=3) | _VALUES, max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_DOCUMENTS)
def test_any_toml_document_is_a_memory_or_one_user_error(tmp_path: Path, document: dict):
    try:
        text = tomlkit.dumps(document)
    except Exception:  # noqa: BLE001 - a value TOML cannot hold (None): not a document
        return
    _is_user_error_or_memory(text.encode(), tmp_path)


def test_a_folder_or_fifo_in_place_of_the_review_file(tmp_path: Path):
    os.mkfifo(tmp_path / REVIEW_FILE)
    with pytest.raises(UserError, match="is not a regular file"):
        read_memory(tmp_path)
