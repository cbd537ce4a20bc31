"""The git object types and file modes the sources read trees by, without importing pygit2 for a plain folder."""

from __future__ import annotations

import pygit2

from agent_constitution.sources import content, shape


def test_the_modes_are_pygit2s():
    modes = pygit2.enums.FileMode
    assert content._TYPES == {pygit2.enums.ObjectType.COMMIT: b"commit", pygit2.enums.ObjectType.TREE: b"tree"}
    assert (content._LINK, content._TREE, content._SUBMODULE) == (modes.LINK, modes.TREE, modes.COMMIT)
    assert content._FILES == (modes.BLOB, modes.BLOB_EXECUTABLE) and content._EXECUTABLE == modes.BLOB_EXECUTABLE
    assert shape._TREE == modes.TREE
