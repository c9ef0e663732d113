"""tandem.utils.flop_counter.FlopCounterMode: counts the floating-point operations of the matrix products,
convolutions and attention a block of code runs, forward and backward, in total and per module, with PyTorch's
formulas and op names (``aten.mm``, ``aten.convolution``, ...) so counts and MFU estimates agree with PyTorch's.

How: inside ``with FlopCounterMode():`` a torch-function mode sees every public tandem call. A product, convolution
or attention call is counted with its formula unless a counted call ran inside it (then the inner ones are what
PyTorch's dispatcher would have seen: einsum as bmm, tensordot as mm). Each counted call whose result has a gradient
function also registers the flops its backward will run (which inputs need gradients decides, as in PyTorch), added
when that backward runs while the counter is active. Module names come from forward hooks on every module, as
PyTorch's ModuleTracker: the outermost module's class name, then dotted child names; backward flops count towards
the modules whose forward made the op (PyTorch attributes them by its own backward tracking). docs/profiler.md.
"""
import math
import warnings
from collections import defaultdict

import tandem
from tandem.overrides import TorchFunctionMode

__all__ = ["FlopCounterMode", "register_flop_formula", "get_suffix_str", "convert_num_with_suffix",
           "convert_to_percent_str", "conv_flop_count", "sdpa_flop_count"]

suffixes = ["", "K", "M", "B", "T"]


class _OpName:
    """The name PyTorch's counts use for an ATen op tandem has no ``tandem.ops.aten`` entry for."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name

    def __eq__(self, other):
        return isinstance(other, _OpName) and other._name == self._name

    def __hash__(self):
        return hash(self._name)


def _aten(name):
    try:
        return getattr(tandem.ops.aten, name)
    except AttributeError:
        return _OpName("aten." + name)


def _numel(shape):
    return math.prod(shape)


# ---- formulas: 2 flops (a multiply and an add) per multiply-add ------------------------------------------------
def conv_flop_count(x_shape, w_shape, out_shape, transposed=False):
    """A convolution's flops: every output position (input position when transposed) of every batch element
    multiplies the whole weight."""
    positions = (x_shape if transposed else out_shape)[2:]
    return x_shape[0] * _numel(w_shape) * _numel(positions) * 2


def _transposed_dims(shape):
    return (shape[1], shape[0]) + tuple(shape[2:])


def conv_backward_flop_count(grad_out_shape, x_shape, w_shape, transposed, input_grad, weight_grad):
    flops = 0
    if input_grad:
        flops += conv_flop_count(grad_out_shape, w_shape, x_shape, not transposed)
    if weight_grad:
        if transposed:
            flops += conv_flop_count(_transposed_dims(grad_out_shape), _transposed_dims(x_shape),
                                     _transposed_dims(w_shape))
        else:
            flops += conv_flop_count(_transposed_dims(x_shape), _transposed_dims(grad_out_shape),
                                     _transposed_dims(w_shape))
    return flops


def sdpa_flop_count(q_shape, k_shape, v_shape):
    """q @ k^T and (its softmax) @ v over the batch and head dimensions."""
    batch, sq, d = _numel(q_shape[:-2]), q_shape[-2], q_shape[-1]
    sk, dv = k_shape[-2], v_shape[-1]
    return 2 * batch * sq * sk * d + 2 * batch * sq * sk * dv


def _needs(t):
    return isinstance(t, tandem.Tensor) and t.requires_grad


def _shape(t):
    return tuple(t.shape)


def _arg(args, kwargs, index, name, default=None):
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def _product_flops(a, b, fused_key=None):
    """(forward, backward) of a @ b by matmul's rules: 2-D results of folded leading dimensions count as mm,
    batched products as bmm, matrix-vector and dot products not at all (PyTorch has no formula for them).
    fused_key names the forward of a product fused with an addition (addmm, baddbmm)."""
    sa, sb = _shape(a), _shape(b)
    if len(sa) == 0 or len(sb) == 0 or len(sb) == 1 or (len(sa) == 1 and len(sb) > 2):
        return [], []
    k, n = sb[-2], sb[-1]
    if len(sb) == 2:  # (..., m, k) @ (k, n): one mm over the folded rows
        flops, key = 2 * _numel(sa[:-1]) * k * n, _aten("mm")
    else:  # batched: the batch dimensions broadcast
        m = sa[-2] if len(sa) > 1 else 1
        flops, key = 2 * _numel(tandem.broadcast_shapes(sa[:-2], sb[:-2])) * m * k * n, _aten("bmm")
    backward = [(key, flops) for t in (a, b) if _needs(t)]
    return [(fused_key or key, flops)], backward


def _matmul(args, kwargs, out):
    return _product_flops(_arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other"))


def _rmatmul(args, kwargs, out):  # b.__rmatmul__(a) is a @ b
    return _product_flops(args[1], args[0])


def _mm(args, kwargs, out):  # mm and bmm
    return _product_flops(_arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "mat2"))


def _addmm(args, kwargs, out):
    return _product_flops(_arg(args, kwargs, 1, "mat1"), _arg(args, kwargs, 2, "mat2"), _aten("addmm"))


def _baddbmm(args, kwargs, out):
    return _product_flops(_arg(args, kwargs, 1, "batch1"), _arg(args, kwargs, 2, "batch2"), _aten("baddbmm"))


def _linear(args, kwargs, out):
    x, w, bias = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight"), _arg(args, kwargs, 2, "bias")
    if x.dim() < 2 or w.dim() != 2:
        return [], []
    flops = 2 * _numel(_shape(x)[:-1]) * w.shape[1] * w.shape[0]
    key = _aten("addmm" if bias is not None else "mm")
    return [(key, flops)], [(_aten("mm"), flops) for t in (x, w) if _needs(t)]


def _convolution(transposed):
    def formula(args, kwargs, out):
        x, w = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight")
        if x.dim() == w.dim() - 1:  # unbatched input: one batch element
            x, out = x.unsqueeze(0), out.unsqueeze(0)
        flops = conv_flop_count(_shape(x), _shape(w), _shape(out), transposed)
        backward = conv_backward_flop_count(_shape(out), _shape(x), _shape(w), transposed, _needs(x), _needs(w))
        return [(_aten("convolution"), flops)], ([(_OpName("aten.convolution_backward"), backward)] if backward else [])
    return formula


def _sdpa(args, kwargs, out):
    """PyTorch's CPU choice decides the names: its fused kernel (one op forward, one backward that recomputes the
    scores: five products) where the head sizes agree, there is no dropout and the batch dimensions match (or
    enable_gqa); the math path's bmm otherwise."""
    q, k, v = (_arg(args, kwargs, i, name) for i, name in enumerate(("query", "key", "value")))
    dropout_p = _arg(args, kwargs, 4, "dropout_p", 0.0)
    sq, sk, d, dv = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    batch = _numel(tandem.broadcast_shapes(_shape(q)[:-2], _shape(k)[:-2], _shape(v)[:-2]))
    scores, mix = 2 * batch * sq * sk * d, 2 * batch * sq * sk * dv
    needs_grad = any(_needs(t) for t in (q, k, v))
    same_batch = _shape(q)[:-3] == _shape(k)[:-3] == _shape(v)[:-3] and (
        _shape(q)[:-2] == _shape(k)[:-2] == _shape(v)[:-2] or _arg(args, kwargs, 7, "enable_gqa", False))
    if d == dv and not dropout_p and same_batch:
        fused = "aten._scaled_dot_product_flash_attention_for_cpu"
        return [(_OpName(fused), scores + mix)], [(_OpName(fused + "_backward"), 3 * scores + 2 * mix)] \
            if needs_grad else []
    backward = []  # the math path's products: dV, then dP (for dQ and dK), dQ, dK
    if _needs(v):
        backward.append((_aten("bmm"), mix))
    if _needs(q) or _needs(k):
        backward.append((_aten("bmm"), mix))
    backward += [(_aten("bmm"), scores) for t in (q, k) if _needs(t)]
    return [(_aten("bmm"), scores), (_aten("bmm"), mix)], backward


def _einsum(args, kwargs, out):
    """Operands contracted left to right, each pair one bmm over the labels either holds (labels only one operand
    has and nothing later needs are summed first, costing no products)."""
    equation = args[0]
    operands = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
    if "->" not in equation or "." in equation or len(operands) < 2:
        return [], []
    inputs, output = equation.replace(" ", "").split("->")
    labels = inputs.split(",")
    sizes = {}
    for spec, t in zip(labels, operands):
        sizes.update(zip(spec, t.shape))
    forward, current = [], labels[0]
    for i in range(1, len(labels)):
        later = set(output).union(*labels[i + 1:])
        other = labels[i]
        kept = [c for c in dict.fromkeys(current + other)
                if c in later or (c in current and c in other)]
        forward.append((_aten("bmm"), 2 * _numel(sizes[c] for c in kept)))
        current = "".join(c for c in kept if c in later)
    needing = sum(_needs(t) for t in operands)
    backward = [(key, flops) for key, flops in forward for _ in range(min(needing, 2))]
    return forward, backward


def _lstm_flops(lstm):
    """An nn.LSTM's products, as PyTorch's step-by-step path counts them: per row of every step, the input and
    hidden projections (addmm) and the projection of h (mm) in each layer and direction; their gradients (mm) where
    the weights or the input need them. (PyTorch's CPU LSTM without projection on a padded input is one fused op it
    has no formula for, and counts 0.)"""
    def formula(args, kwargs, out):
        x = args[0]
        data = x.data if isinstance(x, tandem.nn.utils.rnn.PackedSequence) else x
        rows = _numel(_shape(data)[:-1])
        gates, hidden = 4 * lstm.hidden_size, lstm.proj_size or lstm.hidden_size
        directions = 2 if lstm.bidirectional else 1
        forward = []
        for layer in range(lstm.num_layers):
            layer_input = lstm.input_size if layer == 0 else hidden * directions
            for _ in range(directions):
                forward += [(_aten("addmm"), 2 * rows * layer_input * gates), (_aten("addmm"), 2 * rows * hidden * gates)]
                if lstm.proj_size:
                    forward.append((_aten("mm"), 2 * rows * lstm.hidden_size * lstm.proj_size))
        weights = any(p.requires_grad for p in lstm.parameters())
        copies = int(weights) + int(_needs(data) or weights)
        backward = [(_aten("mm"), flops) for _, flops in forward for _ in range(copies)]
        return forward, backward
    return formula


_FORMULAS = {}


def register_flop_formula(targets):
    """Registers ``formula(args, kwargs, out) -> (forward, backward)`` (lists of (op name, flops)) for tandem
    functions, given as the functions or their qualified names ('tandem.mm', 'tandem.Tensor.mm')."""
    def register(formula):
        for target in targets if isinstance(targets, (list, tuple)) else [targets]:
            _FORMULAS[_function_key(target)] = formula
        return formula
    return register


def _function_key(func):
    if isinstance(func, str):
        module, _, name = func.rpartition(".")
        if module.endswith(".Tensor"):
            return "tandem", "Tensor." + name
        return module, name
    return getattr(func, "__module__", None), getattr(func, "__qualname__", None)


for _names, _formula in [
        (("tandem.mm", "tandem.Tensor.mm"), _mm),
        (("tandem.bmm", "tandem.Tensor.bmm"), _mm),
        (("tandem.matmul", "tandem.Tensor.matmul"), _matmul),
        (("tandem.Tensor.__rmatmul__",), _rmatmul),
        (("tandem.addmm", "tandem.Tensor.addmm"), _addmm),
        (("tandem.baddbmm", "tandem.Tensor.baddbmm"), _baddbmm),
        (("tandem.nn.functional.linear",), _linear),
        (("tandem.nn.functional.scaled_dot_product_attention",), _sdpa),
        (("tandem.einsum",), _einsum)]:
    register_flop_formula(list(_names))(_formula)
for _dims in (1, 2, 3):
    register_flop_formula([f"tandem.conv{_dims}d", f"tandem.nn.functional.conv{_dims}d"])(_convolution(False))
    register_flop_formula([f"tandem.conv_transpose{_dims}d",
                           f"tandem.nn.functional.conv_transpose{_dims}d"])(_convolution(True))


# ---- the mode ----------------------------------------------------------------------------------------------------
class _CountingMode(TorchFunctionMode):
    def __init__(self, counter):
        super().__init__()
        self.counter = counter
        self.inner_counted = []  # per counted call being run: how many counted calls ran inside it

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        formula = _FORMULAS.get(_function_key(func))
        raw = getattr(func, "__wrapped__", None)
        if raw is None:  # not a tandem function (a subclass's override): run it as it is
            return func(*args, **kwargs)
        if formula is None:
            with self:  # its inner public calls are seen (an einsum's bmm, a composition's mm)
                return raw(*args, **kwargs)
        self.inner_counted.append(0)
        try:
            with self:
                out = raw(*args, **kwargs)
        finally:
            inner = self.inner_counted.pop()
        if self.inner_counted:
            self.inner_counted[-1] += 1
        if inner == 0:
            self.counter._count_call(formula, args, kwargs, out)
        return out


class FlopCounterMode:
    """``with FlopCounterMode() as counter:`` counts the flops run inside; get_total_flops(), get_flop_counts()
    ({"Global": {op: flops}, "Net": ..., "Net.fc1": ...}) and get_table(depth) report them, and with display=True
    the table is printed at exit."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        if custom_mapping:
            raise NotImplementedError("FlopCounterMode(custom_mapping=...) maps ATen ops, which tandem does not "
                                      "dispatch through\nhint: register formulas for tandem functions with "
                                      "tandem.utils.flop_counter.register_flop_formula")
        self.depth, self.display = depth, display
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self._modules = []  # names of the modules whose forward is running, outermost first
        self._names = {}
        self._active = False
        self._hooks = []
        self._opaque = 0

    # -- reporting --
    def get_total_flops(self):
        return sum(self.flop_counts["Global"].values()) if "Global" in self.flop_counts else 0

    def get_flop_counts(self):
        return {module: dict(counts) for module, counts in self.flop_counts.items()}

    def get_table(self, depth=None):
        depth = 999999 if depth is None else depth
        total = self.get_total_flops()
        rows = []
        for module, counts in self.flop_counts.items():
            if module != "Global" and module.count(".") + 1 > depth:
                continue
            indent = " " * (0 if module == "Global" else module.count(".") + 1)
            rows.append((indent + module, sum(counts.values())))
            rows += [(f"{indent} - {op}", flops) for op, flops in counts.items()]
        suffix = get_suffix_str(total)
        cells = [("Module", "FLOP", "% Total")] + [
            (name, convert_num_with_suffix(flops, suffix), convert_to_percent_str(flops, total))
            for name, flops in rows]
        widths = [max(len(row[i]) for row in cells) for i in range(3)]
        lines = [f"{cells[0][0]:<{widths[0]}}  {cells[0][1]:>{widths[1]}}  {cells[0][2]:>{widths[2]}}",
                 "  ".join("-" * w for w in widths)]
        lines += [f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c:>{widths[2]}}" for a, b, c in cells[1:]]
        return "\n".join(lines)

    # -- counting --
    def _count_call(self, formula, args, kwargs, out):
        if self._opaque:
            return
        forward, backward = formula(args, kwargs, out)
        modules = ["Global"] + list(self._modules)
        self._add(forward, modules)
        result = out[0] if isinstance(out, (tuple, list)) and out else out
        node = getattr(result, "grad_fn", None) if isinstance(result, tandem.Tensor) else None
        if backward and node is not None:  # counted when that backward runs, if inside the counter
            node.register_prehook(lambda grad_outputs: self._add(backward, modules) if self._active else None)

    def _add(self, flops, modules):
        for key, n in flops:
            for module in modules:
                self.flop_counts[module][key] += n

    def _enter_module(self, module, args):
        name = self._names.get(module) or type(module).__name__
        for child_name, child in module.named_children():
            self._names.setdefault(child, f"{name}.{child_name}")
        self._modules.append(name)
        if type(module) is tandem.nn.LSTM:  # its steps run inside one C++ function: counted as a whole at exit
            self._opaque += 1

    def _leave_module(self, module, args, output):
        if type(module) is tandem.nn.LSTM:
            self._opaque -= 1
            if args:
                self._count_call(_lstm_flops(module), args, {}, output[0])
        if self._modules:
            self._modules.pop()

    def __enter__(self):
        self.flop_counts.clear()
        self._modules, self._names, self._opaque = [], {}, 0
        modules = tandem.nn.modules.module
        self._hooks = [modules.register_module_forward_pre_hook(self._enter_module),
                       modules.register_module_forward_hook(self._leave_module)]
        self._mode = _CountingMode(self)
        self._mode.__enter__()
        self._active = True
        return self

    def __exit__(self, *exc):
        self._active = False
        self._mode.__exit__(*exc)
        for hook in self._hooks:
            hook.remove()
        if self.display:
            print(self.get_table(self.depth))
        return False


def get_suffix_str(number):
    """The unit ('', K, M, B, T) numbers are shown in: the largest whose value is at least 1."""
    index = max(0, min(len(suffixes) - 1, (len(str(int(number))) - 1) // 3))
    return suffixes[index]


def convert_num_with_suffix(number, suffix):
    value = number / 1000 ** suffixes.index(suffix)
    return f"{value:.3f}{suffix}"


def convert_to_percent_str(num, denom):
    return "0%" if denom == 0 else f"{num / denom:.2%}"
