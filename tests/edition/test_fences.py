"""The code-fence walk agrees with CommonMark (markdown-it-py) on every text: no heading CommonMark
sees is taken for code, and no line inside a fence is taken for a heading."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent_constitution.edition.fences import fenced

FULL = MarkdownIt("commonmark")
LINES = st.sampled_from(["# Title", "## Part", "```", "```python", "~~~", "````", "    # indented", "- item",
                         "  ```", "  # in item", "> ```", "> # quoted", "text", "", "``` not `closed`"])


@given(st.lists(LINES, max_size=25))
def test_headings_are_never_fenced_and_fence_lines_always_are(lines):
    tokens = FULL.parse("\n".join(lines))
    headings = {token.map[0] for token in tokens if token.type == "heading_open"}
    fences = {n for token in tokens if token.type == "fence" for n in range(*token.map)}
    flags = {number: inside for number, _, inside in fenced(lines)}
    assert all(not flags[n] for n in headings)
    assert all(flags[n] for n in fences)


def test_a_fence_line_with_an_info_string_inside_a_fence_does_not_close_it():
    lines = ["```", "```python", "# code, not a heading", "```", "# heading"]
    assert [inside for _, _, inside in fenced(lines)] == [True, True, True, True, False]


def test_a_fence_in_a_list_item_and_an_unclosed_fence():
    lines = ["- item", "  ```", "  # code", "  ```", "# heading", "~~~", "# code to the end"]
    assert [inside for _, _, inside in fenced(lines)] == [False, True, True, True, False, True, True]
