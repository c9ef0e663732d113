"""``python -m tandem.distributed.run`` (torchrun): starts ``--nproc-per-node`` copies of a training script on this
machine with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, ...), so a script
written for ``torchrun --nproc-per-node=N train.py`` runs unchanged with ``import tandem as torch``; the workers'
``init_process_group()`` joins them over MPI (mpi_join.py). The options are PyTorch 2.15's; the ones that only
matter across machines or for PyTorch's plug-ins say so instead of being ignored. One node only: several
machines are mpirun's or srun's job. docs/distributed.md, "The launcher"."""
import argparse
import logging
import os
import signal
import sys
import uuid

from tandem.distributed.argparse_util import check_env, env
from tandem.distributed.elastic.local_agent import LaunchPlan, LocalAgent
from tandem.distributed.elastic.multiprocessing.errors import record
from tandem.distributed.elastic.multiprocessing.worker_streams import Std

__all__ = ["config_from_args", "determine_local_world_size", "get_args_parser", "main", "parse_args",
           "parse_min_max_nnodes", "run"]

logger = logging.getLogger("tandem.distributed.run")  # not __name__: that is "__main__" under -m

_RDZV_DEFAULT_PORT = 29400  # c10d rendezvous endpoints without a port
_RUN_PATH_RUNNER = ("import runpy, sys; sys.argv = sys.argv[1:]; "
                    "runpy.run_path(sys.argv[0], run_name='__main__')")
_OMP_WARNING = ("\n*****************************************\n"
                "Setting OMP_NUM_THREADS environment variable for each process to be %s in default, to avoid your "
                "system being overloaded, please further tune the variable for optimal performance in your "
                "application as needed. \n*****************************************")


class _PrintCompletion(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        try:
            import shtab  # noqa: PLC0415 (optional, as in PyTorch)
        except ImportError:
            parser.exit(1, f"{option_string} requires the 'shtab' package: pip install shtab\n")
        parser.prog = "torchrun"
        print(shtab.complete(parser, shell=values))
        parser.exit()


def _comma_separated_list(value):
    # ",," stands for a comma inside one item.
    return [item.replace("\0", ",") for item in value.replace(",,", "\0").split(",")]


def get_args_parser():
    """torchrun's parser: the same options, spellings (--a-b and --a_b), defaults and PET_* fallbacks."""
    parser = argparse.ArgumentParser(description="Torch Distributed Elastic Training Launcher")
    add = parser.add_argument

    def option(*names, **kwargs):
        add(*names, *["--" + n[2:].replace("-", "_") for n in names if n.startswith("--") and "-" in n[2:]], **kwargs)

    option("--nnodes", action=env, type=str, default="1:1",
           help="Number of nodes, or a range <minimum_nodes>:<maximum_nodes>. tandem's launcher runs one node.")
    option("--nproc-per-node", action=env, type=str, default="1",
           help="Workers on this node: an int, 'cpu' (one per CPU core), 'gpu' (one per CUDA device) or 'auto' "
                "(the CUDA devices, else the CPU cores).")
    option("--rdzv-backend", action=env, type=str, default="static", help="Rendezvous backend (static or c10d).")
    option("--rdzv-endpoint", action=env, type=str, default="", help="Rendezvous endpoint <host>:<port>.")
    option("--rdzv-id", action=env, type=str, default="none", help="User-defined job id (TORCHELASTIC_RUN_ID).")
    option("--rdzv-conf", action=env, type=str, default="",
           help="Additional rendezvous configuration <key1>=<value1>,<key2>=<value2>,...")
    option("--standalone", action=check_env,
           help="One-node job with its own rendezvous on a free port; --rdzv-backend, --rdzv-endpoint and "
                "--rdzv-id are assigned automatically.")
    option("--max-restarts", action=env, type=int, default=0,
           help="How many times the whole worker group is restarted after a failure before giving up.")
    option("--monitor-interval", action=env, type=float, default=0.1,
           help="Seconds between checks of the workers' state.")
    option("--start-method", action=env, type=str, default="spawn", choices=["spawn", "fork", "forkserver"],
           help="Accepted for compatibility: tandem's workers are always fresh interpreters.")
    option("--event-log-handler", action=env, type=str, default="null",
           help="Event logging handler ('null': none).")
    add("--role", action=env, type=str, default="default", help="User-defined role of the workers (ROLE_NAME).")
    add("-m", "--module", action=check_env,
        help="Run the training script as a Python module, as 'python -m' does.")
    option("--no-python", action=check_env,
           help="Run the training script directly instead of with 'python' (it need not be Python).")
    option("--run-path", action=check_env,
           help="Run the training script with runpy.run_path (an absolute path); takes precedence over "
                "--no-python.")
    option("--log-dir", action=env, type=str, default=None,
           help="Base directory for log files; each run gets its own sub-directory named after its run id.")
    add("-r", "--redirects", action=env, type=str, default="0",
        help="Send std streams to log files in the log directory instead of the console (0 none, 1 stdout, "
             "2 stderr, 3 both; e.g. -r 3, or -r 0:1,1:2 per local rank).")
    add("-t", "--tee", action=env, type=str, default="0",
        help="Send std streams to log files and to the console (same format as --redirects).")
    option("--log-line-prefix-template", action=env, type=str, default="",
           help="Prefix of each console line of a tee'd stream; macros ${role_name}, ${local_rank}, ${rank}, "
                "${hostname}. Default '[${role_name}${local_rank}]:'.")
    option("--local-ranks-filter", action=env, type=str, default="",
           help="Show only these local ranks' output on the console (e.g. 0,1); the others go to log files.")
    option("--duplicate-stdout-filters", action=env, type=_comma_separated_list, default=[],
           help="Not supported by tandem's launcher.")
    option("--duplicate-stderr-filters", action=env, type=_comma_separated_list, default=[],
           help="Not supported by tandem's launcher.")
    option("--node-rank", type=int, action=env, default=0, help="Rank of this node (0: one node).")
    option("--master-addr", default="127.0.0.1", type=str, action=env,
           help="Address of the master (rank 0) for static rendezvous; 127.0.0.1 on one node.")
    option("--master-port", default=None, type=int, action=env,
           help="Port of the master for static rendezvous. Default: a free port.")
    option("--local-addr", default=None, type=str, action=env, help="Address of this node (one node: unused).")
    option("--logs-specs", default=None, type=str, help="torchrun.logs_specs entry point (none in tandem).")
    option("--numa-binding", type=str, choices=["node", "socket", "exclusive", "core-complex"], default=None,
           help="Not supported by tandem's launcher.")
    option("--signals-to-handle", action=env, type=str, default="SIGTERM,SIGINT,SIGHUP,SIGQUIT",
           help="Signals that make the launcher stop the workers (with the same signal) and exit.")
    option("--shutdown-timeout", action=env, type=int, default=None,
           help="Seconds stopping workers may take before SIGKILL (default: TORCH_ELASTIC_SHUTDOWN_TIMEOUT or 30).")
    option("--virtual-local-rank", action=check_env,
           help="LOCAL_RANK=0 in every worker, with CUDA_VISIBLE_DEVICES naming its own GPU.")
    option("--print-completion", action=_PrintCompletion, choices=["bash", "zsh", "tcsh"],
           help="Print a shell completion script (needs the 'shtab' package) and exit.")
    add("training_script", type=str,
        help="The training program (a script path, a module with -m, or a program with --no-python), followed "
             "by its own arguments.")
    add("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args):
    return get_args_parser().parse_args(args)


def parse_min_max_nnodes(nnodes):
    parts = nnodes.split(":")
    if len(parts) == 1:
        return int(parts[0]), int(parts[0])
    if len(parts) == 2:
        return int(parts[0]), int(parts[1])
    raise RuntimeError(f'nnodes={nnodes} is not in "MIN:MAX" format')


def determine_local_world_size(nproc_per_node):
    """--nproc-per-node as a number of workers."""
    try:
        return int(nproc_per_node)
    except ValueError as e:
        import tandem  # noqa: PLC0415 (only these forms need the devices)

        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if nproc_per_node == "cpu":
            return cpus
        if nproc_per_node == "gpu":
            if not tandem.cuda.is_available():
                raise ValueError("Cuda is not available.") from e
            return tandem.cuda.device_count()
        if nproc_per_node == "xpu":
            raise ValueError("Xpu is not available.") from e
        if nproc_per_node == "auto":
            return tandem.cuda.device_count() if tandem.cuda.is_available() else cpus
        raise ValueError(f"Unsupported nproc_per_node value: {nproc_per_node}") from e


def _parse_rendezvous_config(text):
    config = {}
    for pair in text.strip().split(",") if text.strip() else []:
        key, *value = pair.split("=", 1)
        if not key.strip():
            raise ValueError("The rendezvous configuration string must be in format "
                             "<key1>=<value1>,...,<keyN>=<valueN>.")
        if not value or not value[0].strip():
            raise ValueError(f"The rendezvous configuration option '{key.strip()}' must have a value specified.")
        config[key.strip()] = value[0].strip()
    return config


def _parse_endpoint(endpoint, default_port):
    if endpoint.startswith("[") and endpoint.endswith("]"):
        host, rest = endpoint[1:-1], []
    else:
        host, *rest = endpoint.rsplit(":", 1)
        host = host[1:-1] if len(host) > 1 and host[0] == "[" and host[-1] == "]" else host
    port = default_port
    if rest:
        if not rest[0].isdigit() or int(rest[0]) >= 2 ** 16:
            raise ValueError(f"The port number of the rendezvous endpoint '{endpoint}' must be an integer between "
                             "0 and 65536.")
        port = int(rest[0])
    return host or "localhost", port


def _signals(text):
    try:
        return [signal.Signals[name.strip()] for name in text.split(",") if name.strip()]
    except KeyError as e:
        raise ValueError(f"--signals-to-handle: {e.args[0]} is not a signal name\nhint: use names such as "
                         "SIGTERM,SIGINT,SIGUSR1") from None


def _not_supported(option, why):
    return NotImplementedError(f"tandem.distributed.run: {option} is not supported\nhint: {why}")


def config_from_args(args):
    """The checked launch plan for parsed arguments (PyTorch's checks and errors, then tandem's one-node
    limits)."""
    min_nodes, max_nodes = parse_min_max_nnodes(args.nnodes)
    if not 0 < min_nodes <= max_nodes:
        raise AssertionError(f"min_nodes must be > 0 and <= max_nodes, got min_nodes={min_nodes}, "
                             f"max_nodes={max_nodes}")
    if args.max_restarts < 0:
        raise AssertionError("max_restarts must be >= 0")
    if max_nodes > 1:
        raise ValueError(f"tandem.distributed.run starts the workers of one machine, not --nnodes={args.nnodes}\n"
                         "hint: for several machines start one process per device with MPI, e.g. `mpirun -np 16 "
                         "--hostfile hosts python train.py` or `srun -N 2 --ntasks-per-node=8 --mpi=pmix python "
                         "train.py`: tandem.distributed sets RANK, WORLD_SIZE and LOCAL_RANK from them")
    if args.node_rank != 0:
        raise ValueError(f"--node-rank={args.node_rank} needs another node, but the job has one (--nnodes=1)\n"
                         "hint: leave --node-rank out, or use mpirun/srun for several machines")
    if args.rdzv_backend not in ("static", "c10d"):
        raise _not_supported(f"--rdzv-backend={args.rdzv_backend}", "one node needs no rendezvous service: use "
                             "--standalone (or leave --rdzv-* out)")
    _parse_rendezvous_config(args.rdzv_conf)  # checked; one node has nothing to tune in it
    if args.logs_specs is not None:
        raise ValueError(f"Could not find entrypoint under 'torchrun.logs_specs[{args.logs_specs}]' key")
    if args.numa_binding is not None:
        raise _not_supported("--numa-binding", "bind with numactl or taskset in a wrapper script (--no-python)")
    if args.duplicate_stdout_filters or args.duplicate_stderr_filters:
        raise _not_supported("--duplicate-stdout-filters/--duplicate-stderr-filters", "use --tee with --log-dir "
                             "and filter the log files")
    if args.event_log_handler != "null":
        raise _not_supported(f"--event-log-handler={args.event_log_handler}", "tandem records no elastic events")
    nproc = determine_local_world_size(args.nproc_per_node)
    if nproc <= 0:
        raise AssertionError(f"nproc_per_node must be > 0, got {nproc}")
    ranks_filter = None
    if args.local_ranks_filter:
        try:
            ranks_filter = set(map(int, args.local_ranks_filter.split(",")))
        except ValueError as e:
            raise ValueError("--local_ranks_filter must be a comma-separated list of integers e.g. "
                             "--local_ranks_filter=0,1,2") from e
    if "OMP_NUM_THREADS" not in os.environ and nproc > 1:
        logger.warning(_OMP_WARNING, 1)
        os.environ["OMP_NUM_THREADS"] = "1"  # the workers inherit it

    if args.standalone or (args.rdzv_backend == "static" and not args.rdzv_endpoint and args.master_port is None):
        # torchrun's one-node default: a fresh job id and a store on a free port of this machine.
        run_id, master_addr, master_port = str(uuid.uuid4()), "localhost", 0
    elif args.rdzv_endpoint:
        run_id = args.rdzv_id
        master_addr, master_port = _parse_endpoint(args.rdzv_endpoint, _RDZV_DEFAULT_PORT if
                                                   args.rdzv_backend == "c10d" else 29500)
    else:
        run_id, master_addr = args.rdzv_id, args.master_addr
        master_port = 29500 if args.master_port is None else args.master_port

    if args.run_path:
        command = [os.getenv("PYTHON_EXEC", sys.executable), "-u", "-c", _RUN_PATH_RUNNER, args.training_script]
        name = "run_script_path"
    elif not args.no_python:
        command = [os.getenv("PYTHON_EXEC", sys.executable), "-u", *(["-m"] if args.module else []),
                   args.training_script]
        name = args.training_script
    else:
        if args.module:
            raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at the same time.")
        command, name = [args.training_script], args.training_script
    shutdown = args.shutdown_timeout
    if shutdown is None:
        shutdown = float(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", 30))
    return LaunchPlan(
        command=command, script_args=list(args.training_script_args), name=name, nproc=nproc, run_id=run_id,
        master_addr=master_addr, master_port=master_port, role=args.role, max_restarts=args.max_restarts,
        monitor_interval=args.monitor_interval, shutdown_timeout=shutdown, log_dir=args.log_dir,
        redirects=Std.from_str(args.redirects), tee=Std.from_str(args.tee), local_ranks_filter=ranks_filter,
        log_line_prefix_template=args.log_line_prefix_template or os.getenv("TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"),
        signals_to_handle=_signals(args.signals_to_handle), signals_to_handle_text=args.signals_to_handle,
        pass_local_rank_arg=not getattr(args, "use_env", True), virtual_local_rank=args.virtual_local_rank)


def _show_launcher_logs():
    # The launcher's warnings (OMP_NUM_THREADS, stopped workers, restarts) reach stderr as torchrun's do, unless
    # the program configured logging itself.
    root = logging.getLogger("tandem.distributed")
    if not root.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname).1s%(asctime)s %(process)d %(name)s] %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        root.propagate = False


def run(args):
    _show_launcher_logs()
    LocalAgent(config_from_args(args)).run()


@record
def main(args=None):
    run(parse_args(args))


if __name__ == "__main__":
    main()
