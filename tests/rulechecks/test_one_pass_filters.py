"""The one-scan filters of the content checks decide exactly what their slower forms decided."""

from __future__ import annotations

import ast

from hypothesis import given, settings, strategies as st

from .subjects import check_module

SECRETS = check_module(34)
BREAKPOINTS = check_module(24)
BARE_EXCEPT = check_module(25)

WORDS = sorted({word for words, _ in SECRETS.FORMATS.values() for word in words})
# Texts made of the formats' words, their pieces and noise, run together so that words overlap.
PIECES = st.one_of(st.sampled_from(WORDS), st.sampled_from(WORDS).map(lambda w: w[: len(w) // 2 + 1]),
                   st.sampled_from(WORDS).map(lambda w: w[1:]), st.text(max_size=4))


@given(st.lists(PIECES, max_size=12).map("".join))
def test_one_scan_finds_every_word_a_search_per_word_finds(text):
    assert SECRETS.words_in(text) == {word for word in WORDS if word in text}


CODE = st.lists(st.sampled_from([
    "try:\n    x = 1\n", "except:\n    pass\n", "except :\n    pass\n", "except \\\n:\n    pass\n",
    "except ValueError:\n    pass\n", "except (A, B):\n    pass\n", "x = 'except:'\n", "# except:\n",
    "breakpoint()\n", "import pdb\n", "import os, pdb\n", "from ipdb import set_trace\n", "pdb.set_trace()\n",
    "(breakpoint)()\n", "y = 2\n", "def f():\n    return 1\n",
]), max_size=8).map("".join)


def _bare_by_parse(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return bool(BARE_EXCEPT.LOOKS_LIKE.search(text))
    return any(isinstance(node, ast.ExceptHandler) and node.type is None for node in ast.walk(tree))


def _debugger_by_parse(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return bool(BREAKPOINTS.LOOKS_LIKE.search(text))
    return any(BREAKPOINTS._debugger(node) for node in ast.walk(tree))


@settings(max_examples=300)
@given(CODE)
def test_a_file_the_filters_skip_holds_nothing_the_parse_finds(text):
    if not BARE_EXCEPT.BARE.search(text):
        assert not _bare_by_parse(text)
    if not any(word in text for word in BREAKPOINTS._WORDS):
        assert not _debugger_by_parse(text)


GENERATED = check_module(13)
# Lines of every length around the cut, with each line break splitlines knows (\r\n split across it too).
HEAD_TEXT = st.lists(st.tuples(st.integers(0, 2 * GENERATED.HEAD + 20),
                               st.sampled_from(["\n", "\r\n", "\r", "\x0b", "\x1c", "\u2028", ""])),
                     max_size=8).map(lambda lines: "".join("x" * n + end for n, end in lines))


@settings(max_examples=300)
@given(HEAD_TEXT)
def test_the_generated_marker_head_is_the_whole_texts_head(text):
    assert GENERATED._head(text) == "\n".join(text.splitlines()[:5])[:GENERATED.HEAD]


# Texts where the formats' words meet word and non-word characters, key-like runs and each other.
KEYISH = st.one_of(PIECES, st.text(alphabet="abcdefAF0123456789_-.:/ ", min_size=16, max_size=90),
                   st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=30, max_size=90),
                   st.text(alphabet="abcdef0123456789", min_size=20, max_size=70),
                   st.sampled_from(["x", " ", "_", "-", "\n", "é", ".", "1"]))


@settings(max_examples=400)
@given(st.lists(KEYISH, max_size=10).map("".join))
def test_the_anchored_expressions_match_what_the_documented_ones_match(text):
    import re

    for kind, (_, documented) in SECRETS._FORMATS.items():
        anchored = SECRETS.FORMATS[kind][1]
        assert ([m.span() for m in anchored.finditer(text)]
                == [m.span() for m in re.compile(documented).finditer(text)]), kind


def test_an_anchored_expression_keeps_its_word_boundary():
    token = "hf_" + "a" * 34
    pattern = SECRETS.FORMATS["Hugging Face token"][1]
    assert pattern.pattern.startswith("hf_(?<=")
    text = f"{token} x{token} -{token}"
    assert [m.start() for m in pattern.finditer(text)] == [0, text.rindex(token)]
