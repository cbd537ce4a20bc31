"""Rule 114: Rules and skills cite provisions by id, not by position.

Reports `Art. IV`, `Article 4`, `§ 3`, `宪法第四条` and `第四条第一款` style references in the texts of
rule files and in the `SKILL.md` files of `rules/skills/`, outside code spans (which quote examples).
A bare `第一条` is left alone: in Chinese it is also "the first one". A rule file that is not valid TOML is
undecidable.
"""

import re

from agent_constitution.checks.api import Finding, Repository

from ._helpers import rule_files

RULE = 114
SUPERSEDED = False

NUMBER = "[一二三四五六七八九十百0-9]+"
POSITION = re.compile(rf"\bArt(?:icle|\.)\s*[IVXLC0-9]+\b|§\s*\d|宪法第{NUMBER}条|第{NUMBER}条第{NUMBER}[款节项]")
CODE = re.compile(r"`[^`]*`")


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path, rule in rule_files(repo):
        for language, text in (rule.get("text") or {}).items():
            match = POSITION.search(CODE.sub("", text)) if isinstance(text, str) else None
            if match:
                findings.append(Finding(f"the {language} text cites {match.group(0)!r} by position; cite the "
                                        "provision's id", path=path))
    for path in repo.glob("rules/skills/*/SKILL.md"):
        for number, line in enumerate(repo.read_text(path).splitlines(), 1):
            match = POSITION.search(CODE.sub("", line))
            if match:
                findings.append(Finding(f"cites {match.group(0)!r} by position; cite the provision's id", path=path,
                                        line=number))
    return findings
