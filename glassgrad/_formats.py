"""torch.layout and torch.memory_format: the names programs pass (``layout=torch.strided``,
``memory_format=torch.contiguous_format``). glassgrad's tensors are dense (strided) arrays:
torch.strided is the one layout it has, contiguous_format and preserve_format the memory
formats it honours; the argument layer refuses the others where they are given
(NotImplementedError), never ignoring them."""


class _Named:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):       # pickled by name, as torch's
        return self.name


class layout(_Named):
    __slots__ = ()


class memory_format(_Named):
    __slots__ = ()


strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged, _mkldnn = (
    layout(n) for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                        "sparse_bsc", "jagged", "_mkldnn"))
contiguous_format, preserve_format, channels_last, channels_last_3d, legacy_contiguous_format = (
    memory_format(n) for n in ("contiguous_format", "preserve_format", "channels_last",
                               "channels_last_3d", "legacy_contiguous_format"))
HONOURED = {strided, contiguous_format, preserve_format, legacy_contiguous_format}


def refuse(value, fn, name):
    """NotImplementedError for a layout or memory format glassgrad does not have."""
    raise NotImplementedError(f"{fn}({name}={value!r}): glassgrad's tensors are dense and "
                              f"strided (torch.strided; memory formats contiguous_format and "
                              f"preserve_format)")
