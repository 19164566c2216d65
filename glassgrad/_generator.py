"""torch.Generator and the default generator: PyTorch's CPU random stream.

The stream itself (mt19937, its seeding, torch's state bytes) lives in backend/mt19937.py; the
samplers that draw from it in backend/kernels/random.py. ``engine(generator)`` is what ops draw
from (func.vmap swaps the default generator's engine out under randomness='error').
"""
from . import dtypes
from ._args import accept
from ._tensor import Tensor
from .backend.mt19937 import MASK64, STATE_SIZE, Engine, nondeterministic_seed

_DEFAULT_SEED = 67280421310721     # torch's default seed


def _seed_value(seed):
    seed = int(seed)
    if not -(1 << 63) <= seed <= MASK64:
        raise ValueError("Overflow when unpacking long long")
    return seed


_NO_CUDA = ("Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into "
            "two shared libraries: a CPU library and a CUDA library; this error has occurred "
            "because you are trying to use some CUDA functionality, but the CUDA library has not "
            "been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
            "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit "
            "is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will "
            "delete dynamic library dependencies if you don't depend on any of their symbols.  "
            "You can check if this has occurred by using ldd on your binary to see if there is a "
            "dependency on *_cuda.so library.")


class Generator:
    def __init__(self, device="cpu"):
        kind = str(device).split(":", 1)[0]
        if kind != "cpu":       # (torch's CPU build says this of cuda)
            raise RuntimeError(_NO_CUDA if kind == "cuda" else
                               f"glassgrad has CPU generators only; got device {device!r}")
        self._rng = Engine(_DEFAULT_SEED)

    @property
    def device(self):
        return "cpu"

    def manual_seed(self, seed):
        self._rng.reseed(_seed_value(seed))
        return self

    def seed(self):
        s = nondeterministic_seed()
        self._rng.reseed(s)
        return s

    def initial_seed(self):
        return self._rng.seed

    def get_state(self):
        return Tensor._make(self._rng.to_bytes())

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor) or new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                               f"the input RNG state size to be {new_state.numel()}")
        self._rng.from_bytes(new_state._data)
        return self


accept("Generator", Generator, "torch._C.Generator")     # (the argument layer's Generator?)
default_generator = Generator()


def engine(generator):
    """The engine a sampler draws from: the generator's, or the default one's."""
    return (generator or default_generator)._rng


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def initial_seed():
    return default_generator.initial_seed()


def seed():
    return default_generator.seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
