"""Rule 100: Codex configuration keeps the sandbox on."""

import tomllib

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 100
SUPERSEDED = False

PATH = ".codex/config.toml"


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(PATH):
        return []
    try:
        config = tomllib.loads(repo.read_text(PATH))
    except tomllib.TOMLDecodeError as error:
        raise Undecidable(f"{PATH} is not valid TOML: {error}") from None
    places = [("the top level", config)] + [(f"profile {name!r}", profile)
                                              for name, profile in (config.get("profiles") or {}).items()
                                              if isinstance(profile, dict)]
    return [Finding(f"{where} sets sandbox_mode = \"danger-full-access\"", path=PATH)
            for where, table in places if table.get("sandbox_mode") == "danger-full-access"]
