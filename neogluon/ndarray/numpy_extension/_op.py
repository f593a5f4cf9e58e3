"""``mx.nd.npx._op``: MXNet 1.9.1's imperative NumPy-extension operator functions. MXNet
generates them from the same ``_npx_*`` / legacy registrations as ``mx.npx``'s; in neogluon
they are ``mx.npx``'s own functions (the same objects, one registry operator call each)."""
from ...numpy_extension import (  # noqa: F401
    activation, arange_like, batch_dot, batch_flatten, batch_norm, cast, constraint_check, convolution,
    deconvolution, dropout, embedding, erf, erfinv, fully_connected, gamma, gammaln, gather_nd, layer_norm,
    leaky_relu, log_softmax, multibox_detection, multibox_prior, multibox_target, nonzero, one_hot, pick,
    pooling, relu, reshape, reshape_like, rnn, roi_pooling, sequence_mask, shape_array, sigmoid, slice,
    smooth_l1, softmax, topk)

__all__ = ["activation", "arange_like", "batch_dot", "batch_flatten", "batch_norm", "cast", "constraint_check",
           "convolution", "deconvolution", "dropout", "embedding", "erf", "erfinv", "fully_connected", "gamma",
           "gammaln", "gather_nd", "layer_norm", "leaky_relu", "log_softmax", "multibox_detection",
           "multibox_prior", "multibox_target", "nonzero", "one_hot", "pick", "pooling", "relu", "reshape",
           "reshape_like", "rnn", "roi_pooling", "sequence_mask", "shape_array", "sigmoid", "slice",
           "smooth_l1", "softmax", "topk"]
