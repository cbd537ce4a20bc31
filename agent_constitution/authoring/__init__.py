"""Authoring a rule source: what its maintainers run, beside what a consumer runs to use it.

`history` (rule IDs in the git history), `new_rule` (`doit new-rule`), `validate` (`doit validate-source`),
`impact` (`doit impact`: the rules to re-examine when the constitution changes) and `published` (the
constitution edition the source publishes). These read a source through `ruleset.source` and git;
`agent_constitution.sources` below them only fetches and caches.
"""
