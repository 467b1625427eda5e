# pynoisy.py: a Python plugin that print()s during setup and inside a tool,
# and a tool that raises SystemExit (tests/e2e/plugins.test.mjs): the
# server's stdout stays JSON-RPC, the prints land on stderr, and the exit
# becomes an error answer.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import sys

import gi

gi.require_version('Stagewright', '1.0')
from gi.repository import Stagewright  # noqa: E402

SCHEMA = '{"type": "object", "additionalProperties": false}'


class Shout(Stagewright.Tool):
    def do_invoke(self, invocation):
        print('pynoisy: tool through print')
        sys.stdout.write('pynoisy: tool through sys.stdout, no newline')
        invocation.return_json(json.dumps({'shouted': True}))


class Quit(Stagewright.Tool):
    def do_invoke(self, invocation):
        raise SystemExit(3)


class PyNoisy(Stagewright.Plugin):
    def __init__(self):
        super().__init__(name='pynoisy', version='1.0.0')
        schema = Stagewright.Schema.new_from_string(SCHEMA)
        self.add_tool(Shout(name='shout', description='Prints, then answers.', input_schema=schema))
        self.add_tool(Quit(name='quit', description='Raises SystemExit.', input_schema=schema))

    def do_setup(self, completion):
        print('pynoisy: setup through print')
        completion.return_success()
