"""Rules, sources, manifests, resolution and the lockfile (seed 000).

- `models`: the files as pydantic models (source.toml, a rule, a skill, rules.toml, rules.lock).
- `source`: `load_source(root) -> RuleSource`, one validated source and its parent tree.
- `manifest`: `rules.toml` with its bases (`extends`) as one `Effective` manifest of source keys.
- `sourceset`: every source at one version (locked commits, cross-source version ranges).
- `graph`: the rule graph over all sources (`World`) and its structural facts, with networkx.
- `select`: one segment's selection → `ResolvedSegment`, every constraint, explained errors.
- `resolve`: `resolve(project_root, lock)` → `Resolution`; the resolved JSON for the compile stage.
- `lock`: `rules.lock` text, reading it, `sync_lock` (re-lock, or fail with `locked`).
- `upgrade`: `upgrade`, `outdated` and `replace`.
- `inputs`: the files the lock and resolve tasks depend on.
- `layout`: the file names and segment keys task creation needs (imports nothing).
"""
