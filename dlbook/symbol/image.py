"""``sym.image``: the ``_image_<name>`` operators as symbol functions
(``sym.image.to_tensor``, ``sym.image.normalize``...)."""


def _install():
    from ..ndarray.image import _generate
    from .register import make_function

    globals().update(_generate(make_function))


_install()
