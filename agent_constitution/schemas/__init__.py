"""The JSON Schemas of the files a user writes (the *.json here, made by `generate.py` from the models),
and the address editors fetch them from. Importing this costs nothing: the writers of starter files
only need `url`."""

# The files of this folder on the main branch: what a `#:schema` line (TOML, taplo and Even Better
# TOML) or a `# yaml-language-server: $schema=` modeline written by the tool names.
URL = "https://raw.githubusercontent.com/Luolc/agent-constitution/main/agent_constitution/schemas/"


def url(name: str) -> str:
    """The address of schema `name` (e.g. `rules.schema.json`)."""
    return URL + name
