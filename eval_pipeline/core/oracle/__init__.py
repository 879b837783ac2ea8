"""The deterministic oracle: claims checked against the case's references recomputed live.

``facts`` reads what the references hold, ``periods`` and ``labels`` where an answer names
periods and entities, ``binding`` what each claim is stated for, ``candidates`` which facts it
may be stating, ``derived`` and its ``derived_*`` modules the shares, sums, differences, ratios
and growth rates its words call for, ``ranking`` the orderings it claims, ``tolerance`` how
precisely a number is checked, and ``verify`` the verdicts (with ``level_target``, ``fit_choice``
and ``derived_pins`` deciding what a claim is held against).
"""

from eval_pipeline.core.oracle.dimension import oracle_dimension
from eval_pipeline.core.oracle.tolerance import DEFAULT_RULE, ToleranceRule
from eval_pipeline.core.oracle.verify import verify_claims

__all__ = ["DEFAULT_RULE", "ToleranceRule", "oracle_dimension", "verify_claims"]
