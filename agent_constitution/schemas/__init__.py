"""The JSON Schemas of the files a user writes (the *.json here, made by `generate.py` from the models of
every stage, so this package sits above them). The address editors fetch them from is
`layout.schema_url`, which the writers of starter files use without importing this package."""

from agent_constitution.layout import SCHEMA_URL as URL
from agent_constitution.layout import schema_url as url

__all__ = ["URL", "url"]
