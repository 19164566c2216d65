"""PyTorch's own argument-parser signatures, for declaring glassgrad's (dev tool).

    python -m tools.torch_signatures sum [--method] [name ...]

prints, for each name, the overloads torch's generated bindings hand its argument parser, in
its order (deprecated ones marked ``|deprecated``: parsed, not printed), in the signature language glassgrad/_args.py reads ("sum(Tensor input, *,
ScalarType? dtype=None)"). They come from the installed torch's torchgen (the generator of
those bindings: native_functions.yaml, deprecated.yaml, its grouping and sort order), so they
are the strings torch parses with. tests/test_barrage.py checks the bound functions' messages
against torch's.
(The .pyi stubs list the same overloads, but lose what the parser needs: IntArrayRef[1] vs
IntArrayRef, int64_t vs SymInt, the printed order.)"""
import functools
import os
import sys

# the namespaces: torch.* functions, Tensor methods, torch.nn._C functions, linalg, fft, special
_PREDICATES = ("is_py_torch_function", "is_py_variable_method", "is_py_nn_function",
               "is_py_linalg_function", "is_py_fft_function", "is_py_special_function")


@functools.lru_cache(maxsize=None)
def _tables():
    import torchgen
    from torchgen.gen import parse_native_yaml
    from torchgen.packaged.autograd import gen_python_functions as g

    root = os.path.join(os.path.dirname(torchgen.__file__), "packaged")
    native = parse_native_yaml(os.path.join(root, "ATen/native/native_functions.yaml"),
                               os.path.join(root, "ATen/native/tags.yaml")).native_functions
    native = [f for f in native if g.should_generate_py_binding(f)]
    deprecated = os.path.join(root, "autograd/deprecated.yaml")
    tables = {}
    for method, pred in ((False, "is_py_torch_function"), (True, "is_py_variable_method"),
                         (False, "is_py_nn_function"), (False, "is_py_linalg_function"),
                         (False, "is_py_fft_function"), (False, "is_py_special_function")):
        pairs = g.load_signatures(native, deprecated, method=method)
        grouped = g.group_filter_overloads(pairs, getattr(g, pred))
        tables[pred] = {
            str(name): [_ours(o.signature.signature_str(symint=True), method)
                        for o in g.group_overloads(overloads, symint=True)]
            for name, overloads in grouped.items()}
    return tables


def _ours(text, method):
    """torchgen's signature string in _args' language (its "|deprecated" mark kept: such an
    overload parses but is not printed); a method's gets ``Tensor self`` first (glassgrad's
    parser drops it)."""
    if method:
        name, _, rest = text.partition("(")
        text = f"{name}(Tensor self{', ' if not rest.startswith(')') else ''}{rest}"
    return text


def signatures(name, method=False, namespace=None):
    """The overloads of torch.<name> (method=True: Tensor.<name>; namespace 'linalg', 'fft',
    'special', 'nn': that module's native functions, named as torch names them there)."""
    pred = ("is_py_variable_method" if method else
            {None: "is_py_torch_function", "nn": "is_py_nn_function",
             "linalg": "is_py_linalg_function", "fft": "is_py_fft_function",
             "special": "is_py_special_function"}[namespace])
    key = name if namespace in (None, "nn") or method else f"{namespace}_{name}"
    return _tables()[pred].get(key)


def main(argv):
    method = "--method" in argv
    for name in (a for a in argv if not a.startswith("--")):
        sigs = signatures(name, method)
        print(f"{'Tensor.' if method else 'torch.'}{name}:")
        for s in sigs or ["(not a native binding)"]:
            print(f'    "{s}",')


if __name__ == "__main__":
    main(sys.argv[1:])
