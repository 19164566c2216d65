"""spectral_norm / remove_spectral_norm: the hook-based spectral normalisation, weight /
sigma with sigma from power iteration (u and v drawn from torch's stream at apply)."""
from ..._autograd.grad_mode import no_grad
from ...ops.linalg import pinverse
from .. import functional as F
from ..parameter import Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name, self.dim = name, dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):   # u and v updated in place
                    v.copy_(F.normalize(mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mat.mv(v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = u.dot(mat.mv(v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module,
                                                       do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        v = pinverse(weight_mat.t().mm(weight_mat)).mm(weight_mat.t()).mm(
            u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        from ..parameter import UninitializedParameter
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads a checkpoint from before version 1 (weight and u saved, v not): v solved from
    them."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and all(key + s in state_dict for s in ("_orig", "_u", "_v")) and \
                key not in state_dict:
            return
        missing = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            sigma = (weight_orig / state_dict.pop(key)).mean()
            state_dict[key + "_v"] = fn._solve_v_and_rescale(
                fn.reshape_weight_to_matrix(weight_orig), state_dict[key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Records the spectral norm's version in the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    if dim is None:
        transposed = type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d",
                                               "ConvTranspose3d")
        dim = 1 if transposed else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for table, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for k, hook in table.items():
            hook = getattr(hook, "func", hook)      # the load pre-hook is held in a partial
            if isinstance(hook, kind) and hook.fn.name == name:
                del table[k]
                break
    return module
