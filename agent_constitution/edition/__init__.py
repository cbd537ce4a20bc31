"""The constitution compiler (seed 001): edition models, numbering, references, rendering and checks.

Other stages use: `files.read_worktree`, `files.load`, `files.edition_paths`, `files.CONSTITUTION`,
`render.outputs`, `render.file_names`, `references.targets`, `references.label` and
`languages.LANGUAGES`; keep their signatures.

`CONSTITUTION` (also `files.CONSTITUTION`; its home is `agent_constitution.layout`) is importable
here at no cost: the task families check for the folder on every doit command.
"""

import re

from agent_constitution.layout import CONSTITUTION  # noqa: F401 (re-exported: the tasks import it from here)

# A reference `{@id}` in a rule's or the constitution's text (`references` resolves it); here, like
# CONSTITUTION, so that the check reports render references without importing the edition models.
REFERENCE = re.compile(r"\{@([^{}\s]*)\}")
