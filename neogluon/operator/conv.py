"""Convolution, deconvolution, pooling, up-sampling and resizing operators."""
