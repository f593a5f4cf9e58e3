"""Shape manipulation: Reshape (MXNet's special codes), transpose, slice, split, concat, tile, pad, ..."""
