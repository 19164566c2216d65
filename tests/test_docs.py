"""docs/ops.md is the op table as the code defines it (regenerate: make docs)."""
import pathlib

from tools.ops_table import markdown


def test_ops_doc_is_generated_from_the_table():
    doc = pathlib.Path(__file__).parent.parent / "docs" / "ops.md"
    assert doc.read_text() == markdown(), "docs/ops.md is stale: run `make docs`"
