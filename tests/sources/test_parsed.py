"""The parsed rule files kept across runs: reused by content, never trusted when the cache is not
what this user's runs wrote."""

from __future__ import annotations

import collections
import datetime
import hashlib
import marshal
from pathlib import Path

import pytest

from agent_constitution.ruleset import source
from agent_constitution.ruleset.source import _load
from agent_constitution.sources import content, parsed
from agent_constitution.sources.digest import tree_digest
from tests.ruleset.builders import write_rule, write_source

RULES = {1: {"parent": "python"}, 2: {"parent": 1}, 3: {"parent": "git"}}


@pytest.fixture
def counted(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    calls = collections.Counter()
    real = parsed.parse_toml

    def counting(text, shown):
        calls[Path(shown).name] += 1
        return real(text, shown)

    monkeypatch.setattr(parsed, "parse_toml", counting)
    return calls


def _cache_file(tmp_path: Path) -> Path:
    [found] = (tmp_path / "user-cache" / parsed.FOLDER).glob("*" + parsed.SUFFIX)
    return found


def test_a_second_load_parses_only_the_edited_file(tmp_path, counted):
    root = write_source(tmp_path / "src", RULES)
    first = _load(root)
    assert sorted(counted) == ["1.toml", "2.toml", "3.toml", "source.toml"]
    counted.clear()
    (root / "rules" / "3.toml").touch()  # a new modification time, the same bytes: still reused
    write_rule(root, 2, parent=1, revision=2)
    second = _load(root)
    assert dict(counted) == {"2.toml": 1}
    assert second.rules[2].revision == 2 and second.rules[1] == first.rules[1] and second.rules[3] == first.rules[3]
    counted.clear()
    assert _load(root) == second and not counted


def _tampered(text: bytes) -> bytes:
    seal, _, body = text.partition(b"\n")
    data = marshal.loads(body)
    data["files"]["1.toml"][1]["title"]["en"] = "Forged title"
    return seal + b"\n" + marshal.dumps(data)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(_tampered, id="a table edited, the seal kept"),
        # Whoever edits the cache without this user's key can only guess the seal.
        pytest.param(lambda text: hashlib.sha256(_tampered(text).partition(b"\n")[2]).hexdigest().encode()
                     + b"\n" + _tampered(text).partition(b"\n")[2], id="a table edited, sealed without the key"),
        pytest.param(lambda text: text[: len(text) // 2], id="cut short"),
        pytest.param(lambda text: b"\0" * 40, id="garbage"),
        pytest.param(lambda text: text.partition(b"\n")[2], id="no seal"),
    ],
)
def test_a_damaged_or_forged_cache_is_ignored_and_written_anew(tmp_path, counted, damage):
    root = write_source(tmp_path / "src", RULES)
    fresh = _load(root)
    cache = _cache_file(tmp_path)
    cache.write_bytes(damage(cache.read_bytes()))
    counted.clear()
    loaded = _load(root)
    assert loaded.rules == fresh.rules and loaded.rules[1].title["en"] == "Rule 1"
    assert sorted(counted) == ["1.toml", "2.toml", "3.toml", "source.toml"]  # nothing of it was trusted
    counted.clear()
    assert _load(root).rules == fresh.rules and not counted  # and it was written again


def test_a_cache_sealed_by_another_key_is_not_trusted(tmp_path, counted):
    root = write_source(tmp_path / "src", RULES)
    _load(root)
    cache = _cache_file(tmp_path)
    kept = _tampered(cache.read_bytes())
    (tmp_path / "user-cache" / parsed.FOLDER / parsed.KEY).unlink()  # another machine's cache, say
    _load(root)  # makes a new key and writes the cache under it
    cache.write_bytes(kept)
    assert _load(root).rules[1].title["en"] == "Rule 1"


def test_the_key_is_the_users_alone(tmp_path, counted):
    write_source(tmp_path / "src", RULES)
    _load(tmp_path / "src")
    key = tmp_path / "user-cache" / parsed.FOLDER / parsed.KEY
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == parsed.KEY_LENGTH


def test_an_unwritable_user_cache_parses_every_time(tmp_path, counted, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(blocker / "cache"))
    root = write_source(tmp_path / "src", RULES)
    _load(root)
    _load(root)
    assert set(counted.values()) == {2}


def test_a_broken_rule_file_is_reported_as_before(tmp_path, counted):
    root = write_source(tmp_path / "src", RULES)
    _load(root)
    (root / "rules" / "2.toml").write_text("id = [\n")
    with pytest.raises(source.UserError, match="not valid TOML") as caught:
        _load(root)
    assert caught.value.file.endswith("rules/2.toml")


def test_a_file_as_it_was_when_kept_is_not_read_again(tmp_path, counted, monkeypatch):
    root = write_source(tmp_path / "src", RULES)
    monkeypatch.setattr(parsed, "_RACY_NS", 0)  # the files are older than the cache by any margin
    _load(root)
    reads = collections.Counter()
    real = parsed.read_bytes

    def counting(path, shown=None):
        reads[Path(path).name] += 1
        return real(path, shown)

    monkeypatch.setattr(parsed, "read_bytes", counting)
    _load(root)  # the first load wrote the cache with each file's bytes confirmed: now trusted by status
    assert not reads
    write_rule(root, 3, parent="git", revision=4)
    assert _load(root).rules[3].revision == 4 and dict(reads) == {"3.toml": 1}


def test_a_file_changed_just_before_the_cache_was_written_is_checked_by_its_bytes(tmp_path, counted, monkeypatch):
    root = write_source(tmp_path / "src", RULES)
    _load(root)  # the files are seconds old at most: racy
    counted.clear()
    reads = collections.Counter()
    real = parsed.read_bytes
    monkeypatch.setattr(parsed, "read_bytes", lambda path, shown=None: reads.update([Path(path).name]) or real(path, shown))
    _load(root)
    assert sorted(reads) == ["1.toml", "2.toml", "3.toml", "source.toml"] and not counted  # read and hashed, not parsed


def _digest_then_load(root: Path):
    digest = content.folder_digest(root, "the source", parsed.parsed_files(root))
    return digest, _load(root)


def test_the_folder_digest_takes_vouched_rule_files_from_the_cache(tmp_path, counted, monkeypatch):
    root = write_source(tmp_path / "src", RULES)
    monkeypatch.setattr(parsed, "_RACY_NS", 0)
    _load(root)
    opened = collections.Counter()
    real = content.os.open
    monkeypatch.setattr(content.os, "open", lambda path, *a: opened.update([Path(path).name]) or real(path, *a))
    digest, loaded = _digest_then_load(root)
    monkeypatch.setattr(content.os, "open", real)
    assert digest == tree_digest(root)
    assert "1.toml" not in opened and "2.toml" not in opened and "source.toml" not in opened
    write_rule(root, 2, parent=1, revision=3)
    (root / "rules" / "3.toml").chmod(0o755)  # the kind comes from the status, not the cache
    opened.clear()
    counted.clear()
    reads = collections.Counter()
    real_read = parsed.read_bytes
    monkeypatch.setattr(parsed, "read_bytes", lambda path, shown=None: reads.update([Path(path).name]) or real_read(path, shown))
    monkeypatch.setattr(content.os, "open", lambda path, *a: opened.update([Path(path).name]) or real(path, *a))
    digest, loaded = _digest_then_load(root)
    monkeypatch.setattr(content.os, "open", real)
    assert digest == tree_digest(root) and loaded.rules[2].revision == 3
    # The edited file is read once, by the digest; its table is parsed, not read a second time.
    assert opened["2.toml"] == 1 and dict(counted) == {"2.toml": 1} and not reads


def test_a_file_read_by_the_folder_digest_is_not_read_again_by_the_load(tmp_path, counted, monkeypatch):
    root = write_source(tmp_path / "src", RULES)
    _load(root)  # the files are seconds old at most: racy, so the digest reads them all
    counted.clear()
    reads = collections.Counter()
    real = parsed.read_bytes
    monkeypatch.setattr(parsed, "read_bytes", lambda path, shown=None: reads.update([Path(path).name]) or real(path, shown))
    digest, loaded = _digest_then_load(root)
    assert digest == tree_digest(root) and not reads and not counted


@pytest.mark.parametrize("damage", [_tampered, lambda text: text[:-10]], ids=["forged", "cut short"])
def test_a_forged_cache_does_not_change_the_folder_digest(tmp_path, counted, monkeypatch, damage):
    root = write_source(tmp_path / "src", RULES)
    monkeypatch.setattr(parsed, "_RACY_NS", 0)
    _load(root)
    cache = _cache_file(tmp_path)
    seal, _, body = cache.read_bytes().partition(b"\n")
    data = marshal.loads(body)
    data["files"]["1.toml"][0] = "0" * 64  # a digest for bytes the file does not hold
    cache.write_bytes(damage(seal + b"\n" + marshal.dumps(data)))
    assert content.folder_digest(root, "the source", parsed.parsed_files(root)) == tree_digest(root)


def test_reading_a_folder_does_not_create_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    root = write_source(tmp_path / "src", RULES)
    assert content.folder_digest(root, "the source", parsed.parsed_files(root)) == tree_digest(root)
    assert not (tmp_path / "user-cache").exists()


def test_a_table_the_cache_cannot_give_back_equal_is_parsed_every_time(tmp_path, counted):
    root = write_source(tmp_path / "src", RULES)
    write_rule(root, 2, parent=1, created=datetime.date(2026, 1, 2))
    first = _load(root)
    counted.clear()
    second = _load(root)
    assert dict(counted) == {"2.toml": 1} and second.rules == first.rules
    assert str(second.rules[2].created) == "2026-01-02"
    with pytest.raises(ValueError):
        parsed._exact({"x": [1.0, float("nan")]})
