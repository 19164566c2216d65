"""torch.save / torch.load, storages, pickle and copy, differentially against torch 2.13.

Files go both ways: what glassgrad writes, torch reads, and the reverse; each reader's result is
compared (dtype, shape, strides, storage offset, values, requires_grad, is_leaf, which tensors
share a storage) with what torch reads from torch's own file.
"""
import collections
import copy
import io
import os
import pathlib
import pickle
import struct
import warnings
import zipfile

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import LIBS, Raised, catch, norm, same

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


class Config:
    """A user class for the allowlist tests (module level, so that pickle can name it)."""

    def __init__(self, lr, name):
        self.lr, self.name = lr, name

    def __eq__(self, other):
        return type(other) is Config and vars(self) == vars(other)


class Marker:
    """A malicious object: unpickling it writes a file (through pathlib, not a blocked module)."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (pathlib.Path(self.path).write_text, ("pwned",))


class Blocked:
    """A malicious object naming os (torch blocks the module outright)."""

    def __reduce__(self):
        return (os.getcwd, ())


class GSub(gg.Tensor):
    """A tensor subclass (glassgrad)."""


class TSub(torch.Tensor):
    """The same subclass in torch (a name of the same length, to compare the pickles)."""


@pytest.fixture(autouse=True)
def _clean_safe_globals():
    yield
    for lib in LIBS:
        lib.serialization.clear_safe_globals()


# -- what a loaded object looks like ------------------------------------------------------------
def describe(obj):
    """obj as plain data: tensors with their layout, and storages numbered in order of first
    appearance (tensors that share memory share a number)."""
    storages = {}

    def walk(x):
        if isinstance(x, (torch.Tensor, gg.Tensor)):
            s = x.untyped_storage()
            group = storages.setdefault(s.data_ptr(), len(storages)) if s.nbytes() else None
            return ("T", str(x.dtype), tuple(x.shape), tuple(x.stride()), x.storage_offset(),
                    s.nbytes(), group, x.requires_grad, x.is_leaf, norm(x.detach())[3].tolist())
        if isinstance(x, (torch.dtype, gg.dtype, torch.Size, gg.Size)):
            return (type(x).__name__, repr(x))
        if isinstance(x, dict):
            return (type(x).__name__, [(k, walk(v)) for k, v in x.items()])
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, [walk(v) for v in x])
        return x

    return walk(obj)


def values_for(dtype):
    if dtype == "bool":
        return [[True, False, True], [False, False, True]]
    if dtype == "uint8":
        return [[0, 1, 255], [7, 128, 3]]
    if dtype.startswith("int"):
        return [[-1, 2, -3], [4, 100, -6]]
    return [[0.5, -1.25, 3.0], [1e-3, 65504.0 if dtype == "float16" else 1e30, -0.0]]


def build(lib):
    """Everything the format must carry, made in lib."""
    base = lib.arange(12.0).reshape(3, 4)
    leaf = lib.ones(3, requires_grad=True)
    obj = {f"every_{d}": lib.tensor(values_for(d), dtype=getattr(lib, d)) for d in DTYPES}
    obj.update({
        "scalar": lib.tensor(3.5), "int_scalar": lib.tensor(-7), "empty": lib.zeros(0, 3),
        "empty_int": lib.ones(2, 0, dtype=lib.int32),
        "base": base, "t": base.t(), "cols": base[:, ::2], "rows": base[1:],
        "row": base[2], "expanded": lib.tensor([1.0, 2.0]).expand(3, 2),
        "leaf": leaf, "nonleaf": leaf * 2,
        "state_dict": collections.OrderedDict([("fc.weight", lib.full((2, 3), 0.5)),
                                               ("fc.bias", lib.zeros(2))]),
        "optimizer": {"state": {0: {"step": 3, "exp_avg": lib.ones(2, 3) / 3,
                                    "exp_avg_sq": lib.zeros(2, 3, dtype=lib.float64)}},
                      "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8,
                                        "weight_decay": 0, "amsgrad": False, "foreach": None,
                                        "params": [0, 1], "name": "group ü"}]},
        "size": base.shape, "dtype": lib.float16, "big": 2 ** 70, "neg": -5, "set": {1, 2},
    })
    return obj


# -- files both ways ----------------------------------------------------------------------------
WRITERS = {"torch": torch, "glassgrad": gg}


@pytest.fixture(scope="module")
def expected():
    buf = io.BytesIO()
    torch.save(build(torch), buf)
    buf.seek(0)
    return describe(torch.load(buf))


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("reader", WRITERS)
def test_files_both_ways(writer, reader, expected, tmp_path):
    path = tmp_path / "model.pt"
    WRITERS[writer].save(build(WRITERS[writer]), str(path))
    assert describe(WRITERS[reader].load(str(path))) == expected


@pytest.mark.parametrize("form", ["str", "pathlib", "file", "bytesio"])
@pytest.mark.parametrize("writer", WRITERS)
def test_file_forms(writer, form, tmp_path):
    """Paths (str, pathlib), open files and BytesIO, read by the other library."""
    reader = gg if writer == "torch" else torch
    path = tmp_path / "x.pt"
    obj = {"w": WRITERS[writer].arange(6.0).reshape(2, 3).t(), "n": [1, "a"]}
    if form in ("str", "pathlib"):
        target = str(path) if form == "str" else path
        WRITERS[writer].save(obj, target)
        loaded = reader.load(target)
    elif form == "file":
        with open(path, "wb") as f:
            WRITERS[writer].save(obj, f)
        with open(path, "rb") as f:
            loaded = reader.load(f)
    else:
        buf = io.BytesIO()
        WRITERS[writer].save(obj, buf)
        buf.seek(0)
        loaded = reader.load(buf)
    assert describe(loaded) == describe({"w": torch.arange(6.0).reshape(2, 3).t(), "n": [1, "a"]})


def archive(lib, obj, path=None):
    buf = io.BytesIO() if path is None else path
    lib.save(obj, buf)
    return zipfile.ZipFile(buf)


@pytest.mark.parametrize("target", ["path", "buffer"])
def test_archive_layout_is_torchs(target, tmp_path):
    """Same records in the same order under the same folder, the same pickle bytes, every
    record stored uncompressed and its bytes 64-byte aligned."""
    obj = {"a": torch.arange(4.0)}
    files = {}
    for lib in LIBS:
        path = tmp_path / f"{lib.__name__}" / "weights.v2.pt"
        path.parent.mkdir()
        z = archive(lib, {"a": lib.arange(4.0), "b": lib.tensor([1, 2], dtype=lib.int8)},
                    path if target == "path" else None)
        fp = z.fp
        offsets = []
        for info in z.infolist():
            fp.seek(info.header_offset + 26)
            n, m = struct.unpack("<HH", fp.read(4))
            offsets.append((info.header_offset + 30 + n + m) % 64)
        files[lib] = ([i.filename for i in z.infolist()], [i.compress_type for i in z.infolist()],
                      offsets, z.read(z.namelist()[0]),
                      {n.split("/", 1)[1]: z.read(n) for n in z.namelist()
                       if "serialization_id" not in n})
        serial = z.read(z.namelist()[0].split("/")[0] + "/.data/serialization_id")
        assert len(serial) == 40 and serial.isdigit()
    assert files[gg] == files[torch]
    del obj


def test_sharing_survives_and_writes_show_through(tmp_path):
    """Tensors viewing one storage load viewing one storage: writing into one changes the
    other, in both readers, whoever wrote the file."""
    def program(lib, writer):
        path = tmp_path / f"share_{writer.__name__}_{lib.__name__}.pt"
        base = writer.arange(6.0)
        writer.save([base[1:4], base.view(2, 3), base[::2]], str(path))
        a, b, c = lib.load(str(path))
        a.mul_(10)
        b[1, 2] = -1.0
        return [a, b, c, a.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()]

    for writer in LIBS:
        same(lambda lib: program(lib, writer))


def test_parameter_from_torch(tmp_path):
    """torch's nn.Parameter (and a module's state dict) load as glassgrad.nn.Parameter."""
    path = tmp_path / "p.pt"
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    torch.save({"p": layer.weight, "frozen": frozen, "sd": layer.state_dict()}, path)
    expected = torch.load(path)
    got = gg.load(path)
    assert describe(got) == describe(expected)
    assert isinstance(got["p"], gg.nn.Parameter) and isinstance(got["frozen"], gg.nn.Parameter)
    assert not got["frozen"].requires_grad


def test_parameter_to_torch(tmp_path):
    """glassgrad's Parameters (a module's, a frozen one) load in torch as torch's Parameters,
    and a state dict saved by glassgrad loads into torch's module."""
    path = tmp_path / "p.pt"
    gg.manual_seed(0)
    layer = gg.nn.Linear(3, 2)
    frozen = gg.nn.Parameter(gg.ones(2), requires_grad=False)
    gg.save({"p": layer.weight, "frozen": frozen, "sd": layer.state_dict()}, path)
    got = torch.load(path)
    assert isinstance(got["p"], torch.nn.Parameter) and got["p"].requires_grad
    assert isinstance(got["frozen"], torch.nn.Parameter) and not got["frozen"].requires_grad
    module = torch.nn.Linear(3, 2)
    module.load_state_dict(got["sd"])
    np.testing.assert_array_equal(module.weight.detach().numpy(), layer.weight.detach().numpy())


def test_tensor_subclass(tmp_path):
    """A subclass with Python attributes pickles as torch's _rebuild_from_type_v2 (the class by
    name, its attributes as state); weights_only loading needs the class allowlisted."""
    made = {torch: torch.tensor([1.0, 2.0]).as_subclass(TSub),
            gg: GSub._make(gg.tensor([1.0, 2.0])._data)}    # glassgrad has no as_subclass yet
    pickles, refusals = {}, {}
    for lib, t in made.items():
        t.note = "hi"
        path = tmp_path / f"sub_{lib.__name__}.pt"
        lib.save(t, path)
        pickles[lib] = zipfile.ZipFile(path).read(f"sub_{lib.__name__}/data.pkl")
        refusals[lib] = refusal(lib, path)
        cls = type(t)
        with lib.serialization.safe_globals([cls]):
            back = lib.load(path)
        assert type(back) is cls and back.note == "hi" and back.tolist() == [1.0, 2.0]
    assert pickles[gg].replace(b"GSub", b"TSub") == pickles[torch]
    assert refusals[gg][0] is refusals[torch][0] is pickle.UnpicklingError
    assert refusals[gg][1].replace("GSub", "TSub") == refusals[torch][1]


@pytest.mark.parametrize("dtype", ["complex32", "uint16"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_dtypes_glassgrad_lacks(dtype, weights_only):
    """torch's other dtypes: a NotImplementedError naming what is missing, not a refusal."""
    buf = io.BytesIO()
    torch.save({"x": torch.ones(2, dtype=getattr(torch, dtype))}, buf)
    buf.seek(0)
    with pytest.raises(NotImplementedError, match="glassgrad has no such dtype"):
        gg.load(buf, weights_only=weights_only)


def test_untyped_storage_saved_directly():
    files = {}
    for lib in LIBS:
        files[lib] = io.BytesIO()
        lib.save([lib.arange(3, dtype=lib.int16).untyped_storage()], files[lib])
    pickles = [zipfile.ZipFile(f).read("archive/data.pkl") for f in files.values()]
    assert pickles[0] == pickles[1]
    for f in files.values():
        f.seek(0)
        assert gg.load(f)[0].tolist() == [0, 0, 1, 0, 2, 0]


# -- weights_only -------------------------------------------------------------------------------
def refusal(lib, path, **kwargs):
    try:
        lib.load(path, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error is the result
        return type(e), str(e)
    return None


@pytest.mark.parametrize("writer", WRITERS)
def test_malicious_file_never_runs(writer, tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pt"
    WRITERS[writer].save({"w": WRITERS[writer].ones(2), "x": Marker(str(marker))}, path)
    theirs = refusal(torch, path)
    ours = refusal(gg, path)
    assert not marker.exists()
    assert theirs[0] is pickle.UnpicklingError
    assert ours == theirs
    gg.load(path, weights_only=False)      # the file does run code when allowed to
    assert marker.read_text() == "pwned"


def test_blocked_module_and_protocol_4(tmp_path):
    for name, obj, kwargs in (("blocked", Blocked(), {}), ("proto4", [1], {"pickle_protocol": 4})):
        files = {}
        for lib in LIBS:
            files[lib] = tmp_path / f"{name}_{lib.__name__}.pt"
            lib.save({"x": obj}, files[lib], **kwargs)
        for path in files.values():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                theirs = refusal(torch, path)
                ours = refusal(gg, path)
            texts = [str(w.message) for w in caught]
            assert theirs[0] is pickle.UnpicklingError and ours == theirs
            assert len(texts) == 2 * (name == "proto4") and texts[0::2] == texts[1::2]


def test_safe_globals(tmp_path):
    path = tmp_path / "config.pt"
    gg.save({"cfg": Config(0.1, "adam"), "w": gg.ones(1)}, path)

    def program(lib):
        refused = refusal(lib, path)
        with lib.serialization.safe_globals([Config]):
            inside = lib.load(path)["cfg"]
            listed = lib.serialization.get_safe_globals()
        after = refusal(lib, path)
        lib.serialization.add_safe_globals([(Config, f"{Config.__module__}.Config")])
        added = lib.load(path)["cfg"]
        lib.serialization.clear_safe_globals()
        return [refused, inside == Config(0.1, "adam"), listed, after, added == inside,
                lib.serialization.get_safe_globals()]

    theirs, ours = program(torch), program(gg)
    assert theirs[0][0] is pickle.UnpicklingError
    assert ours == theirs


def test_unsafe_globals_in_checkpoint(tmp_path):
    path = tmp_path / "mixed.pt"
    torch.save({"cfg": Config(0.5, "x"), "evil": Marker("nowhere"), "t": torch.ones(2),
                "od": collections.OrderedDict(), "dtype": torch.float16}, path)

    def program(lib):
        found = sorted(lib.serialization.get_unsafe_globals_in_checkpoint(path))
        with lib.serialization.safe_globals([Config]):
            allowed = sorted(lib.serialization.get_unsafe_globals_in_checkpoint(str(path)))
        return [found, allowed, catch(lib.serialization.get_unsafe_globals_in_checkpoint,
                                      io.BytesIO(b"no zip"))]
    assert same(program)[1][0][1]      # something is unsafe


def test_weights_only_false_and_pickle_module(tmp_path):
    path = tmp_path / "any.pt"
    torch.save({"cfg": Config(1.0, "x"), "t": torch.arange(3)}, path)
    assert gg.load(path, weights_only=False)["cfg"] == Config(1.0, "x")
    assert gg.load(path, pickle_module=pickle)["cfg"] == Config(1.0, "x")   # as torch: not
    assert torch.load(path, pickle_module=pickle)["cfg"] == Config(1.0, "x")   # weights only
    assert refusal(gg, path, weights_only=True, pickle_module=pickle) == \
        refusal(torch, path, weights_only=True, pickle_module=pickle)


def test_zip_that_is_not_a_checkpoint():
    for names in (["foo.txt"], ["a/version"]):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for name in names:
                z.writestr(name, "3\n")
        same(lambda lib: catch(lambda: lib.load(io.BytesIO(buf.getvalue()))))


def test_save_to_something_else():
    same(lambda lib: catch(lib.save, lib.ones(1), 5))


def test_out_of_bounds_tensor_refused(tmp_path):
    """A file whose tensor reaches past its storage: torch grows the storage (reading
    memory nobody wrote); glassgrad refuses with torch's out-of-bounds text."""
    path = tmp_path / "oob.pt"
    torch.save(torch.arange(4.0), path)
    data = zipfile.ZipFile(path).read("oob/data.pkl")
    # the pickle's size tuple (4,) -> (5,): BININT1 4 then TUPLE1, twice (size, stride)
    patched = data.replace(b"K\x04\x85", b"K\x05\x85", 1)
    assert patched != data
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp_path / "bad.pt", "w") as dst:
        for info in src.infolist():
            dst.writestr(info, patched if info.filename.endswith("data.pkl") else
                         src.read(info))
    with pytest.raises(RuntimeError) as theirs:
        torch.empty(4).as_strided((5,), (1,))
    with pytest.raises(RuntimeError) as ours:
        gg.load(tmp_path / "bad.pt")
    assert str(ours.value) == str(theirs.value)


# -- map_location, mmap, byte order --------------------------------------------------------------
class DeviceLike:
    """Stands for torch.device('cpu') in glassgrad (which has no torch.device yet)."""

    def __str__(self):
        return "cpu"


@pytest.mark.parametrize("form", ["none", "cpu", "device", "function", "function_none", "dict",
                                  "dict_other", "cuda", "cuda_dict", "cpu:0", "unknown"])
def test_map_location(form, tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"a": torch.arange(3.0), "b": torch.ones(2, dtype=torch.int16)}, path)
    seen = {torch: [], gg: []}

    def location(lib):
        def keep(storage, loc):
            seen[lib].append((loc, type(storage).__name__, storage.nbytes()))
            return storage

        def ignore(storage, loc):
            seen[lib].append(loc)
        return {"none": None, "cpu": "cpu",
                "device": torch.device("cpu") if lib is torch else DeviceLike(),
                "function": keep, "function_none": ignore, "dict": {"cpu": "cpu"},
                "dict_other": {"cuda:0": "cpu"}, "cuda": "cuda", "cuda_dict": {"cpu": "cuda:1"},
                "cpu:0": "cpu:0", "unknown": "npu"}[form]

    same(lambda lib: catch(lambda: lib.load(path, map_location=location(lib))))
    assert seen[gg] == seen[torch]


@pytest.mark.parametrize("writer", WRITERS)
def test_mmap(writer, tmp_path):
    path = tmp_path / "big.pt"
    WRITERS[writer].save({"a": WRITERS[writer].arange(64.0).reshape(8, 8)[:, 1::2],
                          "b": WRITERS[writer].arange(10, dtype=WRITERS[writer].int16)}, path)

    def program(lib):
        loaded = lib.load(path, mmap=True)
        loaded["b"].add_(1)             # private mapping: the file keeps its bytes
        again = lib.load(path, mmap=True)
        return [loaded, again, catch(lambda: lib.load(io.BytesIO(path.read_bytes()), mmap=True))]

    same(program)
    # glassgrad's tensors lie in the mapping itself, not a copy
    a = gg.load(path, mmap=True)["a"]
    chain, obj = [], a._data
    while obj is not None:
        chain.append(type(obj))
        obj = getattr(obj, "base", None)
    assert np.memmap in chain


def test_mmap_refuses_legacy_files(tmp_path):
    path = tmp_path / "legacy.pt"
    torch.save(torch.ones(2), path, _use_new_zipfile_serialization=False)
    assert refusal(gg, str(path), mmap=True) == refusal(torch, str(path), mmap=True)


@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_files(weights_only, tmp_path):
    """torch's pre-1.6 stream format (_use_new_zipfile_serialization=False) loads as torch
    loads it: layout, sharing, requires_grad; from a path and from a buffer."""
    path = tmp_path / "legacy.pt"
    torch.save(build(torch), path, _use_new_zipfile_serialization=False)
    expected = describe(torch.load(path, weights_only=weights_only))
    assert describe(gg.load(path, weights_only=weights_only)) == expected
    buf = io.BytesIO(path.read_bytes())
    assert describe(gg.load(buf, weights_only=weights_only)) == expected


def test_legacy_malicious_and_garbage(tmp_path):
    marker = tmp_path / "marker"
    evil = tmp_path / "evil.pt"
    torch.save([Marker(str(marker))], evil, _use_new_zipfile_serialization=False)
    assert refusal(gg, evil) == refusal(torch, evil)
    assert not marker.exists()
    same(lambda lib: catch(lib.load, io.BytesIO(b"not a checkpoint")))


def test_big_endian_file(tmp_path):
    """A file marked big-endian (as a big-endian machine writes it) loads byte-swapped."""
    path = tmp_path / "le.pt"
    torch.save({"a": torch.tensor([1.5, -2.0]), "b": torch.tensor([1, 258], dtype=torch.int16),
                "c": torch.tensor([3], dtype=torch.uint8)}, path)
    swap = {"0": 4, "1": 2, "2": 1}
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp_path / "be.pt", "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            name = info.filename.split("/", 1)[1]
            if name == "byteorder":
                data = b"big"
            elif name.startswith("data/"):
                width = swap[name[5:]]
                data = np.frombuffer(data, f"u{width}").byteswap().tobytes()
            dst.writestr(info, data)
    same(lambda lib: lib.load(tmp_path / "be.pt"))


# -- storages -----------------------------------------------------------------------------------
def test_storage_facts():
    def program(lib):
        base = lib.arange(12.0).reshape(3, 4)
        views = [base, base[1:], base[:, 2], base.t(), base[2, 1:3], base.expand(2, 3, 4)]
        s = base.untyped_storage()
        return [[v.storage_offset() for v in views],
                [v.data_ptr() - base.data_ptr() for v in views],
                [v.untyped_storage().data_ptr() == s.data_ptr() for v in views],
                [v.untyped_storage().nbytes() for v in views],
                s.size(), len(s), s.element_size(), s.tolist()[:8],
                v.untyped_storage() is s,
                lib.empty(0).data_ptr(), lib.empty(0).untyped_storage().data_ptr(),
                lib.ones(3).data_ptr() == lib.ones(3).data_ptr(),
                lib.tensor([1, 2], dtype=lib.int16).untyped_storage().tolist(),
                repr(lib.tensor([1, 2], dtype=lib.uint8).untyped_storage()),
                repr(lib.empty(0).untyped_storage()),
                [catch(lambda: s[i]) for i in (0, 5, -1, -49, 48)]]
    same(program)


VIEWS = {
    "diagonal": lambda b: b.diagonal(), "narrow": lambda b: b.narrow(1, 1, 2),
    "select": lambda b: b.select(1, 3), "split": lambda b: b.split(2, dim=1)[1],
    "chunk": lambda b: b.chunk(3, 0)[2], "unbind": lambda b: b.unbind(1)[2],
    "permute": lambda b: b.unsqueeze(0).permute(2, 0, 1), "squeeze": lambda b: b[1:2].squeeze(0),
    "view": lambda b: b.view(4, 3)[1:], "flatten": lambda b: b.flatten()[5:],
    "movedim": lambda b: b.movedim(0, 1), "view_of_view": lambda b: b[1:].t()[1:, :1],
    "detach": lambda b: b[1:].detach(), "reshape": lambda b: b.reshape(2, 6),
    "contiguous_copy": lambda b: b.t().contiguous(),
}


@pytest.mark.parametrize("view", VIEWS)
def test_storage_of_views(view, tmp_path):
    """Each view's offset, strides, storage and sharing, and the same after a file round trip
    through the other library."""
    def program(lib):
        base = lib.arange(12.0).reshape(3, 4)
        v = VIEWS[view](base)
        path = tmp_path / f"{view}_{lib.__name__}.pt"
        lib.save([base, v], path)
        other = gg if lib is torch else torch
        shared = v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        return [describe([base, v]), shared and v.data_ptr() - base.data_ptr(),
                describe(other.load(path))]
    same(program)


def test_hooks_are_not_saved_and_say_so():
    def hook(grad):
        return grad * 2

    def program(lib):
        leaf = lib.ones(2, requires_grad=True)
        nonleaf = leaf * 3
        leaf.register_hook(hook)
        nonleaf.register_hook(hook)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.save([leaf, nonleaf], io.BytesIO())
            pickle.dumps(leaf)
            copy.copy(nonleaf)
        return [(w.category.__name__, str(w.message)) for w in caught]
    assert len(same(program)[1]) == 4


# -- pickle, copy, deepcopy -----------------------------------------------------------------------
def layout(t):
    return [str(t.dtype), tuple(t.shape), tuple(t.stride()), t.storage_offset(),
            t.requires_grad, t.is_leaf, t.grad, t.detach().tolist()]


def test_pickle_round_trip():
    def program(lib):
        base = lib.arange(12.0).reshape(3, 4)
        leaf = lib.ones(3, requires_grad=True)
        leaf.grad = lib.full((3,), 2.0)
        items = [base.t(), base[1:, ::2], lib.tensor(5, dtype=lib.int8), lib.zeros(0, 3),
                 lib.tensor([True]), leaf, leaf * 2]
        items += [lib.tensor(values_for(d), dtype=getattr(lib, d)) for d in DTYPES]
        back = pickle.loads(pickle.dumps(items))
        shared = pickle.loads(pickle.dumps([base, base.t()]))
        return [[layout(t) for t in back], [t.untyped_storage().nbytes() for t in back],
                shared[0].data_ptr() == shared[1].data_ptr()]
    same(program)


def test_copy_shares_memory():
    def program(lib):
        base = lib.arange(6.0).reshape(2, 3)
        leaf = lib.ones(3, requires_grad=True)
        leaf.grad = lib.ones(3)
        c, v, g, n = (copy.copy(base), copy.copy(base.t()), copy.copy(leaf),
                      copy.copy(leaf * 2))
        c[0, 0] = 100.0
        return [layout(c), layout(v), layout(g), layout(n), base, c.data_ptr() == base.data_ptr()]
    same(program)


def test_deepcopy():
    def program(lib):
        base = lib.arange(6.0).reshape(2, 3)
        leaf = lib.ones(3, requires_grad=True)
        leaf.grad = lib.full((3,), 2.0)
        a, t, g = copy.deepcopy([base, base.t(), leaf])
        a[0, 1] = -1.0
        again = copy.deepcopy(base)
        return [layout(a), layout(t), t, base, layout(g), g.grad, g.grad is leaf.grad,
                a.data_ptr() == t.data_ptr(), a.data_ptr() == base.data_ptr(),
                again.data_ptr() == a.data_ptr(), catch(copy.deepcopy, leaf * 2),
                catch(copy.deepcopy, base.t() if False else leaf[1:])]
    same(program)


def test_deepcopy_error_text_is_torchs():
    for lib in LIBS:
        with pytest.raises(RuntimeError) as info:
            copy.deepcopy(lib.ones(2, requires_grad=True) * 2)
        if lib is torch:
            expected = str(info.value)
    assert str(info.value) == expected
