"""The list and dict types a Node keeps its arguments in: read-only, so that editing a node's arguments always goes
through ``node.args = ...`` (which keeps the users of every node up to date), and hashable, as PyTorch's."""

__all__ = ["immutable_list", "immutable_dict"]


def _refuse(self, *args, **kwargs):
    raise TypeError(f"'{type(self).__name__}' object does not support mutation. If you are attempting to modify "
                    "the kwargs or args of a torch.fx.Node object,\ninstead create a new copy of it and assign the "
                    "copy to the node:\n\n    new_args = ...  # copy and mutate args\n    node.args = new_args")


class immutable_list(list):
    """A list whose contents cannot change after it is built."""

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(iter(self)),))


class immutable_dict(dict):
    """A dict whose contents cannot change after it is built."""

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (dict(self),))


for _name in ("__delitem__", "__iadd__", "__imul__", "__setitem__", "append", "clear", "extend", "insert", "pop",
              "remove", "reverse", "sort"):
    setattr(immutable_list, _name, _refuse)
for _name in ("__delitem__", "__ior__", "__setitem__", "clear", "pop", "popitem", "setdefault", "update"):
    setattr(immutable_dict, _name, _refuse)
del _name
