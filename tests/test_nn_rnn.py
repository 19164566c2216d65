"""The recurrent layers and nn.utils.rnn against torch: each module is built in both after the
same manual_seed (so default initialisation is compared bit for bit), run forward and backward
on the same input (plain, batch_first, unbatched, packed; h0/c0 given or not; dropout in
training, drawing torch's stream), and compared: outputs, hidden states, grad_fn names, the
gradients of the input, the initial state and every parameter, reprs, parameter names and
state_dict keys; and torch's errors, type and text."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm

TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}
# gradients are sums over time steps and rows, which torch and NumPy add in different orders
GRAD_TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


def err(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - errors are compared
        return ("raised", type(e).__name__, str(e).replace("glassgrad.", "torch."))


def arr(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def flat(result):
    """Tensors of a module's result (output or PackedSequence, hidden or (h, c)) in order."""
    out, hidden = result
    out = out.data if hasattr(out, "batch_sizes") else out
    return [out, *(hidden if isinstance(hidden, tuple) else (hidden,))]


def run_module(make, x, hx=None, pack=None, train=False, dtype="float32", seed=0):
    """make(t) -> module; x: input array; hx: arrays of the initial state; pack: lengths (the
    input is packed with enforce_sorted=False). Everything the run shows, library-neutral."""
    def program(t):
        t.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = make(t)
        if dtype == "float64":
            m = m.double()
        m.train(train)
        inp = t.tensor(x, requires_grad=True)
        h = None if hx is None else tuple(t.tensor(a, requires_grad=True) for a in hx)
        arg = inp if pack is None else t.nn.utils.rnn.pack_padded_sequence(
            inp, pack, enforce_sorted=False)
        t.manual_seed(seed + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = m(arg, None if h is None else (h if len(h) == 2 else h[0]))
        tensors = flat(result)
        sum(((k + 1) * r.sin()).sum() for k, r in enumerate(tensors)).backward()
        facts = {"repr": repr(m), "names": [n for n, _ in m.named_parameters()],
                 "keys": list(m.state_dict()), "init": {n: p.detach() for n, p in
                                                        m.named_parameters()},
                 "results": [r.detach() for r in tensors],
                 "grad_fns": [name(r) for r in tensors],
                 "grads": {n: p.grad for n, p in m.named_parameters()},
                 "input_grad": inp.grad, "h_grads": None if h is None else [a.grad for a in h]}
        if pack is not None:
            out = result[0]
            facts["packed"] = (out.batch_sizes, out.sorted_indices, out.unsorted_indices)
            facts["padded"] = t.nn.utils.rnn.pad_packed_sequence(out)[0].detach()
        return facts
    theirs, mine = norm(program(torch)), norm(program(gg))
    for key in ("repr", "names", "keys", "init", "grad_fns"):
        assert_same(theirs[key], mine[key], key)      # exact: init is bit for bit
    for key in ("results", "padded"):
        assert_same(theirs.get(key), mine.get(key), key, tol=TOL)
    assert_same(theirs, mine, tol=GRAD_TOL)


MODULES = {
    "RNN": lambda t: t.nn.RNN(3, 4),
    "RNN_relu_2layers": lambda t: t.nn.RNN(3, 4, 2, nonlinearity="relu"),
    "RNN_nobias_bidir": lambda t: t.nn.RNN(3, 4, bias=False, bidirectional=True),
    "LSTM": lambda t: t.nn.LSTM(3, 4),
    "LSTM_2layers_bidir": lambda t: t.nn.LSTM(3, 4, num_layers=2, bidirectional=True),
    "LSTM_proj": lambda t: t.nn.LSTM(3, 5, proj_size=2),
    "LSTM_proj_bidir_2layers": lambda t: t.nn.LSTM(3, 5, 2, proj_size=3, bidirectional=True,
                                                   bias=False),
    "GRU": lambda t: t.nn.GRU(3, 4),
    "GRU_3layers_bidir": lambda t: t.nn.GRU(3, 4, 3, bidirectional=True),
}


def _hidden(make, batch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make(torch)
    d = (2 if m.bidirectional else 1) * m.num_layers
    h = [arr(d, batch, m.proj_size or m.hidden_size, seed=3)]
    return tuple(h + [arr(d, batch, m.hidden_size, seed=4)] if m.mode == "LSTM" else h)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("key", MODULES)
def test_module_sequence(key, dtype):
    run_module(MODULES[key], arr(5, 2, 3, dtype=dtype), dtype=dtype)


@pytest.mark.parametrize("key", MODULES)
def test_module_with_initial_state(key):
    run_module(MODULES[key], arr(4, 3, 3), hx=_hidden(MODULES[key], 3))


@pytest.mark.parametrize("key", MODULES)
def test_module_unbatched(key):
    hx = tuple(h[:, 0] for h in _hidden(MODULES[key], 1))
    run_module(MODULES[key], arr(4, 3), hx=hx)
    run_module(MODULES[key], arr(4, 3))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_batch_first(kind):
    make = lambda t: getattr(t.nn, kind)(3, 4, 2, batch_first=True, bidirectional=True)  # noqa
    run_module(make, arr(2, 5, 3))
    run_module(lambda t: getattr(t.nn, kind)(3, 4, batch_first=True), arr(5, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("key", MODULES)
def test_module_packed(key, dtype):
    run_module(MODULES[key], arr(5, 4, 3, dtype=dtype), pack=[2, 5, 1, 3], dtype=dtype)
    run_module(MODULES[key], arr(5, 4, 3, dtype=dtype), pack=[5, 3, 3, 1], dtype=dtype,
               hx=tuple(h.astype(dtype) for h in _hidden(MODULES[key], 4)))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers_draws_torchs_stream(kind):
    make = lambda t: getattr(t.nn, kind)(3, 4, 3, dropout=0.4, bidirectional=True)  # noqa
    run_module(make, arr(5, 2, 3), train=True)
    run_module(make, arr(5, 2, 3), train=True, pack=[3, 5])
    run_module(make, arr(5, 2, 3), train=False)


def test_default_init_and_all_weights():
    for lib in (torch, gg):
        lib.manual_seed(0)
    a, b = torch.nn.LSTM(3, 5, 2, proj_size=2, bidirectional=True), \
        gg.nn.LSTM(3, 5, 2, proj_size=2, bidirectional=True)
    assert [[tuple(w.shape) for w in ws] for ws in a.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in b.all_weights]
    assert_same(norm([w for ws in a.all_weights for w in ws]),
                norm([w for ws in b.all_weights for w in ws]))
    assert a._flat_weights_names == b._flat_weights_names
    assert a.flatten_parameters() is None and b.flatten_parameters() is None


def test_reprs():
    def program(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [repr(m) for m in (
                t.nn.RNN(3, 4, 2, "relu", False, True, 0.5, True), t.nn.RNN(3, 4, dropout=0.5),
                t.nn.LSTM(3, 4, proj_size=2, bias=False), t.nn.GRU(2, 3, batch_first=True),
                t.nn.GRUCell(3, 4, bias=False), t.nn.LSTMCell(3, 4),
                t.nn.RNNCell(3, 4, nonlinearity="relu"),
                t.nn.Sequential(t.nn.LSTM(2, 3), t.nn.Linear(3, 1)))]
    assert program(torch) == program(gg)


CELLS = {
    "RNNCell": lambda t: t.nn.RNNCell(3, 4),
    "RNNCell_relu_nobias": lambda t: t.nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
    "LSTMCell": lambda t: t.nn.LSTMCell(3, 4),
    "GRUCell": lambda t: t.nn.GRUCell(3, 4),
    "GRUCell_nobias": lambda t: t.nn.GRUCell(3, 4, bias=False),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("given", [True, False])
@pytest.mark.parametrize("key", CELLS)
def test_cells(key, batched, given, dtype):
    shape = (2,) if batched else ()

    def program(t):
        t.manual_seed(0)
        cell = CELLS[key](t).to(getattr(t, dtype))
        x = t.tensor(arr(*shape, 3, dtype=dtype), requires_grad=True)
        states = 2 if isinstance(cell, t.nn.LSTMCell) else 1
        hx = [t.tensor(arr(*shape, 4, dtype=dtype, seed=i + 1), requires_grad=True)
              for i in range(states)]
        arg = None if not given else (tuple(hx) if states == 2 else hx[0])
        out = cell(x, arg)
        outs = out if isinstance(out, tuple) else (out,)
        sum(((k + 1) * o.cos()).sum() for k, o in enumerate(outs)).backward()
        return {"repr": repr(cell), "init": [p.detach() for p in cell.parameters()],
                "out": [o.detach() for o in outs], "fn": [name(o) for o in outs],
                "grads": [p.grad for p in cell.parameters()], "x": x.grad,
                "hx": [h.grad for h in hx]}
    theirs, mine = norm(program(torch)), norm(program(gg))
    assert_same(theirs["init"], mine["init"])
    assert_same(theirs["out"], mine["out"], tol=TOL)
    assert_same(theirs, mine, tol=GRAD_TOL)


def _errors(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = t.tensor(arr(5, 2, 3))
        lstm, gru, rnn = t.nn.LSTM(3, 4), t.nn.GRU(3, 4), t.nn.RNN(3, 4)
        z = lambda *s: t.zeros(*s)  # noqa: E731
        return [
            err(lstm, t.tensor(arr(5, 2, 4))), err(gru, t.tensor(arr(5, 2, 4))),
            err(lstm, x, (z(1, 3, 4), z(1, 2, 4))), err(lstm, x, (z(1, 2, 4), z(1, 2, 5))),
            err(lstm, x, z(1, 2, 4)), err(lstm, z(2, 5, 2, 3)), err(gru, z(3)),
            err(rnn, z(2, 5, 2, 3)), err(lstm, z(5, 3), (z(1, 2, 4), z(1, 2, 4))),
            err(lstm, x, (z(2, 4), z(2, 4))), err(gru, x, z(1, 3, 4)), err(gru, x, z(2, 4)),
            err(gru, z(5, 3), z(1, 2, 4)), err(rnn, x, z(2, 1, 2, 4)),
            err(gru, x.double()), err(lstm, x.double()),
            err(rnn, x, z(2, 2, 4)), err(t.nn.LSTM(3, 4, proj_size=2), x, (z(1, 2, 4), z(1, 2, 4))),
            err(t.nn.RNN, 3, 4, nonlinearity="sigmoid"), err(t.nn.RNN, 3, 4, dropout=1.5),
            err(t.nn.RNN, 3, 4, dropout=True), err(t.nn.RNN, 3, 0), err(t.nn.RNN, 3, 4, 0),
            err(t.nn.GRU, 3, 4, proj_size=2), err(t.nn.RNN, 3, 4, proj_size=2),
            err(t.nn.LSTM, 3, 4, proj_size=4), err(t.nn.LSTM, 3, 4, proj_size=-1),
            err(t.nn.RNN, 3, 4.0), err(t.nn.RNN, 3.0, 4), err(t.nn.RNN, 0, 4),
            err(t.nn.LSTM, 3, 4, bias=1), err(t.nn.LSTM, 3, 4, batch_first=None),
            err(t.nn.RNNBase, "FOO", 3, 4), err(t.nn.RNNBase("LSTM", 3, 4), x),
            err(t.nn.LSTMCell(3, 4), z(2, 4)), err(t.nn.LSTMCell(3, 4), z(2, 2, 3)),
            err(t.nn.LSTMCell(3, 4), z(2, 3), (z(3, 4), z(3, 4))),
            err(t.nn.LSTMCell(3, 4), z(2, 3), (z(2, 4), z(2, 5))),
            err(t.nn.LSTMCell(3, 4), z(2, 3), (z(2, 4), z(2, 2, 4))),
            err(t.nn.GRUCell(3, 4), z(2, 4)), err(t.nn.GRUCell(3, 4), z(2, 3), z(3, 4)),
            err(t.nn.GRUCell(3, 4), z(3), z(2, 4)), err(t.nn.GRUCell(3, 4), z(3), z(2, 2, 4)),
            err(t.nn.RNNCell(3, 4, nonlinearity="x"), z(2, 3)),
            err(t.nn.RNNCell(3, 4), z(2, 3, 3)), err(lstm, z(0, 2, 3)), err(gru, z(0, 2, 3)),
            [tuple(h.shape) for h in gru(z(3, 0, 3))], [tuple(h.shape) for h in lstm(z(3, 0, 3))[1]],
        ]


def test_errors_are_torchs():
    assert_same(norm(_errors(torch)), norm(_errors(gg)))


def test_dropout_with_one_layer_warns():
    for t in (torch, gg):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater "
                                             "than 1, but got dropout=0.5 and num_layers=1"):
            t.nn.GRU(3, 4, dropout=0.5)


def test_state_dict_round_trip_and_module_conversions():
    def program(t):
        t.manual_seed(0)
        m = t.nn.GRU(3, 4, 2)
        fresh = t.nn.GRU(3, 4, 2)
        msg = str(fresh.load_state_dict(m.state_dict()))
        fresh.double()
        out = fresh(t.tensor(arr(4, 2, 3, dtype="float64")))
        return msg, fresh.weight_ih_l1.dtype, out[0], fresh._flat_weights[0].dtype
    assert_same(norm(program(torch)), norm(program(gg)))


# -- nn.utils.rnn ----------------------------------------------------------------------------

def _utils(t):
    R = t.nn.utils.rnn
    x = t.tensor(arr(4, 3, 2), requires_grad=True)
    seqs = [t.tensor(arr(2, 3, seed=1), requires_grad=True), t.tensor(arr(4, 3, seed=2)),
            t.tensor(arr(1, 3, seed=3))]
    out = {}

    def packed(p):
        return (p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices, name(p.data),
                type(p).__name__, repr(p).replace(" object at", ""))
    for key, lengths, kw in [("sorted", [4, 2, 1], {}),
                             ("unsorted", [1, 4, 2], {"enforce_sorted": False}),
                             ("tensor_lengths", t.tensor([4, 2, 2]), {}),
                             ("batch_first", [3, 2, 2, 1], {"batch_first": True}),
                             ("bf_unsorted", [1, 2, 3, 2], {"batch_first": True,
                                                            "enforce_sorted": False})]:
        p = R.pack_padded_sequence(x, lengths, **kw)
        out[key] = packed(p)
        padded, lens = R.pad_packed_sequence(p, batch_first=kw.get("batch_first", False),
                                             padding_value=-1.5, total_length=6)
        out[key + "_pad"] = (padded, lens, name(padded))
        (padded.sum() * 2 + p.data.square().sum()).backward()
        out[key + "_grad"] = x.grad
        x.grad = None
    out["pad"] = [(s, name(s)) for s in (
        R.pad_sequence(seqs), R.pad_sequence(seqs, batch_first=True, padding_value=9),
        R.pad_sequence(seqs, padding_side="left"),
        R.pad_sequence(seqs, batch_first=True, padding_side="left"),
        R.pad_sequence(t.tensor(arr(3, 2, 2))))]
    out["pack_sequence"] = packed(R.pack_sequence(seqs, enforce_sorted=False))
    out["unpack"] = [(s, name(s)) for s in R.unpack_sequence(
        R.pack_sequence(seqs, enforce_sorted=False))]
    padded = R.pad_sequence(seqs)
    out["unpad"] = [(s, name(s)) for s in R.unpad_sequence(padded, t.tensor([2, 4, 1]))]
    out["unpad_mutates"] = tuple(padded.shape)
    out["invert"] = R.invert_permutation(t.tensor([2, 0, 3, 1]))
    p = R.PackedSequence(t.tensor(arr(3, 2)), t.tensor([2, 1]))
    out["manual"] = packed(p)
    q = R.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False)
    out["to"] = [packed(q.to(t.float64)), packed(q.double()), q.to(t.float32) is q,
                 packed(q.float()), q.is_cuda]
    out["tuple"] = (len(p), p._fields, p[1], isinstance(p, tuple), p == p,
                    len(q.data.grad_fn.next_functions), q.cpu() is q, q.long().data.dtype)
    out["errors"] = [
        err(R.pack_padded_sequence, x, [1, 4, 2]), err(R.pack_padded_sequence, x, [4, 2]),
        err(R.pack_padded_sequence, x, [4, 2, 0]),
        err(R.pack_padded_sequence, x, t.tensor([[4, 2, 1]])),
        err(R.pack_padded_sequence, x[:, :0], []),
        err(R.pack_padded_sequence, x, [3, 2], batch_first=True),
        err(R.pad_packed_sequence, R.pack_padded_sequence(x, [4, 2, 1]), total_length=2),
        err(R.pad_sequence, seqs, padding_side="middle"), err(R.pad_sequence, 3),
        err(R.pad_sequence, []), err(R.pad_sequence, [t.zeros(2, 3), t.zeros(2, 4)]),
        err(R.pad_sequence, [t.tensor(1.0), t.tensor(2.0)]),
        err(R.pad_sequence, [t.tensor(1.0)], padding_side="x"),
        err(R.pad_sequence, [], padding_side="x"), err(q.to, t.float64, copy=True),
        err(R.pack_sequence, seqs), err(R.PackedSequence, t.zeros(3)),
    ]
    return out


def test_nn_utils_rnn():
    theirs, mine = norm(_utils(torch)), norm(_utils(gg))
    assert_same(theirs, mine)


def test_apply_permutation_is_deprecated():
    def program(t):
        rnn = __import__(t.__name__ + ".nn.modules.rnn", fromlist=["rnn"])
        with pytest.warns(FutureWarning) as record:
            out = rnn.apply_permutation(t.arange(6).view(2, 3), t.tensor([2, 0, 1]))
        return out, [str(w.message) for w in record]
    assert_same(norm(program(torch)), norm(program(gg)))


def test_double_backward():
    def program(t):
        t.manual_seed(0)
        m = t.nn.GRU(3, 4, 2, bidirectional=True).double()
        x = t.tensor(arr(4, 2, 3, dtype="float64"), requires_grad=True)
        out, h = m(x)
        g, = t.autograd.grad(out.sin().sum() + h.cos().sum(), x, create_graph=True)
        return g, t.autograd.grad(g.square().sum(), (x, m.weight_hh_l1_reverse))
    assert_same(norm(program(torch)), norm(program(gg)), tol=TOL)
