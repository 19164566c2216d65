"""`make demo`: the seed programs run with ``import glassgrad as torch``. Each prints what
PyTorch prints, and where PyTorch's error leaves the question open glassgrad answers it: the
first seed's error explains itself (which node saved which tensor, which in-place op through
which alias moved its version, the fix: the note under the message, shown here as a traceback
shows it); for the second, the graph of ``z`` as it stands before its first backward shows that
nothing saved ``y2``."""
import glassgrad
from glassgrad.glass import graph
from glassgrad.seeds import PROGRAMS

# seed -> the tensor whose graph the demo draws, as it stands just before the first backward
GRAPH_BEFORE_BACKWARD = {"qa2_detach_linear": "z"}


def print_with_notes(*args, **kwargs):
    """print(), then the notes of each exception printed (as a traceback shows them)."""
    print(*args, **kwargs)
    for a in args:
        for note in getattr(a, "__notes__", ()) if isinstance(a, BaseException) else ():
            print(note, **kwargs)


def main():
    for path in PROGRAMS:
        source = path.read_text()
        print(f"=== {path.stem}: {source.splitlines()[0].lstrip('# ')}")
        exec(compile(source, str(path), "exec"),
             {"torch": glassgrad, "__name__": "__main__", "print": print_with_notes})
        name = GRAPH_BEFORE_BACKWARD.get(path.stem)
        if name is not None:
            lines = source.splitlines(True)
            first = next(i for i, line in enumerate(lines) if ".backward(" in line)
            ns = {"torch": glassgrad, "__name__": "__main__"}
            exec(compile("".join(lines[:first]), str(path), "exec"), ns)
            print(f"\nglassgrad.glass.graph({name}) before line {first + 1}, "
                  f"`{lines[first].strip()}`:\n")
            print(graph(ns[name], names=ns).text(), end="")
        print()


if __name__ == "__main__":
    main()
