"""nn.Buffer (PyTorch 2.5+) and register_buffer against PyTorch: registering by assignment, persistence in
state_dict, re-assignment rules, state_dict round trips, and the registration errors' types and messages."""
import io

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error


def module_with_buffers(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Buffer(lib.ones(2), persistent=False)
            self.b = lib.nn.Buffer(lib.zeros(1))
            self.register_buffer("c", lib.ones(3), persistent=False)
            self.lin = lib.nn.Linear(2, 2)
            self.plain = 1

        def forward(self, x):
            return self.lin(x * self.a) + self.b

    return M()


def test_buffer_marks_a_plain_tensor(device):
    for lib in (tandem, torch):
        dev = device if lib is tandem else "cpu"
        src = lib.arange(3.0, device=dev, requires_grad=True)
        b = lib.nn.Buffer(src, persistent=False)
        assert type(b) is lib.Tensor and isinstance(b, lib.nn.Buffer)
        assert not isinstance(lib.ones(1), lib.nn.Buffer)
        assert b.persistent is False and b._is_buffer is True
        assert b.requires_grad and b.is_leaf and b.data_ptr() == src.data_ptr()  # detached, shares memory
        assert lib.nn.Buffer(lib.ones(1)).persistent is True
        assert tuple(lib.nn.Buffer().shape) == (0,)


@pytest.mark.parametrize("steps", [
    [],
    ["c_plain"],
    ["c_buffer"],
    ["a_plain"],
    ["a_none"],
    ["new_buffer"],
    ["new_nonpersistent"],
])
def test_assignment_registers_buffers_as_torch(steps):
    def run(lib):
        m = module_with_buffers(lib)
        for step in steps:
            if step == "c_plain":
                m.c = lib.zeros(3)  # a plain tensor keeps the buffer's persistence
            elif step == "c_buffer":
                m.c = lib.nn.Buffer(lib.zeros(3))  # a Buffer brings its own
            elif step == "a_plain":
                m.a = lib.zeros(2)
            elif step == "a_none":
                m.a = None
            elif step == "new_buffer":
                m.d = lib.nn.Buffer(lib.full((2,), 5.0))
            elif step == "new_nonpersistent":
                m.d = lib.nn.Buffer(lib.full((2,), 5.0), persistent=False)
        return (list(m.state_dict()), [n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()],
                sorted(m._non_persistent_buffers_set))

    assert run(tandem) == run(torch)


ASSIGNMENT_ERRORS = [
    lambda lib: setattr(module_with_buffers(lib), "a", 3),
    lambda lib: setattr(module_with_buffers(lib), "plain", lib.nn.Buffer(lib.ones(1))),
    lambda lib: module_with_buffers(lib).register_buffer("x.y", lib.ones(1)),
    lambda lib: module_with_buffers(lib).register_buffer(1, lib.ones(1)),
    lambda lib: module_with_buffers(lib).register_buffer("lin", lib.ones(1)),
    lambda lib: module_with_buffers(lib).register_buffer("q", 5),
    lambda lib: module_with_buffers(lib).register_buffer("", lib.ones(1)),
    lambda lib: module_with_buffers(lib).add_module("z", 3),
]


@pytest.mark.parametrize("case", ASSIGNMENT_ERRORS)
def test_assignment_errors_match_torch(case):
    assert_same_error(case)


def test_parameter_and_module_slots_refuse_a_buffer():
    # PyTorch's messages, with tandem's name for the tensor type (torch.typename gives 'torch.FloatTensor')
    m = module_with_buffers(tandem)
    with pytest.raises(TypeError, match=r"^cannot assign 'tandem.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)$"):
        m.lin.weight = tandem.nn.Buffer(tandem.ones(2, 2))
    with pytest.raises(TypeError, match=r"^cannot assign 'tandem.FloatTensor' as child module 'lin' "
                                        r"\(torch.nn.Module or None expected\)$"):
        m.lin = tandem.nn.Buffer(tandem.ones(1))


def test_buffer_before_module_init_is_refused():
    for lib in (tandem, torch):
        class Early(lib.nn.Module):
            def __init__(self):
                self.a = lib.nn.Buffer(lib.ones(2))

        with pytest.raises(AttributeError, match=r"^cannot assign buffer before Module.__init__\(\) call$"):
            Early()


def test_state_dict_round_trip_through_save_and_load(device):
    m = module_with_buffers(tandem).to(device)
    with tandem.no_grad():
        m.b.fill_(3.0)
        m.a.fill_(7.0)
    buffer = io.BytesIO()
    tandem.save(m.state_dict(), buffer)
    buffer.seek(0)
    state = tandem.load(buffer)
    assert list(state) == ["b", "lin.weight", "lin.bias"]  # the non-persistent a and c are left out
    fresh = module_with_buffers(tandem).to(device)
    result = fresh.load_state_dict(state)
    assert repr(result) == "<All keys matched successfully>"
    assert fresh.b.tolist() == [3.0] and fresh.a.tolist() == [1.0, 1.0]  # a keeps its own value
    assert fresh.b.device == tandem.device(device)
    # a torch checkpoint of the same module loads into tandem's
    theirs = module_with_buffers(torch)
    with torch.no_grad():
        theirs.b.fill_(4.0)
    buffer = io.BytesIO()
    torch.save(theirs.state_dict(), buffer)
    buffer.seek(0)
    ours = module_with_buffers(tandem)
    ours.load_state_dict(tandem.load(buffer))
    assert_same(ours.b, theirs.b)
    assert_same(ours.lin.weight.detach(), theirs.lin.weight.detach())


def test_buffers_follow_the_module_to_a_device_and_dtype(device):
    m = module_with_buffers(tandem).to(device).double()
    for name, b in m.named_buffers():
        assert b.device == tandem.device(device) and b.dtype == tandem.float64, name
    out = m(tandem.ones(2, device=device, dtype=tandem.float64))
    assert out.device == tandem.device(device)


def test_load_state_dict_result_repr_matches_torch():
    def result(lib):
        return repr(lib.nn.Linear(1, 1).load_state_dict({"weight": lib.ones(1, 1)}, strict=False))

    assert result(tandem) == result(torch)
