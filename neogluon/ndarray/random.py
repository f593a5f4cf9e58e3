"""``mx.nd.random``: sampling functions (filled from the registry's _random_*/_sample_* ops)."""
