"""Make ``import mxnet`` resolve to dlbook in this process (opt-in).

Third-party code written for MXNet (the ``d2l`` package's
``from d2l import mxnet as d2l``) imports ``mxnet`` by name.  After::

    import dlbook.as_mxnet

``import mxnet``, ``from mxnet import np, npx, gluon`` and
``from mxnet.gluon import nn`` give dlbook's modules: ``mxnet`` *is*
``dlbook`` and ``mxnet.gluon.nn`` *is* ``dlbook.gluon.nn`` (one set of
classes, not copies).  To make every new Python process of an environment
do this, run ``python -m dlbook.mxnet_shim install`` (see
``dlbook/mxnet_shim.py``).

It refuses to act when a real MXNet is already imported.
"""

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ['activate']


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``mxnet.<sub>`` as the already imported ``dlbook.<sub>``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith('mxnet.'):
            real = 'dlbook.' + fullname[len('mxnet.') :]
            if importlib.util.find_spec(real) is None:
                return None
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(
            'dlbook.' + spec.name[len('mxnet.') :]
        )
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module):
        """The module ran when dlbook imported it."""


def _is_shim(module):
    return getattr(
        module, '__dlbook_shim__', False
    ) or module is sys.modules.get('dlbook')


def activate():
    """Alias ``mxnet`` (and its submodules) to dlbook in this process."""
    present = sys.modules.get('mxnet')
    if present is not None and not _is_shim(present):
        raise ImportError(
            'dlbook.as_mxnet: a real MXNet is already imported in this '
            f'process ({getattr(present, "__file__", present)}); refusing '
            'to replace it'
        )
    import dlbook

    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    sys.modules['mxnet'] = dlbook
    return dlbook


activate()
