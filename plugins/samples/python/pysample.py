# pysample.py: the sample Python plugin — reads the active window's title
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Beside it, pysample.plugin says `Loader=python3`. The server imports this
# file in the Python it embeds (Debian's python3, with PyGObject) and makes
# the one Stagewright.Plugin subclass it defines. Load it with
# `stagewright --plugin pysample` (its directory in STAGEWRIGHT_PLUGIN_PATH)
# or `--plugin /abs/path/pysample.plugin`; a Python program loads it into
# its own dispatcher with `dispatcher.load_plugins_sync(['pysample'], …)`.

import json

import gi

gi.require_version('Stagewright', '1.0')
from gi.repository import Stagewright  # noqa: E402

INPUT = '''{"type": "object", "properties": {
  "sessionId": {"type": "string"},
  "expect": {"type": "string"}},
 "additionalProperties": false}'''

CONFIG = '''{"type": "object", "properties": {
  "prefix": {"type": "string", "default": "", "x-stagewright-safe": true}},
 "additionalProperties": false}'''


class TitleTool(Stagewright.Tool):
    """`title` here, `pysample_title` to agents."""

    def __init__(self):
        super().__init__(name='title',
                         title='Active window title',
                         description='Read the title of the app\'s active window; with expect, '
                                     'fail with pysample.TITLE_MISMATCH unless it is that.',
                         input_schema=Stagewright.Schema.new_from_string(INPUT),
                         operation_type=Stagewright.OperationType.QUERY,
                         error_codes=['NO_WINDOW', 'TITLE_MISMATCH', 'NOT_RUNNING'],
                         idempotent_hint=True,
                         session_requirement=Stagewright.SessionRequirement.REQUIRED)

    def do_invoke(self, invocation):
        session = invocation.get_session()
        window = session.get_active_window() if session is not None else None
        if window is None:
            invocation.return_error_literal('pysample.NO_WINDOW', 'The app has no active window')
            return

        arguments = invocation.get_arguments()
        expect = arguments.get_string_member('expect') if arguments.has_member('expect') else None
        # The plugin through the dispatcher: a reference from the tool, which
        # the plugin owns, would be a cycle through C that is never collected.
        config = invocation.get_dispatcher().lookup_plugin('pysample').get_config()
        prefix = config.get_string_member('prefix') if config.has_member('prefix') else ''
        title = window.get_title() or ''
        if expect is not None and expect != title:
            invocation.return_error_json(json.dumps({
                'code': 'pysample.TITLE_MISMATCH',
                'error': 'The active window is titled “%s”, not “%s”' % (title, expect),
                'details': {'expected': expect, 'actual': title},
            }))
            return
        invocation.return_json(json.dumps({'title': title, 'label': prefix + title,
                                           'surfaceId': window.get_id()}))


class PySamplePlugin(Stagewright.Plugin):
    def __init__(self):
        super().__init__(name='pysample', version='1.0.0',
                         config_schema=Stagewright.Schema.new_from_string(CONFIG))
        self.add_error_code('NO_WINDOW', 404, False, 'The app has no window yet; wait for one.')
        self.add_error_code('TITLE_MISMATCH', 409, True,
                            'The title differs; wait for the app to update it and retry.')
        self.add_tool(TitleTool())

    def do_setup(self, completion):
        # A real plugin would open what it needs here, possibly from a
        # callback later; the call ends when the completion is completed.
        completion.return_success()
