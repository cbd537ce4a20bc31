"""Rule 7: Skills declare a name and a description."""

from posixpath import basename, dirname

from agent_constitution.checks.api import Finding, Repository

from ._helpers import parse_yaml

RULE = 7
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/SKILL.md"):
        problem = _problem(repo.read_text(path).splitlines(), basename(dirname(path)))
        if problem:
            findings.append(Finding(problem, path=path, line=1))
    return findings


def _problem(lines: list[str], folder: str) -> str | None:
    if not lines or lines[0].strip() != "---":
        return "SKILL.md does not open with YAML front matter (a `---` line)"
    end = next((number for number, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return "the front matter of SKILL.md has no closing `---` line"
    data, error = parse_yaml("\n".join(lines[1:end]))
    if error:
        return f"the front matter is not valid YAML: {error}"
    if not isinstance(data, dict):
        return "the front matter is not a mapping with `name` and `description`"
    if data.get("name") != folder:
        return f"front matter `name` is {data.get('name')!r}; it must equal the folder name {folder!r}"
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        return "front matter `description` is missing or empty"
    return None
