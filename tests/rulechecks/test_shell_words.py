"""How the checks' `_helpers` split a shell script into simple commands: through the covenant
judge's shell reader, so a substitution stays one word, as written."""

from __future__ import annotations

from importlib import import_module

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .subjects import check_module

helpers = import_module(check_module(21).__package__ + "._helpers")


@pytest.mark.parametrize("script, commands", [
    # python-attrs/attrs: shlex cut this into `uv sync --python $` and `cat .python-version-default`.
    ("uv sync --python $(cat .python-version-default)",
     [({}, ["uv", "sync", "--python", "$(cat .python-version-default)"])]),
    ('uv run --python "$(python3 -c "import sys; print(sys.version[:4])")" pytest',
     [({}, ["uv", "run", "--python", '$(python3 -c "import sys; print(sys.version[:4])")', "pytest"])]),
    ("uv sync --extra ${EXTRAS:-dev docs} `echo --all`", [({}, ["uv", "sync", "--extra", "${EXTRAS:-dev docs}", "`echo --all`"])]),
    ("V=$(cat .python-version (x)) uv sync", [({"V": "$(cat .python-version (x))"}, ["uv", "sync"])]),
    ("uv sync 2>&1 | tee log.txt", [({}, ["uv", "sync"]), ({}, ["tee", "log.txt"])]),
    ("(cd docs && uv run --python $(cat v) make html)",
     [({}, ["cd", "docs"]), ({}, ["uv", "run", "--python", "$(cat v)", "make", "html"])]),
    ('echo ")"', [({}, ["echo", ")"])]),
    ("uv sync  # not ( uv run\nexport UV_LOCKED=1", [({}, ["uv", "sync"]), ({"UV_LOCKED": "1"}, ["export", "UV_LOCKED=1"])]),
    ("cat > notes.txt <<EOF\ngit push --force\nEOF\nuv lock", [({}, ["cat"]), ({}, ["uv", "lock"])]),
    ("bash <<EOF\nuv sync\nEOF", [({}, ["bash"]), ({}, ["uv", "sync"])]),
    ("sh -c 'uv sync && git push'", [({}, ["sh", "-c", "uv sync && git push"]), ({}, ["uv", "sync"]), ({}, ["git", "push"])]),
    ("eval uv sync --locked", [({}, ["eval", "uv", "sync", "--locked"]), ({}, ["uv", "sync", "--locked"])]),
    ("echo don't\nuv sync", [({}, ["echo", "dont"]), ({}, ["uv", "sync"])]),
    ("A=1 env B=2 sudo uv run \\\n  --locked pytest", [({"A": "1", "B": "2"}, ["uv", "run", "--locked", "pytest"])]),
])
def test_golden_splits(script, commands):
    assert helpers.commands_with_env(script) == commands


def test_nested_shells_are_read_a_few_deep():
    script = "".join(f"bash <<E{level}\n" for level in range(2000)) + "uv sync\n"
    commands = helpers.simple_commands(script)
    assert commands == [["bash"]] * (helpers.NESTED_DEPTH + 1)


def _substitution(inner: st.SearchStrategy[str], backticks: bool = True) -> st.SearchStrategy[str]:
    kinds = [inner.map(lambda text: f"$({text})"),
             st.tuples(st.sampled_from(["A", "PY_VER"]), inner).map(lambda pair: f"${{{pair[0]}:-{pair[1]}}}")]
    # Backticks nest only escaped (bash's rule), so they are the outermost substitution here.
    return st.one_of(*kinds, *([inner.map(lambda text: f"`{text}`")] if backticks else []))


_plain = st.text(alphabet="abcxyz019./-_:,", min_size=1, max_size=8)
# What a substitution holds: words with spaces, quotes, pipes and further substitutions inside.
_inner = st.recursive(
    st.lists(st.one_of(_plain, _plain.map(lambda text: f'"{text} {text}"'), _plain.map(lambda text: f"'{text} | x'")),
             min_size=1, max_size=3).map(" ".join),
    lambda inner: st.lists(st.one_of(_plain, _substitution(inner, backticks=False)), min_size=1, max_size=3).map(" ".join),
    max_leaves=6,
)
_word = st.one_of(_plain, _substitution(_inner), st.tuples(_plain, _substitution(_inner)).map("".join))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_word, min_size=1, max_size=5))
def test_a_command_with_substitutions_splits_into_its_words(words):
    command = " ".join(["uv", *words])
    split = helpers.simple_commands(command)
    assert split == [["uv", *words]]
    assert " ".join(split[0]) == command


def test_rule_21_quotes_the_command_whole(tmp_path):
    from .subjects import repository

    workflow = ("on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - uses: actions/checkout@v4\n"
                "      - run: uv sync --python $(cat .python-version-default)\n")
    findings = check_module(21).check(repository(tmp_path, {".github/workflows/ci.yml": workflow}))
    assert [finding.reason for finding in findings] == [
        "job 'test' runs 'uv sync --python $(cat .python-version-default)' before checking uv.lock "
        "(`uv sync --locked`, `uv run --locked` or `uv lock --check` first)"]
