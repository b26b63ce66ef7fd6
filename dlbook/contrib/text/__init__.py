"""``mx.contrib.text``: token counting, vocabularies and word embeddings.

* ``text.utils.count_tokens_from_str`` counts tokens of a string;
* ``text.vocab.Vocabulary`` indexes tokens (index 0 is the unknown token);
* ``text.embedding`` loads pre-trained vectors (``GloVe``, ``FastText``,
  ``CustomEmbedding`` from a local file) and combines them
  (``CompositeEmbedding``).
"""

from . import embedding, utils, vocab
