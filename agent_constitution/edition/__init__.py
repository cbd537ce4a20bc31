"""The constitution compiler (seed 001): source models, numbering, references, rendering and checks.

Other stages use: `sources.read_worktree`, `sources.load`, `sources.source_paths`, `sources.CONSTITUTION`,
`render.outputs`, `render.file_names`, `references.targets`, `references.label` and
`languages.LANGUAGES`; keep their signatures.

`CONSTITUTION` (also `sources.CONSTITUTION`) is defined here, where importing it costs nothing: the
task families check for the folder on every doit command.
"""

import re

CONSTITUTION = "constitution"  # the folder of a repository's constitution editions
# A reference `{@id}` in a rule's or the constitution's text (`references` resolves it); here, like
# CONSTITUTION, so that the check reports render references without importing the edition models.
REFERENCE = re.compile(r"\{@([^{}\s]*)\}")
