"""tandem.cuda.random, as torch.cuda.random: the CUDA generators' seeding and state functions under the module
path libraries call them by (torchattacks seeds with torch.cuda.random.manual_seed)."""
from . import (get_rng_state, get_rng_state_all, set_rng_state, set_rng_state_all, manual_seed,  # noqa: F401
               manual_seed_all, seed, seed_all, initial_seed)

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]
