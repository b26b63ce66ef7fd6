"""Chapter 10's text data and recurrent networks under one name, as d2l's
``text`` helpers: ``text_data.py`` (corpus, vocabulary, minibatches) and
``rnn.py`` (models and training)."""

from .rnn import *  # noqa: F401,F403
from .rnn import __all__ as _rnn_names
from .text_data import *  # noqa: F401,F403
from .text_data import __all__ as _data_names

__all__ = _data_names + _rnn_names
