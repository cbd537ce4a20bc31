"""The lock's strings are the strings tomlkit writes, for every Unicode code point, and read back."""

from __future__ import annotations

import tomllib

import tomlkit
from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.ruleset.lockfile import _string, lock_file_text, read_lock
from agent_constitution.ruleset.models import Lockfile

SCALARS = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]  # UTF-8 has no surrogates


def test_every_code_point_is_written_as_tomlkit_writes_it():
    differ = [hex(ord(char)) for char in SCALARS if _string(char) != tomlkit.string(char).as_string()]
    assert differ == []


def test_every_code_point_reads_back():
    text = "".join(SCALARS)
    assert tomllib.loads(f"x = {_string(text)}")["x"] == text


def test_delete_is_escaped():
    assert _string("a\x7fb") == '"a\\u007fb"'


@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_any_text_reads_back(text):
    assert tomllib.loads(f"x = {_string(text)}")["x"] == text


@given(st.text(st.characters(exclude_categories=("Cs",)), min_size=1))
def test_a_lock_with_any_text_reads_back(tmp_path_factory, text):
    # The manifest's inputs are the lock's free text (a base's path, which any code point may name).
    digest = "sha256:" + "0" * 64
    lock = Lockfile.model_validate({
        "version": 2,
        "manifest": {"inputs": ["rules.toml", text], "digest": digest},
        "constitution": {"source": "ac", "commit": digest, "edition": "2026-10", "revision": "0.1", "digest": digest},
        "source": [{"name": "ac", "path": "."}],
        "rules": {},
        "segment": [{"path": ".", "added": [], "excluded": [], "choices": {}}],
    })
    root = tmp_path_factory.mktemp("lock")
    (root / "rules.lock").write_text(lock_file_text(lock), encoding="utf-8")
    assert read_lock(root) == lock
