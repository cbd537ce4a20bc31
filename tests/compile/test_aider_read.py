"""`.aider.conf.yml`'s `read:` of CONVENTIONS.md (compile/outputs/aider_read.py): written whole when
absent, one marked line added to a configuration without `read`, nothing changed in one of the
user's `read:`, and every change taken back byte for byte when Aider is dropped."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.compile.outputs.aider_read import LINE, OURS, wanted_text


def test_absent_gets_a_file_of_ours_that_goes_with_the_agent():
    assert wanted_text(None, True) == OURS
    assert wanted_text(OURS, False) is None
    assert wanted_text(None, False) is None


def test_a_configuration_without_read_gets_one_line_that_goes_again():
    mine = "model: gpt-4o\n# my comment\nauto-commits: false\n"
    added = wanted_text(mine, True)
    assert added == mine + LINE and wanted_text(added, True) == added
    assert wanted_text(added, False) == mine


def test_a_read_of_the_users_or_a_file_that_is_not_a_mapping_is_left_alone():
    for text in ("read: [NOTES.md]\n", "read:\n  - NOTES.md\n", "- a list\n", "model: [unclosed\n", "model: x"):
        assert wanted_text(text, True) == text and wanted_text(text, False) == text


@given(st.dictionaries(st.sampled_from(["model", "auto-commits", "map-tokens", "vim"]),
                       st.one_of(st.booleans(), st.integers(0, 9), st.text("abc ", max_size=5)), max_size=4))
def test_on_then_off_is_byte_identical(data):
    text = "".join(f"{key}: {value!r}\n" for key, value in data.items())
    assert wanted_text(wanted_text(text, True), False) == text
