"""The lock stage's short way for text edits (`ruleset.relock`): the same lock and documents as the
full way, taken only when nothing but the text of path-source rules changed, and never on a state
it cannot trust."""

from __future__ import annotations

import marshal
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.errors import UserError
from agent_constitution.ruleset import relock
from agent_constitution.ruleset.inputs import input_statuses, manifest_inputs
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.ruleset.models import Rule
from agent_constitution.sources.parsed import seal, user_key
from tests.compile.support import RULES, make_repo, write_fixture_source
from tests.compile.test_doit import doit

# Rule 7 has a python check, rule 5 a command check; rule 6 (warned about on every run) is left out.
FIXTURE_RULES = {
    **RULES,
    5: {**RULES[5], "check": {"command": ["true"]}},
    7: {**RULES[7], "check": {"python": "signed"}},
}
ENABLED = (1, 2, 3, 4, 5, 7, 8)  # in some segment; 6 is in none


@pytest.fixture(autouse=True)
def _no_racy_window(monkeypatch):
    # The files of a test are seconds old: let the state vouch for them (one test keeps the window).
    monkeypatch.setattr(relock, "_RACY_NS", 0)
    # CI set in the environment makes every lock run a locked one; the tests say when they want that.
    monkeypatch.delenv("CI", raising=False)


def _repo(root: Path) -> Path:
    made = make_repo(root)
    shutil.rmtree(made / "src" / "rules")
    write_fixture_source(made / "src", FIXTURE_RULES)
    checks = made / "src" / "rules" / "checks"
    checks.mkdir()
    (checks / "signed.py").write_text("def check(context):\n    return []\n")
    manifest = made / "rules.toml"
    manifest.write_text(manifest.read_text().replace('"ac:5", "ac:6", "ac:8"', '"ac:5", "ac:8"').replace(
        'exclude = ["ac:3", "ac:6"]', 'exclude = ["ac:3"]'))
    _full(made)
    return made


def _statuses(root: Path):
    return input_statuses(manifest_inputs(root))


def _full(root: Path, **options) -> bool:
    statuses = _statuses(root)
    resolution, wrote = sync_lock(root, cache=root / "cache", **options)
    warned = any(segment.warnings for segment in resolution.segments)
    relock.record(root, root / "cache", resolution, statuses, warned=warned, canonical=not options.get("locked"))
    return wrote


def _short(root: Path, locked: bool = False) -> bool | None:
    return relock.apply(root, root / "cache", _statuses(root), locked=locked, because="--locked was given")


def _outputs(root: Path) -> dict[str, bytes]:
    paths = [root / "rules.lock", *sorted((root / "cache" / "resolved").glob("*.json"))]
    return {path.name: path.read_bytes() for path in paths}


def _edit(root: Path, rule_id: int, **fields) -> None:
    path = root / "src" / "rules" / f"{rule_id}.toml"
    data = tomlkit.parse(path.read_text())
    for field, value in fields.items():
        if value is None:
            del data[field]
        else:
            data[field] = value
    path.write_text(tomlkit.dumps(data))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return _repo(tmp_path / "repo")


def _same_as_full(root: Path) -> None:
    short = _outputs(root)
    (root / "cache" / relock.STATE).unlink()
    _full(root)
    assert _outputs(root) == short


def test_every_rule_field_is_shape_or_text():
    assert set(Rule.model_fields) == set(relock.SHAPE) | set(relock.TEXT)
    assert not set(relock.SHAPE) & set(relock.TEXT)


words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30).filter(
    lambda text: "agent-constitution" not in text)
text_edits = st.lists(
    st.tuples(
        st.sampled_from(sorted(FIXTURE_RULES)),
        st.sampled_from(["title", "text", "revision", "created", "timeout"]),
        words,
        st.integers(1, 9),
    ),
    min_size=1, max_size=4,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text_edits, st.booleans())
def test_text_edits_give_the_full_ways_lock_and_documents(edits, edit_check_module):
    with tempfile.TemporaryDirectory() as temp:
        root = _repo(Path(temp) / "repo")
        files = {path: path.read_bytes() for path in (root / "src" / "rules").rglob("*.*")}
        for rule_id, field, text, number in edits:
            if field in ("title", "text"):
                _edit(root, rule_id, **{field: {"en": text, "zh": text}})
            elif field == "revision":
                _edit(root, rule_id, revision=number)
            elif field == "created":
                _edit(root, rule_id, created=f"2026-0{number}-01")
            else:  # a check's own setting: only rules with a check have one
                check = tomlkit.parse((root / "src" / "rules" / f"{rule_id}.toml").read_text()).get("check")
                if check is not None:
                    _edit(root, rule_id, check={**check, "timeout": number * 10})
                else:
                    _edit(root, rule_id, text={"en": text, "zh": text + "。"})
        if edit_check_module:
            (root / "src" / "rules" / "checks" / "signed.py").write_text("def check(context):\n    return []  # v2\n")
        before = _outputs(root)
        wrote = _short(root)
        if all(path.read_bytes() == data for path, data in files.items()):
            # Rewritten with the same bytes: judged (its status changed) and nothing written, or, when
            # the status came out the same, not even judged.
            assert not wrote and _outputs(root) == before
            return
        if wrote is None:
            # An edit a load refuses (a title `#`, a text that breaks the outline): the short way
            # leaves it to the full way, which says why.
            with pytest.raises(UserError):
                _full(root)
            assert _outputs(root) == before
            return
        assert wrote == (_outputs(root)["rules.lock"] != before["rules.lock"])
        _same_as_full(root)


def test_a_text_edit_rewrites_only_the_documents_that_hold_the_rule(repo):
    before = _outputs(repo)
    _edit(repo, 7, text={"en": "Sign every commit.", "zh": "签名。"})  # rule 7: only in svc
    assert _short(repo) is True
    after = _outputs(repo)
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {"rules.lock", "svc.json"}
    _same_as_full(repo)


def test_the_lock_s_lines_are_rewritten_without_reading_the_lock_through_its_model(repo, monkeypatch):
    def unread(root):
        raise AssertionError("the lock was parsed")

    monkeypatch.setattr(relock, "read_lock", unread)
    _edit(repo, 7, text={"en": "Sign every commit.", "zh": "签名。"}, revision=3)
    assert _short(repo) is True
    assert 'ac:7" = { revision = 3, ' in (repo / "rules.lock").read_text()
    monkeypatch.undo()
    _same_as_full(repo)


def test_a_lock_a_locked_run_left_as_it_was_is_written_again_through_its_model(repo):
    # An older writer's bytes for the same records (here one more comment line): a locked run keeps
    # them, so the next short way cannot rewrite lines of it and writes the lock as the full way does.
    lock = repo / "rules.lock"
    lock.write_text(lock.read_text() + "# an older writer's line\n")
    _full(repo, locked=True)
    assert lock.read_text().endswith("# an older writer's line\n")
    _edit(repo, 7, text={"en": "Sign every commit.", "zh": "签名。"})
    assert _short(repo) is True
    assert "older writer" not in lock.read_text()
    _same_as_full(repo)


def test_a_rule_no_segment_enables_changes_nothing_but_is_still_judged(repo):
    before = _outputs(repo)
    _edit(repo, 6, text={"en": "Reworded.", "zh": "改写。"})
    assert _short(repo) is False
    assert _outputs(repo) == before


def test_a_check_module_edit_changes_the_digest_of_its_rules(repo):
    lock = (repo / "rules.lock").read_text()
    (repo / "src" / "rules" / "checks" / "signed.py").write_text("def check(context):\n    return None\n")
    assert _short(repo) is True
    assert (repo / "rules.lock").read_text() != lock
    _same_as_full(repo)


@pytest.mark.parametrize("fields", [
    {"parent": "ci"},
    {"status": "repealed"},
    {"requires": [1]},
    {"conflicts": [2]},
    {"tier": "user"},
    {"constitution": {"min": "0.1"}},
    {"check": {"python": "other"}},
])
def test_a_change_of_shape_takes_the_full_way(repo, fields):
    checks = repo / "src" / "rules" / "checks"
    (checks / "other.py").write_text("def check(context):\n    return []\n")
    _full(repo)  # the new module is an input the state knows
    _edit(repo, 4, **fields)
    assert _short(repo) is None


@pytest.mark.parametrize("change", ["source.toml", "constitution", "manifest", "new rule", "removed rule", "other file"])
def test_anything_but_rule_text_takes_the_full_way(repo, change):
    if change == "source.toml":
        path = repo / "src" / "rules" / "source.toml"
        path.write_text(path.read_text().replace('"Python projects."', '"Python code."'))
    elif change == "constitution":
        path = repo / "src" / "constitution" / "2026-12" / "articles" / "01-basics" / "01-ask.toml"
        path.write_text(path.read_text().replace("Ask before you act on:", "Ask first:"))
    elif change == "manifest":
        path = repo / "rules.toml"
        path.write_text(path.read_text() + "\n# a comment\n")
    elif change == "new rule":
        (repo / "src" / "rules" / "9.toml").write_text((repo / "src" / "rules" / "7.toml").read_text().replace("id = 7", "id = 9"))
    elif change == "removed rule":
        (repo / "src" / "rules" / "6.toml").unlink()
    else:
        (repo / "src" / "rules" / "checks" / "helpers.py").write_text("X = 1\n")
        _full(repo)
        (repo / "src" / "rules" / "checks" / "helpers.py").write_text("X = 2\n")
    assert _short(repo) is None


@pytest.mark.parametrize("broken", [
    "not toml = = =",
    'id = 4\nrevision = 1\nstatus = "active"\nparent = "pm"\ntitle = { en = "T" }\ntext = { en = "x", zh = "y" }\n',
    'id = 5\nrevision = 1\nstatus = "active"\nparent = "pm"\ntitle = { en = "T", zh = "T" }\ntext = { en = "x", zh = "y" }\n',
    'id = 4\nrevision = 1\nstatus = "active"\nparent = "pm"\ntitle = { en = "T", zh = "T" }\ntext = { en = "x", zh = "y" }\nsurprise = 1\n',
    'id = 4\nrevision = 1\nstatus = "active"\nparent = "pm"\ntitle = { en = "T", zh = "T" }\ntext = { en = "<!-- agent-constitution:begin -->", zh = "y" }\n',
])
def test_an_invalid_rule_takes_the_full_way_which_reports_it(repo, broken):
    (repo / "src" / "rules" / "4.toml").write_text(broken)
    assert _short(repo) is None
    with pytest.raises(UserError) as error:
        sync_lock(repo, cache=repo / "cache")
    assert "4.toml" in str(error.value.file)


def test_a_missing_check_module_takes_the_full_way(repo):
    (repo / "src" / "rules" / "checks" / "signed.py").unlink()
    _edit(repo, 7, text={"en": "Sign.", "zh": "签。"})
    assert _short(repo) is None


def _sealed(path: Path) -> dict:
    return marshal.loads(path.read_bytes().partition(b"\n")[2])


def _reseal(path: Path, data: dict) -> None:
    body = marshal.dumps(data)
    path.write_bytes(seal(user_key(), body) + b"\n" + body)


@pytest.mark.parametrize("damage", [
    "", "{", "garbage\n{}", "unsealed edit", "another key", "types", "document", "lock", "format", "python", "code",
])
def test_a_state_it_cannot_trust_is_no_state(repo, damage):
    state = repo / "cache" / relock.STATE
    data = _sealed(state)
    if damage == "unsealed edit":
        head, _, body = state.read_bytes().partition(b"\n")
        state.write_bytes(head + b"\n" + marshal.dumps({**marshal.loads(body), "warned": False}))
    elif damage == "another key":
        body = marshal.dumps(data)
        state.write_bytes(seal(b"0" * 64, body) + b"\n" + body)
    elif damage == "types":
        _reseal(state, {**data, "rules": [], "inputs": None})
    elif damage == "document":
        path = repo / "cache" / "resolved" / "svc.json"
        path.write_text(path.read_text().replace("Sign commits", "Sign nothing"))
    elif damage == "lock":
        path = repo / "rules.lock"
        path.write_text(path.read_text() + "\n")
    elif damage in ("format", "python", "code"):
        _reseal(state, {**data, damage: {"format": relock.FORMAT + 1, "python": "2.7", "code": ()}[damage]})
    else:
        state.write_text(damage)
    _edit(repo, 7, text={"en": "Sign.", "zh": "签。"})
    assert _short(repo) is None


def test_a_sealed_state_of_this_version_is_taken(repo):
    state = repo / "cache" / relock.STATE
    _reseal(state, _sealed(state))  # the control for the test above
    _edit(repo, 7, text={"en": "Sign.", "zh": "签。"})
    assert _short(repo) is True


def test_a_run_that_warned_takes_the_full_way_next_time(tmp_path):
    root = make_repo(tmp_path / "repo")  # rule 6 requires rule 3 in another subtree: a warning
    _full(root)
    _edit(root, 7, text={"en": "Sign.", "zh": "签。"})
    assert _short(root) is None


def test_a_locked_run_refuses_the_change_as_the_full_way_does(repo):
    _edit(repo, 7, revision=2)
    state = (repo / "cache" / relock.STATE).read_bytes()
    with pytest.raises(UserError) as short:
        _short(repo, locked=True)
    (repo / "cache" / relock.STATE).write_bytes(state)
    with pytest.raises(UserError) as full:
        sync_lock(repo, locked=True, cache=repo / "cache")
    assert str(short.value) == str(full.value)
    assert "revises ac:7 1 → 2" in str(short.value)


def test_a_locked_run_passes_an_edit_the_lock_does_not_record(repo):
    before = _outputs(repo)
    _edit(repo, 6, text={"en": "Reworded.", "zh": "改写。"})
    assert _short(repo, locked=True) is False
    assert _outputs(repo) == before


def test_the_state_is_gone_while_the_short_way_writes(repo, monkeypatch):
    _edit(repo, 7, text={"en": "Sign.", "zh": "签。"})

    def fail(*args, **kwargs):
        assert not (repo / "cache" / relock.STATE).exists()
        raise OSError("disk full")

    monkeypatch.setattr(relock, "write_if_changed", fail)
    with pytest.raises(OSError):
        _short(repo)
    assert not (repo / "cache" / relock.STATE).exists()


def test_a_file_changed_just_before_the_state_was_written_is_judged_again(repo, monkeypatch):
    time.sleep(0.5)
    _edit(repo, 7, text={"en": "Sign.", "zh": "签。"})
    # A window that the fixture's files are older than, and the edit is not (two seconds in use).
    monkeypatch.setattr(relock, "_RACY_NS", 300_000_000)
    assert _short(repo) is True
    state = _sealed(repo / "cache" / relock.STATE)
    young = [path for path, status in state["inputs"].items() if status is None]
    assert [Path(path).name for path in young] == ["7.toml"]  # vouched for by nobody
    assert _short(repo) is False  # taken as changed, judged, and found the same


def test_compile_takes_the_short_way_end_to_end(tmp_path):
    root = _repo(tmp_path / "repo")
    (root / "cache" / relock.STATE).unlink()
    time.sleep(2.1)  # past the racy window of the files just written
    doit(root, "compile")
    parsed = sorted((tmp_path / "user-cache" / "parsed").glob("*.marshal"))
    kept = {path: path.stat().st_mtime_ns for path in parsed}
    _edit(root, 7, text={"en": "Sign every commit, reworded.", "zh": "签名。"})
    result = doit(root, "compile")
    assert ".  lock" in result.stdout and "agents:svc/AGENTS.md" in result.stdout
    assert "Sign every commit, reworded." in (root / "svc" / "AGENTS.md").read_text()
    # No source was loaded: the parsed-rule cache was not even opened for writing.
    assert {path: path.stat().st_mtime_ns for path in parsed} == kept
    short = _outputs(root)
    (root / "cache" / relock.STATE).unlink()
    os.utime(root / "rules.toml")
    doit(root, "compile")
    assert _outputs(root) == short


@pytest.mark.parametrize("what", ["check module", "rule file"])
def test_a_fifo_in_place_of_an_edited_file_takes_the_full_way_without_hanging(repo, what):
    """A path source is a folder anybody may have put anything in: nothing is opened that would block."""
    path = repo / "src" / "rules" / ("checks/signed.py" if what == "check module" else "7.toml")
    path.unlink()
    os.mkfifo(path)
    if what == "check module":
        _edit(repo, 7, text={"en": "Sign.", "zh": "签。"})
    assert _short(repo) is None
    with pytest.raises(UserError):
        sync_lock(repo, cache=repo / "cache")
