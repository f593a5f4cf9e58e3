"""The fused RNN operator with cuDNN's flat parameter layout."""
