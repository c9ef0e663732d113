"""``python -m tandem.distributed.launch`` (deprecated in PyTorch, kept for old scripts): torchrun with one more
option, ``--use-env``. Without it each worker also gets ``--local-rank=<n>`` before its own arguments, as the old
launcher passed it; with it only LOCAL_RANK is set (torchrun's behaviour)."""
import warnings

from tandem.distributed.run import get_args_parser, run

__all__ = ["launch", "main", "parse_args"]

_DEPRECATION = ("The module torch.distributed.launch is deprecated\nand will be removed in future. Use torchrun.\n"
                "Note that --use-env is set by default in torchrun.\nIf your script expects `--local-rank` argument "
                "to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead. See \n"
                "https://pytorch.org/docs/stable/distributed.html#launch-utility for \nfurther instructions\n")


def parse_args(args):
    parser = get_args_parser()
    parser.add_argument("--use-env", "--use_env", default=False, action="store_true",
                        help="Pass the local rank in LOCAL_RANK only, not as --local-rank=<n> (the default passes "
                             "both, for legacy scripts).")
    return parser.parse_args(args)


def launch(args):
    if args.no_python and not args.use_env:
        raise ValueError("When using the '--no-python' flag, you must also set the '--use-env' flag.")
    run(args)


def main(args=None):
    warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
    launch(parse_args(args))


if __name__ == "__main__":
    main()
