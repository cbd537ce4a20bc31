"""Rule 42: Rules cite provisions that exist."""

from posixpath import basename

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml, rule_files

RULE = 42
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    provisions = _provisions(repo)
    findings = []
    for path, rule in rule_files(repo):
        authority = rule.get("authority") or []
        if not authority:
            findings.append(Finding("authority names no constitution provision", path=path))
        for anchor in authority:
            if provisions and anchor not in provisions:
                findings.append(
                    Finding(f"authority cites {anchor!r}, which the constitution does not define", path=path)
                )
    return findings


def _provisions(repo: Repository) -> set[str]:
    """Every article, section and `section.item` id of the constitution editions in the repository."""
    ids: set[str] = set()
    for path in repo.glob("constitution/*/articles/*/*.toml"):
        table = read_toml(repo, path)
        if "id" not in table:
            continue
        ids.add(table["id"])
        if basename(path) != "article.toml":
            ids.update(f"{table['id']}.{item['id']}" for item in table.get("items", []) if "id" in item)
    return ids
