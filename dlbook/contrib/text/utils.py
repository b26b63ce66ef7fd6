"""Counting tokens in text (``mx.contrib.text.utils``)."""

import collections
import re

__all__ = ['count_tokens_from_str']


def count_tokens_from_str(
    source_str,
    token_delim=' ',
    seq_delim='\n',
    to_lower=False,
    counter_to_update=None,
):
    """Count the tokens of ``source_str``.

    Parameters
    ----------
    source_str : str
        The text.
    token_delim, seq_delim : str
        Regular expressions separating tokens and sequences (escape
        special characters: ``'\\*'``).
    to_lower : bool
        Count lower-cased tokens.
    counter_to_update : collections.Counter, optional
        Add the counts to this counter (and return it).

    Returns
    -------
    collections.Counter

    Examples
    --------
    >>> count_tokens_from_str(' Life is great ! \\n life is good . \\n',
    ...                       ' ', '\\n', True)
    Counter({'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1, '.': 1})
    """
    tokens = filter(None, re.split(token_delim + '|' + seq_delim, source_str))
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
