"""torch.export / torch.fx / torch.jit misused: export with bad args, dynamic shapes and Dim misuse, exported programs
called with the wrong shapes, dtypes or argument counts; symbolic_trace of modules with data-dependent control flow
and bad concrete_args, GraphModule edits (erased nodes still used, lint, recompile); jit.script/trace with
non-tensor outputs, check_trace, and save/load into odd paths and buffers. Results compare as values, node op lists
or exception types."""
import io
import os
import tempfile

from . import R, Case


def net(L):
    class Net(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(4, 3)
            with L.no_grad():
                self.lin.weight.copy_(R(L, (3, 4), "cpu", "float32", 0.5))
                self.lin.bias.copy_(R(L, (3,), "cpu", "float32", 0.1))

        def forward(self, x):
            return self.lin(x).relu() + 1

    return Net()


def branchy(L):
    class Branchy(L.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return x - 1

    return Branchy()


def two_inputs(L):
    class Two(L.nn.Module):
        def forward(self, x, y):
            return x + y

    return Two()


def flag_mod(L):
    class Flag(L.nn.Module):
        def forward(self, x, flag):
            return x * 2 if flag else x

    return Flag()


def x(L, d="cpu", shape=(2, 4), dtype="float32"):
    return R(L, shape, d, dtype, 1.0)


def exported(L, d, m=None, args=None, **kw):
    m = (m or net(L)).to(d)
    return L.export.export(m, args if args is not None else (x(L, d),), **kw)


def ops(gm):
    return [n.op for n in gm.graph.nodes]


def _dim(L, name, **kw):
    return L.export.Dim(name, **kw)


CASES = {
    # ---- torch.export
    "export/ok_call": lambda L, d: exported(L, d).module()(x(L, d)),
    "export/args_not_tuple": lambda L, d: exported(L, d, args=x(L, d)),
    "export/args_list": lambda L, d: exported(L, d, args=[x(L, d)]).module()(x(L, d)),
    "export/too_few_args": lambda L, d: exported(L, d, args=()),
    "export/too_many_args": lambda L, d: exported(L, d, args=(x(L, d), x(L, d))),
    "export/not_a_module": lambda L, d: L.export.export(lambda t: t + 1, (x(L, d),)),
    "export/kwargs_not_dict": lambda L, d: L.export.export(net(L).to(d), (x(L, d),), kwargs=[1]),
    "export/call_wrong_shape": lambda L, d: exported(L, d).module()(x(L, d, (3, 4))),
    "export/call_wrong_feature": lambda L, d: exported(L, d).module()(x(L, d, (2, 5))),
    "export/call_wrong_dtype": lambda L, d: exported(L, d).module()(x(L, d, dtype="float64")),
    "export/call_too_many": lambda L, d: exported(L, d).module()(x(L, d), x(L, d)),
    "export/call_no_args": lambda L, d: exported(L, d).module()(),
    "export/call_non_tensor": lambda L, d: exported(L, d).module()(3),
    "export/data_dependent_branch": lambda L, d: exported(L, d, m=branchy(L)),
    "export/python_flag_true": lambda L, d: exported(L, d, m=flag_mod(L), args=(x(L, d), True)).module()(
        x(L, d), True),
    "export/python_flag_changed": lambda L, d: exported(L, d, m=flag_mod(L), args=(x(L, d), True)).module()(
        x(L, d), False),
    "export/dynamic_batch_ok": lambda L, d: exported(L, d, dynamic_shapes={"x": {0: _dim(L, "batch")}}).module()(
        x(L, d, (5, 4))),
    "export/dynamic_batch_tuple_form": lambda L, d: exported(L, d, dynamic_shapes=({0: _dim(L, "batch")},)).module()(
        x(L, d, (7, 4))),
    "export/dynamic_wrong_name": lambda L, d: exported(L, d, dynamic_shapes={"y": {0: _dim(L, "batch")}}),
    "export/dynamic_dim_out_of_range": lambda L, d: exported(L, d, dynamic_shapes={"x": {5: _dim(L, "batch")}}),
    "export/dynamic_static_dim_marked": lambda L, d: exported(L, d, dynamic_shapes={"x": {1: _dim(L, "feat")}}),
    "export/dynamic_too_many_entries": lambda L, d: exported(L, d, dynamic_shapes=({0: _dim(L, "b")}, None)),
    "export/dynamic_not_dim": lambda L, d: exported(L, d, dynamic_shapes={"x": {0: 3}}),
    "export/dynamic_string": lambda L, d: exported(L, d, dynamic_shapes={"x": {0: "batch"}}),
    "export/dynamic_call_below_min": lambda L, d: exported(L, d, dynamic_shapes={"x": {0: _dim(
        L, "batch", min=2, max=8)}}).module()(x(L, d, (1, 4))),
    "export/dynamic_call_above_max": lambda L, d: exported(L, d, dynamic_shapes={"x": {0: _dim(
        L, "batch", min=2, max=8)}}).module()(x(L, d, (9, 4))),
    "export/dim_min_gt_max": lambda L, d: _dim(L, "b", min=5, max=2),
    "export/dim_negative_min": lambda L, d: repr(_dim(L, "b", min=-1)),
    "export/dim_bad_name": lambda L, d: _dim(L, "not an identifier"),
    "export/dim_name_not_str": lambda L, d: _dim(L, 5),
    "export/dims_helper": lambda L, d: [str(v) for v in L.export.dims("a", "b")],
    "export/shared_dim_conflict": lambda L, d: _shared_dim(L, d),
    "export/shared_dim_ok": lambda L, d: _shared_dim(L, d, same=True),
    "export/strict_false": lambda L, d: exported(L, d, strict=False).module()(x(L, d)),
    "export/graph_ops": lambda L, d: sorted(set(ops(exported(L, d).graph_module))),
    "export/signature_inputs": lambda L, d: len(exported(L, d).graph_signature.input_specs),
    "export/state_dict_keys": lambda L, d: sorted(exported(L, d).state_dict),
    "export/run_decompositions": lambda L, d: exported(L, d).run_decompositions().module()(x(L, d)),
    "export/save_load_roundtrip": lambda L, d: _export_roundtrip(L, d),
    "export/load_garbage": lambda L, d: L.export.load(io.BytesIO(b"not a zip file")),
    "export/load_missing_path": lambda L, d: L.export.load("/nonexistent/dir/model.pt2"),
    "export/save_not_program": lambda L, d: L.export.save(net(L), io.BytesIO()),
    # ---- torch.fx
    "fx/trace_ok": lambda L, d: ops(L.fx.symbolic_trace(net(L))),
    "fx/trace_call": lambda L, d: L.fx.symbolic_trace(net(L)).to(d)(x(L, d)),
    "fx/trace_control_flow": lambda L, d: L.fx.symbolic_trace(branchy(L)),
    "fx/trace_flag_concrete": lambda L, d: L.fx.symbolic_trace(flag_mod(L), concrete_args={"flag": True})(
        x(L, d), True),
    "fx/trace_flag_unconcrete": lambda L, d: L.fx.symbolic_trace(flag_mod(L)),
    "fx/concrete_args_unknown_name": lambda L, d: L.fx.symbolic_trace(flag_mod(L), concrete_args={"nope": 1}),
    "fx/concrete_args_not_dict": lambda L, d: L.fx.symbolic_trace(flag_mod(L), concrete_args=[True]),
    "fx/trace_function": lambda L, d: L.fx.symbolic_trace(lambda a, b: a * b + 1)(x(L, d), x(L, d)),
    "fx/trace_not_callable": lambda L, d: L.fx.symbolic_trace(5),
    "fx/proxy_len": lambda L, d: L.fx.symbolic_trace(lambda a: a[: len(a)]),
    "fx/proxy_bool": lambda L, d: L.fx.symbolic_trace(lambda a: a if a else a),
    "fx/proxy_iter": lambda L, d: L.fx.symbolic_trace(lambda a: [t for t in a]),
    "fx/proxy_int": lambda L, d: L.fx.symbolic_trace(lambda a: a * int(a)),
    "fx/graph_str_nodes": lambda L, d: [n.name for n in L.fx.symbolic_trace(two_inputs(L)).graph.nodes],
    "fx/erase_used_node": lambda L, d: _erase_used(L),
    "fx/erase_then_lint": lambda L, d: _erase_output_input(L),
    "fx/lint_ok": lambda L, d: L.fx.symbolic_trace(net(L)).graph.lint(),
    "fx/replace_op_recompile": lambda L, d: _replace_add(L, d),
    "fx/call_missing_arg": lambda L, d: L.fx.symbolic_trace(two_inputs(L))(x(L, d)),
    "fx/call_extra_arg": lambda L, d: L.fx.symbolic_trace(two_inputs(L))(x(L, d), x(L, d), x(L, d)),
    "fx/graph_module_bad_root": lambda L, d: L.fx.GraphModule(5, L.fx.Graph()),
    "fx/empty_graph_call": lambda L, d: L.fx.GraphModule(L.nn.Module(), L.fx.Graph())(),
    "fx/get_attr_missing": lambda L, d: _get_attr_missing(L),
    "fx/call_module_missing": lambda L, d: _call_module_missing(L),
    "fx/interpreter_run": lambda L, d: L.fx.Interpreter(L.fx.symbolic_trace(net(L)).to(d)).run(x(L, d)),
    "fx/interpreter_too_few": lambda L, d: L.fx.Interpreter(L.fx.symbolic_trace(two_inputs(L))).run(x(L, d)),
    "fx/deepcopy_call": lambda L, d: __import__("copy").deepcopy(L.fx.symbolic_trace(net(L))).to(d)(x(L, d)),
    "fx/node_args_type": lambda L, d: [type(a).__name__ for n in L.fx.symbolic_trace(two_inputs(L)).graph.nodes
                                       for a in n.args],
    "fx/print_readable": Case(lambda L, d: isinstance(L.fx.symbolic_trace(net(L)).print_readable(False), str),
                              "exact"),
    # ---- torch.jit
    "jit/trace_ok": lambda L, d: L.jit.trace(net(L).to(d), x(L, d))(x(L, d)),
    "jit/trace_tuple_inputs": lambda L, d: L.jit.trace(two_inputs(L), (x(L, d), x(L, d)))(x(L, d), x(L, d)),
    "jit/trace_non_tensor_output": lambda L, d: L.jit.trace(lambda t: 3, x(L, d)),
    "jit/trace_dict_output": lambda L, d: L.jit.trace(lambda t: {"a": t}, x(L, d)),
    "jit/trace_dict_output_nonstrict": lambda L, d: L.jit.trace(lambda t: {"a": t * 2}, x(L, d), strict=False)(
        x(L, d)),
    "jit/trace_list_output": lambda L, d: L.jit.trace(lambda t: [t, t * 2], x(L, d)),
    "jit/trace_none_input": lambda L, d: L.jit.trace(lambda t: t, None),
    "jit/trace_int_input": lambda L, d: L.jit.trace(lambda t: t, 3),
    "jit/trace_wrong_arity": lambda L, d: L.jit.trace(two_inputs(L), x(L, d)),
    "jit/trace_check_trace_branch": lambda L, d: L.jit.trace(branchy(L), x(L, d), check_inputs=[(x(L, d) * -1,)]),
    "jit/traced_call_wrong_count": lambda L, d: L.jit.trace(net(L).to(d), x(L, d))(x(L, d), x(L, d)),
    "jit/traced_call_wrong_shape": lambda L, d: L.jit.trace(net(L).to(d), x(L, d))(x(L, d, (2, 5))),
    "jit/script_ok": lambda L, d: L.jit.script(net(L).to(d))(x(L, d)),
    "jit/script_function": lambda L, d: L.jit.script(_scripted_fn)(x(L, d)),
    "jit/script_not_callable": lambda L, d: L.jit.script(5),
    "jit/script_lambda": lambda L, d: L.jit.script(lambda t: t + 1),
    "jit/save_load_buffer": lambda L, d: _jit_roundtrip(L, d),
    "jit/save_to_missing_dir": lambda L, d: L.jit.script(net(L)).save("/nonexistent/dir/m.pt"),
    "jit/load_garbage": lambda L, d: L.jit.load(io.BytesIO(b"garbage")),
    "jit/load_missing": lambda L, d: L.jit.load("/nonexistent/dir/m.pt"),
    "jit/load_directory": lambda L, d: L.jit.load(tempfile.gettempdir()),
    "jit/save_empty_path": lambda L, d: L.jit.save(L.jit.script(net(L)), ""),
    "jit/save_plain_module": lambda L, d: L.jit.save(net(L), io.BytesIO()),
    "jit/ignore_and_unused": lambda L, d: (L.jit.ignore(_scripted_fn) is _scripted_fn,
                                           callable(L.jit.unused(_scripted_fn))),
    "jit/is_scripting": lambda L, d: L.jit.is_scripting(),
    "jit/freeze_unscripted": lambda L, d: L.jit.freeze(net(L)),
    "jit/freeze_training": lambda L, d: L.jit.freeze(L.jit.script(net(L))),
    "jit/annotate": lambda L, d: L.jit.annotate(int, 3),
}


def _scripted_fn(t):
    return t * 2 + 1


def _shared_dim(L, d, same=False):
    b = _dim(L, "batch")
    ep = exported(L, d, m=two_inputs(L), args=(x(L, d), x(L, d)), dynamic_shapes={"x": {0: b}, "y": {0: b}})
    return ep.module()(x(L, d, (3, 4)), x(L, d, (3 if same else 4, 4)))


def _export_roundtrip(L, d):
    buf = io.BytesIO()
    L.export.save(exported(L, "cpu"), buf)
    buf.seek(0)
    return L.export.load(buf).module()(x(L, "cpu"))


def _erase_used(L):
    gm = L.fx.symbolic_trace(net(L))
    node = [n for n in gm.graph.nodes if n.op == "call_module"][0]
    gm.graph.erase_node(node)


def _erase_output_input(L):
    gm = L.fx.symbolic_trace(two_inputs(L))
    out = [n for n in gm.graph.nodes if n.op == "output"][0]
    gm.graph.erase_node(out)
    gm.graph.lint()
    return ops(gm)


def _replace_add(L, d):
    gm = L.fx.symbolic_trace(two_inputs(L))
    import operator
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is operator.add:
            n.target = operator.mul
    gm.recompile()
    return gm(x(L, d), x(L, d))


def _get_attr_missing(L):
    g = L.fx.Graph()
    a = g.get_attr("nope")
    g.output(a)
    return L.fx.GraphModule(L.nn.Module(), g)


def _call_module_missing(L):
    g = L.fx.Graph()
    p = g.placeholder("x")
    g.output(g.call_module("nope", (p,)))
    return L.fx.GraphModule(L.nn.Module(), g)


def _jit_roundtrip(L, d):
    buf = io.BytesIO()
    L.jit.save(L.jit.script(net(L)), buf)
    buf.seek(0)
    return L.jit.load(buf)(x(L, "cpu"))


_NO_TORCHSCRIPT = ("design: tandem's jit runs eager Python (script/trace return the function or module itself; there "
                   "is no TorchScript compiler, interpreter or archive), so TorchScript's own compile, call and archive "
                   "errors do not arise and jit.save/load of a scripted program raise NotImplementedError with a hint")
KNOWN = {
    "export/data_dependent_branch": "wording: PyTorch names its symbolic expression (Eq(u0, 1)); tandem's tracer has "
                                    "none and says what it could not capture (same exception type)",
    "export/dynamic_static_dim_marked": "left: tandem's export traces with tandem.fx and does not find that an op "
                                        "(Linear's in_features) pins a dim marked dynamic; the guard catches other "
                                        "sizes at call time",
    "export/graph_ops": "design: tandem's exported graph holds the module's calls (tandem.fx), not ATen operators",
    "export/signature_inputs": "left: ExportGraphSignature lists names (parameters, buffers, user_inputs, ...) but "
                               "not PyTorch's InputSpec/OutputSpec objects",
    "jit/load_garbage": _NO_TORCHSCRIPT,
    "jit/save_empty_path": _NO_TORCHSCRIPT,
    "jit/save_load_buffer": _NO_TORCHSCRIPT,
    "jit/save_to_missing_dir": _NO_TORCHSCRIPT,
    "jit/script_function": _NO_TORCHSCRIPT,
    "jit/script_lambda": _NO_TORCHSCRIPT,
    "jit/trace_check_trace_branch": _NO_TORCHSCRIPT,
    "jit/trace_list_output": _NO_TORCHSCRIPT,
    "jit/traced_call_wrong_count": _NO_TORCHSCRIPT,
    "jit/traced_call_wrong_shape": _NO_TORCHSCRIPT,
}
