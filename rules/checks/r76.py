"""Rule 76: GitLab pipelines run for merge requests."""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import GITLAB_CI, parse_yaml

RULE = 76
SUPERSEDED = False

MERGE_REQUEST = re.compile(r"""\$CI_PIPELINE_SOURCE\s*==\s*["']merge_request_event["']|\$CI_MERGE_REQUEST_""")


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(GITLAB_CI):
        return []
    text = repo.read_text(GITLAB_CI)
    config, error = parse_yaml(text)
    if error:
        raise Undecidable(f"{GITLAB_CI} is not valid YAML: {error}")
    if MERGE_REQUEST.search(text) or any(
            isinstance(job, dict) and "merge_requests" in (job.get("only") or []) for job in (config or {}).values()):
        return []
    if isinstance(config, dict) and config.get("include"):
        raise Undecidable(f"{GITLAB_CI} includes other files, which may run it for merge requests")
    return [Finding("no pipeline runs for merge requests (no merge_request_event rule, no only: "
                    "[merge_requests])", path=GITLAB_CI)]
