"""Timer and Measurement, shaped like PyTorch's torch.utils.benchmark: ``timeit(number)`` and
``blocked_autorange(min_run_time)`` time a Python statement with timeit, under the Timer's
thread setting, and return a Measurement (times per run, median, mean, IQR, the same repr)."""
import math
import textwrap
import timeit as _timeit

from ... import _runtime

_IQR_WARN, _IQR_GROSS_WARN = 0.1, 0.25


def _quantile(ordered, q):
    """torch.quantile's linear interpolation on a sorted list."""
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _unit(t):
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(math.floor(math.log10(t)) // 3, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def _clean(code):
    code = textwrap.dedent(code)
    return (code[1:] if code and code[0] == "\n" else code).rstrip()


class Measurement:
    """The result of a Timer: raw_times (seconds per block of number_per_run runs)."""

    def __init__(self, number_per_run, raw_times, stmt="pass", setup="pass", label=None,
                 sub_label=None, description=None, num_threads=1):
        self.number_per_run, self.raw_times = number_per_run, list(raw_times)
        self.stmt, self.setup, self.label, self.sub_label = stmt, setup, label, sub_label
        self.description, self.num_threads = description, num_threads

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    def _sorted(self):
        return sorted(self.times)

    @property
    def median(self):
        return _quantile(self._sorted(), 0.5)

    @property
    def mean(self):
        return sum(self.times) / len(self.times)

    @property
    def iqr(self):
        ordered = self._sorted()
        return _quantile(ordered, 0.75) - _quantile(ordered, 0.25)

    def meets_confidence(self, threshold=_IQR_WARN):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        sub = self.sub_label
        if self.label is not None:
            return self.label + (f": {sub}" if sub else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {sub}" if sub else "")
        return f"stmt:{f' ({sub})' if sub else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def _summary(self):
        setup = ("" if self.setup in ("pass", "") else
                 f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else
                 f"setup: {self.setup}")
        return "\n".join(f"{s}\n" if "\n" in s else s
                         for s in (self.title, self.description or "", setup) if s)

    def _warnings(self):
        if self.meets_confidence(_IQR_WARN):
            return []
        why = ("This suggests significant environmental influence."
               if not self.meets_confidence(_IQR_GROSS_WARN) else
               "This could indicate system fluctuation.")
        return [f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the "
                f"median measurement.\n           {why}"]

    def __repr__(self):
        ordered, n = self._sorted(), len(self.times)
        unit, scale = _unit(self.median)
        lines = [object.__repr__(self), self._summary(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({_quantile(ordered, 0.25) / scale:.2f} to "
                         f"{_quantile(ordered, 0.75) / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} "
                     f"thread{'s' if self.num_threads > 1 else ''}")
        return "\n".join(lines + self._warnings()).strip()


class Timer:
    """Timer(stmt='pass', setup='pass', globals=None, label=None, sub_label=None,
    description=None, num_threads=1): Python statements only."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,  # noqa: A002
                 num_threads=1, language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in ("python", "py"):
            raise NotImplementedError("torch.utils.benchmark.Timer: glassgrad times Python "
                                      "statements only (no C++)")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                             "this code can simply be moved to `setup`.")
        import glassgrad      # the face, as `torch` in the statement's namespace
        namespace = dict(globals or {})
        namespace.setdefault("torch", glassgrad)
        self._stmt, self._setup = _clean(stmt), _clean(setup)
        self._meta = dict(stmt=self._stmt, setup=self._setup, label=label, sub_label=sub_label,
                          description=description, num_threads=num_threads)
        self._timer = _timeit.Timer(self._stmt, self._setup, timer=timer, globals=namespace)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)

    def _threads(self):
        return _Threads(self._meta["num_threads"])

    def timeit(self, number=1000000):
        with self._threads():
            self._timeit(max(number // 100, 2))     # warm-up
            return Measurement(number, [self._timeit(number)], **self._meta)

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        with self._threads():
            number = self._block_size(min_run_time)
            times, total = [], 0.0
            while total < min_run_time:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
        return Measurement(number, times, **self._meta)

    def _block_size(self, min_run_time):
        """PyTorch's estimate: grow the block tenfold until the timer's overhead is
        negligible (or a block takes min_run_time)."""
        overhead = sorted(self._timeit(0) for _ in range(5))[2]
        number = 1
        while True:
            taken = self._timeit(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or \
                    taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10


class _Threads:
    """Run the block with glassgrad's thread count set to n, then restore it."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = _runtime.get_num_threads()
        _runtime.set_num_threads(self.n)

    def __exit__(self, *exc):
        _runtime.set_num_threads(self.old)
        return False
