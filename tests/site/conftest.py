"""Fixtures of the site tests: a synthetic source built once per module (tests that edit it make their own)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The helpers are plain modules beside the tests (whatever pytest's import mode), also used by bench/.
sys.path.insert(0, str(Path(__file__).parent))

from site_fixtures import run_site, small_source  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(source root, site folder) of the small synthetic source, built with `doit site`."""
    root = small_source(tmp_path_factory.mktemp("source") / "demo")
    output = root / "public"
    code, ran = run_site(root, output)
    assert code == 0, ran
    return root, output
