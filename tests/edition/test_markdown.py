"""The outputs render with the same structure in Python-Markdown and CommonMark, and limae is silent."""

import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from markdown_it import MarkdownIt

from .support import GOLDEN

# The golden files, and this repository's own constitution once it is rendered.
OUTPUTS = sorted(GOLDEN.glob("*/*.md")) + sorted((Path(__file__).parents[2] / "constitution").glob("*/generated/*.md"))


class _Structure(HTMLParser):
    """Block and inline elements as an indented outline, with link targets and anchor ids.

    A paragraph directly inside a list item is dropped: whether a list is loose (items wrapped in
    <p>) is decided differently by the two dialects and changes spacing, not structure.
    """

    def __init__(self):
        super().__init__()
        self.outline: list[str] = []
        self.stack: list[bool] = []   # per open element: whether it is shown

    def handle_starttag(self, tag, attrs):
        shown = not (tag == "p" and self.stack and self._parent == "li")
        attributes = {key: value for key, value in attrs if key in ("href", "id", "class")}
        if shown:
            self.outline.append("  " * sum(self.stack) + tag + (f" {attributes}" if attributes else ""))
        self.stack.append(shown)
        self._tags.append(tag)

    def handle_endtag(self, tag):
        self.stack.pop()
        self._tags.pop()

    def handle_data(self, data):
        if data.strip():
            self.outline.append("  " * sum(self.stack) + "text")

    @property
    def _parent(self) -> str:
        return self._tags[-1]

    def reset(self):
        super().reset()
        self._tags = []


def structure(html: str) -> list[str]:
    parser = _Structure()
    parser.feed(html)
    # Adjacent text runs differ only in how the two dialects split them.
    return [line for i, line in enumerate(parser.outline) if not (line.endswith("text") and i and parser.outline[i - 1] == line)]


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}/{path.name}")
def test_python_markdown_and_commonmark_agree(path: Path):
    text = path.read_text(encoding="utf-8")
    python_markdown = structure(markdown.markdown(text))
    commonmark = structure(MarkdownIt("commonmark").render(text))
    assert python_markdown == commonmark
    # The comparison sees the lists, links and anchors it is meant to compare.
    assert "ul" in commonmark and any(line.strip().startswith("h2") for line in commonmark)


def _limae() -> str:
    found = shutil.which("limae", path=str(Path(sys.executable).parent))
    assert found, "limae (a dev dependency) is not installed"
    return found


def test_limae_reports_nothing():
    done = subprocess.run([_limae(), *map(str, OUTPUTS)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_limae_does_report_a_known_finding(tmp_path: Path):
    # An inline link followed by Chinese: what the reference-style links avoid.
    bad = tmp_path / "bad.md"
    bad.write_text("见[第四条](#authority)中文。\n", encoding="utf-8")
    done = subprocess.run([_limae(), str(bad)], capture_output=True, text=True)
    assert done.returncode != 0
