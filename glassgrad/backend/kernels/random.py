"""torch's CPU samplers on an ``Engine`` (backend/mt19937.py), bit for bit.

Each function draws what ATen's CPU kernel draws, in the same order, and transforms the words
as it does (aten/src/ATen/core/TransformationHelper.h, DistributionsHelper.h,
native/cpu/DistributionTemplates.h): a flat array for ``n`` elements in the order torch's
iterator visits them; the caller puts them in place.
"""
import ctypes
import ctypes.util
import math

import numpy as np

from ..mt19937 import LGAMMA as _LGAMMA, libm
from . import avx_mathfun
from .fma import fma

_TWO_PI = 2 * math.pi
_F32, _F64, _F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)
_DIGITS = {_F16: 11, _F32: 24, _F64: 53}


def _fraction(eng, n, dtype):
    """uniform_real's x in [0, 1): the low 53 bits of a 64-bit word over 2**53 for double, the
    low 24 bits of a 32-bit word over 2**24 (a float) for float and half."""
    if dtype == _F64:
        return (eng.words64(n) & np.uint64((1 << 53) - 1)).astype(_F64) * 2.0 ** -53
    return (eng.words(n) & np.uint64((1 << 24) - 1)).astype(_F32) * np.float32(2.0 ** -24)


def _complex(draw, halve_std=False):
    """A sampler that fills a complex dtype as ATen does: its real view (2n parts, real and
    imaginary interleaved) drawn as the parts' real dtype (normal: std / sqrt(2))."""
    def sample(eng, n, dtype, *args, **kwargs):
        dtype = np.dtype(dtype)
        if dtype.kind != "c":
            return draw(eng, n, dtype, *args, **kwargs)
        if halve_std:
            kwargs["std"] = (args[1] if len(args) > 1 else kwargs.get("std", 1.0)) / math.sqrt(2)
            args = args[:1]
        return draw(eng, 2 * n, dtype.type(0).real.dtype, *args, **kwargs).view(dtype)
    return sample


def uniform(eng, n, dtype, low=0.0, high=1.0):
    """uniform_real_distribution: fma(x, to - from, from) in float (for half too) or double,
    rounded to the dtype; a result that rounds to ``to`` becomes ``from``."""
    dtype = np.dtype(dtype)
    work = _F64 if dtype == _F64 else _F32
    lo, hi = work.type(low), work.type(high)
    out = fma(_fraction(eng, n, dtype), hi - lo, lo, work).astype(dtype)
    return np.where(out == dtype.type(high), dtype.type(low), out)     # [from, to): to -> from


def cast(values, dtype):
    """C++'s conversion of doubles to the dtype: to half through float (c10::Half)."""
    dtype = np.dtype(dtype)
    if dtype == _F16 and values.dtype == _F64:
        values = values.astype(_F32)
    return values.astype(dtype)


def uniform_double(eng, n):
    return _fraction(eng, n, _F64)


# -- normal ---------------------------------------------------------------------------------
def normal_scalar(eng, n, mean=0.0, std=1.0):
    """n draws of normal_distribution<double>: Box-Muller on two doubles, the sine half cached
    in the engine for the next draw (float64 results)."""
    out = np.empty(n, _F64)
    if n == 0:
        return out
    start = 0
    if eng.normal is not None:
        out[0], eng.normal, start = eng.normal, None, 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = uniform_double(eng, 2 * pairs)
        r = np.sqrt(-2.0 * libm("log1p", -u[1::2]))
        theta = _TWO_PI * u[0::2]
        both = np.stack([r * libm("cos", theta), r * libm("sin", theta)], 1).ravel()
        out[start:] = both[:n - start]
        if (n - start) % 2:
            eng.normal = float(both[-1])
    return fma(out, std, mean, _F64)


def _box_muller_16(u, dtype, mean, std):
    """normal_fill_16 on blocks of 16 uniforms: the first 8 give the radii, the last 8 the
    angles; cosines fill the first half, sines the second."""
    u = u.reshape(-1, 2, 8)
    if dtype == _F64:
        radius = np.sqrt(-2 * libm("log", 1 - u[:, 0]))
        theta = _TWO_PI * u[:, 1]
        cos, sin = libm("cos", theta), libm("sin", theta)
        return fma(np.stack([radius * cos, radius * sin], 1), std, mean, _F64).reshape(-1)
    # float and half (computed as float): the AVX2 kernel, torch's path on x86 with AVX2
    radius = np.sqrt(np.float32(-2) * avx_mathfun.log(np.float32(1) - u[:, 0]))
    sin, cos = avx_mathfun.sincos(np.float32(_TWO_PI) * u[:, 1])
    both = np.stack([radius * cos, radius * sin], 1)
    return fma(both, std, mean, _F32).reshape(-1).astype(dtype)


def normal_fill(eng, n, dtype, mean=0.0, std=1.0):
    """normal_fill (n >= 16, contiguous): n uniforms, Box-Muller in blocks of 16. When n is not
    a multiple of 16 the last 16 elements are redone from 16 more uniforms (float, double) or
    from the n % 16 left over and 16 - n % 16 more (half, computed as float)."""
    dtype = np.dtype(dtype)
    work = _F64 if dtype == _F64 else _F32
    full, rest = n // 16 * 16, n % 16
    u = uniform(eng, n + (16 - rest) % 16 if dtype == _F16 else n, work)
    out = np.empty(n, dtype)
    out[:full] = _box_muller_16(u[:full], dtype, mean, std)
    if rest:
        tail = u[full:] if dtype == _F16 else uniform(eng, 16, work)
        out[n - 16:] = _box_muller_16(tail, dtype, mean, std)
    return out


# -- other continuous distributions ---------------------------------------------------------
def exponential(eng, n, lambd):
    """exponential_distribution<double>: -1 / lambda * log1p(-u)."""
    return -1.0 / lambd * libm("log1p", -uniform_double(eng, n))


def geometric(eng, n, p):
    """geometric_distribution<double>: ceil(log(u) / log(1 - p))."""
    return np.ceil(libm("log", uniform_double(eng, n)) / libm("log", np.float64(1.0 - p)))


def cauchy(eng, n, median, sigma):
    """cauchy_distribution<double>: median + sigma * tan(pi * (u - 0.5))."""
    return fma(sigma, libm("tan", math.pi * (uniform_double(eng, n) - 0.5)), median, _F64)


def log_normal(eng, n, mean, std):
    """lognormal_distribution<double>: exp of normal_distribution<double> (sharing its cache)."""
    return libm("exp", normal_scalar(eng, n, mean, std))


def bernoulli_scalar(eng, n, p):
    """bernoulli_distribution<double>(p): a double uniform below p."""
    return uniform_double(eng, n) < p


def bernoulli_tensor(eng, p):
    """bernoulli with a probability per element: double uniforms against double p, float
    uniforms (24 bits) against any other p (as float)."""
    if p.dtype == _F64:
        return uniform_double(eng, p.size) < p
    return _fraction(eng, p.size, _F32) < p.astype(_F32)


# -- integers -------------------------------------------------------------------------------
def _wide(dtype):
    return dtype in (np.dtype(np.int64), _F64)


def random_bits(eng, n, dtype):
    """uniform_int_distribution (random_() without bounds): 64-bit words for int64 and double,
    else 32-bit; modulo max + 1 for integers, 2**digits + 1 for floating types, bit 0 for bool."""
    dtype = np.dtype(dtype)
    w = eng.words64(n) if _wide(dtype) else eng.words(n)
    if dtype == np.bool_:
        return (w & np.uint64(1)).astype(dtype)
    if dtype.kind == "f":
        return (w % np.uint64((1 << _DIGITS[dtype]) + 1)).astype(dtype)
    return (w % np.uint64(int(np.iinfo(dtype).max) + 1)).astype(dtype)


def random_from_to(eng, n, dtype, span, base):
    """uniform_int_from_to_distribution: (word % span) + base, with 64-bit words when the span
    is 2**32 or more for int64, double and float."""
    dtype = np.dtype(dtype)
    if span >= 1 << 32 and dtype in (np.dtype(np.int64), _F64, _F32):
        w = eng.words64(n)
    else:
        w = eng.words(n)
    v = ((w % np.uint64(span)) + np.uint64(base & ((1 << 64) - 1))).view(np.int64)
    return v.astype(dtype)


def random_full_range(eng, n, dtype):
    """uniform_int_full_range: a 64-bit word as int64."""
    return eng.words64(n).view(np.int64).astype(dtype)


def randperm(eng, n):
    """randperm_cpu: for n below 2**32 / 20, swap position i with i + random() % (n - i) for
    i < n - 1 (vectorised by _swap_chain); above, the inside-out shuffle with random64() %
    (i + 1), a chain of reads run as a loop."""
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    if n < (2 ** 32 - 1) // 20:
        z = (eng.words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        return _swap_chain(np.append(z, 0) + np.arange(n))
    perm = list(range(n))
    for i, k in enumerate((eng.words64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()):
        perm[i] = perm[k]
        perm[k] = i
    return np.array(perm, np.int64)


def _swap_chain(target):
    """The array left by swapping positions i and target[i] (>= i) for i = 0, 1, ... on
    arange(n). Step i fixes position i to what position target[i] holds just before it: its
    own index, unless an earlier step k swapped into it, which left there what position k held
    before step k. Sorting the steps by (target, step) finds those earlier steps; the chains
    of them are followed by pointer jumping."""
    n = len(target)
    steps = np.arange(n)
    order = np.argsort(target * n + steps)
    by_target = target[order]
    same = by_target[1:] == by_target[:-1]
    previous = np.full(n, -1)                   # the step before, into the same position
    previous[order[1:][same]] = order[:-1][same]
    last = order[np.append(~same, True)]        # each target's last step
    into = np.full(n, -1)                       # the last step k < p swapping into p
    into[target[last]] = np.where(last < target[last], last, previous[last])
    held = np.where(into < 0, steps, into)      # what position k holds just before step k
    while True:
        jumped = held[held]
        if np.array_equal(jumped, held):
            break
        held = jumped
    return np.where(previous < 0, target, held[np.maximum(previous, 0)]).astype(np.int64)


def multinomial_with_replacement(eng, rows, n_sample):
    """multinomial_with_replacement_apply: per row, the running sum in the row's dtype (float
    for half), divided by the total, the last set to 1; each sample is a double uniform (the
    rows' samples one row after another) and the first bucket whose cumulative value is not
    below it."""
    work = _F32 if rows.dtype == _F16 else rows.dtype
    cum = np.cumsum(rows.astype(work), axis=1, dtype=work)
    cum = cum / cum[:, -1:]
    cum[:, -1] = 1
    u = uniform_double(eng, rows.shape[0] * n_sample).reshape(rows.shape[0], n_sample)
    return _search_rows(cum.astype(_F64), u)


def _search_rows(cum, u):
    """np.searchsorted(cum[i], u[i], side="left") for every row i at once: one binary search
    run on all the samples together, bit_length(k) halvings of [lo, hi) (one row: NumPy's)."""
    if cum.shape[0] == 1:
        return np.searchsorted(cum[0], u[0], side="left")[None]
    k = cum.shape[1]
    flat, base = cum.ravel(), np.arange(cum.shape[0])[:, None] * k
    lo, hi = np.zeros(u.shape, np.int64), np.full(u.shape, k)
    for _ in range(k.bit_length()):
        mid = (lo + hi) // 2
        active = lo < hi
        below = flat[base + np.minimum(mid, k - 1)] < u
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
    return lo


def poisson(eng, lambdas):
    """sample_poisson, element after element: Knuth's product of uniforms below 10, Hormann's
    transformed rejection from 10, each drawing double uniforms until it accepts.

    Not vectorised over elements, by necessity: torch draws each element's uniforms right
    after the previous element's, and how many an element takes depends on the values drawn
    (when a running product falls below exp(-lambda), when a pair passes the rejection test),
    so where an element's uniforms start in the stream is known only once the element before
    it is done; rounds of masked draws over all elements would interleave the stream. The
    uniforms are drawn in bulk (vectorised) and the loop is over plain Python floats: about
    9 ms per 10,000 elements of rates below 10 (mean 5) and 14 ms above (torch: 0.5-2 ms),
    where running each element on NumPy arrays took 45 and 140 ms."""
    lambdas = lambdas.astype(_F64)
    start = eng.snapshot()
    draw = _uniform_doubles(eng, int(np.minimum(lambdas, 10).sum()) + 3 * len(lambdas) + 64)
    out, used = [], 0
    for lam in lambdas.tolist():
        if lam >= 10:
            k, n = _hormann(draw, lam)
        elif lam == 0:
            k, n = 0, 0
        else:
            k, n = _knuth(draw, lam)
        out.append(k)
        used += n
    eng.restore(start)          # leave the engine right after the uniforms used
    uniform_double(eng, used)
    return np.array(out, _F64)


def binomial(eng, counts, probs):
    """sample_binomial of ATen's CPU, element after element (as poisson: each element's
    uniform doubles follow the previous element's): BTRS (Hormann's transformed rejection)
    where count * min(p, 1 - p) >= 10, else inversion by sums of geometric draws; the arithmetic
    of the dtype's own type where ATen's is (count * prob in float for float32), double
    elsewhere."""
    real = counts.dtype.type
    start = eng.snapshot()
    draw = _uniform_doubles(eng, 4 * len(counts) + 64)
    out, used = [], [0]

    def counted():
        used[0] += 1
        return draw()
    for count, prob in zip(counts.tolist(), probs.tolist()):
        out.append(_binomial_one(counted, real(count), real(prob), real))
    eng.restore(start)          # leave the engine right after the uniforms used
    uniform_double(eng, used[0])
    return np.array(out, counts.dtype)


def _binomial_one(draw, count, prob, real):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return float(count)
    if not prob <= 0.5 and not prob > 0.5:
        return math.nan
    flip = prob > 0.5
    q = real(1.0) - prob if flip else prob
    k = (_btrs(draw, count, q, real) if float(count * q) >= 10.0 else
         _binomial_inversion(draw, count, q, real))
    return float(count - real(k)) if flip else float(k)


def _binomial_inversion(draw, count, prob, real):
    """The number of geometric(prob) draws whose running sum stays within count."""
    logprob = float(libm("log1p", np.array(-prob, real)))
    total, n = 0.0, 0
    while True:
        total += math.ceil(math.log(draw()) / logprob)
        if total > float(count):
            return n
        n += 1


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _btrs(draw, count, prob, real):
    """Hormann's BTRS (1993) as TensorFlow and ATen write it: a pair of uniforms per trial."""
    stddev = float(np.sqrt(count * prob * (real(1) - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (real(1) - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float((count + real(1)) * prob))
    n = float(count)
    while True:
        u = draw() - 0.5
        v = draw()
        us = 0.5 - abs(u)
        k = float(real(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                 + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                 + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(n - m)
                 - _stirling_tail(k) - _stirling_tail(n - k))
        if v <= bound:
            return k


def _uniform_doubles(eng, first):
    """The next double uniforms, one per call, drawn ``first`` at a time and then more."""
    def doubles():
        chunk = first
        while True:
            yield from uniform_double(eng, chunk).tolist()
            chunk = 2 * chunk
    return doubles().__next__


def _knuth(draw, lam):
    """(sample, uniforms used): the count of uniforms whose running product stays above
    exp(-lambda)."""
    enlam, prod, k = math.exp(-lam), 1.0, 0
    while True:
        prod *= draw()
        if prod <= enlam:
            return k, k + 1
        k += 1


def _hormann(draw, lam):
    """(sample, uniforms used): Hormann's PTRS (1993), a pair of uniforms per trial; the log
    test with the C library's log and lgamma."""
    slam, loglam = math.sqrt(lam), math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    used = 0
    while True:
        u, v, used = draw() - 0.5, draw(), used + 2
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            return k, used
        if k < 0 or (us < 0.013 and v > us):
            continue
        if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                <= -lam + k * loglam - _LGAMMA(k + 1.0)):
            return k, used


def normal(eng, n, dtype, mean=0.0, std=1.0, contiguous=True):
    """normal_kernel: normal_fill for 16 or more contiguous elements, else n scalar draws
    (normal_distribution<double>, cast to the dtype)."""
    if n >= 16 and contiguous:
        return normal_fill(eng, n, dtype, mean, std)
    return cast(normal_scalar(eng, n, mean, std), dtype)


uniform, normal = _complex(uniform), _complex(normal, halve_std=True)


def visit_order(array):
    """The axes of ``array`` outermost first, as torch's iterator visits a tensor's memory
    (largest stride first; the identity for a contiguous one)."""
    return sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))


def place(array, flat):
    """An array laid out like ``array`` holding ``flat`` in the order its memory is visited."""
    order = visit_order(array)
    out = np.empty_like(array, flat.dtype)
    out.transpose(order)[...] = flat.reshape([array.shape[d] for d in order])
    return out


def in_visit_order(array, values):
    """``values`` (broadcast to array's shape) flattened in array's visiting order."""
    return np.broadcast_to(values, array.shape).transpose(visit_order(array)).ravel()


# -- gamma (Marsaglia-Tsang) --------------------------------------------------------------------
_THIRD_F = float(np.float32(1) / np.float32(3))     # ATen's 1.0f / 3.0f
_C0331_F = float(np.float32(0.0331))                 # ATen's 0.0331f


class _Scalars:
    """One element's draws for ATen's scalar samplers: uniform_real_distribution<double> and
    normal_distribution<double> (Box-Muller, its sine half cached in the engine) from a
    lookahead of doubles; commit() leaves the engine where torch's would be."""

    def __init__(self, eng):
        self.eng, self.start, self.used = eng, eng.snapshot(), 0
        self.draw, self.cached = _uniform_doubles(eng, 256), eng.normal

    def uniform(self):
        self.used += 1
        return self.draw()

    def normal(self):
        if self.cached is not None:
            out, self.cached = self.cached, None
            return out
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = _TWO_PI * u1
        self.cached = r * math.sin(theta)
        return r * math.cos(theta)

    def commit(self):
        self.eng.restore(self.start)    # leave the engine right after the uniforms used
        uniform_double(self.eng, self.used)
        self.eng.normal = self.cached


def _gamma_one(draw, alpha, single):
    """sample_gamma (aten/src/ATen/native/Distributions.h) for one alpha, in double with
    ATen's float constants; ``single``: alpha is a float, so its own steps round to float."""
    f32 = np.float32
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        exponent = float(f32(1) / f32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1 - draw.uniform(), exponent)
        alpha = float(f32(alpha) + f32(1)) if single else alpha + 1.0
    d = float(f32(alpha) - f32(_THIRD_F)) if single else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = draw.normal()
        y = 1.0 + c * x
        while y <= 0:
            x = draw.normal()
            y = 1.0 + c * x
        v = y * y * y
        u = 1 - draw.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(eng, alphas, dtype):
    """_s_gamma_cpu: the elements one after another in flat order (each takes a data-dependent
    number of draws, so this is a scalar loop), each result cast to the dtype and kept at least
    its smallest normal number."""
    dtype = np.dtype(dtype)
    draw = _Scalars(eng)
    single = dtype != _F64
    out = np.array([_gamma_one(draw, a, single) for a in alphas.astype(_F64).tolist()], _F64)
    draw.commit()
    return np.maximum(out.astype(dtype), np.finfo(dtype).tiny)


def dirichlet(eng, alphas):
    """_s_dirichlet_cpu: double gamma draws of each alpha (kept >= DBL_MIN), each row divided by
    its sum, cast and clamped into [FLT_MIN or DBL_MIN, the float below 1]."""
    dtype = alphas.dtype
    gamma = standard_gamma(eng, alphas.ravel(), _F64).reshape(alphas.shape)
    ratio = (gamma / gamma.sum(-1, keepdims=True)).astype(dtype)
    top = np.nextafter(dtype.type(1), dtype.type(0))
    return np.minimum(top, np.maximum(np.finfo(dtype).tiny, ratio))


# -- the reparameterised gradient of gamma samples -----------------------------------------------
_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)
_GAMMA_GRAD_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089,
     0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113,
     -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07]])
_LIBM_POW = ctypes.CDLL(ctypes.util.find_library("m")).pow
_LIBM_POW.restype, _LIBM_POW.argtypes = ctypes.c_double, [ctypes.c_double] * 2
_POW = np.frompyfunc(_LIBM_POW, 2, 1)
_LIBM_POWF = ctypes.CDLL(ctypes.util.find_library("m")).powf
_LIBM_POWF.restype, _LIBM_POWF.argtypes = ctypes.c_float, [ctypes.c_float] * 2


def _pow(a, b):
    """The C library's pow, elementwise in double (NaN for a negative base's fraction)."""
    return _POW(a, b).astype(_F64)


def _digamma_positive(x):
    """ATen's digamma_one (Cephes) for x >= 0 in x's precision (float or double; the sum is
    kept in double): recurrence up to 10, then the asymptotic series. Results in double."""
    x, result = x.copy(), np.zeros(x.shape, _F64)
    one = x.dtype.type(1)
    for _ in range(10):
        low = x < 10
        result[low] -= (one / x[low]).astype(_F64)
        x[low] += one
    z = 1.0 / (x * x).astype(_F64)
    y = z * np.polyval(_DIGAMMA_A, z)
    y = np.where(x < np.float32(1.0e17), y, 0.0)
    out = (result + libm("log", x).astype(_F64) - (x.dtype.type(0.5) / x).astype(_F64) - y)
    return np.where(x == 10, result + _PSI_10, out)


def standard_gamma_grad(alpha, x):
    """ATen's standard_gamma_grad_one: -(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for gamma
    samples x, in double (a Taylor series for small x, Rice's saddle point expansion for large
    alpha, a bivariate rational approximation otherwise), cast to alpha's dtype."""
    dtype = alpha.dtype
    a, x = np.broadcast_arrays(alpha.astype(_F64), x.astype(_F64))
    a, x = a.copy(), x.copy()
    # Taylor series for x < 0.8
    numer, denom = np.ones_like(x), a.copy()
    series1, series2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = _pow(x, a)
    pdf = _pow(x, a - 1) * libm("exp", -x)
    cdf = pow_x_alpha * series1
    cdf_alpha = (libm("log", x) - _digamma_positive(a)) * cdf - pow_x_alpha * series2
    small = -cdf_alpha / pdf
    small = np.where(np.isnan(small), 0.0, small)
    # Rice saddle point for alpha > 8: near the mode, and away from it
    near = ((1 + 24 * a * (1 + 12 * a))
            * (1440 * (a * a) + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x))
            / (1244160 * (a * a) * (a * a)))
    sq = np.sqrt(8 * a)
    term2 = sq / (a - x)
    term3 = _pow(x - a - a * libm("log", x / a), -1.5)
    term23 = np.where(x < a, term2 - term3, term2 + term3)
    term1 = libm("log", x / a) * term23 - np.sqrt(2 / a) * (a + x) / ((a - x) * (a - x))
    stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
    far = -stirling * (x * term1) / sq
    is_near = (np.float32(0.9) * a <= x) & (x <= np.float32(1.1) * a)
    rice = np.where(is_near, near, far)
    # the rational approximation
    u, v = libm("log", x / a), libm("log", a)
    c = [_GAMMA_GRAD_UV[0, i] + u * (_GAMMA_GRAD_UV[1, i] + u * _GAMMA_GRAD_UV[2, i])
         for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    rational = libm("exp", p / q)
    out = np.where(x < np.float32(0.8), small, np.where(a > 8.0, rice, rational))
    return out.astype(dtype)


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _scalar_pow(a, b):
    """std::pow in the operands' precision (powf for float)."""
    if a.dtype == _F64:
        return _pow(a, b)
    return np.array([_LIBM_POWF(float(u), float(v)) for u, v in zip(a.ravel(), b.ravel())],
                    _F32).reshape(a.shape)


def _beta_grad_alpha_small(x, alpha, beta):
    t = x.dtype.type
    factor = (_digamma_positive(alpha).astype(x.dtype) - _digamma_positive(alpha + beta).astype(
        x.dtype)) - libm("log", x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + t(1) / alpha)
    for i in range(1, 11):
        numer = numer * ((t(i) - beta) * x / t(i))
        denom = alpha + t(i)
        series = series + numer / denom * (factor + t(1) / denom)
    result = x * _scalar_pow(t(1) - x, -beta) * series
    return np.where(np.isnan(result), t(0), result)


def _beta_grad_beta_small(x, alpha, beta):
    t = x.dtype.type
    factor = (_digamma_positive(alpha + beta).astype(x.dtype)
              - _digamma_positive(beta).astype(x.dtype))
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / t(i))
        dbetas = dbetas * (beta - t(i)) + betas
        betas = betas * (beta - t(i))
        series = series + numer / (alpha + t(i)) * (dbetas + factor * betas)
    result = -_scalar_pow(t(1) - x, t(1) - beta) * series
    return np.where(np.isnan(result), t(0), result)


def _beta_grad_alpha_mid(x, alpha, beta):
    """Rice's saddle point expansion, in double."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    bb = beta * beta
    poly = 47 * x * bb * bb + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * bb * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * bb + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * bb
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (np.sqrt(2 * alpha / beta) * _pow(total, np.full_like(total, 1.5))
                         * axbx * axbx)
    term2 = 0.5 * libm("log", alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * libm("log", beta / (total * (1 - x)))
                  + alpha * libm("log", alpha / (total * x)))
    term4 = _pow(term4_base, np.full_like(term4_base, -1.5))
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


def dirichlet_grad(x, alpha, total):
    """ATen's dirichlet_grad_one: -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x)
    for Beta samples x, each branch in ATen's precision (the series in the dtype, the
    expansions in double), cast to the dtype."""
    x, alpha, total = np.broadcast_arrays(x, alpha, total)
    t = x.dtype.type
    beta = total - alpha
    boundary = total * x * (t(1) - x)
    xd, ad, td = x.astype(_F64), alpha.astype(_F64), total.astype(_F64)
    bd = td - ad
    with np.errstate(all="ignore"):
        small = _beta_grad_alpha_small(x, alpha, beta)
        large = -_beta_grad_beta_small(t(1) - x, beta, alpha)
        mid = _beta_grad_alpha_mid(xd, ad, bd)
        u = libm("log", xd)
        a = libm("log", ad) - u
        b = libm("log", td) - a
        p = q = 0.0
        for i, pu in enumerate((1.0, u, u * u)):
            for j, pa in enumerate((1.0, a, a * a)):
                ua = pu * pa
                c0, c1 = _DIRICHLET_C[0, i, j], _DIRICHLET_C[1, i, j]
                p = p + ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
                q = q + ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
        digammas = (_digamma_positive(td.astype(x.dtype)) - _digamma_positive(ad.astype(x.dtype)))
        rational = p / q * (xd * digammas / bd)
    out = np.where((x <= np.float32(0.5)) & (boundary < np.float32(2.5)), small,
                   np.where((x >= np.float32(0.5)) & (boundary < np.float32(0.75)), large,
                            np.where((alpha > 6) & (beta > 6), mid, rational)))
    return out.astype(x.dtype)
