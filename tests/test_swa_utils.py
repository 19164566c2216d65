"""torch.optim.swa_utils against torch: AveragedModel is an nn.Module (repr, state_dict with
n_averaged, named parameters and buffers, the averages after several updates for SWA and EMA,
with and without buffers), update_bn recomputes BatchNorm's running statistics over a
DataLoader, and the errors. Float values within 1e-5 relative: BatchNorm's batch statistics
can differ from torch's in the last bit, and the outputs after them a little more."""
import pytest
import torch

import glassgrad as gg
from differential import assert_same, run

TOL = {"float32": (1e-5, 1e-6)}   # float32 outputs; int64 (n_averaged, num_batches_tracked) exact


def _model(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(12, 5), nn.BatchNorm1d(5))


def _exact(program):
    assert_same(run(program, torch), run(program, gg), tol=TOL)


def _train_a_little(lib, model, opt, x):
    opt.zero_grad()
    model(x).square().mean().backward()
    opt.step()


KINDS = {
    "swa": lambda s: {},
    "ema_avg_fn": lambda s: {"avg_fn": s.get_ema_avg_fn(0.9)},
    "ema_multi": lambda s: {"multi_avg_fn": s.get_ema_multi_avg_fn(0.8)},
    "swa_multi_buffers": lambda s: {"multi_avg_fn": s.get_swa_multi_avg_fn(),
                                    "use_buffers": True},
    "swa_buffers": lambda s: {"use_buffers": True},
}


@pytest.mark.parametrize("kind", KINDS)
def test_averaged_model(kind):
    def program(lib):
        lib.manual_seed(0)
        model = _model(lib)
        averaged = lib.optim.swa_utils.AveragedModel(model, **KINDS[kind](lib.optim.swa_utils))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.randn(6, 1, 4, 4)
        for _ in range(4):
            _train_a_little(lib, model, opt, x)
            averaged.update_parameters(model)
        names = [n for n, _ in averaged.named_parameters()]
        return (isinstance(averaged, lib.nn.Module), repr(averaged), averaged.state_dict(),
                names, [n for n, _ in averaged.named_buffers()], averaged(x),
                averaged.n_averaged)
    _exact(program)


def test_averaged_model_loads_its_state_dict():
    def program(lib):
        lib.manual_seed(1)
        a = lib.optim.swa_utils.AveragedModel(_model(lib))
        a.update_parameters(_model(lib))
        a.update_parameters(_model(lib))
        b = lib.optim.swa_utils.AveragedModel(_model(lib))
        return b.load_state_dict(a.state_dict()), b.n_averaged, b.state_dict()
    _exact(program)


def test_averaged_model_errors():
    def program(lib):
        s = lib.optim.swa_utils
        return s.AveragedModel(lib.nn.Linear(2, 2), avg_fn=s.get_swa_avg_fn(),
                               multi_avg_fn=s.get_swa_multi_avg_fn())
    _exact(program)


@pytest.mark.parametrize("batches", ["tensors", "tuples"])
def test_update_bn(batches):
    """Running statistics as cumulative averages over the loader's batches; momentum and the
    training flag are restored."""
    def program(lib):
        lib.manual_seed(3)
        model = _model(lib)
        x = lib.randn(20, 1, 4, 4) * 3 + 1
        data = (lib.utils.data.TensorDataset(x, lib.zeros(20)) if batches == "tuples" else x)
        loader = lib.utils.data.DataLoader(data, batch_size=6, shuffle=True)
        model[1].momentum = 0.3
        model.eval()
        lib.optim.swa_utils.update_bn(loader, model)
        return (model.state_dict(), model.training, model[1].momentum, model[5].momentum,
                model(x))
    _exact(program)


def test_update_bn_without_batch_norm_is_a_no_op():
    def program(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        lib.optim.swa_utils.update_bn([lib.randn(2, 3)], model)
        return model.state_dict()
    _exact(program)
