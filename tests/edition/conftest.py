from pathlib import Path

import pytest

from .support import copy_fixture


@pytest.fixture
def active(tmp_path: Path) -> Path:
    return copy_fixture("active", tmp_path)


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    return copy_fixture("draft", tmp_path)
