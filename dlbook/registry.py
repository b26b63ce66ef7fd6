"""Name registries for initializers and metrics (MXNet's ``mx.registry``).

``mx.init.create('xavier')`` and ``mx.metric.create('acc')`` look a class
up by a case-insensitive name.  Each family (``'initializer'``,
``'metric'``) keeps its own table; these helpers build the ``register``,
``alias`` and ``create`` functions of a family, with the behaviour of
``apache/mxnet@1.9.1:python/mxnet/registry.py``: ``create`` accepts an
instance (returned as is), a name, a JSON string ``'["name", {kwargs}]'``
or ``'{"name": ..., kwargs}'``, or a dict of keyword arguments.
"""

import json
import warnings

__all__ = ['get_register_func', 'get_alias_func', 'get_create_func',
           'get_registry']

_REGISTRY = {}


def get_registry(base_class):
    """A copy of the name -> class table of one family."""
    return dict(_REGISTRY.get(base_class, {}))


def get_register_func(base_class, nickname):
    """Build ``register(klass, name=None)`` for one family.

    Parameters
    ----------
    base_class : type
        Registered classes must subclass it.
    nickname : str
        The family's name in messages (``'initializer'``, ``'metric'``).
    """
    registry = _REGISTRY.setdefault(base_class, {})

    def register(klass, name=None):
        assert issubclass(klass, base_class), \
            f'Can only register subclass of {base_class.__name__}'
        name = (klass.__name__ if name is None else name).lower()
        if name in registry and registry[name] is not klass:
            old = registry[name]
            warnings.warn(
                f'New {nickname} {klass.__module__}.{klass.__name__} '
                f'registered with name {name} is overriding existing '
                f'{nickname} {old.__module__}.{old.__name__}',
                UserWarning, stacklevel=2)
        registry[name] = klass
        return klass

    register.__doc__ = f'Register {nickname} to the {nickname} factory'
    return register


def get_alias_func(base_class, nickname):
    """Build the ``@alias('name', ...)`` class decorator of one family."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg

    return alias


def get_create_func(base_class, nickname):
    """Build ``create(name_or_instance, *args, **kwargs)`` of one family."""
    registry = _REGISTRY.setdefault(base_class, {})

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                f'{nickname} is already an instance. Additional arguments ' \
                f'are invalid'
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, str), f'{nickname} must be of string type'
        if name.startswith('['):
            assert not args and not kwargs
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith('{'):
            assert not args and not kwargs
            return create(**json.loads(name))
        name = name.lower()
        assert name in registry, \
            f'{name} is not registered. Please register with ' \
            f'{nickname}.register first'
        return registry[name](*args, **kwargs)

    create.__doc__ = f'Create a {nickname} instance from config.'
    return create
