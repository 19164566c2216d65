"""The `glassgrad` command.

  glassgrad run script.py [args]   run an unmodified PyTorch script on glassgrad (``import torch``
                                   and every ``torch.*`` module resolve to glassgrad); autograd
                                   errors show glassgrad's explanation under PyTorch's text
  glassgrad compare script.py [args]
                                   run it under PyTorch and under glassgrad, show where stdout and
                                   stderr differ (glassgrad's explanations aside) and count the
                                   equal and differing lines; exit 0 when identical, 1 otherwise
"""
import argparse
import difflib
import os
import re
import runpy
import subprocess
import sys
import traceback


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="glassgrad", description="Run PyTorch programs on glassgrad, the see-through "
        "autograd engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run a PyTorch script with `torch` resolved to glassgrad")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    p = sub.add_parser("compare", help="run a script under PyTorch and under glassgrad and diff "
                       "what they print")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    ns = parser.parse_args(argv)
    if not os.path.isfile(ns.script):
        parser.error(f"no such script: {ns.script}")
    if ns.command == "run":
        return run(ns.script, ns.args)
    return compare(ns.script, ns.args)


# -- run --------------------------------------------------------------------------------------
def run(script, args=()):
    """Run ``script`` as __main__ with ``torch`` = glassgrad; returns the exit code."""
    from .distributed.c10d import abort_job
    from .glass.errors import explanation, extend
    from .glass.imports import torch_is_glassgrad
    script = os.path.abspath(script)
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [script, *args]
    if sys.path:
        sys.path[0] = os.path.dirname(script)     # as `python script.py` would
    else:
        sys.path.append(os.path.dirname(script))
    try:
        with torch_is_glassgrad():
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as e:      # print like Python, autograd errors with their notes
        sys.stdout.flush()
        if isinstance(e, RuntimeError) and explanation(e) is None:
            context = _explain(e, script)     # the error has none of its own: the history
            if context:
                extend(e, context.rstrip("\n").split("\n"))
        _print_traceback(e, script)
        abort_job()     # the other ranks of a process group end too, rather than wait for it
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
    return 0


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _print_traceback(e, script):
    """Python's traceback from the script's first frame (not this runner's), without
    glassgrad's own frames: it ends at the user's line that called into glassgrad."""
    tb = e.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    frames = [f for f in traceback.extract_tb(tb or e.__traceback__)
              if not os.path.abspath(f.filename).startswith(_PACKAGE)]
    print("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
          + "".join(traceback.format_exception_only(type(e), e)), end="", file=sys.stderr)


def _explain(e, script):
    from .glass.explain import explain_error
    from ._tensor import Tensor
    names = {}
    frames = []
    tb = e.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == script:
            frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):     # the innermost script frame's names first
        for scope in (frame.f_locals, frame.f_globals):
            for k, v in scope.items():
                if isinstance(v, Tensor) and not k.startswith("_"):
                    names.setdefault(k, v)
    try:
        return explain_error(e, names)
    except Exception as inner:     # never hide the user's error behind ours
        return f"(glassgrad could not explain this error: {type(inner).__name__}: {inner})\n"


# -- compare ----------------------------------------------------------------------------------
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def normalise(text):
    """Memory addresses differ from run to run (<AddBackward0 object at 0x?>), and glassgrad's
    explanations (notes under PyTorch's error texts) are glassgrad's own (glass/errors.py)."""
    from .glass.errors import strip_explanations
    return _ADDRESS.sub("0x?", strip_explanations(text))


def compare(script, args=(), stream=None):
    """Run ``script`` under torch and under glassgrad; print a unified diff of what differs."""
    import importlib.util
    out = stream or sys.stdout
    if importlib.util.find_spec("torch") is None:
        print("glassgrad compare: PyTorch is not installed in this Python "
              f"({sys.executable}); install torch to compare", file=sys.stderr)
        return 2
    script = os.path.abspath(script)
    ref = _capture([sys.executable, script, *args])
    mine = _capture([sys.executable, "-m", "glassgrad", "run", script, *args])
    same = True
    for stream_name, a, b in (("stdout", ref.stdout, mine.stdout),
                              ("stderr", ref.stderr, mine.stderr)):
        a, b = normalise(a), normalise(b)
        if a != b:
            same = False
            a_lines, b_lines = a.splitlines(True), b.splitlines(True)
            out.writelines(difflib.unified_diff(a_lines, b_lines, f"torch {stream_name}",
                                                f"glassgrad {stream_name}"))
            if not b.endswith("\n") or not a.endswith("\n"):
                out.write("\n")
            out.write(_count_lines(stream_name, a_lines, b_lines))
    if ref.returncode != mine.returncode:
        same = False
        out.write(f"exit code: torch {ref.returncode}, glassgrad {mine.returncode}\n")
    if same:
        out.write(f"identical: {os.path.basename(script)} prints the same under torch and "
                  "glassgrad\n")
    return 0 if same else 1


def _count_lines(stream_name, a_lines, b_lines):
    """'stdout: 12 lines equal, 2 differ (torch 14 lines, glassgrad 14)'."""
    blocks = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False).get_matching_blocks()
    equal = sum(block.size for block in blocks)
    return (f"{stream_name}: {equal} lines equal, {max(len(a_lines), len(b_lines)) - equal} "
            f"differ (torch {len(a_lines)} lines, glassgrad {len(b_lines)})\n")


def _capture(cmd):
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          cwd=os.getcwd(), timeout=600)


if __name__ == "__main__":
    sys.exit(main())
