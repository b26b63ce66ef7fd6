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

from .base import UsageError

__all__ = [
    'get_register_func',
    'get_alias_func',
    'get_create_func',
    'get_registry',
]

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
        if not (isinstance(klass, type) and issubclass(klass, base_class)):
            raise UsageError(
                f'Can only register subclass of '
                f'{base_class.__name__}, got {klass!r}.'
            )
        name = (klass.__name__ if name is None else name).lower()
        if name in registry and registry[name] is not klass:
            old = registry[name]
            warnings.warn(
                f'New {nickname} {klass.__module__}.{klass.__name__} '
                f'registered with name {name} is overriding existing '
                f'{nickname} {old.__module__}.{old.__name__}',
                UserWarning,
                stacklevel=2,
            )
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
            if args or kwargs:
                raise UsageError(
                    f'{nickname} is already an instance. '
                    f'Additional arguments are invalid: pass '
                    f'them to its constructor instead.'
                )
            return name
        if isinstance(name, dict):
            return create(**name)
        if not isinstance(name, str):
            raise UsageError(
                f'{nickname} must be of string type, got '
                f'{type(name).__name__} {name!r}.'
            )
        if name.startswith(('[', '{')) and (args or kwargs):
            raise UsageError(
                f'{nickname}: a JSON description ({name!r}) '
                f'already holds the arguments; additional '
                f'arguments are invalid.'
            )
        if name.startswith('['):
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith('{'):
            return create(**json.loads(name))
        name = name.lower()
        if name not in registry:
            raise UsageError(
                f'{name} is not registered. Please register '
                f'with {nickname}.register first (registered: '
                f'{", ".join(sorted(registry))}).'
            )
        return registry[name](*args, **kwargs)

    create.__doc__ = f'Create a {nickname} instance from config.'
    return create
