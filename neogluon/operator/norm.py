"""Normalisation, activation-like layers and softmax: BatchNorm, LayerNorm, Dropout, LeakyReLU, softmax, ..."""
