"""dlbook: learn deep learning hands-on with MXNet 1.x's programming model.

``import dlbook as mx`` gives the MXNet 1.x surface: ``mx.nd`` arrays on
``mx.cpu(i)`` / ``mx.gpu(i)``, ``mx.autograd``, ``mx.gluon``, ``mx.sym``...
computed with NumPy on CPUs and CuPy on GPUs.  Importing dlbook loads
neither CuPy nor any plotting or widget library.
"""

__version__ = '0.1.0'

from . import (
    attribute,
    autograd,
    base,
    callback,
    context,
    contrib,
    engine,
    executor,
    gluon,
    image,
    initializer,
    io,
    kvstore,
    log,
    lr_scheduler,
    metric,
    model,
    module,
    monitor,
    name,
    ndarray,
    numpy,
    numpy_extension,
    operator,
    ops,
    optimizer,
    profiler,
    random,
    recordio,
    registry,
    rnn,
    runtime,
    symbol,
    test_utils,
    util,
    viz,
)
from . import image as img
from . import initializer as init
from . import kvstore as kv
from . import module as mod
from . import monitor as mon
from . import ndarray as nd
from . import numpy as np
from . import numpy_extension as npx
from . import symbol as sym
from . import viz as visualization
from ._np_state import (  # noqa: E402  (MXNet exports these at the top too)
    is_np_array,
    is_np_shape,
    np_array,
    np_shape,
    set_np_shape,
    use_np,
    use_np_array,
    use_np_shape,
)
from .attribute import AttrScope
from .base import DLBookError, MXNetError
from .context import Context, cpu, cpu_pinned, current_context, gpu

# MXNet's ``mx.init.FusedRNN`` initializes a FusedRNNCell's flat weights,
# so it lives with the cell (dlbook/rnn/rnn_cell.py): named here, where the
# package's layers meet, rather than imported upwards by ``initializer``
initializer.FusedRNN = rnn.rnn_cell.FusedRNN
