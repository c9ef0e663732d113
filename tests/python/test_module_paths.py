"""PyTorch programs name layer classes by their module path (e.g. the safe_globals lists of
torch.load(weights_only=True)); each path PyTorch has resolves in tandem to the class tandem.nn exports, and a
whole model saved with tandem.save loads back under tandem.serialization.safe_globals."""
import io

import pytest

import tandem

PATHS = [
    "modules.activation.MultiheadAttention", "modules.activation.ReLU", "modules.container.ModuleList",
    "modules.container.Sequential", "modules.dropout.Dropout", "modules.dropout.Dropout2d",
    "modules.linear.Linear", "modules.linear.NonDynamicallyQuantizableLinear", "modules.normalization.LayerNorm",
    "modules.sparse.Embedding", "modules.sparse.EmbeddingBag", "modules.transformer.TransformerEncoder",
    "modules.transformer.TransformerEncoderLayer", "modules.rnn.GRU", "modules.rnn.LSTM", "modules.rnn.RNN",
    "modules.conv.Conv2d", "modules.conv.Conv1d", "modules.conv.ConvTranspose2d", "modules.normalization.GroupNorm",
    "modules.normalization.RMSNorm", "modules.batchnorm.BatchNorm2d", "modules.instancenorm.InstanceNorm2d",
    "modules.loss.HuberLoss", "modules.loss.CTCLoss", "modules.distance.PairwiseDistance", "modules.flatten.Flatten",
    "modules.pooling.MaxPool2d", "modules.pooling.AdaptiveAvgPool2d", "modules.padding.ReflectionPad2d",
    "modules.pixelshuffle.PixelShuffle", "modules.upsampling.Upsample", "modules.activation.GELU",
]


@pytest.mark.parametrize("path", PATHS)
def test_pytorch_module_paths_resolve(path):
    obj = tandem.nn
    for part in path.split("."):
        obj = getattr(obj, part)
    # NonDynamicallyQuantizableLinear is not exported at torch.nn either.
    assert obj is getattr(tandem.nn, path.rsplit(".", 1)[1], obj)


class TinyLM(tandem.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tandem.nn.Embedding(10, 8)
        self.rnn = tandem.nn.LSTM(8, 8)
        self.drop = tandem.nn.Dropout(0.1)
        self.head = tandem.nn.Linear(8, 10)


def test_whole_model_round_trip_under_safe_globals():
    tandem.manual_seed(0)
    model = TinyLM()
    buf = io.BytesIO()
    tandem.save(model, buf)
    allowed = [TinyLM, tandem.nn.modules.sparse.Embedding, tandem.nn.modules.rnn.LSTM,
               tandem.nn.modules.dropout.Dropout, tandem.nn.modules.linear.Linear]
    with tandem.serialization.safe_globals(allowed):
        loaded = tandem.load(io.BytesIO(buf.getvalue()))
    assert type(loaded) is TinyLM and list(loaded.state_dict()) == list(model.state_dict())
    assert all(tandem.equal(a, b) for a, b in zip(loaded.state_dict().values(), model.state_dict().values()))
    x = tandem.tensor([[1, 2, 3]])
    assert tandem.equal(loaded.head(loaded.rnn(loaded.embed(x))[0]), model.head(model.rnn(model.embed(x))[0]))
    with pytest.raises(Exception, match="Weights only load failed"):
        tandem.load(io.BytesIO(buf.getvalue()))  # without the allowlist: refused, nothing built
