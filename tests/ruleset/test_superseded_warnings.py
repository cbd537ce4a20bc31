"""A superseded rule the manifest names, in `rules` or `[choices]`, is reported with its successor, on every run."""

from tests.ruleset.builders import write_rule
from tests.ruleset.conftest import Project
from tests.ruleset.test_tasks import doit


def supersede_uv(project: Project) -> None:
    write_rule(project.root / "src", 2, parent="package-manager", status="superseded", superseded_by=10)
    write_rule(project.root / "src", 10, parent="package-manager")


def test_a_superseded_choice_is_reported_with_its_successor(project: Project):
    supersede_uv(project)
    [warning] = project.resolve(rules=["ac:1"], choices={"ac:package-manager": "ac:2"}).segment(".").warnings
    assert warning == (
        'ac:2 "Rule 2" (rules.toml `choices`, for ac:package-manager) is superseded by ac:10 "Rule 10";'
        " run `doit replace` to use the successor"
    )


def test_superseded_warnings_on_every_run(project: Project):
    supersede_uv(project)
    project.manifest(rules=["ac:7", "ac:2"])
    (project.root / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")
    for _ in range(2):  # the second run changes nothing, and still says it
        done = doit(project.root, "lock")
        assert done.returncode == 0, done.stderr
        assert 'warning: ac:2 "Rule 2" (rules.toml `rules`) is superseded by ac:10 "Rule 10"' in done.stderr
    project.manifest(rules=["ac:7"])
    assert "warning" not in doit(project.root, "lock").stderr
    assert "-- lock" in doit(project.root, "lock").stdout  # without warnings the task is up to date again
