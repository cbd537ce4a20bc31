"""The covenant judge (`pdks`): disciplines declared as data, judged on two surfaces.

The hot path (`pdks covenant check`) imports only the standard library: it evaluates a compiled
plan (JSON) of `polydeukes.config.yaml`. The loader (ruamel.yaml, pydantic) runs only when the plan
must be rebuilt; see `plan.py`.
"""


class FailClosed(Exception):  # noqa: N818 (what it means, not how it is raised)
    """A cause the judge fails closed on: no verdict can be reached, so the call is blocked, with
    `str()` as the message. Every such cause of the covenant derives from it (the config, the plan,
    the payload, the adapter's translation, a git read, a file the judge will not read, a word the
    shell layer cannot judge). `budget.OverBudget` stays a `BaseException` of its own: it must pass
    through the `except Exception` of the code it interrupts."""
