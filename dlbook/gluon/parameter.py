"""Parameters: a model's trainable arrays, one copy per device.

A :class:`Parameter` knows its name (``dense0_weight``), shape, dtype,
initializer and ``grad_req``, and keeps one data array (and one gradient)
per context it was initialized on.  A dimension of 0 in the shape means
"not known yet": initialization then waits for the first forward pass,
where the operator's shape rule fills it in (deferred initialization).

A :class:`ParameterDict` maps names to parameters; every Block owns one.

This is the module MXNet users import (``mx.gluon.parameter``); the code
lives in one module per idea:

* ``parameter_core``: :class:`Parameter`, its arrays and gradients;
* ``parameter_deferred``: waiting for the shape
  (:class:`DeferredInitializationError`, ``DeferredParameter``);
* ``parameter_constant``: :class:`Constant`, a parameter never trained;
* ``parameter_dict``: :class:`ParameterDict`;
* ``parameter_files``: the file format of ``ParameterDict.save``/``load``.
"""

from .. import ndarray as nd
from .parameter_constant import Constant
from .parameter_core import Parameter
from .parameter_deferred import (
    DeferredInitializationError,
    DeferredParameter,  # noqa: F401 (dlbook's own: kept out of __all__)
)
from .parameter_dict import ParameterDict

__all__ = [
    'Parameter',
    'Constant',
    'ParameterDict',
    'DeferredInitializationError',
    'tensor_types',
]

tensor_types = (nd.NDArray,)
