"""RNNBase, RNN, LSTM, GRU and the cells RNNCell, LSTMCell, GRUCell.

The layers run as ATen's CPU path does: each layer and direction projects its whole input
once (linear_ih), then steps through time in Python (one step is a few batched ops on the
hidden state: linear_hh, the gates), stacks the steps' outputs, concatenates the directions
and applies dropout between layers. PackedSequence input steps over the packed rows, slicing
the hidden state as sequences end. Autograd comes from the ops. FUNCTIONS: torch's functional
forms of the same (torch.lstm, gru, rnn_tanh, rnn_relu with a flat params list, padded or
packed, and the *_cell functions)."""
import math
import numbers
import warnings

from ... import _creation, dtypes
from ..._args import bind
from ...autograd.function import Function
from ...ops.nn import dropout as _dropout
from ...ops.shape import cat, stack
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def apply_permutation(tensor, permutation, dim=1):
    warnings.warn("`apply_permutation` is deprecated, please use `tensor.index_select(dim, "
                  "permutation)` instead", FutureWarning, stacklevel=2)
    return tensor.index_select(dim, permutation)

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# -- one time step: (input projection of the step, hidden tuple, weights) -> hidden tuple -----

def _simple_step(act):
    def step(x, hidden, w_hh, b_hh, w_hr=None):
        return (act(F.linear(hidden[0], w_hh, b_hh) + x),)
    return step


def _lstm_step(x, hidden, w_hh, b_hh, w_hr=None):
    h, c = hidden
    i, f, g, o = (F.linear(h, w_hh, b_hh) + x).chunk(4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    hy = o.sigmoid() * cy.tanh()
    return (hy if w_hr is None else hy.matmul(w_hr.t()), cy)


def _gru_step(x, hidden, w_hh, b_hh, w_hr=None):
    h = hidden[0]
    x_r, x_z, x_n = x.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = (h_r + x_r).sigmoid(), (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return ((h - n) * z + n,)


_STEPS = {"RNN_TANH": _simple_step(lambda t: t.tanh()),
          "RNN_RELU": _simple_step(lambda t: t.relu()), "LSTM": _lstm_step, "GRU": _gru_step}


# -- one layer in one direction -----------------------------------------------------------

def _full_layer(step, x, hidden, weights, reverse):
    """x: (time, batch, features). Returns the stacked outputs and the last hidden tuple."""
    w_ih, b_ih, rest = weights[0], weights[2], (weights[1], weights[3], weights[4])
    inputs = F.linear(x, w_ih, b_ih).unbind(0)
    if not inputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    outputs = [None] * len(inputs)
    for t in (reversed(range(len(inputs))) if reverse else range(len(inputs))):
        hidden = step(inputs[t], hidden, *rest)
        outputs[t] = hidden[0]
    return stack(outputs, 0), hidden


def _packed_layer(step, data, batch_sizes, hidden, weights, reverse):
    """ATen's PackedLayer / ReversedPackedLayer: the hidden rows of sequences that ended are
    set aside (forward) or joined in from the initial state (reverse) as the batch changes."""
    w_ih, b_ih, rest = weights[0], weights[2], (weights[1], weights[3], weights[4])
    inputs = F.linear(data, w_ih, b_ih)
    starts = [0]
    for size in batch_sizes[:-1]:
        starts.append(starts[-1] + size)
    outputs, done = [], []
    if reverse:
        initial, hidden = hidden, tuple(h[:batch_sizes[-1]] for h in hidden)
        for t in reversed(range(len(batch_sizes))):
            have, need = hidden[0].size(0), batch_sizes[t]
            if need > have:
                hidden = tuple(cat([h, h0[have:need]], 0) for h, h0 in zip(hidden, initial))
            hidden = step(inputs[starts[t]:starts[t] + need], hidden, *rest)
            outputs.append(hidden[0])
        return cat(outputs[::-1], 0), hidden
    for t, size in enumerate(batch_sizes):
        if size < hidden[0].size(0):
            done.append(tuple(h[size:] for h in hidden))
            hidden = tuple(h[:size] for h in hidden)
        hidden = step(inputs[starts[t]:starts[t] + size], hidden, *rest)
        outputs.append(hidden[0])
    done.append(hidden)
    return cat(outputs, 0), tuple(cat(parts, 0) for parts in zip(*done[::-1]))


def _rnn_impl(mode, input, hx, weights, num_layers, dropout, train, bidirectional,
              batch_first, batch_sizes, oned):
    """ATen's _rnn_impl: the layers in turn, dropout between them (training only); weights:
    each layer-direction's (w_ih, w_hh, b_ih, b_hh, w_hr); oned: LSTM layers named as
    torch's oneDNN kernel's."""
    step, directions = _STEPS[mode], 2 if bidirectional else 1
    if batch_sizes is None and batch_first:
        input = input.transpose(0, 1)
    sizes = None if batch_sizes is None else batch_sizes.tolist()
    initial = list(zip(*(h.unbind(0) for h in hx)))
    finals = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            if sizes is None:
                out, last = _full_layer(step, input, initial[index], weights[index], direction)
            else:
                out, last = _packed_layer(step, input, sizes, initial[index], weights[index],
                                          direction)
            if oned:
                out, *last = _MkldnnRnnLayer.apply(out, *last)
            outputs.append(out)
            finals.append(tuple(last))
        input = cat(outputs, -1) if directions == 2 else outputs[0]
        if dropout != 0 and train and layer < num_layers - 1:
            input = _dropout(input, dropout, True)
    if batch_sizes is None and batch_first:     # ATen transposes GRU/RNN results in place
        input = input.transpose(0, 1) if mode == "LSTM" else input.transpose_(0, 1)
    return input, tuple(stack(parts, 0) for parts in zip(*finals))


class _MkldnnRnnLayer(Function):
    """Names the node of an LSTM layer as torch's CPU build does (its oneDNN kernel,
    MkldnnRnnLayerBackward0) over the same values: an identity on (output, h, c)."""

    @staticmethod
    def forward(ctx, output, h, c):
        return output.clone(), h.clone(), c.clone()

    @staticmethod
    def backward(ctx, *grads):
        return grads


_MkldnnRnnLayer._backward_cls.__name__ = "MkldnnRnnLayerBackward0"
_warned_projections = False


class RNNBase(Module):
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.bidirectional, self.proj_size = bidirectional, proj_size
        self._check_arguments(dropout)
        self.dropout = float(dropout)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(directions):
                in_size = input_size if layer == 0 else real_hidden_size * directions
                shapes = {"weight_ih": (gate_size, in_size),
                          "weight_hh": (gate_size, real_hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{name}_l{layer}{suffix}" for name in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(_creation.empty(shape, device=device,
                                                                  dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def _check_arguments(self, dropout):
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and self.num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={self.num_layers}", stacklevel=4)
        for name in ("bias", "batch_first"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} should be of type bool, got: "
                                f"{type(getattr(self, name)).__name__}")
        for name in ("input_size", "hidden_size"):
            if not isinstance(getattr(self, name), int):
                raise TypeError(f"{name} should be of type int, got: "
                                f"{type(getattr(self, name)).__name__}")
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if self.num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if self.proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if self.proj_size >= self.hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    def flatten_parameters(self):
        """A no-op, as torch's is off CUDA: there is no cuDNN weight buffer to compact."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- torch's argument checks ------------------------------------------------------------
    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        return self._hidden_shape(input, batch_sizes, self.proj_size or self.hidden_size)

    def _hidden_shape(self, input, batch_sizes, size):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    # -- the forward shared by RNN, LSTM and GRU ----------------------------------------------
    def _zeros(self, input, batch):
        shape = (self.num_layers * (2 if self.bidirectional else 1), batch)
        return _creation.zeros((*shape, self.hidden_size), dtype=input.dtype)

    def _check_hx_dims(self, hx, batched):
        """RNN and GRU: the hidden state has the input's batching. (LSTM overrides.)"""
        want = 3 if batched else 2
        if hx.dim() != want:
            kind = "batched 3-D" if batched else "unbatched 2-D"
            raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                               f"{hx.dim()}-D tensor")
        return hx if batched else hx.unsqueeze(1)

    def _forward(self, input, hx):
        """RNN, LSTM and GRU's forward (RNNBase itself has none, as torch's)."""
        packed = isinstance(input, PackedSequence)
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            batch = int(batch_sizes[0])
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                kind = " tensor" if self.mode.startswith("RNN") else ""
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                                 f"{input.dim()}D{kind} instead")
            batched, batch_dim = input.dim() == 3, 0 if self.batch_first else 1
            if not batched:
                input = input.unsqueeze(batch_dim)
            batch = input.size(batch_dim)
        if hx is None:
            hx = self._zeros(input, batch)
        else:
            if not packed:
                hx = self._check_hx_dims(hx, batched)
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, hx if self.mode == "LSTM" else (hx,), batch_sizes)
        hidden = hidden if self.mode == "LSTM" else hidden[0]
        if packed:
            output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        elif not batched:
            output = output.squeeze(batch_dim)
            hidden = (tuple(h.squeeze(1) for h in hidden) if self.mode == "LSTM"
                      else hidden.squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)

    def _layer_weights(self, index):
        """Layer-direction ``index``'s (w_ih, w_hh, b_ih, b_hh, w_hr), None where absent."""
        names = self._all_weights[index]
        get = {name.split("_l")[0]: getattr(self, name) for name in names}
        return tuple(get.get(k) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh",
                                          "weight_hr"))

    def _run(self, input, hx, batch_sizes):
        weights = [self._layer_weights(i) for i in range(len(self._all_weights))]
        return _rnn_impl(self.mode, input, hx, weights, self.num_layers, self.dropout,
                         self.training, self.bidirectional, self.batch_first, batch_sizes,
                         self._uses_onednn(input, batch_sizes))

    def _uses_onednn(self, input, batch_sizes):
        return False


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)

    def get_expected_cell_size(self, input, batch_sizes):
        return self._hidden_shape(input, batch_sizes, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def _zeros(self, input, batch):
        shape = (self.num_layers * (2 if self.bidirectional else 1), batch)
        return (_creation.zeros((*shape, self.proj_size or self.hidden_size), dtype=input.dtype),
                _creation.zeros((*shape, self.hidden_size), dtype=input.dtype))

    def _check_hx_dims(self, hx, batched):
        want = 3 if batched else 2
        if hx[0].dim() != want or hx[1].dim() != want:
            kind = "batched 3-D" if batched else "unbatched 2-D"
            raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        return hx if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))

    def _uses_onednn(self, input, batch_sizes):
        """torch's CPU build runs float32 LSTMs through oneDNN (not packed ones, nor ones with
        projections, which it warns about once)."""
        global _warned_projections
        if batch_sizes is not None or input.dtype != dtypes.float32 or input.numel() == 0:
            return False
        if self.proj_size > 0:
            if not _warned_projections:
                _warned_projections = True
                warnings.warn("LSTM with projections is not supported with oneDNN. Using "
                              "default implementation. (Triggered internally at "
                              "/__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)",
                              UserWarning, stacklevel=4)
            return False
        return True


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


# -- cells ----------------------------------------------------------------------------------

def _check_cell(input, hx, hidden_size, input_size):
    """ATen's check_rnn_cell_forward_input / _hidden."""
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{input_size}")
    for label, h in enumerate(hx):
        if input.size(0) != h.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} "
                               f"batch size {h.size(0)}")
        if h.size(1) != hidden_size:
            raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {h.size(1)}, "
                               f"expected {hidden_size}")


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]
    _mode = None

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(_creation.empty((gates, input_size), device=device,
                                                   dtype=dtype))
        self.weight_hh = Parameter(_creation.empty((gates, hidden_size), device=device,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty((gates,), device=device, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty((gates,), device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, input, hx):
        """One step of the cell as ATen's *_cell: the input's projection, then the step."""
        if self._mode is None:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        _check_cell(input, hx, self.weight_hh.size(1), self.weight_ih.size(1))
        x = F.linear(input, self.weight_ih, self.bias_ih)
        return _STEPS[self._mode](x, hx, self.weight_hh, self.bias_hh)

    def _batched(self, input, hx, states):
        """torch's cell forward: 1-D input is a batch of one; hx defaults to zeros."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            for idx, value in enumerate(hx if states == 2 else (hx,)):
                if value.dim() not in (1, 2):
                    what = f"hx[{idx}]" if states == 2 else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _creation.zeros((input.size(0), self.hidden_size), dtype=input.dtype)
            hx = (zeros,) * states
        else:
            hx = tuple(hx) if states == 2 else (hx,)
            if not batched:
                hx = tuple(h.unsqueeze(0) for h in hx)
        result = self._step(input, hx)
        return result if batched else tuple(r.squeeze(0) for r in result)


class RNNCell(RNNCellBase):
    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    @property
    def _mode(self):
        return {"tanh": "RNN_TANH", "relu": "RNN_RELU"}.get(self.nonlinearity)

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._batched(input, hx, 1)[0]


class LSTMCell(RNNCellBase):
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        return self._batched(input, hx, 2)


class GRUCell(RNNCellBase):
    _mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        return self._batched(input, hx, 1)[0]


# -- torch's functional forms: torch.lstm, gru, rnn_tanh, rnn_relu and the *_cell functions ----
def _cell(mode, states):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        hidden = tuple(hx) if states == 2 else (hx,)
        if len(hidden) != states:
            raise RuntimeError("lstm_cell expects two hidden states")
        _check_cell(input, hidden, w_hh.size(1), w_ih.size(1))
        out = _STEPS[mode](F.linear(input, w_ih, b_ih), hidden, w_hh, b_hh)
        return out if states == 2 else out[0]
    return cell


def _layers(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_first, batch_sizes):
    hidden = tuple(hx) if mode == "LSTM" else (hx,)
    proj = mode == "LSTM" and hidden[0].size(2) != hidden[1].size(2)
    oned = (mode == "LSTM" and not proj and batch_sizes is None and
            input.dtype == dtypes.float32 and input.numel() > 0)
    stride = 2 + 2 * has_biases + proj
    if len(params) % stride:
        raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by stride "
                           f"{stride}" if oned else "got an incorrect number of RNN parameters")
    weights = []
    for k in range(0, len(params), stride):
        w = params[k:k + stride]
        biases = (w[2], w[3]) if has_biases else (None, None)
        weights.append((w[0], w[1], *biases, w[-1] if proj else None))
    output, last = _rnn_impl(mode, input, hidden, weights, num_layers, dropout, train,
                             bidirectional, batch_first, batch_sizes, oned)
    return (output, *last)


def _layer_function(mode, name, hx_type):
    """torch.<name>: its two overloads, a padded batch (input, ..., batch_first) and a
    PackedSequence's parts (data, batch_sizes, ...)."""
    def run(input=None, hx=None, params=None, has_biases=None, num_layers=None, dropout=None,
            train=None, bidirectional=None, batch_first=False, data=None, batch_sizes=None):
        return _layers(mode, input if data is None else data, hx, params, has_biases,
                       num_layers, dropout, train, bidirectional, batch_first, batch_sizes)
    run.__name__ = run.__qualname__ = name
    rest = ("TensorList params, bool has_biases, int64_t num_layers, double dropout, "
            "bool train, bool bidirectional")
    return bind(run, [f"{name}(Tensor data, Tensor batch_sizes, {hx_type} hx, {rest})",
                      f"{name}(Tensor input, {hx_type} hx, {rest}, bool batch_first)"])


_CELL_SIGNATURE = ("(Tensor input, {} hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
                   "Tensor? b_hh=None)")
FUNCTIONS = {}      # torch.<name>: the functional forms (glassgrad/__init__.py names them)
for _mode, _name, _hx in (("LSTM", "lstm", "TensorList"), ("GRU", "gru", "Tensor"),
                          ("RNN_TANH", "rnn_tanh", "Tensor"), ("RNN_RELU", "rnn_relu", "Tensor")):
    FUNCTIONS[_name] = _layer_function(_mode, _name, _hx)
    _run_cell = _cell(_mode, 2 if _mode == "LSTM" else 1)
    _run_cell.__name__ = _run_cell.__qualname__ = _name + "_cell"
    FUNCTIONS[_name + "_cell"] = bind(_run_cell, [_name + "_cell" + _CELL_SIGNATURE.format(_hx)])
del _mode, _name, _hx, _run_cell
