"""argparse actions whose defaults come from the environment, as torchrun's options do: ``--foo`` falls back to
``PET_FOO`` (PyTorch's ``torch.distributed.argparse_util``). A value on the command line always wins."""
import argparse
import os

__all__ = ["check_env", "env"]


class env(argparse.Action):  # noqa: N801 (PyTorch's name)
    """An option taking a value whose default is ``PET_<DEST>`` when that is set (then it is no longer
    required)."""

    def __init__(self, dest, default=None, required=False, **kwargs):
        default = os.environ.get(f"PET_{dest.upper()}", default)
        super().__init__(dest=dest, default=default, required=required and not default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class check_env(argparse.Action):  # noqa: N801
    """A flag (no value) that is also on when ``PET_<DEST>`` holds a non-zero integer."""

    def __init__(self, dest, default=False, **kwargs):
        default = bool(int(os.environ.get(f"PET_{dest.upper()}", "1" if default else "0")))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)
