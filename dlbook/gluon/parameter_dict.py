"""``ParameterDict``: the parameters of a Block, by full name.

Every Block owns one, with the Block's prefix (``dense0_``): its layers
create their parameters through ``self.params.get('weight', shape=...)``,
and ``collect_params()`` gathers the dictionaries of a Block and its
children into one, which ``Trainer`` and ``initialize`` work on.
"""

from collections import OrderedDict

from ..base import DLBookError, dtype_name
from .parameter_constant import Constant
from .parameter_core import Parameter
from .parameter_files import load_parameter_dict, save_parameter_dict


class ParameterDict:
    """An ordered name -> Parameter mapping with a common prefix.

    ``get('weight', shape=...)`` returns ``prefix + 'weight'``, creating it
    on first use (or returning the one in ``shared``, which is how
    ``params=other.collect_params()`` shares weights).
    """

    def __init__(self, prefix='', shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = '\n'.join(f'  {v}' for v in self.values())
        return f'{self._prefix} (\n{body}\n)'

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter ``prefix + name``, created with ``kwargs`` if new.

        For an existing parameter, given attributes must agree with its
        own (a 0 in a shape agrees with any size and is filled in).
        """
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = self._params[name] = Parameter(name, **kwargs)
            return param
        for key, value in kwargs.items():
            if key == 'shape' and value is not None:
                param.shape = value
                continue
            existing = getattr(param, key, None)
            if key == 'dtype' and value is not None:
                value = dtype_name(value)
                existing = dtype_name(existing)
            if (
                value is not None
                and existing is not None
                and existing != value
                and key != 'init'
            ):
                raise DLBookError(
                    f"Cannot retrieve Parameter '{name}' because desired "
                    f"attribute does not match with stored for attribute "
                    f"'{key}': desired '{value}' vs stored '{existing}'."
                )
        return param

    def get_constant(self, name, value=None):
        """The constant ``prefix + name``, created from ``value`` if new."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(
                    f"No constant named '{name}'. Please specify "
                    f"value if you want to create a new "
                    f"constant."
                )
            param = self._params[name] = Constant(name, value)
        return param

    def update(self, other):
        """Add the parameters of ``other`` (same objects, no copies)."""
        for name, value in other.items():
            if name in self._params and self._params[name] is not value:
                raise DLBookError(
                    f"Cannot update self with other because "
                    f"they have different Parameters with the "
                    f"same name '{name}'"
                )
            self._params[name] = value

    def initialize(
        self, init=None, ctx=None, verbose=False, force_reinit=False
    ):
        """Initialize every parameter (see :meth:`Parameter.initialize`)."""
        from .. import initializer

        if init is None:
            init = initializer.Uniform()
        if verbose and hasattr(init, 'set_verbosity'):
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set all gradients to 0."""
        for param in self.values():
            param.zero_grad()

    def reset_ctx(self, ctx):
        """Move every parameter to ``ctx``."""
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        """Contexts used by any parameter."""
        found = []
        for param in self.values():
            for ctx in param.list_ctx():
                if ctx not in found:
                    found.append(ctx)
        return found

    def setattr(self, name, value):
        """Set attribute ``name`` on every parameter, e.g.
        ``net.collect_params('.*bias').setattr('lr_mult', 2)``."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=''):
        """Save with full names (minus ``strip_prefix``), MXNet's
        legacy ``save_params`` format."""
        save_parameter_dict(self, filename, strip_prefix)

    def load(
        self,
        filename,
        ctx=None,
        allow_missing=False,
        ignore_extra=False,
        restore_prefix='',
        cast_dtype=False,
        dtype_source='current',
    ):
        """Load a file saved by :meth:`save` (names prefixed by
        ``restore_prefix``)."""
        load_parameter_dict(
            self,
            filename,
            ctx,
            allow_missing,
            ignore_extra,
            restore_prefix,
            cast_dtype,
            dtype_source,
        )
