"""A small pytree: tuples, lists and dicts are nodes, anything else (None included) a leaf.

Specs print like torch.utils._pytree's TreeSpec (repr) and treespec_pprint, since torch's error
messages quote them.
"""


class LeafSpec:
    num_leaves = 1

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0

    def __repr__(self, indent=0):
        return "*"

    def pprint(self):
        return "*"


class TreeSpec:
    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, children
        self.num_leaves = sum(c.num_leaves for c in children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type
                and self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self, indent=0):
        text = ""
        if self.children:
            indent += 2
            text = self.children[0].__repr__(indent)
            text += "," if len(self.children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({self.type.__name__}, {self.context}, [{text}])"

    def pprint(self):
        parts = [c.pprint() for c in self.children]
        if self.type is tuple:
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        if self.type is list:
            return "[" + ", ".join(parts) + "]"
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"


_LEAF = LeafSpec()


def tree_flatten(tree):
    """(leaves, spec)."""
    leaves = []
    spec = _walk(tree, leaves)
    return leaves, spec


def _walk(node, leaves):
    # (module functions, not closures that call themselves: such a closure is a reference
    # cycle that keeps the leaves alive until the garbage collector runs)
    if type(node) in (tuple, list):
        return TreeSpec(type(node), None, [_walk(c, leaves) for c in node])
    if type(node) is dict:
        keys = list(node)
        return TreeSpec(dict, keys, [_walk(node[k], leaves) for k in keys])
    leaves.append(node)
    return _LEAF


def tree_unflatten(leaves, spec):
    return _build(spec, iter(leaves))


def _build(s, it):
    if isinstance(s, LeafSpec):
        return next(it)
    children = [_build(c, it) for c in s.children]
    if s.type is dict:
        return dict(zip(s.context, children))
    return s.type(children)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """Flatten ``prefix`` against ``spec``, a leaf of prefix standing for its whole subtree;
    None where the structures do not match."""
    if isinstance(spec, LeafSpec) or type(prefix) not in (tuple, list, dict):
        if type(prefix) in (tuple, list, dict):
            return None
        return [prefix] * spec.num_leaves
    if type(prefix) is not spec.type or len(prefix) != len(spec.children):
        return None
    if spec.type is dict:
        if list(prefix) != list(spec.context) and set(prefix) != set(spec.context):
            return None
        values = [prefix[k] for k in spec.context]
    else:
        values = list(prefix)
    out = []
    for v, child in zip(values, spec.children):
        flat = broadcast_to_and_flatten(v, child)
        if flat is None:
            return None
        out.extend(flat)
    return out
