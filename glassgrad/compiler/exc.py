"""torch._dynamo.exc's exception types, as glassgrad.compile raises them (fullgraph=True and a
graph break: Unsupported; a branch on a tensor's value: UserError, torch's data-dependent
guard failure)."""


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    pass


class UserError(TorchDynamoException):
    pass
