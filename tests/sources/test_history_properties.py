"""Property: whatever the history of adds and deletes, IDs are never handed out twice and every
deleted or reused ID is reported (a deleted rule put back with its own title and text is restored,
not reused)."""

import shutil
import tempfile
from pathlib import Path

import pygit2
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.authoring.history import next_free_id
from agent_constitution.authoring.validate import validate_source

from .test_authoring import SOURCE, rule

ids = st.frozensets(st.integers(min_value=1, max_value=8))


def _commit(repo: pygit2.Repository, present: frozenset[int], parents: list) -> pygit2.Oid:
    rules = repo.TreeBuilder()
    rules.insert("source.toml", repo.create_blob(SOURCE.encode()), pygit2.enums.FileMode.BLOB)
    for rule_id in present:
        rules.insert(f"{rule_id}.toml", repo.create_blob(rule(rule_id).encode()), pygit2.enums.FileMode.BLOB)
    top = repo.TreeBuilder()
    top.insert("rules", rules.write(), pygit2.enums.FileMode.TREE)
    signature = pygit2.Signature("t", "t@t")
    return repo.create_commit("HEAD", signature, signature, "step", top.write(), parents)


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(ids, min_size=1, max_size=5), working=ids, restored=ids)
def test_ids_are_never_reused_and_deletions_are_reported(
    steps: list[frozenset[int]], working: frozenset[int], restored: frozenset[int]
):
    folder = Path(tempfile.mkdtemp())
    try:
        repo = pygit2.init_repository(str(folder))
        parents: list = []
        for present in steps:
            parents = [_commit(repo, present, parents)]
        (folder / "rules").mkdir()
        (folder / "rules" / "source.toml").write_text(SOURCE)
        for rule_id in working:  # a rule in `restored` has the committed text, the others a new one
            text = rule(rule_id) if rule_id in restored else rule(rule_id, text="Another requirement.")
            (folder / "rules" / f"{rule_id}.toml").write_text(text)
        ever = frozenset().union(*steps)
        assert next_free_id(folder) == max(ever | working, default=0) + 1
        problems = [str(problem) for problem in validate_source(folder)]
        deleted = {rule_id for rule_id in ever if f"rule {rule_id} was deleted" in " ".join(problems)}
        reused = {rule_id for rule_id in ever if f"ID {rule_id} was used before" in " ".join(problems)}
        assert deleted == ever - working
        assert reused == ((working - steps[-1]) & ever) - restored
        # A rule in HEAD whose text now differs is an edit without a revision bump.
        revised = {rule_id for rule_id in working & steps[-1] if rule_id not in restored}
        assert len(problems) == len(deleted) + len(reused) + len(revised)
    finally:
        shutil.rmtree(folder)
