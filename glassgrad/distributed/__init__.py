"""torch.distributed: glassgrad cannot start a process group yet (the real API comes later).
is_available() says so, so programs that check it take their single-process path."""


def is_available():
    return False


def is_initialized():
    return False


def is_torchelastic_launched():
    return False


def _no_group(name):
    def call(*args, **kwargs):
        raise NotImplementedError(f"torch.distributed.{name}: glassgrad has no distributed "
                                  "process groups yet")
    call.__name__ = call.__qualname__ = name
    return call


for _name in ("init_process_group", "destroy_process_group", "get_rank", "get_world_size",
              "barrier", "all_reduce", "all_gather", "broadcast", "reduce", "new_group"):
    globals()[_name] = _no_group(_name)
del _name
