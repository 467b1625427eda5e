# bootstrap.py: imports one Python plugin for libpython3loader.so
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Built into the loader (stw-loader-python3.c). load() never raises: it
# returns (the plugin, None) or (None, the reason),
# and prints the traceback to stderr. The plugin's vfuncs are guarded so
# that an exception in them — SystemExit included — fails the call, the
# setup or the teardown with its message instead of escaping into
# PyGObject, which would leave the call unanswered (or, for SystemExit in a
# Python host, end the process).

import importlib.util
import json
import os
import sys
import traceback


class _NotFound(ImportError):
    """No such module: the reason says it all, no traceback."""


def _reason(error):
    text = str(error)
    return '%s: %s' % (type(error).__name__, text) if text else type(error).__name__


def _print(error):
    traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
    sys.stderr.flush()


def _guard_invoke(method):
    def do_invoke(self, invocation):
        try:
            method(self, invocation)
        except BaseException as error:  # noqa: B036 (SystemExit too: see above)
            _print(error)
            if not invocation.is_completed():
                invocation.return_error_json(json.dumps({
                    'code': 'INTERNAL_ERROR',
                    'error': _reason(error),
                    'hint': 'The plugin\'s tool raised an exception; its traceback is in the server log.',
                }))
    do_invoke.__doc__ = method.__doc__
    return do_invoke


def _guard_completion(method):
    def wrapper(self, completion):
        try:
            method(self, completion)
        except BaseException as error:  # noqa: B036
            _print(error)
            if not completion.is_completed():
                completion.return_error_literal(_reason(error))
    wrapper.__doc__ = method.__doc__
    return wrapper


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _guard(Stagewright, key):
    """Wraps the vfuncs of the classes the plugin's modules define and hooks
    them up again (PyGObject hooked the unwrapped ones when the class was
    made)."""
    mine = lambda cls: cls.__module__ == key or cls.__module__.startswith(key + '.')  # noqa: E731
    for base, guards in ((Stagewright.Tool, {'do_invoke': _guard_invoke}),
                         (Stagewright.Plugin, {'do_setup': _guard_completion,
                                               'do_teardown': _guard_completion})):
        for cls in set(_subclasses(base)):
            if not mine(cls):
                continue
            guarded = False
            for name, guard in guards.items():
                method = cls.__dict__.get(name)
                if callable(method) and not getattr(method, '_stw_guarded', False):
                    wrapped = guard(method)
                    wrapped._stw_guarded = True
                    setattr(cls, name, wrapped)
                    guarded = True
            if guarded:
                cls._setup_vfuncs()


def _exec(Stagewright, key, found):
    """Imports the plugin's module, once per process: a module and the
    GTypes it registered never go, so loading the plugin again (after an
    unload) makes a new plugin from the same classes."""
    path, locations = found
    spec = importlib.util.spec_from_file_location(key, path, submodule_search_locations=locations)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[key] = loaded
    try:
        spec.loader.exec_module(loaded)
        _guard(Stagewright, key)
    except BaseException:
        del sys.modules[key]
        raise
    return loaded


def _find(module, directory):
    path = os.path.join(directory, module + '.py')
    if os.path.isfile(path):
        return path, None
    package = os.path.join(directory, module)
    path = os.path.join(package, '__init__.py')
    if os.path.isfile(path):
        return path, [package]
    raise _NotFound('neither %s.py nor %s/__init__.py in %s' % (module, module, directory))


def _import(module, directory):
    key = 'stagewright_plugin_' + module
    loaded = sys.modules.get(key)
    found = _find(module, directory) if loaded is None else None

    import gi
    gi.require_version('Stagewright', '1.0')
    from gi.repository import Stagewright

    if loaded is None:
        loaded = _exec(Stagewright, key, found)
    classes = [value for value in vars(loaded).values()
               if isinstance(value, type) and issubclass(value, Stagewright.Plugin)
               and value.__module__ == key]
    if len(classes) != 1:
        raise ImportError('%s defines %d subclasses of Stagewright.Plugin, not one'
                          % (loaded.__file__, len(classes)))
    plugin = classes[0]()
    # C takes its reference while the result holds the wrapper; from then
    # on the wrapper lives as long as C holds the plugin (toggle reference).
    return plugin


def load(module, directory):
    try:
        return (_import(module, directory), None)
    except BaseException as error:  # noqa: B036 (an import may raise SystemExit)
        if not isinstance(error, _NotFound):
            _print(error)
        return (None, _reason(error))
