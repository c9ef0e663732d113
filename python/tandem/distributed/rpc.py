"""torch.distributed.rpc as PyTorch builds without RPC support have it (USE_RPC=0): the module imports and
is_available() says False. tandem has no RPC framework (remote calls, RRefs, distributed autograd); libraries
that import the module and check is_available() (or hasattr(rpc, "init_rpc")) before using it keep working."""


def is_available():
    return False
