"""tandem.hub: the cache directory, checkpoint downloads (file:// URLs here: no network) with hash checks, and
entry points of a local hubconf.py, against torch.hub."""
import hashlib
import os

import pytest
import torch

import tandem

HUBCONF = '''
dependencies = ["numpy"]
import tandem
from helper import OUT  # the directory's own module: importable while the entry point runs


def tiny(out=OUT):
    """A tiny model."""
    return tandem.nn.Linear(3, out)
'''


@pytest.fixture
def hub_dir(tmp_path):
    saved = tandem.hub._hub_dir
    yield tmp_path
    tandem.hub._hub_dir = saved


def test_get_dir_follows_torch_home_and_set_dir(hub_dir, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(hub_dir / "home"))
    tandem.hub._hub_dir = None
    torch.hub._hub_dir = None
    assert tandem.hub.get_dir() == torch.hub.get_dir() == str(hub_dir / "home" / "hub")
    tandem.hub.set_dir(str(hub_dir / "elsewhere"))
    assert tandem.hub.get_dir() == str(hub_dir / "elsewhere")


def _checkpoint(hub_dir, lib):
    src = hub_dir / "src.pth"
    lib.save({"w": lib.arange(3.0)}, str(src))
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    named = hub_dir / f"weights-{digest[:8]}.pth"
    os.rename(src, named)
    return named


def test_load_state_dict_from_url_downloads_once_and_checks_the_hash(hub_dir, capsys):
    named = _checkpoint(hub_dir, tandem)
    tandem.hub.set_dir(str(hub_dir / "hub"))
    sd = tandem.hub.load_state_dict_from_url(f"file://{named}", check_hash=True, map_location="cpu")
    assert sd["w"].tolist() == [0.0, 1.0, 2.0]
    cached = hub_dir / "hub" / "checkpoints" / named.name
    assert cached.exists()
    assert capsys.readouterr().out == f'Downloading: "file://{named}" to {cached}\n'
    os.remove(named)  # now served from the cache
    assert tandem.hub.load_state_dict_from_url(f"file://{named}")["w"].tolist() == [0.0, 1.0, 2.0]
    assert capsys.readouterr().out == ""
    bad = hub_dir / "weights-00000000.pth"
    _checkpoint(hub_dir, tandem).rename(bad)
    with pytest.raises(RuntimeError, match=r'^invalid hash value \(expected "00000000", got "'):
        tandem.hub.load_state_dict_from_url(f"file://{bad}", check_hash=True, model_dir=str(hub_dir / "m"))
    assert os.listdir(hub_dir / "m") == []  # no partial file left behind
    # file_name renames the cached copy; a checkpoint PyTorch wrote loads too
    theirs = _checkpoint(hub_dir, torch)
    sd = tandem.hub.load_state_dict_from_url(f"file://{theirs}", file_name="renamed.pth")
    assert sd["w"].tolist() == [0.0, 1.0, 2.0] and (hub_dir / "hub" / "checkpoints" / "renamed.pth").exists()


def test_local_hubconf_entry_points(hub_dir):
    repo = hub_dir / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(HUBCONF)
    (repo / "helper.py").write_text("OUT = 2\n")
    model = tandem.hub.load(str(repo), "tiny", source="local", out=4)
    assert isinstance(model, tandem.nn.Linear) and model.out_features == 4
    assert tandem.hub.load(str(repo), "tiny", source="local").out_features == 2
    assert tandem.hub.list(str(repo)) == ["tiny"]
    assert tandem.hub.help(str(repo), "tiny") == "A tiny model."
    with pytest.raises(RuntimeError, match="^Cannot find callable nope in hubconf$"):
        tandem.hub.load(str(repo), "nope", source="local")
    with pytest.raises(ValueError, match='^Unknown source: "x". Allowed values: "github" \\| "local".$'):
        tandem.hub.load(str(repo), "tiny", source="x")
    (repo / "hubconf.py").write_text('dependencies = ["no_such_package_xyz"]\n')
    with pytest.raises(RuntimeError, match="^Missing dependencies: no_such_package_xyz$"):
        tandem.hub.load(str(repo), "tiny", source="local")


def test_github_source_is_not_fetched():
    with pytest.raises(NotImplementedError, match="cannot fetch GitHub repositories"):
        tandem.hub.load("pytorch/vision", "resnet18")
