"""tandem.distributed.elastic: the pieces of PyTorch's torch.distributed.elastic that scripts and the launcher
(``python -m tandem.distributed.run``) use: error recording (``multiprocessing.errors.record``) and the local
worker group the launcher runs. Single-node only; docs/distributed.md, "The launcher"."""
