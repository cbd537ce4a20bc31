"""The fleet's fan-out on the forges' own engines: the reusable GitHub workflow's matrix and the GitLab
template's parallel jobs. Their shard step runs here with bash over real repositories, and the
fleet reader consumes the reports it writes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from agent_constitution.fleet.repos import read_list
from agent_constitution.fleet.survey import survey

PROJECT = Path(__file__).resolve().parents[2]
WORKFLOW = PROJECT / ".github" / "workflows" / "fleet.yml"
GITLAB = PROJECT / "ci" / "gitlab" / "fleet.yml"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def load(path: Path):
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_the_reusable_workflow_is_a_pinned_matrix_with_read_only_permissions():
    workflow = load(WORKFLOW)
    assert set(workflow["on"]) == {"workflow_call"}
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    assert all(job.get("timeout-minutes") for job in jobs.values())
    assert jobs["check"]["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    uses = [step["uses"] for job in jobs.values() for step in job["steps"] if "uses" in step]
    assert uses and all(PINNED.match(use) for use in uses), uses
    text = WORKFLOW.read_text()
    assert all(re.search(rf"{re.escape(use)} # v\d+(\.\d+)*$", text, re.M) for use in uses)


def test_the_plan_numbers_the_shards_and_refuses_too_many(tmp_path):
    step = load(WORKFLOW)["jobs"]["plan"]["steps"][0]
    for shards, code, output in (("3", 0, "shards=[1,2,3]"), ("257", 2, "")):
        out = tmp_path / f"output-{shards}"
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              env={**os.environ, "SHARDS": shards, "GITHUB_OUTPUT": str(out)},
                              capture_output=True, text=True)
        assert done.returncode == code, done.stdout + done.stderr
        assert (out.read_text().strip() if out.exists() else "") == output


def shard_scripts() -> dict[str, str]:
    check = next(step for step in load(WORKFLOW)["jobs"]["check"]["steps"] if step.get("name", "").startswith("Check"))
    gitlab = load(GITLAB)["agent-constitution-fleet-check"]
    assert gitlab["parallel"] >= 2 and gitlab["artifacts"]["paths"] == ["reports/"]
    # The token line writes git's global configuration: here a file of the test's own.
    return {"github": check["run"], "gitlab": "\n".join(gitlab["script"])}


@pytest.mark.parametrize("forge", ["github", "gitlab"])
def test_each_shard_checks_its_share_and_the_fleet_reads_the_reports(forge, generated, tmp_path):
    script = shard_scripts()[forge]
    listed = tmp_path / "fleet.txt"
    listed.write_text("# three repositories\n" + "".join(f"{generated.served / name}\n" for name in generated.names[:3]))
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "GITHUB_ACTIONS")}
    env.update({"PATH": os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]]), "FLEET_LIST": str(listed),
                "CI_NODE_TOTAL": "2", "AGENT_CONSTITUTION_ARGS": "", "TOKEN": "t",
                "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"), "HOME": str(tmp_path)})
    shares = {}
    for index in ("1", "2"):
        folder = tmp_path / f"job-{index}"
        folder.mkdir()
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=folder,
                              env={**env, "CI_NODE_INDEX": index}, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        shares[index] = sorted(path.name for path in (folder / "reports").glob("*.json"))
    assert shares == {"1": ["1.json", "3.json"], "2": ["2.json"]}
    fleet = survey(read_list(listed), reports=tmp_path)
    assert all(row["checked"] == row["commit"] and row["checked_current"] for row in fleet.repositories)
    assert fleet.to_json()["rules"]["ac:7"]["no-check"] == 3
