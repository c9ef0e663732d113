"""tandem._inductor: only ``config``, whose knobs training scripts set next to torch.compile (llm.c's
train_gpt2.py imports ``torch._inductor.config`` at the top). tandem has no graph compiler (see tandem.compiler)."""
from . import config  # noqa: F401
