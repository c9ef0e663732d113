"""index_add, index_copy and index_reduce against PyTorch over a grid of self ranks (0-d, 1-d, 2-d), dims, source
shapes (0-d, too few or too many dims, each size wrong) and index counts: which error comes first, with PyTorch's
type and words, and the values where the call is valid. PyTorch checks dim against the source's rank, a 0-dim
source's index count, then the slice shapes and counts, in an order of its own for index_copy; each case here is
one of those orders meeting another (src/ops/index_select.cpp, check_index_func_source)."""
import itertools
import warnings

import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import assert_matches_pytorch  # noqa: E402

SELF_SHAPES = [(), (3,), (3, 4)]
SOURCE_SHAPES = [(), (1,), (2,), (3,), (4,), (2, 4), (3, 2), (1, 1), (3, 2, 1)]


def _call(op, self_shape, dim, source_shape, count):
    def case(L, d):
        x = L.zeros(self_shape, device=d)
        index = L.arange(count, device=d)
        source = L.arange(1, 1 + max(1, len(source_shape) and int(L.tensor(source_shape).prod())),
                          dtype=L.float32, device=d)[:int(L.tensor(source_shape).prod())].reshape(source_shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # index_reduce's beta warning
            if op == "index_add":
                return x.index_add(dim, index, source)
            if op == "index_add_alpha":
                return x.index_add(dim, index, source, alpha=3)
            if op == "index_copy":
                return x.index_copy(dim, index, source)
            if op == "index_copy_":
                return x.index_copy_(dim, index, source)
            return x.index_reduce(dim, index, source, "prod", include_self=op == "index_reduce_prod")
    return case


CASES = {f"{op}/self{list(s)}/dim{dim}/src{list(src)}/n{n}": _call(op, s, dim, src, n)
         for op in ("index_add", "index_add_alpha", "index_copy", "index_copy_", "index_reduce_prod",
                    "index_reduce_prod_exclude")
         for s, dim, src, n in itertools.product(SELF_SHAPES, (-1, 0, 1), SOURCE_SHAPES, (0, 1, 2))}


@pytest.mark.parametrize("name", sorted(CASES))
def test_index_func_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device)


def test_grid_reaches_every_outcome():
    """The grid is worth running: PyTorch gives valid results and each of the errors whose order it checks."""
    seen = set()
    for case in CASES.values():
        try:
            case(torch, "cpu")
            seen.add("ok")
        except (IndexError, RuntimeError) as error:
            seen.add(f"{type(error).__name__}: {str(error).split('(')[0].split(' Got ')[0]}")
    assert seen == {"ok", "IndexError: Dimension out of range ",
                    "IndexError: Dimension specified as 0 but tensor has no dimensions",
                    "IndexError: index_copy_", "RuntimeError: index_add_", "RuntimeError: index_copy_",
                    "RuntimeError: index_reduce_",
                    "RuntimeError: source tensor shape must match self tensor shape, excluding the specified "
                    "dimension."}


@pytest.mark.parametrize("op", ["index_add_", "index_copy_"])
def test_scalar_source_writes_one_slice(op, device):
    """A 0-d source with one index writes into a 0-d self (PyTorch takes it); index_copy_ also into a 1-d self."""
    import tandem
    x = tandem.zeros((), device=device)
    getattr(x, op)(0, tandem.tensor([0], device=device), tandem.tensor(5.0, device=device))
    assert x.item() == 5.0 and x.shape == () and x.device == tandem.device(device)
    y = tandem.zeros(3, device=device)
    y.index_copy_(0, tandem.tensor([2], device=device), tandem.tensor(7.0, device=device))
    assert y.tolist() == [0.0, 0.0, 7.0]
