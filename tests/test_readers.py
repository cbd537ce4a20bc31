"""The one reader per format: every hostile file is one UserError with the file, line and fix."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution import ids
from agent_constitution.errors import UserError
from agent_constitution.readers import parse_json, parse_toml, read_bytes, read_json, read_text, read_toml

DEEP_TOML = "a = " + "[" * 3000 + "]" * 3000 + "\n"
DEEP_TABLE = "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n"


def error_of(call, *args) -> UserError:
    with pytest.raises(UserError) as caught:
        call(*args)
    return caught.value


def test_a_folder_a_fifo_and_a_missing_file(tmp_path: Path):
    (tmp_path / "dir.toml").mkdir()
    assert str(error_of(read_toml, tmp_path / "dir.toml", "dir.toml")) == (
        "error: dir.toml: is a folder, expected a file\n  fix: replace the folder by the file"
    )
    os.mkfifo(tmp_path / "fifo.toml")  # opening it for reading would block without O_NONBLOCK
    assert "is not a regular file (a FIFO" in str(error_of(read_toml, tmp_path / "fifo.toml"))
    assert str(error_of(read_text, tmp_path / "gone.toml", "gone.toml")) == "error: gone.toml: file not found"
    (tmp_path / "file").write_text("")
    assert "a folder on its path is a file" in str(error_of(read_bytes, tmp_path / "file" / "x.toml"))


def test_nul_and_overlong_paths(tmp_path: Path):
    assert "contains a NUL character" in str(error_of(read_bytes, tmp_path / "a\0b"))
    assert "too long for the file system" in str(error_of(read_bytes, tmp_path / ("a" * 300)))


def test_not_utf8_names_the_line(tmp_path: Path):
    path = tmp_path / "rules.lock"
    path.write_bytes(b"version = 1\n\n# \xff\n")
    error = error_of(read_toml, path, "rules.lock")
    assert (error.line, error.message, error.fix) == (3, "not UTF-8 text (byte 0xff)", "save the file as UTF-8")


def test_toml_syntax_nesting_and_huge_integers():
    assert error_of(parse_toml, "a = 1\nb = [1,,]\n", "f.toml").line == 2
    for deep in (DEEP_TOML, DEEP_TABLE):
        error = error_of(parse_toml, deep, "f.toml")
        assert "nested too deeply" in error.message and error.fix
    big = error_of(parse_toml, "a = 1\n\nb = " + "9" * 5000 + "\n", "f.toml")
    assert (big.line, big.message) == (3, "an integer has more than 4,300 digits, more than Python reads")
    assert parse_toml("a = 0x" + "f" * 5000 + "\n", "f.toml")["a"] > 0  # hex has no digit limit


def test_json_syntax_nesting_and_huge_integers(tmp_path: Path):
    assert error_of(parse_json, '{"a": 1,\n}', "s.json").line == 2
    assert "nested too deeply" in error_of(parse_json, "[" * 100_000, "s.json").message
    assert error_of(parse_json, '{"a":\n' + "1" * 5000 + "}", "s.json").line == 2
    assert error_of(parse_json, b'{"a": "\xff"}', "s.json").message == "not UTF-8 text (byte 0xff)"
    (tmp_path / "s.json").write_text('{"a": [1]}')
    assert read_json(tmp_path / "s.json") == {"a": [1]}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_are_toml_json_or_one_user_error(data: bytes):
    for parse, native in ((parse_toml, tomllib.loads), (parse_json, json.loads)):
        try:
            parsed = parse(data.decode("utf-8"), "f") if parse is parse_toml else parse(data, "f")
        except UnicodeDecodeError:
            continue  # parse_toml takes text; read_toml decodes (covered above)
        except UserError:
            continue
        assert repr(parsed) == repr(native(data.decode("utf-8")))  # repr: NaN is not equal to itself


@pytest.mark.parametrize("text", ["1", "42", "999999999"])
def test_rule_numbers(text):
    assert ids.rule_number(text) == int(text)


@pytest.mark.parametrize("text", ["೧", "١", "²", "1\n", " 1", "01", "0", "", "1_0", "+1", "1000000000", "4" * 5000])
def test_what_is_not_a_rule_number(text):
    assert ids.rule_number(text) is None


@pytest.mark.parametrize("text,check", [
    ("0.2\n", ids.is_revision), ("٠.2", ids.is_revision), ("1." + "2" * 10, ids.is_revision),
    ("2026-10\n", ids.is_edition), ("２026-10", ids.is_edition),
    ("ac\n", ids.is_node_id), ("ａc", ids.is_node_id), ("a--b", ids.is_node_id), ("Ac", ids.is_node_id),
])
def test_ids_are_ascii_and_matched_whole(text, check):
    assert not check(text)
