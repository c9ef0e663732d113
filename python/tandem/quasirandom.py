"""tandem.quasirandom: SobolEngine, Sobol' low-discrepancy sequences (botorch draws its restarts from it).

Points are computed in Gray-code order, as PyTorch does: point k is the XOR of the direction numbers picked by the
lowest zero bit of each index below it, so a run of n points is one cumulative XOR over n columns (NumPy), read as
fractions of 2**30. The direction numbers are Joe and Kuo's (21,201 dimensions, the table PyTorch and SciPy use);
tandem does not ship that table and reads SciPy's copy of it, so SobolEngine needs SciPy installed (ImportError
with the fix otherwise). Unscrambled sequences equal PyTorch's bit for bit; scrambling (a random lower-triangular
linear matrix scramble and digital shift per dimension) draws from tandem's generator, so its points differ from
PyTorch's as every other random draw does.
"""
import operator
import os

import numpy as np

import tandem

__all__ = ["SobolEngine"]

_direction_table = None  # (poly, vinit) once read


def _joe_kuo_table():
    global _direction_table
    if _direction_table is None:
        try:
            import scipy.stats._sobol as scipy_sobol  # noqa: PLC0415  (only for its data file)
        except ImportError as e:
            raise ImportError("tandem.quasirandom.SobolEngine reads Joe and Kuo's direction numbers from SciPy, which "
                              "is not installed\nhint: pip install scipy") from e
        with np.load(os.path.join(os.path.dirname(scipy_sobol.__file__), "_sobol_direction_numbers.npz")) as data:
            _direction_table = data["poly"].astype(np.int64), data["vinit"].astype(np.int64)
    return _direction_table


def _direction_numbers(dimension, bits):
    """(dimension, bits) int64: column j of row d is dimension d's j-th direction number, scaled to `bits` bits."""
    poly, vinit = _joe_kuo_table()
    v = np.zeros((dimension, bits), dtype=np.int64)
    v[0, :] = 1  # the first dimension is van der Corput's: every m_j is 1
    for d in range(1, dimension):
        p = int(poly[d])
        degree = p.bit_length() - 1
        v[d, :degree] = vinit[d, :degree]
        for j in range(degree, bits):
            # m_j = 2 a_1 m_(j-1) ^ 4 a_2 m_(j-2) ^ ... ^ 2^degree m_(j-degree) ^ m_(j-degree), with the a_k the
            # primitive polynomial's inner coefficients (its highest and lowest bits are 1)
            m = int(v[d, j - degree])
            for k in range(1, degree + 1):
                if (p >> (degree - k)) & 1:
                    m ^= int(v[d, j - k]) << k
            v[d, j] = m
    return v << (bits - 1 - np.arange(bits, dtype=np.int64))


def _count(n, function):
    """n as the int PyTorch's _sobol_engine_draw/_sobol_engine_ff_ take: TypeError for another type, ValueError
    for a negative count (the messages PyTorch's kernels give)."""
    if isinstance(n, bool) or not hasattr(type(n), "__index__"):
        raise TypeError(f"{function}(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"n must be non-negative, but got {n}")
    return n


def _scalar_type_name(dtype):
    """PyTorch's C++ name of a dtype (Half, Long, Bool, ...), as its kernels' "not implemented for" says it."""
    from ._torch_format import DTYPES  # noqa: PLC0415  (the storage names carry it)
    storage = DTYPES.get(str(dtype).split(".")[-1], (None,))[0]
    return storage[:-len("Storage")] if storage else str(dtype).split(".")[-1]


def _draw_dtype(dtype):
    """The dtype a draw computes in: float32 or float64 only, as PyTorch's kernel."""
    if not isinstance(dtype, tandem.dtype):
        raise TypeError(f"_sobol_engine_draw(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if dtype not in (tandem.float32, tandem.float64):
        raise NotImplementedError(f'"_sobol_engine_draw" not implemented for \'{_scalar_type_name(dtype)}\'')
    return dtype


def _lowest_zero_bits(indices):
    """The position of the lowest 0 bit of each (non-negative) index."""
    flipped = ~indices
    return np.log2(flipped & -flipped).astype(np.int64)


class SobolEngine:
    """``SobolEngine(dimension, scramble=False, seed=None)``: draws points of a (scrambled) Sobol' sequence in
    [0, 1)^dimension. ``draw(n)`` continues the sequence, ``draw_base2(m)`` draws 2**m points keeping the total a
    power of 2, ``fast_forward(n)`` skips n points, ``reset()`` starts over."""

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        state = _direction_numbers(dimension, self.MAXBIT)
        shift = np.zeros(dimension, dtype=np.int64)
        if scramble:
            state, shift = self._scrambled(state)
        self.sobolstate = tandem.from_numpy(state)
        self.shift = tandem.from_numpy(shift)
        self.quasi = self.shift.clone()
        self._first_point = (self.quasi / 2**self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scrambled(self, state):
        generator = tandem.Generator()
        if self.seed is not None:
            generator.manual_seed(self.seed)
        else:
            generator.seed()
        bits = self.MAXBIT
        shift_bits = tandem.randint(2, (self.dimension, bits), generator=generator).numpy()
        shift = (shift_bits << np.arange(bits, dtype=np.int64)).sum(-1)
        # Per dimension a random lower-triangular binary matrix with a unit diagonal (invertible, so the points
        # stay a (t, s)-net) applied to every direction number's bits, most significant first.
        lower = np.tril(tandem.randint(2, (self.dimension, bits, bits), generator=generator).numpy())
        lower[:, np.arange(bits), np.arange(bits)] = 1
        columns = (state[:, None, :] >> (bits - 1 - np.arange(bits))[None, :, None]) & 1  # (dim, bit, column)
        mixed = np.einsum("dik,dkj->dij", lower, columns) & 1
        scrambled = (mixed << (bits - 1 - np.arange(bits))[None, :, None]).sum(1)
        return scrambled.astype(np.int64), shift.astype(np.int64)

    def _advance(self, count, first_index):
        """The next `count` states after the current one (Gray-code order from index `first_index`), as a
        (count, dimension) int64 array; the engine's state moves to the last."""
        if count <= 0:
            return np.zeros((0, self.dimension), dtype=np.int64)
        columns = _lowest_zero_bits(np.arange(first_index, first_index + count, dtype=np.int64))
        steps = self.sobolstate.numpy()[:, columns].T  # (count, dimension)
        states = np.bitwise_xor.accumulate(steps, axis=0) ^ self.quasi.numpy()[None, :]
        self.quasi = tandem.from_numpy(states[-1].copy())
        return states

    def draw(self, n=1, out=None, dtype=None):
        """The next `n` points, (n, dimension), of `dtype` (the default dtype when None); into `out` if given."""
        if dtype is None:
            dtype = tandem.get_default_dtype()
        # As PyTorch: the first point is the shift itself, and the kernel draws the rest (n - 1 of them, which
        # must not be negative: a first draw(0) is refused as PyTorch's is).
        if self.num_generated == 0 and n == 1:
            points = self.shift.numpy()[None, :]
        elif self.num_generated == 0:
            rest = _count(n - 1, "_sobol_engine_draw")
            _draw_dtype(dtype)
            points = np.concatenate([self.shift.numpy()[None, :], self._advance(rest, 0)], 0)
        else:
            count = _count(n, "_sobol_engine_draw")
            _draw_dtype(dtype)
            points = self._advance(count, self.num_generated - 1)
        self.num_generated += n
        result = tandem.from_numpy(points / 2.0**self.MAXBIT).to(dtype)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next 2**m points, provided the total drawn stays a power of 2 (the sequence's balance)."""
        n = 2**m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError("The balance properties of Sobol' points require n to be a power of 2. "
                             f"{self.num_generated} points have been previously generated, then: "
                             f"n={self.num_generated}+2**{m}={total_n}. If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Back to the first point."""
        self.quasi = self.shift.clone()
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skips the next `n` points."""
        if n == 0:
            return self
        if self.num_generated == 0:
            self._advance(_count(n - 1, "_sobol_engine_ff_"), 0)
        else:
            self._advance(_count(n, "_sobol_engine_ff_"), self.num_generated - 1)
        self.num_generated += n
        return self

    def __repr__(self):
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
