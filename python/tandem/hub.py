"""tandem.hub: PyTorch's hub cache and checkpoint download helpers, and hub entry points from a local directory.

The cache is PyTorch's (``$TORCH_HOME/hub``, ``~/.cache/torch/hub`` by default), so checkpoints PyTorch already
downloaded are found offline. ``load``/``list``/``help`` read a local ``hubconf.py`` (``source="local"``);
fetching a GitHub repository is not implemented (download it, then pass its directory with source="local").
"""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.request
import warnings
from urllib.parse import urlparse

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # the sha256 prefix in names such as resnet18-f37072fd.pth
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
READ_DATA_CHUNK = 128 * 1024

_hub_dir = None


def _get_torch_home():
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME,
                                                                                  DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    """The hub cache directory: set_dir's, else ``$TORCH_HOME/hub`` (``$XDG_CACHE_HOME/torch/hub``)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Sets the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads ``url`` to ``dst`` through a temporary file in the same directory; with ``hash_prefix``, the
    file's sha256 must start with it (RuntimeError otherwise, and nothing is left at ``dst``)."""
    req = urllib.request.Request(url, headers={"User-Agent": "torch.hub"})
    dst = os.path.expanduser(dst)
    dst_dir = os.path.dirname(os.path.abspath(dst))
    with urllib.request.urlopen(req) as u:
        f = tempfile.NamedTemporaryFile(delete=False, dir=dst_dir, prefix=os.path.basename(dst) + ".",
                                        suffix=".partial")
        try:
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            while True:
                buffer = u.read(READ_DATA_CHUNK)
                if not buffer:
                    break
                f.write(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
            f.close()
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
            shutil.move(f.name, dst)
        finally:
            f.close()
            if os.path.exists(f.name):
                os.remove(f.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """Loads a checkpoint from the hub cache (``<hub dir>/checkpoints``), downloading it there first if needed."""
    from .serialization import load  # noqa: PLC0415

    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return load(cached_file, map_location=map_location, weights_only=weights_only)


def _local_hubconf(repo_dir, source):
    if source == "github":
        raise NotImplementedError(
            "tandem.hub cannot fetch GitHub repositories yet\nhint: clone or download the repository, then call "
            "hub.load(path_to_its_directory, model, source='local')")
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    hubconf_path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF[:-3], hubconf_path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    deps = getattr(module, VAR_DEPENDENCY, None)
    if deps is not None:
        missing = [pkg for pkg in deps if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _dir_or_github(github):
    return "local" if os.path.isdir(github) else "github"


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The entry points of a hub directory's hubconf.py (names not starting with '_')."""
    module = _local_hubconf(github, _dir_or_github(github))
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of an entry point."""
    return _entry(_local_hubconf(github, _dir_or_github(github)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Calls the entry point ``model`` of the hubconf.py in ``repo_or_dir`` (source="local") with args and
    kwargs."""
    source = source.lower()
    module = _local_hubconf(repo_or_dir, source)
    sys.path.insert(0, repo_or_dir)  # the entry point may import the directory's own modules, as in PyTorch
    try:
        return _entry(module, model)(*args, **kwargs)
    finally:
        sys.path.remove(repo_or_dir)
