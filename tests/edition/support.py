"""Helpers shared by the edition tests: fixture constitutions and golden files."""

import shutil
from pathlib import Path

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"


def copy_fixture(name: str, destination: Path) -> Path:
    """A fixture constitution copied into `destination` (the project root); returns the root."""
    shutil.copytree(FIXTURES / name, destination, dirs_exist_ok=True)
    return destination


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root, to show that a failed build wrote nothing."""
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}
