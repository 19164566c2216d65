"""The python blocks of docs/autograd.md run, in glassgrad and (with the import swapped) in
torch, so the docs stay true."""
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).parent.parent / "docs" / "autograd.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 2
    text = "\n".join(BLOCKS)
    assert "autograd.Function" in text and "hvp" in text


@pytest.mark.parametrize("index", range(len(BLOCKS)))
@pytest.mark.parametrize("lib", ["glassgrad", "torch"])
def test_doc_block_runs(index, lib):
    code = BLOCKS[index]
    if lib == "torch":
        code = code.replace("import glassgrad as torch", "import torch").replace(
            "from glassgrad.", "from torch.")
    exec(compile(code, f"{DOC.name}[block {index}]", "exec"), {"__name__": "doc_block"})
