"""The constitution compiler (seed 001): source models, numbering, references, rendering and checks.

Other stages use: `sources.read_worktree`, `sources.load`, `sources.source_paths`, `sources.CONSTITUTION`,
`render.outputs`, `render.file_names`, `references.targets`, `references.label` and
`languages.LANGUAGES`; keep their signatures.
"""
