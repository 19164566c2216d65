"""The seed programs: the users' documents glassgrad grew from, as runnable programs.

Each file is a plain PyTorch program that uses the name ``torch`` without importing it: the demo
runs it with ``torch`` bound to glassgrad, and the tests run it under both libraries and compare
what it prints.
"""
import pathlib

PROGRAMS = sorted(p for p in pathlib.Path(__file__).parent.glob("*.py") if p.stem != "__init__")
