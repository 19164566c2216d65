"""The python blocks of docs/nn.md run in glassgrad and (with the imports swapped) in torch, and
print the same text: the trained MLP's losses, the reprs, the state-dict keys."""
import contextlib
import io
import pathlib
import re
import warnings

import pytest

DOC = pathlib.Path(__file__).parent.parent / "docs" / "nn.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def _printed(code, lib):
    if lib == "torch":
        code = code.replace("import glassgrad as torch", "import torch").replace(
            "from glassgrad import", "from torch import")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, f"{DOC.name}[{lib}]", "exec"), {"__name__": "doc_block"})
    return out.getvalue()


def test_the_doc_has_a_training_loop():
    assert len(BLOCKS) >= 2 and "backward()" in BLOCKS[0]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_block_prints_what_torch_prints(index):
    mine, theirs = _printed(BLOCKS[index], "glassgrad"), _printed(BLOCKS[index], "torch")
    assert "loss" in mine or "Net" in mine
    strip = re.compile(r" object at 0x[0-9a-f]+")      # grad_fn reprs name an address
    assert strip.sub("", mine) == strip.sub("", theirs), f"glassgrad:\n{mine}\ntorch:\n{theirs}"


GLASS_BLOCKS = re.findall(r"```python glass\n(.*?)```\n\n```text\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_a_glass_block():
    assert GLASS_BLOCKS and "summary(" in GLASS_BLOCKS[0][0]


@pytest.mark.parametrize("index", range(len(GLASS_BLOCKS)))
def test_glass_block_prints_what_the_doc_shows(index):
    """The glassgrad-only blocks (the glass box): run as example.py (its lines readable, as the
    explanations quote them), they print the text block that follows them."""
    import linecache
    code, shown = GLASS_BLOCKS[index]
    linecache.cache["example.py"] = (len(code), None, code.splitlines(True), "example.py")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "example.py", "exec"), {"__name__": "doc_block"})
    finally:
        linecache.cache.pop("example.py", None)
    assert out.getvalue() == shown
