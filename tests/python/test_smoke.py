import tandem


def test_add_int_tensor_and_python_float_promotes_to_default_float():
    a = tandem.tensor([1, 2, 3])
    assert a.dtype is tandem.int64
    b = a + 2.5
    assert b.dtype is tandem.float32
    assert b.shape == (3,)
