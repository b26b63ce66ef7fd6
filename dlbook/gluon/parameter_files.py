"""Parameter files: ``ParameterDict.save`` and ``ParameterDict.load``.

A parameter file is an ``nd.save`` dictionary from full parameter names
(``dense0_weight``) to arrays, MXNet's legacy ``save_params`` format;
``Block.save_parameters`` writes the same format under structural names
(``0.weight``).  Each parameter is saved as the mean of its device
copies (``Parameter._reduce``).  Loading is all-or-nothing: every array
is checked against its parameter (``Parameter._check_loadable``) before
any is assigned (``Parameter._load_init``).
"""

from .. import ndarray as nd
from ..base import DLBookError


def _brief_print_list(lst, limit=7):
    """``'a', 'b', ..., 'z'`` for long lists in error messages."""
    lst = list(lst)
    if len(lst) > limit:
        return (
            _brief_print_list(lst[: limit // 2], limit)
            + ', ..., '
            + _brief_print_list(lst[-limit // 2 :], limit)
        )
    return ', '.join(f"'{s}'" for s in lst)


def save_parameter_dict(params, filename, strip_prefix=''):
    """Save the ParameterDict ``params`` to ``filename`` (see
    :meth:`ParameterDict.save`)."""
    arg_dict = {}
    for param in params.values():
        if not param.name.startswith(strip_prefix):
            raise DLBookError(
                f"Prefix '{strip_prefix}' is to be striped before "
                f"saving, but Parameter's name '{param.name}' does not "
                f"start with '{strip_prefix}'."
            )
        arg_dict[param.name[len(strip_prefix) :]] = param._reduce()
    nd.save(filename, arg_dict)


def load_parameter_dict(
    params,
    filename,
    ctx=None,
    allow_missing=False,
    ignore_extra=False,
    restore_prefix='',
    cast_dtype=False,
    dtype_source='current',
):
    """Load ``filename`` into the ParameterDict ``params`` (see
    :meth:`ParameterDict.load`)."""
    loaded = nd.load(filename)
    if not isinstance(loaded, dict):
        raise DLBookError(
            f"file '{filename}' holds a list of arrays, not named parameters"
        )
    arg_dict = {
        restore_prefix + k.split(':', 1)[-1]: v for k, v in loaded.items()
    }
    if not allow_missing:
        for name in params.keys():
            if name not in arg_dict:
                raise DLBookError(
                    f"Parameter '{name[len(restore_prefix) :]}' is "
                    f"missing in file '{filename}', which contains "
                    f"parameters: {_brief_print_list(arg_dict)}. Please "
                    f"make sure source and target networks have the "
                    f"same prefix. Set allow_missing=True to ignore "
                    f"missing parameters."
                )
    for name, value in arg_dict.items():  # check all, then assign
        if name in params:
            params[name]._check_loadable(value, cast_dtype, dtype_source)
        elif not ignore_extra:
            raise DLBookError(
                f"Parameter '{name[len(restore_prefix) :]}' loaded "
                f"from file '{filename}' is not present in "
                f"ParameterDict, choices are: "
                f"{_brief_print_list(params.keys())}. Set "
                f"ignore_extra=True to ignore. Please make sure "
                f"source and target networks have the same prefix."
            )
    for name, value in arg_dict.items():
        if name in params:
            params[name]._load_init(
                value,
                ctx,
                cast_dtype=cast_dtype,
                dtype_source=dtype_source,
            )
