"""Properties of the cache's verification: any proof file, any one-byte change, never a wrong "intact"."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.errors import UserError
from agent_constitution.sources import content, gitproof, limits


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> tuple[Path, str, bytes, str]:
    """A commit of a small source extracted with its proof: (tree folder, commit, proof, digest)."""
    base = tmp_path_factory.mktemp("proof")
    repo = pygit2.init_repository(str(base / "repo"), bare=True)
    rules = repo.TreeBuilder()
    for name, text in (("source.toml", 'name = "t"\n'), ("1.toml", "id = 1\n")):
        rules.insert(name, repo.create_blob(text.encode()), pygit2.enums.FileMode.BLOB)
    checks = repo.TreeBuilder()
    checks.insert("r1.py", repo.create_blob(b"RULE = 1\n"), pygit2.enums.FileMode.BLOB_EXECUTABLE)
    rules.insert("checks", checks.write(), pygit2.enums.FileMode.TREE)
    top = repo.TreeBuilder()
    top.insert("rules", rules.write(), pygit2.enums.FileMode.TREE)
    top.insert("README.md", repo.create_blob(b"not content\n"), pygit2.enums.FileMode.BLOB)
    signature = pygit2.Signature("t", "t@t")
    commit = str(repo.create_commit("HEAD", signature, signature, "m", top.write(), []))
    proof, digest = content.extract(repo, commit, base / "tree", "the source t")
    return base / "tree", commit, proof, digest


def test_the_extracted_tree_verifies(extracted):
    folder, commit, proof, digest = extracted
    assert gitproof.verify(folder, commit, proof) == digest
    assert gitproof.verify(folder, "0" * 40, proof) is None


@given(st.binary(max_size=400))
@settings(max_examples=200)
def test_any_proof_bytes_give_none_and_never_raise(data: bytes):
    with tempfile.TemporaryDirectory() as folder:
        assert gitproof.verify(Path(folder), "a" * 40, data) is None


@given(position=st.integers(min_value=0), value=st.integers(min_value=1, max_value=255))
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_one_changed_byte_of_the_proof_is_never_accepted(extracted, position: int, value: int):
    folder, commit, proof, _ = extracted
    index = position % len(proof)
    changed = proof[:index] + bytes([proof[index] ^ value]) + proof[index + 1 :]
    assert gitproof.verify(folder, commit, changed) is None


@given(which=st.sampled_from(["rules/source.toml", "rules/1.toml", "rules/checks/r1.py"]),
       extra=st.binary(min_size=1, max_size=20))
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_changed_file_is_never_accepted(extracted, which: str, extra: bytes):
    folder, commit, proof, _ = extracted
    path = folder / which
    original, mode = path.read_bytes(), path.stat().st_mode
    path.chmod(0o644)
    try:
        path.write_bytes(original + extra)
        path.chmod(mode)
        assert gitproof.verify(folder, commit, proof) is None
    finally:
        path.chmod(0o644)
        path.write_bytes(original)
        path.chmod(mode)


@given(st.text(alphabet=st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=12))
def test_a_limit_is_a_size_or_one_clear_error(text: str):
    os.environ[limits.FILE_ENV] = text
    try:
        budget = limits.budget("the source t")
        assert budget.per_file >= 0
    except UserError as error:
        assert limits.FILE_ENV in str(error) and "fix:" in str(error)
    finally:
        os.environ.pop(limits.FILE_ENV, None)
