"""The input side the export tests run each model zoo network at (tests/test_onnx_export.py,
tests/test_torch_export.py)."""


def zoo_side(name):
    """The size a network's fixed pooling window needs (Inception 299; DenseNet, SqueezeNet
    and AlexNet 224), else 64: ResNet, VGG and MobileNet end in a global pooling or a Dense
    layer that takes any size, with the same operators at 64 as at 224, where VGG's first
    Dense layer (25088 x 4096) made each VGG export a 0.5 GB file and 15 s of the suite."""
    if name.startswith("inception"):
        return 299
    return 224 if name.startswith(("densenet", "squeezenet", "alexnet")) else 64
