"""examples/digits.py, the training example: one epoch under PyTorch and under glassgrad (through
`glassgrad compare`) prints the same lines, progress bars included, and draws its PNG. Runs
only where the `examples` extra (scikit-learn, tqdm, matplotlib) and PyTorch are installed;
the full 12 epochs are `make example`'s."""
import importlib.util

import pytest

from test_cli import ROOT, glassgrad

MISSING = [m for m in ("torch", "sklearn", "tqdm", "matplotlib")
           if importlib.util.find_spec(m) is None]


@pytest.mark.skipif(bool(MISSING), reason=f"needs the examples extra and PyTorch: {MISSING} "
                    "not installed (pip install 'glassgrad[examples]' torch)")
def test_digits_one_epoch_prints_what_torch_prints(tmp_path):
    picture = tmp_path / "curves.png"
    proc = glassgrad("compare", ROOT / "examples" / "digits.py", "--epochs", "1", "--out",
                     picture)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "identical: digits.py prints the same under torch and glassgrad\n"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
