"""``mx.mod``: the Module API, MXNet 1.x's trainer for symbols.

:class:`Module` binds a symbol on one or several devices and trains it
with ``fit``; :class:`BucketingModule` keeps one Module per input length
(bucket), all sharing one set of parameters; :class:`SequentialModule`
chains modules, and :class:`PythonModule`/:class:`PythonLossModule` are
modules written in Python (a loss in NumPy).
"""

from .base_module import BaseModule
from .bucketing_module import BucketingModule
from .executor_group import DataParallelExecutorGroup
from .module import Module
from .python_module import PythonLossModule, PythonModule
from .sequential_module import SequentialModule

__all__ = [
    'BaseModule',
    'Module',
    'BucketingModule',
    'DataParallelExecutorGroup',
    'SequentialModule',
    'PythonModule',
    'PythonLossModule',
]
