#!/usr/bin/python3
# example-tool.py: tools written in Python, served over MCP on stdio
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Point an MCP host at this script instead of `stagewright`, e.g. for Claude
# Desktop or VS Code:
#   {"command": "/usr/bin/python3", "args": ["/path/to/example-tool.py"]}
# From a build tree, without installing:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 bindings/python/example-tool.py
# and try it with the MCP Inspector:
#   npx @modelcontextprotocol/inspector --cli /usr/bin/python3 bindings/python/example-tool.py \
#       -e GI_TYPELIB_PATH=$PWD -e LD_LIBRARY_PATH=$PWD/.libs \
#       --method tools/call --tool-name text_stats --tool-arg text='one two'
#
# The server validates arguments against each tool's schema, wraps results in
# the Stagewright envelope ({ok, ..., _meta}), answers errors with registry
# codes, and handles cancellation and the operation timeout; a tool only does
# its own work.

import json
import signal
import sys

import gi

gi.require_version('Stagewright', '1.0')
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib, Stagewright  # noqa: E402

# GLib ≥ 2.80 moved the Unix streams to GioUnix; Debian 12 has them in Gio.
try:
    gi.require_version('GioUnix', '2.0')
    from gi.repository import GioUnix  # noqa: E402
    UnixInputStream, UnixOutputStream = GioUnix.InputStream, GioUnix.OutputStream
except (ValueError, ImportError):
    UnixInputStream, UnixOutputStream = Gio.UnixInputStream, Gio.UnixOutputStream


class TextStats(Stagewright.Tool):
    """Answers at once: counts in a text."""

    def do_invoke(self, invocation):
        # An exception escaping do_invoke would leave the call unanswered:
        # always complete the invocation.
        try:
            args = invocation.get_arguments()      # validated, defaults filled in
            text = args.get_string_member('text')
            words = text.split()
            if args.get_boolean_member('unique'):
                words = sorted(set(words))
            invocation.return_json(json.dumps({
                'characters': len(text),
                'words': len(words),
                'lines': len(text.splitlines()),
            }))
        except Exception as error:  # noqa: BLE001
            invocation.return_error_literal('INTERNAL_ERROR', str(error))


class Wait(Stagewright.Tool):
    """Answers later, without blocking: the shape of any asynchronous tool."""

    def do_invoke(self, invocation):
        ms = invocation.get_arguments().get_int_member('ms')
        source = GLib.timeout_source_new(ms)

        def done(*_user_data):
            invocation.return_json(json.dumps({'waited_ms': ms}))
            return GLib.SOURCE_REMOVE

        source.set_callback(done)
        # The thread-default context: the one the dispatcher belongs to and
        # that its blocking calls iterate, here the server's main loop.
        source.attach(GLib.MainContext.get_thread_default())
        # The client cancelled, or the operation timeout fired: stop working.
        # (Gio.Cancellable.connect is g_cancellable_connect(): it also runs
        # at once if the call is already cancelled.)
        invocation.get_cancellable().connect(lambda *_args: source.destroy())


def schema(text):
    return Stagewright.Schema.new_from_string(text)


def main():
    # fd 1 carries protocol frames only: nothing else may print there.
    GLib.log_writer_default_set_use_stderr(True)
    sys.stdout = sys.stderr

    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()          # electron_status, electron_doctor, …
    dispatcher.add_tool(TextStats(
        name='text_stats',
        title='Text statistics',
        description='Counts the characters, words and lines of a text. '
                    'Returns: {characters, words, lines}.',
        input_schema=schema('''{
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "The text to measure."},
                "unique": {"type": "boolean", "default": false,
                           "description": "Count each distinct word once."}
            },
            "required": ["text"],
            "additionalProperties": false
        }'''),
        operation_type=Stagewright.OperationType.QUERY))
    dispatcher.add_tool(Wait(
        name='wait',
        title='Wait',
        description='Waits, then answers. Returns: {waited_ms}.',
        input_schema=schema('''{
            "type": "object",
            "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 60000}},
            "required": ["ms"],
            "additionalProperties": false
        }'''),
        operation_type=Stagewright.OperationType.QUERY))

    server = Stagewright.McpServer.new(dispatcher)
    loop = GLib.MainLoop()
    cancellable = Gio.Cancellable()
    status = 0

    def on_done(server, result):
        nonlocal status
        try:
            server.run_finish(result)
        except GLib.Error as error:
            print('Serving stopped: %s' % error.message, file=sys.stderr)
            status = 1
        loop.quit()

    def on_signal():
        cancellable.cancel()
        loop.quit()
        return GLib.SOURCE_REMOVE

    for signum in (signal.SIGINT, signal.SIGTERM):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signum, on_signal)

    # Serves until the client closes stdin (or a signal arrives).
    server.run_async(UnixInputStream.new(0, False), UnixOutputStream.new(1, False),
                     cancellable, on_done)
    loop.run()
    return status


if __name__ == '__main__':
    sys.exit(main())
