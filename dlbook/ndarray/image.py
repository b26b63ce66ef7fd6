"""``nd.image``: the ``_image_<name>`` operators (``nd.image.to_tensor``,
``normalize``, ``resize``, ``crop``, the flips and colour
augmentations; ``dlbook/ops/image.py``)."""


def _generate(make):
    from ..ops import REGISTRY

    prefix = '_image_'
    return {
        name[len(prefix) :]: make(cls, name[len(prefix) :])
        for name, cls in REGISTRY.items()
        if name.startswith(prefix)
    }


def _install():
    from .register import make_function

    globals().update(_generate(make_function))


_install()
