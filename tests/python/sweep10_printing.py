"""Sweep 10 programs, printing as forum threads ask about it: str()/repr() of tensors of every dtype and shape
(0-dim, empty, large ones summarised with '...', requires_grad and grad_fn in the repr), set_printoptions
(precision, sci_mode, threshold, edgeitems, linewidth, profile) and formatting tensors in f-strings.

Each program computes on `device` and prints what it moved to the CPU (a reference run is on the CPU, and the repr
of a CUDA tensor names its device: test_programs_sweep10.py checks that separately). Print options are restored
in a finally block, as they are process-wide."""
import numpy as np


def _restore_defaults(torch):
    torch.set_printoptions(profile="default")
    torch.set_printoptions(sci_mode=None)


# ---- repr of every dtype: ints, floats that need scientific notation, bools, complex, 16-bit, 0-dim and empty ---
def repr_of_dtypes(torch, device):
    values = np.array([[0.5, -1.25, 3.0], [100.0, 2e-3, 7.0]])
    base = torch.tensor(values, device=device)
    shown = {}
    for name in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "int16", "bool",
                 "complex64", "complex128"):
        shown[name] = repr(base.to(getattr(torch, name)).cpu())
    shown["sci"] = repr(torch.tensor([1e-8, 1.0, 1e8]))
    shown["big_ints_as_float"] = repr(torch.tensor([1.0, 2.0, 3.0]))
    shown["mixed_int_float"] = repr(torch.tensor([1.0, 2.5, -3.0]))
    shown["nan_inf"] = repr(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5]))
    shown["zero_dim"] = [repr(torch.tensor(3.5)), repr(torch.tensor(7)), repr(torch.tensor(True)),
                         repr(torch.tensor(2.0, dtype=torch.float64)), repr(torch.tensor(1 + 2j)),
                         str(torch.tensor(-0.0))]
    shown["empty"] = [repr(torch.tensor([])), repr(torch.zeros(0, 3)), repr(torch.zeros(2, 0, dtype=torch.int64)),
                      repr(torch.empty(0, dtype=torch.float64)), repr(torch.zeros(0, dtype=torch.bool))]
    shown["nested"] = repr(torch.arange(12).view(2, 3, 2))
    shown["negative_zero_and_rounding"] = repr(torch.tensor([0.00001234, 123456.0]))
    shown["int_dtype_default"] = [repr(torch.tensor([1, 2], dtype=torch.int64)),
                                  repr(torch.tensor([1, 2], dtype=torch.int32))]
    shown["complex_mixed"] = repr(torch.tensor([1 + 1j, -2.5 - 0.5j, 3j]))
    shown["large_values"] = repr(torch.tensor([1e10, 2.0]))
    shown["all_ints_big"] = repr(torch.tensor([123456789.0, 1.0]))
    shown["str_equals_repr"] = str(torch.ones(2)) == repr(torch.ones(2))
    return shown


# ---- autograd in the repr: requires_grad=True, grad_fn=<...Backward0>, Parameter containing, .grad -------------
def repr_with_autograd(torch, device):
    w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = (w * 2).sum()
    z = w.exp()
    shown = {"leaf": repr(w.detach().cpu().requires_grad_()), "sum": y.item(),
             "grad_fns": [type(t.grad_fn).__name__ if False else t.grad_fn.name() for t in (y, z, w[0], w.view(3, 1),
                                                                                             w.mean(), w @ w)]}
    cpu_w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    shown["reprs"] = [repr(cpu_w * 2), repr((cpu_w * 2).sum()), repr(cpu_w.mean()), repr(cpu_w[1]),
                      repr(cpu_w.detach()), repr(cpu_w.sum().detach()), repr(cpu_w.view(3, 1)),
                      repr(cpu_w.t()), repr(cpu_w.clone()), repr(cpu_w.max()), repr(torch.relu(cpu_w)),
                      repr(cpu_w.unsqueeze(0).expand(2, 3))]
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.25, -0.5]]))
        lin.bias.fill_(0.125)
    shown["parameter"] = [repr(lin.weight), str(lin.bias),
                          repr(torch.nn.Parameter(torch.zeros(2), requires_grad=False))]
    with torch.no_grad():
        shown["no_grad"] = repr(cpu_w * 2)
    out = lin(torch.ones(1, 2))
    shown["module_out"] = repr(out)
    out.sum().backward()
    shown["grad"] = [repr(lin.weight.grad), repr(lin.bias.grad), repr(cpu_w.grad)]
    shown["double_grad"] = repr(torch.tensor([0.5], dtype=torch.float64, requires_grad=True) * 3)
    shown["int_dtype_grad"] = repr((cpu_w * 2).long())
    shown["names"] = [str(y.grad_fn).split(" ")[0], str(w.grad_fn)]
    return shown


# ---- large tensors: the '...' summary, threshold/edgeitems, linewidth wrapping of long rows --------------------
def large_tensor_summaries(torch, device):
    big = torch.arange(2000, dtype=torch.float32, device=device).cpu()
    shown = {"long_1d": repr(big), "long_int": repr(torch.arange(1500)), "matrix": repr(big.view(40, 50)),
             "cube": repr(torch.arange(24000).view(40, 30, 20)),
             "wide_row": repr(torch.linspace(0, 1, 30)), "tall": repr(torch.arange(1100).view(1100, 1)),
             "just_over": repr(torch.arange(1001)), "at_threshold": repr(torch.arange(1000)).count("\n")}
    rng = np.random.default_rng(1020)
    shown["random_rows"] = repr(torch.tensor(rng.standard_normal((3, 12)).round(4), dtype=torch.float32))
    shown["mixed_magnitudes"] = repr(torch.tensor(rng.standard_normal(8) * 10.0 ** np.arange(8),
                                                  dtype=torch.float64))
    shown["bool_long"] = repr(torch.arange(1200) % 3 == 0)
    shown["complex_long"] = repr(torch.arange(1200).to(torch.complex64))
    return shown


# ---- set_printoptions: precision, sci_mode, threshold, edgeitems, linewidth, profiles, then back to default ----
def print_options(torch, device):
    x = torch.tensor([3.14159265, 1e-5, 12345.6789, -0.5], device=device).cpu()
    shown = {}
    try:
        torch.set_printoptions(precision=2)
        shown["precision2"] = repr(x)
        torch.set_printoptions(precision=6, sci_mode=False)
        shown["no_sci"] = repr(x)
        torch.set_printoptions(sci_mode=True)
        shown["sci"] = [repr(x), repr(torch.tensor([1, 2]))]
        torch.set_printoptions(sci_mode=None, precision=4)
        torch.set_printoptions(threshold=5, edgeitems=2)
        shown["threshold"] = [repr(torch.arange(10)), repr(torch.arange(20.0).view(4, 5))]
        torch.set_printoptions(linewidth=30, threshold=1000, edgeitems=3)
        shown["linewidth"] = repr(torch.arange(20.0))
        torch.set_printoptions(profile="short")
        shown["short"] = [repr(x), repr(torch.arange(100.0))]
        torch.set_printoptions(profile="full")
        shown["full"] = repr(torch.arange(1200)).count("...")
        torch.set_printoptions(profile="default")
        shown["default_again"] = repr(x)
        torch.set_printoptions(precision=3)
        shown["np_side"] = [np.array2string(x.numpy(), precision=3), repr(x)]
        torch.set_printoptions(precision=1)
        shown["precision1_complex"] = repr(torch.tensor([1.25 + 0.75j]))
        shown["precision1_half"] = repr(torch.tensor([1.26, 2.0], dtype=torch.float16))
    finally:
        _restore_defaults(torch)
    shown["restored"] = repr(x)
    try:
        torch.set_printoptions(profile="nonsense")
        shown["bad_profile"] = repr(torch.arange(3.0))
    except Exception as exc:
        shown["bad_profile"] = type(exc).__name__
    finally:
        _restore_defaults(torch)
    return shown


# ---- formatting: f-strings of 0-dim tensors, format specs, item(), tolist(), round() in prints ------------------
def format_and_fstrings(torch, device):
    loss = torch.tensor(0.123456789, device=device)
    acc = torch.tensor(0.875, dtype=torch.float64, device=device)
    shown = {"fstrings": [f"{loss:.4f}", f"{loss.item():.3f}", f"{acc:.1%}", f"{acc * 100:.2f}%",
                          "{:.2e}".format(loss), f"{torch.tensor(7):d}", f"{torch.tensor(7):>5}",
                          f"{loss.cpu()}", f"{torch.tensor(3):03d}", format(acc, "g")]}
    try:
        shown["fstring_vector"] = f"{torch.ones(2):.2f}"
    except Exception as exc:
        shown["fstring_vector"] = [type(exc).__name__, str(exc)]
    shown["plain_format"] = [f"{torch.ones(2)}", format(torch.tensor([1.5]), ""), "%s" % torch.tensor(2)]
    shown["percent"] = ["%.3f" % loss, "%d" % torch.tensor(3), "%.1f" % torch.tensor([2.25])]
    shown["round_builtin"] = [round(torch.tensor(2.567).item(), 2), str(torch.tensor(2.567).round(decimals=2))]
    try:
        round(torch.tensor(2.567), 2)
    except TypeError as exc:
        shown["round_ndigits"] = str(exc)
    shown["bools"] = [f"{torch.tensor(True)}", str(bool(torch.tensor([1]))), f"{torch.tensor(False).item()}"]
    shown["sizes"] = [str(torch.zeros(2, 3).shape), repr(torch.zeros(2, 3).size()), str(torch.Size([])),
                      str(torch.zeros(2, 3).size(1)), f"{torch.zeros(4).shape}", str(list(torch.zeros(2, 3).shape))]
    shown["dtypes_devices"] = [str(torch.float32), repr(torch.int64), str(torch.device("cpu")),
                               repr(torch.device("cuda", 1)), str(torch.device("cuda:0")),
                               repr(torch.device("cpu")), str(torch.bool)]
    shown["tolist_types"] = [type(v).__name__ for v in (torch.tensor([1]).tolist()[0],
                                                        torch.tensor([1.0]).tolist()[0],
                                                        torch.tensor([True]).tolist()[0],
                                                        torch.tensor([1j]).tolist()[0],
                                                        torch.tensor(2.0).tolist(),
                                                        torch.tensor(2.0).item())]
    shown["float16_item"] = [torch.tensor(0.1, dtype=torch.float16).item(), torch.tensor(0.1).item()]
    shown["log_line"] = "epoch {:2d} | loss {:7.4f} | acc {:.2f}".format(3, loss, acc)
    return shown


PROGRAMS = [repr_of_dtypes, repr_with_autograd, large_tensor_summaries, print_options, format_and_fstrings]
NEEDS_CPP = {}
