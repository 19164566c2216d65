"""`make demo`: the seed programs run with ``import glassgrad as torch``, printing exactly what
PyTorch prints."""
import glassgrad
from glassgrad.seeds import PROGRAMS


def main():
    for path in PROGRAMS:
        source = path.read_text()
        print(f"=== {path.stem}: {source.splitlines()[0].lstrip('# ')}")
        exec(compile(source, str(path), "exec"), {"torch": glassgrad, "__name__": "__main__"})
        print()


if __name__ == "__main__":
    main()
