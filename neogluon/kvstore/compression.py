"""MXNet's 2-bit gradient compression (``kv.set_gradient_compression({'type': '2bit'})``).

Each sender keeps a residual per key. For a gradient ``g`` the residual becomes ``r + g``;
every element at or above ``threshold`` is sent as ``+threshold`` (and ``threshold`` taken
off the residual), every element at or below ``-threshold`` as ``-threshold`` (and
``threshold`` added back), every other element as 0 (left in the residual). The receiver
sums the dequantized values. MXNet packs the three states into 2 bits; the values here are
the same, sent as floats. Only '2bit' exists in MXNet 1.9.1; any other type is refused
with MXNet's message.
"""
import torch

from ..base import MXNetError

__all__ = ["TwoBitCompression", "create_compression"]


class TwoBitCompression:
    """Quantize to ``{-threshold, 0, +threshold}`` with error feedback, per key."""

    def __init__(self, threshold=0.5):
        threshold = float(threshold)
        if threshold <= 0:
            raise MXNetError("Threshold for 2bit gradient compression must be greater than 0, got %g" % threshold)
        self.threshold = threshold
        self._residuals = {}

    def params(self):
        return {"type": "2bit", "threshold": self.threshold}

    def __call__(self, key, grad):
        """The dequantized values sent for ``grad`` (a torch tensor) under ``key``."""
        residual = self._residuals.get(key)
        if residual is None or residual.shape != grad.shape:
            residual = torch.zeros_like(grad)
            self._residuals[key] = residual
        residual.add_(grad)
        pos = residual >= self.threshold
        neg = residual <= -self.threshold
        out = torch.zeros_like(grad)
        out[pos] = self.threshold
        out[neg] = -self.threshold
        residual.sub_(out)
        return out


def create_compression(compression_params):
    """The compressor for MXNet's ``compression_params`` dict (``{'type': '2bit', 'threshold': t}``)."""
    if not isinstance(compression_params, dict) or "type" not in compression_params:
        raise MXNetError("set_gradient_compression: compression_params must be a dict with a 'type', got %r"
                         % (compression_params,))
    ctype = compression_params["type"]
    if ctype != "2bit":
        raise MXNetError("Unknown type for gradient compression %s" % ctype)
    unknown = set(compression_params) - {"type", "threshold"}
    if unknown:
        raise MXNetError("set_gradient_compression: unknown argument(s) %s for 2bit compression"
                         % ", ".join(sorted(unknown)))
    return TwoBitCompression(compression_params.get("threshold", 0.5))
