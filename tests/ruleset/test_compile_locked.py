"""`doit compile --locked` fails instead of changing the lock, like `uv sync --locked`."""

from tests.ruleset.conftest import Project
from tests.ruleset.test_tasks import doit


def test_compile_locked_refuses_a_stale_lock(project: Project):
    project.manifest(rules=["ac:4"], choices={"ac:ci-service": "ac:5"})
    (project.root / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")
    assert doit(project.root, "lock").returncode == 0
    lock = (project.root / "rules.lock").read_bytes()
    project.manifest(rules=["ac:7"])
    refused = doit(project.root, "compile", "--locked")
    assert refused.returncode != 0
    assert "the lockfile needs to be updated, but --locked was given" in refused.stdout + refused.stderr
    assert "Traceback" not in refused.stdout + refused.stderr
    assert (project.root / "rules.lock").read_bytes() == lock
    # Without the flag the same command writes the lock, but this fixture has no constitution, so a
    # later step fails and the lock is put back as it was; `doit lock` alone brings it in step.
    assert doit(project.root, "compile").returncode != 0
    assert (project.root / "rules.lock").read_bytes() == lock
    assert doit(project.root, "lock").returncode == 0
    assert (project.root / "rules.lock").read_bytes() != lock
