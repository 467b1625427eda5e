# Stagewright's PyGObject override.
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
