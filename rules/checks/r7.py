"""Rule 7: Skills declare a name and a description.

Decides what the Agent Skills specification's reference validator (`skills-ref validate`) decides
about a `SKILL.md`'s front matter: it opens with a YAML mapping closed by `---`; it has no field but
`name`, `description`, `license`, `allowed-tools`, `metadata` and `compatibility`; `name` is a
non-empty string of at most 64 characters, lowercase letters, digits and single hyphens, neither
starting nor ending with one, equal to the folder's name (compared after Unicode NFKC
normalisation); `description` is a non-empty string of at most 1,024 characters; `compatibility`,
when given, a string of at most 500. A `SKILL.md` that is not UTF-8 text fails as the validator
fails it (one over 4 MiB, or holding a NUL byte, is said so): the check never needs to leave the answer open.
"""

import unicodedata
from posixpath import basename, dirname

from agent_constitution.checks.api import Finding, Repository

from ._helpers import parse_yaml

RULE = 7
SUPERSEDED = False

FIELDS = {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
MAX_NAME, MAX_DESCRIPTION, MAX_COMPATIBILITY = 64, 1024, 500
TEXT_LIMIT = 4 * 1024 * 1024  # the most `Repository.text` reads as text (the check API's limit)


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/SKILL.md"):
        text = repo.text(path)
        found = [not_text(repo.read_bytes(path))] if text is None else problems(text, basename(dirname(path)))
        for problem in found:
            findings.append(Finding(problem, path=path, line=1))
    return findings


def not_text(data: bytes) -> str:
    """Why a SKILL.md the checks cannot read as text fails, in the words that fit it."""
    if len(data) > TEXT_LIMIT:
        return f"SKILL.md is {len(data) / 2**20:.1f} MiB, over the {TEXT_LIMIT // 2**20} MiB read as text"
    if b"\0" in data:
        return "SKILL.md holds a NUL byte: it is not text"
    return "SKILL.md is not UTF-8 text"


def problems(text: str, folder: str) -> list[str]:
    """What is wrong with a SKILL.md's front matter, in the validator's order; [] when nothing."""
    if not text.startswith("---"):
        return ["SKILL.md does not open with YAML front matter (a `---` line)"]
    parts = text.split("---", 2)
    if len(parts) < 3:
        return ["the front matter of SKILL.md has no closing `---` line"]
    data, error = parse_yaml(parts[1])
    if error:
        return [f"the front matter is not valid YAML: {error}"]
    if not isinstance(data, dict):
        return ["the front matter is not a mapping with `name` and `description`"]
    found = []
    extra = sorted(str(key) for key in data if key not in FIELDS)
    if extra:
        found.append(f"front matter fields the Agent Skills format does not have: {', '.join(extra)} "
                     f"(allowed: {', '.join(sorted(FIELDS))}; put your own under `metadata`)")
    found.extend(_name(data.get("name"), folder) if "name" in data else ["front matter has no `name`"])
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        found.append("front matter `description` is missing or empty")
    elif len(description) > MAX_DESCRIPTION:
        found.append(f"front matter `description` has {len(description)} characters, above {MAX_DESCRIPTION}")
    compatibility = data.get("compatibility")
    if "compatibility" in data and (not isinstance(compatibility, str) or len(compatibility) > MAX_COMPATIBILITY):
        found.append(f"front matter `compatibility` must be a string of at most {MAX_COMPATIBILITY} characters")
    return found


def _name(name, folder: str) -> list[str]:
    if not isinstance(name, str) or not name.strip():
        return ["front matter `name` must be a non-empty string"]
    name = unicodedata.normalize("NFKC", name.strip())
    found = []
    if len(name) > MAX_NAME:
        found.append(f"front matter `name` has {len(name)} characters, above {MAX_NAME}")
    if name != name.lower():
        found.append(f"front matter `name` {name!r} must be lowercase")
    if name.startswith("-") or name.endswith("-") or "--" in name:
        found.append(f"front matter `name` {name!r} may not start or end with a hyphen or hold two in a row")
    if not all(char.isalnum() or char == "-" for char in name):
        found.append(f"front matter `name` {name!r} may hold only letters, digits and hyphens")
    if unicodedata.normalize("NFKC", folder) != name:
        found.append(f"front matter `name` is {name!r}; it must equal the folder name {folder!r}")
    return found
