"""``Vocabulary`` (``mx.contrib.text.vocab``): indices for tokens, most frequent first."""
import collections

from . import _constants as C

__all__ = ["Vocabulary"]


class Vocabulary:
    """Index 0 is ``unknown_token``, then ``reserved_tokens``, then the tokens of ``counter``
    by decreasing frequency (ties in alphabetical order), at most ``most_freq_count`` of
    them and only those seen ``min_freq`` times."""

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        assert min_freq > 0, "`min_freq` must be set to a positive value."
        if reserved_tokens is not None:
            reserved = set(reserved_tokens)
            assert unknown_token not in reserved, "`reserved_token` cannot contain `unknown_token`."
            assert len(reserved) == len(reserved_tokens), \
                "`reserved_tokens` cannot contain duplicate reserved tokens."
        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(counter, unknown_token, reserved_tokens, most_freq_count, min_freq)

    def _index_unknown_and_reserved_tokens(self, unknown_token, reserved_tokens):
        self._unknown_token = unknown_token
        self._idx_to_token = [unknown_token]
        self._reserved_tokens = None if reserved_tokens is None else reserved_tokens[:]
        self._idx_to_token.extend(reserved_tokens or [])
        self._token_to_idx = {token: idx for idx, token in enumerate(self._idx_to_token)}

    def _index_counter_keys(self, counter, unknown_token, reserved_tokens, most_freq_count, min_freq):
        assert isinstance(counter, collections.Counter), "`counter` must be an instance of collections.Counter."
        special = set(reserved_tokens or ()) | {unknown_token}
        token_freqs = sorted(counter.items(), key=lambda x: x[0])
        token_freqs.sort(key=lambda x: x[1], reverse=True)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in token_freqs:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._idx_to_token.append(token)
                self._token_to_idx[token] = len(self._idx_to_token) - 1

    def __len__(self):
        return len(self.idx_to_token)

    @property
    def token_to_idx(self):
        return self._token_to_idx

    @property
    def idx_to_token(self):
        return self._idx_to_token

    @property
    def unknown_token(self):
        return self._unknown_token

    @property
    def reserved_tokens(self):
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list (unknown tokens: 0)."""
        single = not isinstance(tokens, list)
        indices = [self.token_to_idx.get(t, C.UNKNOWN_IDX) for t in ([tokens] if single else tokens)]
        return indices[0] if single else indices

    def to_tokens(self, indices):
        """The token of an index, or the list of tokens of a list of indices."""
        single = not isinstance(indices, list)
        max_idx = len(self.idx_to_token) - 1
        tokens = []
        for idx in ([indices] if single else indices):
            if not isinstance(idx, int) or idx > max_idx:
                raise ValueError("Token index %d in the provided `indices` is invalid." % idx)
            tokens.append(self.idx_to_token[idx])
        return tokens[0] if single else tokens
