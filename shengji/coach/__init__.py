"""The coach: what a hand's decisions were worth, from what each player could know.

- `review` (with `review_last` for the fourth seat and `review_throw` for throws): the exact
  judgements, one trick's points priced in the attackers' total (docs/review.md).
- `analysis`: every bury, lead and follow judged by its effect on the whole hand, by Monte Carlo
  rollouts whose policy is the simulator's careful bot (docs/analysis.md).
- `analysis_world`: the one knowledge model and deal sampler both use (the throws' odds and the
  analysis's worlds), so no judgement is ever made from hidden cards.
"""

from __future__ import annotations

from .. import use_build

use_build(__path__, "coach")  # the compiled review, where the package runs compiled
