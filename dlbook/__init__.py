"""dlbook: learn deep learning hands-on with MXNet 1.x's programming model.

``import dlbook as mx`` gives the MXNet 1.x surface: ``mx.nd`` arrays on
``mx.cpu(i)`` / ``mx.gpu(i)``, ``mx.autograd``, ``mx.gluon``, ``mx.sym``...
computed with NumPy on CPUs and CuPy on GPUs.  Importing dlbook loads
neither CuPy nor any plotting or widget library.
"""

__version__ = '0.1.0'

from . import base  # noqa: F401
from .base import DLBookError, MXNetError  # noqa: F401
from . import context  # noqa: F401
from .context import Context, cpu, gpu, cpu_pinned, current_context  # noqa
from . import ops  # noqa: F401
from . import ndarray  # noqa: F401
from . import ndarray as nd  # noqa: F401
from . import autograd  # noqa: F401
from . import random  # noqa: F401
from . import name  # noqa: F401
from . import registry  # noqa: F401
from . import initializer  # noqa: F401
from . import initializer as init  # noqa: F401
from . import optimizer  # noqa: F401
from . import lr_scheduler  # noqa: F401
from . import metric  # noqa: F401
from . import io  # noqa: F401
from . import recordio  # noqa: F401
from . import kvstore  # noqa: F401
from . import kvstore as kv  # noqa: F401
from . import attribute  # noqa: F401
from .attribute import AttrScope  # noqa: F401
from . import symbol  # noqa: F401
from . import symbol as sym  # noqa: F401
from . import executor  # noqa: F401
from . import operator  # noqa: F401
from . import gluon  # noqa: F401
from . import image  # noqa: F401
from . import image as img  # noqa: F401
from . import viz  # noqa: F401
from . import model, callback, module  # noqa: F401
from . import module as mod  # noqa: F401
from . import rnn  # noqa: F401
from . import test_utils  # noqa: F401
from . import numpy as np  # noqa: F401
from . import numpy_extension as npx  # noqa: F401
from . import numpy, numpy_extension, util  # noqa: F401,E402
from . import runtime  # noqa: F401
from . import contrib  # noqa: F401
from . import profiler  # noqa: F401
