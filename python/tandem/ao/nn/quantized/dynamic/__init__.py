"""tandem.ao.nn.quantized.dynamic: the layers quantize_dynamic swaps in (PyTorch's torch.ao.nn.quantized.dynamic)."""
from .linear import Linear
from .rnn import GRU, LSTM, GRUCell, LSTMCell, RNNCell

__all__ = ["Linear", "LSTM", "GRU", "LSTMCell", "GRUCell", "RNNCell"]
