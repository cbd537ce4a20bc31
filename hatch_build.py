"""Build hook: a wheel or sdist built from a git checkout carries the commit it was built from.

`agent-constitution init` pins the starter rule source to that commit (agent_constitution/sources/
starter.py, `built_from`), so a fresh machine gets exactly the rules this build was made with. A
wheel built from an sdist takes the file the sdist carries; an editable install reads the
checkout's HEAD itself.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TARGET = "agent_constitution/_commit"


class CommitHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if version == "editable":
            return
        carried = Path(self.root) / TARGET
        if carried.is_file():
            build_data["force_include"][str(carried)] = TARGET
            return
        try:
            done = subprocess.run(["git", "rev-parse", "--verify", "HEAD"], cwd=self.root,
                                  capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return  # not a checkout: the package records no commit
        self._folder = tempfile.TemporaryDirectory(prefix="agent-constitution-build-")
        written = Path(self._folder.name) / "_commit"
        written.write_text(done.stdout.strip() + "\n", encoding="utf-8")
        build_data["force_include"][str(written)] = TARGET

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        if getattr(self, "_folder", None) is not None:
            self._folder.cleanup()
