"""A segment's up-to-date check reads its resolution again only when the file is not the one its step read."""

from __future__ import annotations

import json

from agent_constitution.compile.inputs import resolved_path
from agent_constitution.compile.layout import Settings
from agent_constitution.compile.outputs import segment
from agent_constitution.compile.outputs.base import Plan
from tests.compile.support import make_repo, resolve_into_cache


def test_an_unchanged_resolution_is_not_read_again_and_a_new_one_is(tmp_path, monkeypatch):
    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    plan = Plan(root, root / "cache", Settings(), (".", "svc"))
    jobs = {job.subject.path: job for job in segment.OUTPUT.jobs(plan)}
    # The root's step reads the nested segments' documents too: run the nested one first, as doit does.
    values = {path: json.loads(json.dumps(segment.OUTPUT.run(plan, jobs[path], locked=False).values()))
              for path in ("svc", ".")}  # as doit keeps them: JSON
    read = []
    monkeypatch.setattr(segment, "segment_state", lambda *args: read.append(args) or (_ for _ in ()).throw(
        AssertionError("read")))
    assert all(segment.OUTPUT.fresh(plan, jobs[path], values[path]) for path in ("svc", "."))
    assert read == []
    (root / "svc" / "AGENTS.md").write_text((root / "svc" / "AGENTS.md").read_text().replace("Text", "Txet"))
    assert not segment.OUTPUT.fresh(plan, jobs["svc"], values["svc"])  # a hand edit is still seen
    monkeypatch.undo()
    original, read = segment.segment_state, []
    monkeypatch.setattr(segment, "segment_state", lambda *args: read.append(args[1].path) or original(*args))
    document = resolved_path(root / "cache", "svc")
    data = json.loads(document.read_text())
    data["rules"] = data["rules"][:1]
    document.write_text(json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n")
    # A new document: the state is read and compared again, by the root too (whose text names svc
    # only while svc adds a rule, so it stays fresh), and svc's differs.
    assert segment.OUTPUT.fresh(plan, jobs["."], values["."])
    assert not segment.OUTPUT.fresh(plan, jobs["svc"], values["svc"])
    assert read == [".", "svc"]


def test_a_new_resolution_file_with_the_same_meaning_gives_its_stamp_to_keep(tmp_path):
    """Fresh from a rewritten document: `fresh` says which stamp to keep (`Refreshed`), so that the
    group's task saves it and the next check reads nothing again (the root's reads every segment's)."""
    from agent_constitution.compile.outputs.base import Refreshed

    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    plan = Plan(root, root / "cache", Settings(), (".", "svc"))
    jobs = {job.subject.path: job for job in segment.OUTPUT.jobs(plan)}
    values = {path: json.loads(json.dumps(segment.OUTPUT.run(plan, jobs[path], locked=False).values()))
              for path in ("svc", ".")}
    assert segment.OUTPUT.fresh(plan, jobs["."], values["."]) is True  # nothing new: nothing to keep
    document = resolved_path(root / "cache", "svc")
    data = document.read_bytes()
    document.unlink()
    document.write_bytes(data)  # the same bytes in a new file, as the lock stage's rename leaves them
    found = segment.OUTPUT.fresh(plan, jobs["."], values["."])
    assert isinstance(found, Refreshed) and found["resolved"] == segment.resolution_stamp(plan.cache, jobs["."].subject)
    kept = json.loads(json.dumps({**values["."], **found}))
    assert segment.OUTPUT.fresh(plan, jobs["."], kept) is True
