# Stagewright's PyGObject override: tools and plugins that fail safely,
# Python data where the API speaks JSON, and Stagewright.launch() (below).
#
# An exception escaping a Python tool's do_invoke() would be printed and
# swallowed by PyGObject, leaving the call unanswered until the operation
# backstop fires. Tools subclassing Stagewright.Tool here answer such a
# call with INTERNAL_ERROR at once instead, and the traceback still goes to
# stderr.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import sys
import traceback

import gi
from gi._gi import CallbackInfo, Direction

from ..module import get_introspection_module
from ..overrides import override

Stagewright = get_introspection_module('Stagewright')

__all__ = []


class Tool(Stagewright.Tool):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        invoke = cls.__dict__.get('do_invoke')
        if invoke is None:
            return

        # Replaced before GObject hooks the virtual method up.
        def do_invoke(self, invocation, _invoke=invoke):
            try:
                _invoke(self, invocation)
            except Exception as error:
                traceback.print_exc(file=sys.stderr)
                if not invocation.is_completed():
                    invocation.return_error_json(json.dumps({
                        'code': 'INTERNAL_ERROR',
                        'error': f'{type(error).__name__}: {error}',
                        'hint': 'The tool raised an exception; its traceback is in the server log.',
                    }))

        do_invoke.__doc__ = invoke.__doc__
        cls.do_invoke = do_invoke


Tool = override(Tool)
__all__.append('Tool')


# The same for a plugin's setup and teardown: an exception (SystemExit
# included) fails them with its message, and the load that ran the setup
# unloads what it loaded, instead of waiting for a completion that never
# comes.
class Plugin(Stagewright.Plugin):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ('do_setup', 'do_teardown'):
            method = cls.__dict__.get(name)
            if method is None:
                continue

            def wrapper(self, completion, _method=method):
                try:
                    _method(self, completion)
                except (Exception, SystemExit) as error:
                    traceback.print_exc(file=sys.stderr)
                    if not completion.is_completed():
                        completion.return_error_literal(f'{type(error).__name__}: {error}')

            wrapper.__doc__ = method.__doc__
            setattr(cls, name, wrapper)


Plugin = override(Plugin)
__all__.append('Plugin')


# Native data: where a method of the objects below takes JSON it also takes
# dicts and lists (or, for a `…_json` string, any JSON-serializable value),
# and where it answers JSON (a Json.Node, Json.Object or Json.Array, alone or
# in the tuple of its out values) it answers dicts, lists and scalars. Which
# arguments are JSON is read from the typelib, so methods the library gains
# later are covered as they appear. The MCP-facing classes (Dispatcher,
# Invocation, Tool) keep Json types: their JSON is the wire.

gi.require_version('Json', '1.0')
from gi.repository import GLib, Json  # noqa: E402

_NATIVE_CLASSES = ('SessionManager', 'Session', 'Surface', 'Snapshot')
_JSON_TYPES = ('Object', 'Array', 'Node')


def _to_python(value):
    if isinstance(value, tuple):
        return tuple(_to_python(item) for item in value)
    if isinstance(value, Json.Object):
        value = Json.Node.alloc().init_object(value)
    elif isinstance(value, Json.Array):
        value = Json.Node.alloc().init_array(value)
    elif not isinstance(value, Json.Node):
        return value
    return json.loads(Json.to_string(value, False))


def _to_node(value):
    return Json.from_string(json.dumps(value))


def _converter(arg):
    """How a Python value becomes what an argument wants, or None."""
    kind = arg.get_type()
    tag = kind.get_tag_as_string()
    if tag == 'utf8':
        name = arg.get_name()
        if name == 'json' or name.endswith('_json'):
            return lambda value: value if value is None or isinstance(value, str) else json.dumps(value)
        return None
    if tag != 'interface':
        return None
    iface = kind.get_interface()
    namespace, name = iface.get_namespace(), iface.get_name()
    if namespace == 'Json' and name in _JSON_TYPES:
        wanted = getattr(Json, name)
        getter = {'Object': 'get_object', 'Array': 'get_array', 'Node': None}[name]

        def convert(value):
            if value is None or isinstance(value, wanted):
                return value
            node = _to_node(value)
            return node if getter is None else getattr(node, getter)()
        return convert
    if namespace == 'Stagewright' and hasattr(getattr(Stagewright, name, None), 'new_from_json'):
        # An options or state type built from a dict (LaunchOptions,
        # SnapshotOptions, ElementState…), through its own constructor.
        wanted = getattr(Stagewright, name)

        def build(value):
            if not isinstance(value, (dict, str)):
                return value
            constructor = getattr(globals().get(name, wanted), 'new_from_json')
            return constructor(value)
        return build
    return None


def _visible_in_args(info):
    """The arguments a Python caller passes, in order (PyGObject hides out
    arguments, array lengths and a callback's user data and destroy)."""
    args = info.get_arguments()
    hidden = set()
    for arg in args:
        kind = arg.get_type()
        if kind.get_tag_as_string() == 'array' and kind.get_array_length() >= 0:
            hidden.add(kind.get_array_length())
        if kind.get_tag_as_string() == 'interface' and isinstance(kind.get_interface(), CallbackInfo):
            hidden.update(i for i in (arg.get_closure(), arg.get_destroy()) if i >= 0)
    return [arg for index, arg in enumerate(args)
            if index not in hidden and arg.get_direction() != Direction.OUT]


def _wrap(function, info, convert_result):
    visible = _visible_in_args(info)
    converters = [(index, arg.get_name(), _converter(arg)) for index, arg in enumerate(visible)]
    converters = [(index, name, convert) for index, name, convert in converters if convert is not None]
    if not converters and not convert_result:
        return None
    offset = 1 if info.is_method() else 0  # self

    def wrapper(*args, **kwargs):
        args = list(args)
        for index, name, convert in converters:
            if index + offset < len(args):
                args[index + offset] = convert(args[index + offset])
            elif name in kwargs:
                kwargs[name] = convert(kwargs[name])
        result = function(*args, **kwargs)
        return _to_python(result) if convert_result else result

    wrapper.__name__ = info.get_name()
    wrapper.__doc__ = getattr(function, '__doc__', None)
    return wrapper


def _nativize(cls, convert_results):
    """Wraps the methods of an override class whose arguments or results are JSON."""
    base = cls.__mro__[1]
    for info in base.__info__.get_methods():
        name = info.get_name()
        if name in cls.__dict__ or not hasattr(base, name):
            continue
        if info.is_method():
            wrapper = _wrap(getattr(base, name), info, convert_results)
        else:
            # Constructors and static functions: take dicts, answer as the library does.
            wrapper = _wrap(getattr(base, name), info, False)
            wrapper = staticmethod(wrapper) if wrapper is not None else None
        if wrapper is not None:
            setattr(cls, name, wrapper)
    return cls


class Session(Stagewright.Session):
    """A running app; also a context manager that stops it on exit."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        if self.is_running():
            self.stop_sync(5000, None)
        return False


Session = override(_nativize(Session, True))
__all__.append('Session')

class Screenshot(Stagewright.Screenshot):
    """A captured image; bytes(screenshot) is the encoded PNG or JPEG."""

    def __bytes__(self):
        return self.get_bytes().get_data()


Screenshot = override(Screenshot)
__all__.append('Screenshot')

for _name in _NATIVE_CLASSES + ('LaunchOptions', 'SnapshotOptions', 'ScreenshotOptions', 'ElementState'):
    if _name in globals() or not hasattr(Stagewright, _name):
        continue
    _base = getattr(Stagewright, _name)
    if not hasattr(_base, '__info__') or not hasattr(_base.__info__, 'get_methods'):
        continue
    _cls = type(_name, (_base,), {'__module__': __name__})
    globals()[_name] = override(_nativize(_cls, _name in _NATIVE_CLASSES))
    __all__.append(_name)
del _name, _base, _cls


def _wait(start, finish):
    """Runs an _async/_finish pair to its end on the thread-default context,
    as the library's own blocking calls do."""
    box = []
    start(lambda source, result, *data: box.append(result))
    context = GLib.MainContext.ref_thread_default()
    while not box:
        context.iteration(True)
    return finish(box[0])


_default_manager = None


def launch(*, manager=None, env=None, cancellable=None, **options):
    """Launches an app and answers its Stagewright.Session.

    The keywords are the properties of Stagewright.LaunchOptions
    (executable_path, main, args, cwd, timeout, ready_timeout, runtime…)
    plus env, a dict of extra environment. The session is a context
    manager: `with Stagewright.launch(…) as session:` stops the app when
    the block ends, also when it raises."""
    global _default_manager
    if manager is None:
        if _default_manager is None:
            _default_manager = Stagewright.SessionManager.new()
        manager = _default_manager
    launch_options = Stagewright.LaunchOptions(**options)
    for key, value in (env or {}).items():
        launch_options.setenv(key, value)
    return _wait(lambda done: manager.launch_async(launch_options, cancellable, done),
                 manager.launch_finish)


__all__.append('launch')
