"""The table simulator: bots of documented styles play whole matches and write `tractor-hh/1`.

Everything here is deterministic from a seed: each match draws from its own `random.Random`
passed explicitly, and every rule the bots or the table need comes from the engine modules
(`combos`, `follow`, `throws`, `trick`, `scoring`, `bidding`), so a simulated hand is legal by
construction and replays with no findings.
"""

from __future__ import annotations

from .. import use_build

use_build(__path__, "sim")  # the compiled table loop, where the package runs compiled
