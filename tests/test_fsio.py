import os
import stat

from agent_constitution.fsio import write_atomic, write_if_changed


def test_new_file_gets_the_umask_mode_and_existing_keeps_its_own(tmp_path):
    old = os.umask(0o022)
    try:
        target = tmp_path / "a" / "out.txt"
        write_atomic(target, "one\n")
        assert stat.S_IMODE(target.stat().st_mode) == 0o644
        target.chmod(0o755)
        write_atomic(target, "two\n")
        assert stat.S_IMODE(target.stat().st_mode) == 0o755
        assert target.read_text() == "two\n"
    finally:
        os.umask(old)
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_write_if_changed_keeps_mtime_of_identical_content(tmp_path):
    target = tmp_path / "out.txt"
    assert write_if_changed(target, b"x")
    before = target.stat().st_mtime_ns
    assert not write_if_changed(target, "x")
    assert target.stat().st_mtime_ns == before
