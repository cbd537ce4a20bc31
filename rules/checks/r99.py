"""Rule 99: MCP servers are pinned to a version.

For every server of `.mcp.json` (`mcpServers`) with a `command`: `npx`, `pnpm dlx`, `bunx` and `yarn
dlx` need `name@version` (a scoped name `@scope/name@version`); `uvx`, `uv tool run` and `pipx run`
need `name==version` or `name@version` (also in `--from`); `docker`/`podman run` need an image with
a tag other than `latest` or a digest. A version is pinned when it starts with a digit. A server run
by `node`, `python`, a path in the repository and similar is the repository's own code and passes;
another command is undecidable. Servers with a `url` run elsewhere and pass.
"""

import json
import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 99
SUPERSEDED = False

PATH = ".mcp.json"
LOCAL = {"node", "python", "python3", "deno", "bun", "uv", "go", "cargo", "java", "ruby", "sh", "bash"}
EXACT = re.compile(r"^(@?[^@=\s]+)(?:@|==)v?\d[\w.+-]*$")
RUNNER_OPTIONS = {"--from", "--with", "-p", "--package", "--python", "--spec"}


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(PATH):
        return []
    try:
        config = json.loads(repo.read_text(PATH))
    except ValueError as error:
        raise Undecidable(f"{PATH} is not valid JSON: {error}") from None
    servers = config.get("mcpServers") if isinstance(config, dict) else None
    findings, unknown = [], []
    for name, server in (servers or {}).items():
        if not isinstance(server, dict) or not isinstance(server.get("command"), str):
            continue
        verdict = _pinned([server["command"], *[str(arg) for arg in server.get("args") or []]])
        if verdict is False:
            findings.append(Finding(f"MCP server {name!r} runs a package or image without an exact version", path=PATH))
        elif verdict is None:
            unknown.append(name)
    if not findings and unknown:
        raise Undecidable(f"MCP server {unknown[0]!r} is started by a command this check does not know")
    return findings


def _pinned(argv: list[str]) -> bool | None:
    program = argv[0].rsplit("/", 1)[-1]
    args = argv[1:]
    if program in ("pnpm", "yarn") and args[:1] == ["dlx"] or program == "uv" and args[:2] == ["tool", "run"] or \
            program == "pipx" and args[:1] == ["run"]:
        args = args[2:] if program == "uv" else args[1:]
        program = "npx" if program in ("pnpm", "yarn") else "uvx"
    if program in ("npx", "bunx", "uvx"):
        spec = _package(args)
        return bool(spec and EXACT.match(spec))
    if program in ("docker", "podman") and args[:1] == ["run"]:
        image = next((arg for arg in args[1:] if not arg.startswith("-") and "=" not in arg), "")
        last = image.rpartition("/")[2]
        return "@sha256:" in image or (":" in last and not last.endswith(":latest"))
    if program in LOCAL or argv[0].startswith(("./", "/")):
        return True
    return None


def _package(args: list[str]) -> str | None:
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in ("--from",) and index + 1 < len(args):
            return args[index + 1]
        if arg in RUNNER_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None
