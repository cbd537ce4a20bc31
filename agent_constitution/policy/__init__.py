"""The organisation policy: what an organisation requires of every repository, which none can loosen.

- `model`: the policy file (`policy.toml`, schema `schemas/policy.schema.json`).
- `discover`: where it comes from (the managed path, `AGENT_CONSTITUTION_POLICY`, `--policy`; a file
  or a git repository pinned by commit), never the repository's own files.
- `apply`: `enforce(resolution, found)`, every breach with the repository's line and the policy's.
- `gate`: what the lock and check stages call: enforce, and the digest `rules.lock` records.

docs/fleet.md describes the format and the decisions.
"""
