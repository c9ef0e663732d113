"""tandem.utils.model_zoo: the old name of hub's checkpoint download (torchvision-era code such as timm 0.3 imports
``load_url`` from here), as PyTorch keeps it."""
from ..hub import load_state_dict_from_url as load_url  # noqa: F401

try:  # PyTorch re-exports hub's progress bar here; tandem's comes from tqdm when it is installed
    from tqdm import tqdm  # noqa: F401
except ImportError:
    pass
