"""Token indexing (``mx.contrib.text.vocab.Vocabulary``)."""

import collections

from ...base import UsageError

__all__ = ['Vocabulary', 'UNKNOWN_IDX']

#: Index of the unknown token in every vocabulary.
UNKNOWN_IDX = 0


class Vocabulary:
    """Indices for text tokens: the unknown token is 0, then the reserved
    tokens, then the keys of ``counter`` from most to least frequent (ties
    in sorted order).

    Parameters
    ----------
    counter : collections.Counter, optional
        Token frequencies.
    most_freq_count : int, optional
        Index at most this many tokens of ``counter`` (reserved tokens not
        counted).
    min_freq : int
        Index only tokens seen at least this often.
    unknown_token : hashable
        What every unknown token maps to (index 0), ``'<unk>'``.
    reserved_tokens : list, optional
        Tokens always indexed (``'<pad>'``, ``'<bos>'`` ...), right after
        the unknown token.

    Examples
    --------
    >>> v = Vocabulary(collections.Counter('a b b c c c'.split()))
    >>> v.idx_to_token
    ['<unk>', 'c', 'b', 'a']
    >>> v.to_indices(['c', 'z'])
    [1, 0]
    """

    def __init__(
        self,
        counter=None,
        most_freq_count=None,
        min_freq=1,
        unknown_token='<unk>',
        reserved_tokens=None,
    ):
        if not min_freq > 0:
            raise UsageError(
                f'`min_freq` must be set to a positive value, '
                f'got {min_freq!r}: tokens seen fewer than '
                f'min_freq times are left out.'
            )
        if reserved_tokens is not None:
            reserved_set = set(reserved_tokens)
            if unknown_token in reserved_set:
                raise UsageError(
                    f'`reserved_token` cannot contain `unknown_token` '
                    f'({unknown_token!r}): it always gets index 0; remove it '
                    f'from reserved_tokens.'
                )
            if len(reserved_set) != len(reserved_tokens):
                dups = sorted(
                    {
                        t
                        for t in reserved_tokens
                        if reserved_tokens.count(t) > 1
                    }
                )
                raise UsageError(
                    f'`reserved_tokens` cannot contain duplicate reserved '
                    f'tokens: {dups} appear more than once.'
                )
        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(
                counter,
                unknown_token,
                reserved_tokens,
                most_freq_count,
                min_freq,
            )

    def _index_unknown_and_reserved_tokens(
        self, unknown_token, reserved_tokens
    ):
        self._unknown_token = unknown_token
        self._idx_to_token = [unknown_token]
        if reserved_tokens is None:
            self._reserved_tokens = None
        else:
            self._reserved_tokens = reserved_tokens[:]
            self._idx_to_token.extend(reserved_tokens)
        self._token_to_idx = {
            token: idx for idx, token in enumerate(self._idx_to_token)
        }

    def _index_counter_keys(
        self,
        counter,
        unknown_token,
        reserved_tokens,
        most_freq_count,
        min_freq,
    ):
        if not isinstance(counter, collections.Counter):
            raise UsageError(
                f'`counter` must be an instance of collections.Counter, got '
                f'{type(counter).__name__}; build one with '
                f'collections.Counter(tokens) or '
                f'text.utils.count_tokens_from_str(text).'
            )
        special = (
            set(reserved_tokens) if reserved_tokens is not None else set()
        )
        special.add(unknown_token)
        token_freqs = sorted(counter.items(), key=lambda x: x[0])
        token_freqs.sort(key=lambda x: x[1], reverse=True)
        cap = len(special) + (
            len(counter) if most_freq_count is None else most_freq_count
        )
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
        """dict: token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: the tokens, in index order."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        """What unknown tokens map to (index 0)."""
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """The reserved tokens (a list), or None."""
        return self._reserved_tokens

    def to_indices(self, tokens):
        """Index of a token, or list of indices of a list of tokens
        (unknown tokens give 0)."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        indices = [
            self.token_to_idx.get(token, UNKNOWN_IDX) for token in tokens
        ]
        return indices[0] if single else indices

    def to_tokens(self, indices):
        """Token of an index, or list of tokens of a list of indices;
        ValueError for an index outside the vocabulary."""
        single = not isinstance(indices, list)
        indices = [indices] if single else indices
        max_idx = len(self.idx_to_token) - 1
        tokens = []
        for idx in indices:
            if not isinstance(idx, int) or idx > max_idx:
                raise ValueError(
                    f'Token index {idx} in the provided `indices` is invalid.'
                )
            tokens.append(self.idx_to_token[idx])
        return tokens[0] if single else tokens
