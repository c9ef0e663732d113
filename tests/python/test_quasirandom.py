"""tandem.quasirandom.SobolEngine against PyTorch's: unscrambled sequences bit for bit, the same errors, and the
properties a scrambled sequence must keep (its random draws are tandem's, so its values differ from PyTorch's)."""
import numpy as np
import pytest
import torch

import tandem

pytest.importorskip("scipy")  # SobolEngine reads its direction numbers from SciPy


def run(lib, dimension, steps):
    engine = lib.quasirandom.SobolEngine(dimension)
    drawn = []
    for name, arg in steps:
        if name == "draw":
            drawn.append(engine.draw(arg, dtype=lib.float64).numpy())
        elif name == "draw_base2":
            drawn.append(engine.draw_base2(arg, dtype=lib.float64).numpy())
        elif name == "fast_forward":
            engine.fast_forward(arg)
        else:
            engine.reset()
        drawn.append(engine.num_generated)
    return drawn


STEPS = {
    "one_by_one": [("draw", 1)] * 5,
    "blocks": [("draw", 3), ("draw", 8), ("draw", 0), ("draw", 21)],
    "base2": [("draw_base2", 3), ("draw_base2", 3), ("draw_base2", 4)],
    "fast_forward": [("fast_forward", 5), ("draw", 4), ("fast_forward", 0), ("fast_forward", 7), ("draw", 9)],
    "fast_forward_first": [("fast_forward", 1), ("draw", 3)],
    "reset": [("draw", 6), ("reset", None), ("draw", 6)],
}


@pytest.mark.parametrize("dimension", [1, 2, 7, 300, 21201])
@pytest.mark.parametrize("steps", STEPS)
def test_unscrambled_points_equal_pytorch(dimension, steps):
    if dimension == 21201 and steps != "blocks":
        pytest.skip("the largest dimension once is enough")
    got, want = run(tandem, dimension, STEPS[steps]), run(torch, dimension, STEPS[steps])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_dtype_out_and_repr_follow_pytorch():
    for lib in (torch, tandem):
        engine = lib.quasirandom.SobolEngine(3)
        assert engine.draw(2).dtype == lib.get_default_dtype()
        assert engine.draw(2, dtype=lib.float64).dtype == lib.float64
        out = lib.empty(1)
        assert engine.draw(4, out=out) is out and tuple(out.shape) == (4, 3)
        assert repr(engine) == "SobolEngine(dimension=3)"
        assert repr(lib.quasirandom.SobolEngine(2, scramble=True, seed=7)) == "SobolEngine(dimension=2, scramble=True, seed=7)"


@pytest.mark.parametrize("make", [
    lambda lib: lib.quasirandom.SobolEngine(0),
    lambda lib: lib.quasirandom.SobolEngine(21202),
    lambda lib: (lambda e: (e.draw(3), e.draw_base2(2)))(lib.quasirandom.SobolEngine(2)),
], ids=["dimension_zero", "dimension_past_the_table", "base2_unbalanced"])
def test_errors_match_pytorch(make):
    with pytest.raises(ValueError) as want:
        make(torch)
    with pytest.raises(ValueError) as got:
        make(tandem)
    assert str(got.value) == str(want.value)


def test_scrambled_points_are_a_reproducible_net():
    engine = tandem.quasirandom.SobolEngine(4, scramble=True, seed=3)
    points = engine.draw_base2(5, dtype=tandem.float64)
    values = points.numpy()
    assert values.shape == (32, 4) and (values >= 0).all() and (values < 1).all()
    # a (t, s)-net in base 2: every coordinate of 2**m points puts one point into each interval of width 2**-m
    for column in values.T:
        assert sorted((column * 32).astype(int).tolist()) == list(range(32))
    assert np.array_equal(tandem.quasirandom.SobolEngine(4, scramble=True, seed=3).draw(32, dtype=tandem.float64)
                          .numpy(), values)
    assert np.array_equal(engine.reset().draw(32, dtype=tandem.float64).numpy(), values)
    assert not np.array_equal(tandem.quasirandom.SobolEngine(4, scramble=True, seed=4).draw(32, dtype=tandem.float64)
                              .numpy(), values)
    unscrambled = tandem.quasirandom.SobolEngine(4).draw(32, dtype=tandem.float64).numpy()
    assert not np.array_equal(unscrambled, values)
