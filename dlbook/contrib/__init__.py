"""``mx.contrib``: MXNet's contributed modules that MXNet-era material uses.

``mx.contrib.text`` indexes text tokens and loads word embeddings (the
first Chinese d2l's ``d2lzh`` package does ``from mxnet.contrib import
text``).
"""

from . import text
