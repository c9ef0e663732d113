"""torch._logging.set_logs: the one call that sets the logging of the library's components, as the torch.compile
tutorials write it (`torch._logging.set_logs(graph_code=True)`). Component levels go to the Python loggers of the
matching tandem modules (`all` to the package's logger); artifact switches (graph_code, recompiles, ...) are
recorded, and name output that tandem's compile, which runs programs eagerly, never produces. A call with no
arguments restores the defaults."""
import inspect
import logging

# PyTorch's components (keyword -> the module whose logger it sets) and artifacts (boolean switches).
_COMPONENTS = {"all": "tandem", "dynamo": "tandem._dynamo", "aot": "tandem._functorch.aot_autograd",
               "autograd": "tandem.autograd", "dynamic": "tandem.fx.experimental.symbolic_shapes",
               "inductor": "tandem._inductor", "distributed": "tandem.distributed",
               "c10d": "tandem.distributed.distributed_c10d", "ddp": "tandem.nn.parallel.distributed",
               "fsdp": "tandem.distributed.fsdp", "dtensor": "tandem.distributed._tensor", "onnx": "tandem.onnx",
               "export": "tandem.export"}
_ARTIFACTS = ("bytecode", "aot_graphs", "aot_joint_graph", "ddp_graphs", "graph", "graph_code", "graph_code_verbose",
              "graph_breaks", "side_effects", "graph_sizes", "guards", "recompiles", "recompiles_verbose",
              "trace_source", "trace_call", "trace_bytecode", "output_code", "kernel_code", "schedule", "perf_hints",
              "pre_grad_graphs", "post_grad_graphs", "ir_pre_fusion", "ir_post_fusion", "onnx_diagnostics", "fusion",
              "overlap", "cudagraphs", "sym_node", "compiled_autograd", "compiled_autograd_verbose",
              "cudagraph_static_inputs", "benchmarking", "autotuning", "autotuning_inputs", "incremental",
              "graph_region_expansion", "inductor_metrics", "hierarchical_compile", "compute_dependencies", "caching",
              "partitioned_scatter")
_LEVELS = (logging.CRITICAL, logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG, logging.NOTSET)
_DEFAULT_ROOT_LEVEL = logging.WARNING
enabled_artifacts = set()  # the artifacts switched on by the last call
_set_by_us = set()  # the loggers a previous call changed, put back by the next


def _logger_name(module):
    # Programs name PyTorch's modules ("torch.fx"); their tandem counterparts have tandem's name.
    return "tandem" + module[len("torch"):] if module == "torch" or module.startswith("torch.") else module


def _check_level(name, level):
    if level not in _LEVELS:
        raise ValueError(f"Unrecognized log level for log {name}: {level}, valid level values are: "
                         + ",".join(str(v) for v in _LEVELS))


def set_logs(*, modules=None, **settings):
    for name in settings:
        if name not in _COMPONENTS and name not in _ARTIFACTS:
            raise TypeError(f"set_logs() got an unexpected keyword argument '{name}'")
    levels, artifacts = {}, set()
    for name, value in settings.items():
        if name in _COMPONENTS:
            if value is not None:
                _check_level(name, value)
                levels[_COMPONENTS[name]] = value
        elif value:
            if not isinstance(value, bool):
                raise ValueError(f"Expected bool to enable artifact {name}, received {value}")
            artifacts.add(name)
    for module, value in (modules or {}).items():
        if isinstance(value, bool):  # True asks for the module's artifact, which tandem does not emit
            continue
        _check_level(module, value)
        levels[_logger_name(module)] = value
    for name in _set_by_us:
        logging.getLogger(name).setLevel(logging.NOTSET)
    _set_by_us.clear()
    logging.getLogger("tandem").setLevel(levels.pop("tandem", _DEFAULT_ROOT_LEVEL))
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
        _set_by_us.add(name)
    enabled_artifacts.clear()
    enabled_artifacts.update(artifacts)


# PyTorch's signature, for inspect.signature and help(): every switch a keyword with its default.
set_logs.__signature__ = inspect.Signature(
    [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in _COMPONENTS]
    + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=False) for name in _ARTIFACTS]
    + [inspect.Parameter("modules", inspect.Parameter.KEYWORD_ONLY, default=None)])
