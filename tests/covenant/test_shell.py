"""The shell tokenizer (POLYDEUKES §5.2, §5.3) against a corpus of real command lines."""

import json
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.covenant.shell import (
    executed_text,
    mutation_targets,
    proves_read_only,
    tokenize,
)

CORPUS = json.loads((Path(__file__).parent / "data" / "shell_corpus.json").read_text("utf-8"))


def summary(line: str) -> dict:
    """The tokenizer's reading of `line` in the corpus file's shape."""
    tokenized = tokenize(line)
    commands = []
    for command in tokenized.commands:
        entry: dict = {"words": [w.text for w in command.words]}
        opaque = [i for i, w in enumerate(command.words) if w.opaque]
        if opaque:
            entry["opaque"] = opaque
        if command.redirects:
            entry["redirects"] = [[r.operator, r.target.text, r.target.opaque] for r in command.redirects]
        if command.heredocs:
            entry["heredocs"] = [[h.body, h.literal] for h in command.heredocs]
        writes = [[rule, word.text] for rule, word in mutation_targets(command)]
        if writes:
            entry["writes"] = writes
        entry["read_only"] = proves_read_only(command, tokenized)
        commands.append(entry)
    result: dict = {"commands": commands}
    if tokenized.unread:
        result["unread"] = [[u.text, u.reason] for u in tokenized.unread]
    executed = executed_text(line)
    if executed != line:
        result["executed"] = executed
    return result


def test_corpus_is_large_and_covers_the_seed_and_the_spec():
    assert len(CORPUS) >= 200
    assert {entry["source"] for entry in CORPUS} == {"seed", "spec", "real"}
    assert len({entry["line"] for entry in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("entry", CORPUS, ids=[str(i) for i in range(len(CORPUS))])
def test_corpus_line(entry):
    expected = {k: v for k, v in entry.items() if k not in ("source", "line")}
    assert summary(entry["line"]) == expected


def test_data_spans_of_the_spec_examples():
    assert executed_text('python - <<EOF\nrun("git commit --no-verify")\nEOF\n') == "python - <<EOF\nEOF\n"
    assert executed_text("cat <<< 'git push --force'") == "cat <<< "
    line = "cat <<EOF\n$(git push --force)\nEOF\n"
    assert executed_text(line) == line


def test_the_command_source_keeps_a_continuation_on_two_lines():
    # `git \<newline>push` runs as `git push`, but the `command` source keeps both physical lines,
    # so a `lines` step gives `git \` and `push` and `^git push` matches neither.
    assert executed_text("git \\\npush").split("\n") == ["git \\", "push"]
    assert [w.text for w in tokenize("git \\\npush").commands[0].words] == ["git", "push"]


def test_untokenizable_lines_are_reported_not_dropped():
    tokenized = tokenize("echo ok && cat 'gate/x")
    assert not tokenized.fully_read
    assert tokenized.unread[0].reason == "unclosed quote"
    assert [w.text for w in tokenized.commands[0].words] == ["echo", "ok"]


@pytest.mark.parametrize("line, words", [
    ("uv sync --python $(cat .python-version-default)", ["uv", "sync", "--python", "$(cat .python-version-default)"]),
    ('echo "$(git log -1 --format="%s %b")" done', ["echo", '$(git log -1 --format="%s %b")', "done"]),
    ("echo ${A:-a b} ${B#* }", ["echo", "${A:-a b}", "${B#* }"]),
    ('echo "`date +"%F %T"`"', ["echo", '`date +"%F %T"`']),
    ("x=$(ls $(dirname (a)))", ["x=$(ls $(dirname (a)))"]),
])
def test_a_substitution_is_one_word_with_its_brackets_and_quotes(line, words):
    tokenized = tokenize(line)
    assert tokenized.fully_read
    assert [w.text for c in tokenized.commands for w in c.words] == words
    assert all(w.opaque for c in tokenized.commands for w in c.words if "$" in w.text or "`" in w.text)


def test_a_substitution_left_open_inside_quotes_is_unread():
    assert not tokenize('echo "$(date" x').fully_read


def test_comments_are_read_only_when_asked():
    line = "uv sync # then ( x\ncat <<EOF # body follows\n# data\nEOF\nuv run pytest#not-a-comment"
    assert [w.text for w in tokenize(line).commands[0].words][:3] == ["uv", "sync", "#"]
    read = tokenize(line, comments=True)
    assert [[w.text for w in c.words] for c in read.commands] == [["uv", "sync"], ["cat"], ["uv", "run", "pytest#not-a-comment"]]
    assert read.commands[1].heredocs[0].body == "# data\n"


_plain = st.text(alphabet="abcxyz/._-0129", min_size=1, max_size=8)
_quoted_word = st.lists(
    st.one_of(
        _plain,
        _plain.map(lambda s: f"'{s} {s}'"),
        _plain.map(lambda s: f'"{s}"'),
    ),
    min_size=1,
    max_size=3,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(_quoted_word, min_size=1, max_size=6))
def test_words_agree_with_posix_shlex(words):
    line = " ".join(words)
    tokenized = tokenize(line)
    assert tokenized.fully_read
    assert [w.text for c in tokenized.commands for w in c.words] == shlex.split(line)


_shellish = st.text(
    alphabet=st.sampled_from(list("ab /.$`'\"\\()<>|&;\n\r\t*?{}=-~#0129EOF")) | st.characters(),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(_shellish)
def test_no_input_raises_and_spans_are_well_formed(line):
    tokenized = tokenize(line)
    previous_end = 0
    for start, end in tokenized.data:
        assert previous_end <= start < end <= len(line)
        previous_end = end
    assert len(executed_text(line)) <= len(line)
    for command in tokenized.commands:
        assert command.words or command.redirects
        mutation_targets(command)
        proves_read_only(command, tokenized)
