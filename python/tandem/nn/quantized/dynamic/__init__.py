"""tandem.nn.quantized.dynamic: the older name of tandem.ao.nn.quantized.dynamic."""
from ....ao.nn.quantized.dynamic import *  # noqa: F401,F403
from ....ao.nn.quantized.dynamic import __all__  # noqa: F401
