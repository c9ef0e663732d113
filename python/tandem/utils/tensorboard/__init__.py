"""tandem.utils.tensorboard, as torch.utils.tensorboard: SummaryWriter writes TensorBoard event files (TFRecord
framing with CRC-32C, hand-encoded protobuf messages) for scalars, histograms, images, text and hparams, in pure
Python, so neither tensorboard nor protobuf need be installed to log (TensorBoard is only needed to view)."""
from .writer import FileWriter, SummaryWriter  # noqa: F401

__all__ = ["FileWriter", "SummaryWriter"]
