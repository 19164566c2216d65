"""torch._dynamo.exc's exception types, as glassgrad.compile raises them (fullgraph=True and a
graph break: Unsupported; a branch on a tensor's value: UserError, torch's data-dependent
guard failure; torch.cond and torch.while_loop bodies that alias their inputs:
UncapturedHigherOrderOpError)."""


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    pass


class UserError(TorchDynamoException):
    pass


class UncapturedHigherOrderOpError(TorchDynamoException):
    """torch.cond / torch.while_loop bodies torch cannot capture (glassgrad: one returning an
    input or a view of one)."""
