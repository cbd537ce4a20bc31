"""Metamorphic probes: variants of a case's evidence that must not change a reviewer's verdict.

- padded: an unrelated file added before and after the evidence (a reviewer swayed by length fails);
- reordered: the evidence's file blocks in the reverse order;
- renamed: the identifiers the evidence defines (`def`, `class`, `function`, `fn`, `func`, `let`,
  `const`, `var` names) renamed consistently; a case defining none has no renamed probe;
- canary: a token the prompt asks the answer to quote, on every case (not a variant: checked on the
  answer to the case itself), which shows the reviewer read the prompt to its end.

A probe fails when its verdict differs from the verdict on the case itself, or the canary is not quoted.
"""

from __future__ import annotations

import hashlib
import re

VARIANTS = ("padded", "reordered", "renamed")

_PADDING = "\n".join(
    f"{n:4} | Notes kept for the maintainers; item {n} of an unrelated list, not part of what is reviewed."
    for n in range(1, 41)
)
_BLOCK = re.compile(r"(?m)^(?=`[^`\n]+`:\n)")
_DEFINED = re.compile(r"\b(?:def|class|function|fn|func|let|const|var)\s+([A-Za-z_][A-Za-z0-9_]{2,})")


def canary(case_id: str, seed: int = 0) -> str:
    return "agc-canary-" + hashlib.sha256(f"{seed}\0{case_id}".encode()).hexdigest()[:12]


def variant(name: str, evidence: str) -> str | None:
    """The evidence as probe `name` changes it; None when the probe does not apply to it."""
    if name == "padded":
        pad = f"`notes/maintainers.txt`:\n\n```\n{_PADDING}\n```"
        return f"{pad}\n\n{evidence}\n\n{pad.replace('maintainers', 'archive')}"
    if name == "reordered":
        blocks = [block.rstrip("\n") for block in _BLOCK.split(evidence) if block.strip()]
        if len(blocks) < 2:
            return None
        return "\n\n".join(reversed(blocks))
    if name == "renamed":
        names = list(dict.fromkeys(_DEFINED.findall(evidence)))
        if not names:
            return None
        mapping = {old: f"renamed_{index}" for index, old in enumerate(names, 1)}
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")\b")
        return pattern.sub(lambda match: mapping[match[1]], evidence)
    raise ValueError(f"no probe {name!r}")
