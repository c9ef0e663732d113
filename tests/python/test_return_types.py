"""tandem.return_types: every function with several results returns PyTorch's named tuple under PyTorch's name
and field names (tandem.return_types.<name>), a tuple that unpacks, compares and pickles, with PyTorch's
structseq repr spelled with tandem's module; values against torch."""
import pickle

import pytest
import torch

import tandem


def square(lib, device="cpu"):
    return lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], dtype=lib.float64, device=device)


def rows(lib, device="cpu"):
    return lib.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, 5.0, -1.0, 5.0]], device=device)


def tall(lib, device="cpu"):
    return lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], dtype=lib.float64, device=device)


def lu_unpack_args(lib, x):
    lu = lib.linalg.lu_factor(x)
    return lib.lu_unpack(lu.LU, lu.pivots)


# name: (fields, call(lib, device)). Each runs on tandem and on torch (cpu).
CASES = {
    "max": (("values", "indices"), lambda lib, d: lib.max(rows(lib, d), 1)),
    "min": (("values", "indices"), lambda lib, d: rows(lib, d).min(dim=0)),
    "sort": (("values", "indices"), lambda lib, d: lib.sort(rows(lib, d), stable=True)),
    "topk": (("values", "indices"), lambda lib, d: rows(lib, d).topk(2)),
    "kthvalue": (("values", "indices"), lambda lib, d: lib.kthvalue(rows(lib, d), 2, 1)),
    "mode": (("values", "indices"), lambda lib, d: lib.mode(rows(lib, d), 1)),
    "median": (("values", "indices"), lambda lib, d: rows(lib, d).median(1)),
    "nanmedian": (("values", "indices"), lambda lib, d: lib.nanmedian(rows(lib, d), 1)),
    "cummax": (("values", "indices"), lambda lib, d: lib.cummax(rows(lib, d), 1)),
    "cummin": (("values", "indices"), lambda lib, d: rows(lib, d).cummin(1)),
    "aminmax": (("min", "max"), lambda lib, d: lib.aminmax(rows(lib, d), dim=1)),
    "frexp": (("mantissa", "exponent"), lambda lib, d: lib.frexp(rows(lib, d))),
    "histogram": (("hist", "bin_edges"), lambda lib, d: lib.histogram(rows(lib, "cpu"), 3)),
    "slogdet": (("sign", "logabsdet"), lambda lib, d: lib.slogdet(square(lib, d))),
    "svd": (("U", "S", "V"), lambda lib, d: lib.svd(square(lib, d))),
    "triangular_solve": (("solution", "cloned_coefficient"),
                         lambda lib, d: lib.triangular_solve(tall(lib, d)[:2], square(lib, d)[:2, :2].triu())),
    "lu_unpack": (("P", "L", "U"), lambda lib, d: lu_unpack_args(lib, square(lib, d))),
    "linalg_slogdet": (("sign", "logabsdet"), lambda lib, d: lib.linalg.slogdet(square(lib, d))),
    "linalg_eigh": (("eigenvalues", "eigenvectors"), lambda lib, d: lib.linalg.eigh(square(lib, d))),
    "linalg_eig": (("eigenvalues", "eigenvectors"), lambda lib, d: lib.linalg.eig(square(lib, d))),
    "linalg_qr": (("Q", "R"), lambda lib, d: lib.linalg.qr(tall(lib, d))),
    "linalg_svd": (("U", "S", "Vh"), lambda lib, d: lib.linalg.svd(tall(lib, d), full_matrices=False)),
    "linalg_lu_factor": (("LU", "pivots"), lambda lib, d: lib.linalg.lu_factor(square(lib, d))),
    "linalg_lu_factor_ex": (("LU", "pivots", "info"), lambda lib, d: lib.linalg.lu_factor_ex(square(lib, d))),
    "linalg_lu": (("P", "L", "U"), lambda lib, d: lib.linalg.lu(square(lib, d))),
    "linalg_inv_ex": (("inverse", "info"), lambda lib, d: lib.linalg.inv_ex(square(lib, d))),
    "linalg_cholesky_ex": (("L", "info"), lambda lib, d: lib.linalg.cholesky_ex(square(lib, d))),
    "linalg_solve_ex": (("result", "info"), lambda lib, d: lib.linalg.solve_ex(square(lib, d), tall(lib, d))),
    "linalg_lstsq": (("solution", "residuals", "rank", "singular_values"),
                     lambda lib, d: lib.linalg.lstsq(tall(lib, "cpu"), tall(lib, "cpu")[:, :1])),
}


def as_torch(value):
    if isinstance(value, tandem.Tensor):
        return torch.from_numpy(value.cpu().numpy())
    return value


def test_every_case_is_a_pytorch_return_type():
    # The names tested are PyTorch's (a typo in CASES would test nothing).
    for name in CASES:
        assert hasattr(torch.return_types, name), name


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
@pytest.mark.parametrize("name", sorted(CASES))
def test_return_type(name, device):
    fields, call = CASES[name]
    got, ref = call(tandem, device), call(torch, "cpu")
    t = type(got)
    assert type(ref).__name__ == name and t.__name__ == name
    assert t is getattr(tandem.return_types, name)
    assert t.__module__ == "tandem.return_types"
    assert t._fields == fields
    assert all(getattr(ref, f) is ref[i] for i, f in enumerate(fields))  # PyTorch's field names
    assert isinstance(got, tuple) and len(got) == len(ref) == len(fields)
    # Values, dtypes against torch (signs of eigenvectors/singular vectors are LAPACK's, as torch's on cpu).
    for f, g, r in zip(fields, got, ref):
        assert getattr(got, f) is g
        if isinstance(r, torch.Tensor):
            assert str(g.dtype) == str(r.dtype).replace("torch.", "tandem."), f
            assert g.shape == r.shape, f
            if name in ("linalg_eig",) and f == "eigenvectors":
                continue
            torch.testing.assert_close(as_torch(g), r, msg=f"{name}.{f}")
        else:
            assert g == r, f
    first, *rest = got  # unpacking
    assert first is got[0] and len(rest) == len(fields) - 1
    # The repr: PyTorch's structseq layout with tandem's module name.
    text = repr(got)
    lines = [f"{f}={v!r}" for f, v in zip(fields, got)]
    assert text == f"tandem.return_types.{name}(\n" + ",\n".join(lines) + ")"
    assert repr(ref).startswith(f"torch.return_types.{name}(\n{fields[0]}=")
    # Pickle round trip (the type is found again as tandem.return_types.<name>).
    back = pickle.loads(pickle.dumps(got))
    assert type(back) is t
    for g, b in zip(got, back):
        if isinstance(g, tandem.Tensor):
            assert b.device == g.device and tandem.equal(b, g)
        else:
            assert b == g


def test_return_types_module_is_importable():
    import importlib

    module = importlib.import_module("tandem.return_types")
    assert module is tandem.return_types
    assert module.__name__ == "tandem.return_types"


def test_slogdet_keeps_pytorchs_two_names():
    x = square(tandem)
    assert type(tandem.slogdet(x)) is tandem.return_types.slogdet
    assert type(x.slogdet()) is tandem.return_types.slogdet
    assert type(tandem.linalg.slogdet(x)) is tandem.return_types.linalg_slogdet
    assert tandem.return_types.slogdet is not tandem.return_types.linalg_slogdet
    assert tuple(tandem.slogdet(x)) == tuple(tandem.linalg.slogdet(x))


def test_every_pytorch_out_type_exists():
    """PyTorch has an "_out" twin of each public return type but histogramdd; so does tandem."""
    names = {n for n in dir(torch.return_types) if n.endswith("_out") and not n.startswith("_")}
    assert names == {n for n in dir(tandem.return_types) if n.endswith("_out")}
    for name in names:
        t = getattr(tandem.return_types, name)
        assert t._fields == getattr(tandem.return_types, name[:-4])._fields and t.__module__ == "tandem.return_types"
    assert not hasattr(tandem.return_types, "histogramdd_out")


def _outs(lib, got, device):
    return tuple(lib.empty(0, dtype=getattr(lib, str(g.dtype).split(".")[1]), device=device) for g in got)


# A call with out= returns the "_out" type holding the outs themselves (C++ bindings and Python compositions).
OUT_CALLS = {
    "max": lambda lib, d, out: lib.max(rows(lib, d), 1, out=out),
    "sort": lambda lib, d, out: lib.sort(rows(lib, d), out=out),
    "kthvalue": lambda lib, d, out: lib.kthvalue(rows(lib, d), 2, 1, out=out),
    "cummax": lambda lib, d, out: lib.cummax(rows(lib, d), 1, out=out),
    "aminmax": lambda lib, d, out: lib.aminmax(rows(lib, d), dim=1, out=out),
    "frexp": lambda lib, d, out: lib.frexp(rows(lib, d), out=out),
    "histogram": lambda lib, d, out: lib.histogram(rows(lib, "cpu"), 3, out=out),
    "linalg_qr": lambda lib, d, out: lib.linalg.qr(tall(lib, d), out=out),
    "linalg_slogdet": lambda lib, d, out: lib.linalg.slogdet(square(lib, d), out=out),
}


@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_call_with_out_returns_the_out_type(name, device):
    d = "cpu" if name == "histogram" else device
    plain = CASES.get(name, (None, None))[1]
    got_plain = OUT_CALLS[name](tandem, d, None) if plain is None else plain(tandem, d)
    outs = _outs(tandem, got_plain, d)
    got = OUT_CALLS[name](tandem, d, outs)
    ref = OUT_CALLS[name](torch, "cpu", _outs(torch, got_plain, "cpu"))
    assert type(ref).__name__ == type(got).__name__ == f"{name}_out"
    assert type(got) is getattr(tandem.return_types, f"{name}_out")
    assert all(g is o for g, o in zip(got, outs))
    for g, r in zip(got, ref):
        torch.testing.assert_close(as_torch(g), r)
    assert repr(got).startswith(f"tandem.return_types.{name}_out(\n{got._fields[0]}=")
    assert type(pickle.loads(pickle.dumps(got))) is type(got)
