"""Sampling operators: _random_*, _sample_*, _shuffle."""
