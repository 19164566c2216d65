"""torch.optim: optimizers, learning-rate schedules (lr_scheduler) and weight averaging
(swa_utils), on the public glassgrad API; swap_in_optimizer_params_and_state (_stateless.py)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adaptive import Adadelta, Adagrad, RMSprop  # noqa: F401
from .adam_family import Adamax, NAdam, RAdam  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .sparse_adam import Muon, SparseAdam  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from ._stateless import swap_in_optimizer_params_and_state  # noqa: F401
from . import lr_scheduler, swa_utils  # noqa: F401
