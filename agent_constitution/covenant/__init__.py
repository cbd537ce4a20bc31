"""The covenant judge (`pdks`): disciplines declared as data, judged on two surfaces.

The hot path (`pdks covenant check`) imports only the standard library: it evaluates a compiled
plan (JSON) of `polydeukes.config.yaml`. The loader (ruamel.yaml, pydantic) runs only when the plan
must be rebuilt; see `plan.py`.
"""
