"""Selection and sorting in torch's CPU order, replayed step by step on Python lists.

torch's CPU kernels for sort (unstable), topk, mode and kthvalue run libstdc++'s std::sort
(introsort), std::nth_element (introselect) and TH's quickselect. Equal values come out of
these algorithms in an order that depends on each step, and the gradient goes to the index
chosen, so matching torch's indices on ties (and NaNs) means running the same steps. These
kernels work on Python lists of one row (``array.tolist()``): they run on the host whatever the
backend, and ops/reduce.py calls them only for the rows a vectorized shortcut cannot settle.

Row kernels take a row (a list) and return (values, indices), two lists.
"""


def _median_to_first(a, first, x, y, z, less):
    """libstdc++'s __move_median_to_first: the median of a[x], a[y], a[z] swapped
    into a[first], with its exact sequence of comparisons."""
    if less(a[x], a[y]):
        m = y if less(a[y], a[z]) else z if less(a[x], a[z]) else x
    else:
        m = x if less(a[x], a[z]) else z if less(a[y], a[z]) else y
    a[first], a[m] = a[m], a[first]


def _partition(a, first, last, less):
    """libstdc++'s __unguarded_partition_pivot: median of three to first, then Hoare."""
    _median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, less)
    pivot, lo, hi = a[first], first + 1, last
    while True:
        while less(a[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, a[hi]):
            hi -= 1
        if lo >= hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _insertion_sort(a, first, last, less):
    """libstdc++'s __insertion_sort of a[first:last]: stable, and the last step of both
    std::sort and std::nth_element."""
    for i in range(first + 1, last):
        v, j = a[i], i
        while j > first and less(v, a[j - 1]):
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


def _nth_element(a, nth, less):
    """libstdc++'s std::nth_element (introselect): a[nth] is the element a full sort puts
    there, the rest partitioned around it, ties left where its partitions leave them."""
    first, last = 0, len(a)
    if nth >= last:
        return
    while last - first > 3:
        cut = _partition(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def _std_sort(a, last, less):
    """libstdc++'s std::sort (introsort) of a[:last]: partitions down to runs of 16, then
    one insertion sort; ties end up in its (unstable) order."""
    _introsort_loop(a, 0, last, less)
    _insertion_sort(a, 0, last, less)


def _introsort_loop(a, first, last, less):
    # (a module function: a closure that calls itself is a reference cycle per call)
    while last - first > 16:
        cut = _partition(a, first, last, less)
        _introsort_loop(a, cut, last, less)
        last = cut


def _quick_select(vals, idx, k):
    """TH's quickselect (kthvalue): rearranges vals/idx so position k holds the k-th."""
    def gt(x, y):
        return (x != x and y == y) or x > y

    def swap(i, j):
        vals[i], vals[j] = vals[j], vals[i]
        idx[i], idx[j] = idx[j], idx[i]
    lo, hi = 0, len(vals) - 1
    while hi > lo:
        if hi == lo + 1:
            if gt(vals[lo], vals[hi]):
                swap(lo, hi)
            return
        swap((lo + hi) >> 1, lo + 1)
        if gt(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if gt(vals[lo], vals[hi]):
            swap(lo, hi)
        if gt(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while gt(piv, vals[i]):
                i += 1
            j -= 1
            while gt(vals[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def _isnan(x):
    """NaN test on a Python number (NaN is the only value unequal to itself)."""
    return x != x


def _median_row(row):
    """median along a dim (torch's median(dim)): the first NaN if the row has one,
    else the lower median, with the index a stable sort puts at that rank."""
    nan = next((i for i, v in enumerate(row) if _isnan(v)), None)
    if nan is not None:
        return [row[nan]], [nan]
    i = sorted(range(len(row)), key=row.__getitem__)[(len(row) - 1) // 2]   # stable
    return [row[i]], [i]


def _nanmedian_row(row):
    """nanmedian along a dim: the lower median of the numbers (NaN where there are none), with
    the index a stable sort (NaN last) puts at that rank, as median's."""
    order = sorted(range(len(row)), key=lambda i: (_isnan(row[i]), 0 if _isnan(row[i]) else row[i]))
    i = order[max(sum(not _isnan(v) for v in row) - 1, 0) // 2]
    return [row[i]], [i]


def _mode_row(row):
    """torch's CPU mode of one row: (value, index) pairs put in order by std::sort, the
    longest run of equal values wins (the smallest value on a tie), its index is the run's last."""
    pairs = [(v, i) for i, v in enumerate(row)]
    _std_sort(pairs, len(pairs), lambda x, y: x[0] < y[0])
    best, count, run = None, 0, 0
    for i, (v, j) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or v != pairs[i + 1][0]:
            if run > count:
                best, count = (v, j), run
            run = 0
    return [best[0]], [best[1]]


def _kth_row(row, k):
    """torch's CPU kthvalue of one row: TH's quickselect, NaN above every number."""
    idx = list(range(len(row)))
    _quick_select(row, idx, k - 1)
    return [row[k - 1]], [idx[k - 1]]


def _topk_row(row, k, largest, sorted):
    """torch's CPU topk of one row: std::partial_sort when k * 64 <= n (its order,
    which a NaN-aware stable sort gives here), else std::nth_element, then std::sort of the
    first k - 1 when ``sorted``. NaN counts as the largest value."""
    def less(x, y):
        if largest:
            return (_isnan(x[0]) and not _isnan(y[0])) or x[0] > y[0]
        return (not _isnan(x[0]) and _isnan(y[0])) or x[0] < y[0]
    q = [(v, i) for i, v in enumerate(row)]
    if k == 0:
        return [], []
    if k * 64 <= len(q):        # std::partial_sort (heap based); NaN-aware stable order here
        q.sort(key=lambda p: (not _isnan(p[0]), -p[0]) if largest else (_isnan(p[0]), p[0]))
    else:
        _nth_element(q, k - 1, less)
        if sorted:
            _std_sort(q, k - 1, less)
    return [v for v, _ in q[:k]], [i for _, i in q[:k]]


def _sort_row(row, descending):
    """torch's unstable CPU sort of one row (std::sort): NaN last ascending, first
    descending; ties in introsort's order."""
    def less(x, y):
        if descending:
            return (_isnan(x[0]) and not _isnan(y[0])) or x[0] > y[0]
        return (not _isnan(x[0]) and _isnan(y[0])) or x[0] < y[0]
    q = [(v, i) for i, v in enumerate(row)]
    _std_sort(q, len(q), less)
    return [v for v, _ in q], [i for _, i in q]
