"""Rules, sources, manifests, resolution and the lockfile (seed 000).

- `models`: the files as pydantic models (source.toml, a rule, a skill, rules.toml, rules.lock).
- `source`: `load_source(root) -> RuleSource`, one validated source and its parent tree.
- `manifest`: `rules.toml` with its bases (`extends`) as one `Effective` manifest of source keys.
- `sourceset`: every source at one version (locked commits, cross-source version ranges).
- `graph`: the rule graph over all sources (`World`) and its structural facts, with networkx.
- `select`: one segment's selection → `ResolvedSegment`, every constraint, explained errors.
- `resolve`: `resolve(project_root, lock)` → `Resolution`; `documents`: its typed resolution per segment.
- `resolved`: that typed resolution on disk (`cache/resolved/`), its one reader (standard library only).
- `lock`: `rules.lock` through its model, `sync_lock` (the lock stage: re-lock or fail, write the resolution).
- `locked`: whether a run may change the lock (`--locked`, `locked=1`, CI).
- `outline`: the lenient outline of `rules.toml` that task creation reads.
- `upgrade`: `upgrade`, `outdated` and `replace`.
- `inputs`: the files the lock stage depends on.
- `layout`: the file names and segment keys task creation needs (imports nothing).
- `tags`: version tags and their order (imports only `packaging`; `versions` re-exports them).
"""
