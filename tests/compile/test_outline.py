"""For any title and text a load accepts, the compiled AGENTS.md has the rule tree's heading outline:
the same headings, at the same levels, in the same order, as with plain titles and texts, and each
rule's heading reads `ac:N <title>` (`ruleset.texts`)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent_constitution.compile import region
from agent_constitution.compile.layout import SegmentJob, Settings
from agent_constitution.ruleset.texts import text_problem, title_problem
from tests.compile.steps import segment_files
from tests.compile.support import RULES, make_repo, resolve_into_cache

SHOWN = (1, 2, 3, 5, 6)  # the root segment's rules in the fixture (8 keeps its references)
# Fragments that may or may not be refused, and plain ones so that most drawn texts are accepted.
RISKY = ["# x", "## y", "===", "---", "- # item", "> # q", "```", "```sh", "~~~", "<!-- c", "-->", "<div>",
         "   # three", "x\r", "\\#", "    # code"]
PLAIN = ["plain words.", "More. Words", "a # b", "- item", "> quote", "1. one", "* star", "`code`", "C#", "",
         "<b>bold</b>", "[a](b)", "end."]
line = st.one_of(st.sampled_from(PLAIN), st.sampled_from(PLAIN + RISKY),
                 st.text(alphabet="#=-`~<>!*[]() ab.\t", max_size=10))
texts = st.lists(line, min_size=1, max_size=6).map("\n".join).filter(lambda text: text_problem(text) is None)
titles = st.one_of(st.sampled_from(["Use uv", "C# rules", "a ## b", "# bad", "bad #", "<b>x</b>", "x\ny", "=== y",
                                    "- z", "`code` title", "[t](u)", " pad"]),
                   st.text(alphabet="#=-`~<>!* ab\n\t", min_size=1, max_size=12)).filter(
    lambda title: title_problem(title) is None)
_MD = MarkdownIt("commonmark")


def outline(text: str) -> list[tuple[int, str]]:
    tokens = _MD.parse(text)
    return [(int(token.tag[1]), tokens[index + 1].content)
            for index, token in enumerate(tokens) if token.type == "heading_open"]


def _compiled(root: Path, rules: dict[int, dict], max_tokens: int) -> dict[str, list[tuple[int, str]]]:
    shutil.rmtree(root, ignore_errors=True)
    repo = make_repo(root)
    from tests.compile.support import write_fixture_source

    write_fixture_source(repo / "src", rules=rules)
    resolve_into_cache(repo)
    segment_files(repo, repo / "cache", SegmentJob(".", None, ("svc",)), Settings(max_tokens=max_tokens), locked=False)
    found = {}
    for path in sorted(repo.glob("AGENTS*.md")):
        text = path.read_text()
        if path.name == "AGENTS.md":
            text = region.Region.parse(text, path).inside
        found[path.name] = outline(text)
    return found


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.tuples(titles, texts), min_size=len(SHOWN), max_size=len(SHOWN)), split=st.booleans())
# A requirement sentence over two lines in a split root's list item: its indented `# code` line, or
# `===` under a list, once became a heading at the item's column (found by this test).
@example(data=[("Use uv", "plain words.")] * 4 + [("Use uv", "a # b\n    # code")], split=True)
@example(data=[("Use uv", "plain words.")] * 4 + [("Use uv", "- item\n===")], split=True)
def test_accepted_titles_and_texts_keep_the_outline(tmp_path, data, split):
    hostile = {**RULES, **{n: {**RULES[n], "title": title, "text": text} for n, (title, text) in zip(SHOWN, data)}}
    plain = {**RULES, **{n: {**RULES[n], "title": f"Title {n}", "text": f"Text {n}."} for n in SHOWN}}
    max_tokens = 60 if split else 8000
    got = _compiled(tmp_path / "hostile", hostile, max_tokens)
    want = _compiled(tmp_path / "plain", plain, max_tokens)
    assert got.keys() == want.keys()
    titles_of = {n: title for n, (title, _) in zip(SHOWN, data)}
    for name, headings in got.items():
        assert [level for level, _ in headings] == [level for level, _ in want[name]], name
        for (_, content), (_, plain_content) in zip(headings, want[name]):
            label = re.search(r"ac:(\d+) ", plain_content)
            if label and int(label[1]) in titles_of and plain_content.endswith(f"Title {label[1]}"):
                assert content.endswith(f"ac:{label[1]} {titles_of[int(label[1])]}"), (content, plain_content)
            else:
                assert content == plain_content
