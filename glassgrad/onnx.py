"""torch.onnx: glassgrad has no graph exporter."""


def is_in_onnx_export():
    return False


def export(*args, **kwargs):
    raise NotImplementedError("torch.onnx.export: glassgrad cannot export models to ONNX (it "
                              "runs eagerly on NumPy and records no exportable graph)")


def dynamo_export(*args, **kwargs):
    raise NotImplementedError("torch.onnx.dynamo_export: glassgrad cannot export models to "
                              "ONNX")
