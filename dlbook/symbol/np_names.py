"""MXNet's NumPy-mode operator names (``_npi_add``, ``_npx_relu`` ...).

Under ``npx.set_np()`` MXNet 1.9.1 records ``mx.np``/``mx.npx`` calls in a
hybridized graph under their own operator names, so an exported
``-symbol.json`` reads ``"op": "_npi_add"`` where legacy code writes
``broadcast_add``.  dlbook runs the same registered operators in both
modes; this table gives the np-mode name (and node-name hint) of those
whose MXNet np counterpart takes the same inputs and attributes, and
registers each np name as an alias, so graphs that MXNet exported in np
mode load here.

Observed in MXNet 1.9.1 (``F.np.exp(x) + 2 * x`` traced under set_np)::

    _npi_exp b0_exp0
    _npi_multiply_scalar b0_multiply_scalar0 {'is_int': 'False', 'scalar': '2.0'}
    _npi_add b0_add0

Operators not in the table (``FullyConnected``, ``Activation``,
``_np_reshape``) keep their names, as MXNet's np layers do; ``mx.np``
reductions and comparisons already run operators registered under
MXNet's np names (``_np_sum``, ``_npi_mean``, ``_npi_greater``...).
"""

from ..ops import REGISTRY

__all__ = ['NP_NAMES', 'SCALAR_OPS']

#: dlbook operator -> (MXNet np-mode operator, node-name hint)
NP_NAMES = {
    'broadcast_add': ('_npi_add', 'add'),
    'broadcast_sub': ('_npi_subtract', 'subtract'),
    'broadcast_mul': ('_npi_multiply', 'multiply'),
    'broadcast_div': ('_npi_true_divide', 'true_divide'),
    'broadcast_mod': ('_npi_mod', 'mod'),
    'broadcast_power': ('_npi_power', 'power'),
    'broadcast_maximum': ('_npi_maximum', 'maximum'),
    'broadcast_minimum': ('_npi_minimum', 'minimum'),
    '_plus_scalar': ('_npi_add_scalar', 'add_scalar'),
    '_minus_scalar': ('_npi_subtract_scalar', 'subtract_scalar'),
    '_rminus_scalar': ('_npi_rsubtract_scalar', 'rsubtract_scalar'),
    '_mul_scalar': ('_npi_multiply_scalar', 'multiply_scalar'),
    '_div_scalar': ('_npi_true_divide_scalar', 'true_divide_scalar'),
    '_rdiv_scalar': ('_npi_rtrue_divide_scalar', 'rtrue_divide_scalar'),
    '_mod_scalar': ('_npi_mod_scalar', 'mod_scalar'),
    '_rmod_scalar': ('_npi_rmod_scalar', 'rmod_scalar'),
    '_power_scalar': ('_npi_power_scalar', 'power_scalar'),
    '_rpower_scalar': ('_npi_rpower_scalar', 'rpower_scalar'),
    'relu': ('_npx_relu', 'relu'),
    'sigmoid': ('_npx_sigmoid', 'sigmoid'),
    'abs': ('_npi_absolute', 'abs'),
    'negative': ('_npi_negative', 'negative'),
}
for _name in (
    'exp',
    'expm1',
    'log',
    'log2',
    'log10',
    'log1p',
    'sqrt',
    'cbrt',
    'square',
    'sign',
    'floor',
    'ceil',
    'trunc',
    'rint',
    'sin',
    'cos',
    'tan',
    'arcsin',
    'arccos',
    'arctan',
    'sinh',
    'cosh',
    'tanh',
    'arcsinh',
    'arccosh',
    'arctanh',
    'reciprocal',
    'degrees',
    'radians',
):
    NP_NAMES[_name] = (f'_npi_{_name}', _name)
del _name

#: np-mode scalar operators carry MXNet's extra string attribute ``is_int``
SCALAR_OPS = {
    np_name for op, (np_name, _) in NP_NAMES.items() if op.endswith('_scalar')
}


def _register_aliases():
    for op_name, (np_name, _) in NP_NAMES.items():
        cls = REGISTRY.get(op_name)
        if cls is not None:
            REGISTRY.setdefault(np_name, cls)


_register_aliases()
