"""The uv form of a hook command: the project's own environment, run directly while it matches the lock.

`uv run --quiet pdks …` costs about ten times the bare interpreter on every agent tool call, nearly
all of it uv deciding that the environment is already in sync. The command this module writes
makes that decision once per change of the lock instead:

- The fast way: when `.venv/.agent-constitution-synced` (the *sync stamp*) holds the digest of
  `uv.lock` and `pyproject.toml` as they are now, and is newer than the environment's
  `site-packages` (nothing was installed or removed since it was written), the command runs
  `.venv/bin/<tool>` itself.
- Otherwise (no stamp, a lock or manifest edited, switched or pulled, a package installed by hand,
  no `.venv` under the hook's directory, `UV_PROJECT_ENVIRONMENT` naming another environment,
  `UV_NO_SYNC` set): `uv run --quiet <tool> …`, exactly the command of before, which syncs the
  environment to the lock. When that run answers 0, uv has synced the environment and our
  program ran in it, so the command writes the stamp with the digest of the files as they are then.

The digest is `cksum` (CRC-32 and size of each file; POSIX, so on every machine a hook runs on),
read with the shell's own `read`: the fast way costs one `cksum` process. It guards against
accidental staleness (an edited or switched lock), not against someone forging the stamp: whoever
can write `.venv` can replace the program itself. Every doubt takes the slow way, which is the
command of before: a stamp that is unreadable, half-written or from another lock only costs one
`uv run`. Nothing is committed: the stamp lives in the ignored environment, and the command
itself names only relative paths, the same on every machine.
"""

from __future__ import annotations

STAMP = ".venv/.agent-constitution-synced"
SITE = ".venv/lib/python*/site-packages"
_DIGEST = "set -- $(cksum uv.lock pyproject.toml 2>/dev/null); [ $# -eq 6 ] && k=\"$1 $2 $4 $5\""


def fast_or_uv(tool: str, args: str, missing_uv: str) -> str:
    """Shell that runs `tool args` from the project's `.venv` when the sync stamp matches, else
    through `uv run` (after `missing_uv`, the shell run when uv is not on PATH) and then records
    the stamp; it leaves the program's status in `$s`."""
    direct = f".venv/bin/{tool}"
    return (
        # Whether the fast way may be taken at all, then the digest of the lock as it is now.
        f"k=; r=; set -- {SITE}; "
        f'if [ $# -eq 1 ] && [ -d "$1" ] && [ -x {direct} ] && [ -z "${{UV_PROJECT_ENVIRONMENT-}}${{UV_NO_SYNC-}}" ] '
        f'&& [ {STAMP} -nt "$1" ]; then {_DIGEST}; read -r r < {STAMP}; fi; '
        f'if [ -n "$k" ] && [ "$r" = "$k" ]; then {direct} {args}; s=$?; '
        f"else command -v uv >/dev/null 2>&1 || {{ {missing_uv}; }}; uv run --quiet {tool} {args}; s=$?; "
        # Only a run that answered 0 proves that uv synced the environment and the program ran in it.
        f'if [ $s -eq 0 ] && [ -d .venv ] && [ -z "${{UV_PROJECT_ENVIRONMENT-}}${{UV_NO_SYNC-}}" ]; then k=; {_DIGEST} '
        f"&& {{ printf '%s\\n' \"$k\" > {STAMP}; }} 2>/dev/null; fi; fi; "
    )
