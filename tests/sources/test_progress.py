"""The progress line of a fetch: git's progress read as it comes, one line kept on the terminal."""

import io

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.sources.progress import FetchProgress, lines, wanted


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_follows_the_objects_and_bytes_received_and_ends_with_the_result():
    screen, clock = io.StringIO(), Clock()
    shown = FetchProgress("https://example.test/rules", screen, clock)
    clock.now += 1
    shown.feed("Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s")
    clock.now += 0.05  # too soon to rewrite the line
    shown.feed("Receiving objects:  46% (460/1000), 1.22 MiB | 2.00 MiB/s")
    clock.now += 1.95
    shown.feed("Receiving objects: 100% (1000/1000), 2.50 MiB | 2.00 MiB/s, done.")
    shown.feed("Resolving deltas: 100% (10/10), done.")
    shown.finish()
    assert screen.getvalue().split("\r\x1b[K")[1:] == [
        "fetching https://example.test/rules ...",
        "fetching https://example.test/rules: 450/1000 objects, 1.20 MiB, 1 s",
        "fetching https://example.test/rules: 1000 objects, 2.50 MiB, 3 s",
        "fetched https://example.test/rules: 1000 objects, 2.50 MiB in 3.0 s\n",
    ]


def test_a_small_fetch_is_counted_from_the_servers_total_and_an_empty_one_is_up_to_date():
    screen = io.StringIO()
    shown = FetchProgress("origin", screen, Clock())
    shown.feed("remote: Total 6 (delta 0), reused 0 (delta 0), pack-reused 0")
    shown.finish()
    assert screen.getvalue().endswith("fetched origin: 6 objects in 0.0 s\n")
    screen = io.StringIO()
    FetchProgress("origin", screen, Clock()).finish()
    assert screen.getvalue().endswith("fetched origin: up to date in 0.0 s\n")


def test_only_a_terminal_wants_the_line():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wanted(Terminal()) and not wanted(io.StringIO())


@given(st.lists(st.text(alphabet="ab \r\n%()/0123456789", max_size=12), max_size=8))
def test_lines_split_at_either_line_end_whatever_the_chunks(chunks):
    pending, found = "", []
    for chunk in chunks:
        done, pending = lines(chunk, pending)
        found += done
    text = "".join(chunks)
    assert found + [pending] == text.replace("\r", "\n").split("\n")
