"""python -m glassgrad run script.py | compare script.py (see glassgrad/cli.py)."""
import sys

from .cli import main

sys.exit(main())
