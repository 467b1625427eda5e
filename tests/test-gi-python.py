#!/usr/bin/python3
# test-gi-python.py: the library through GObject Introspection, from Python
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP.
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-python.py
#
# What a Python tool author must know, and what these tests pin down:
# - A tool is a Stagewright.Tool subclass implementing do_invoke(invocation);
#   it completes the invocation exactly once, now or later, with
#   return_json()/return_value() or return_error_literal()/return_error().
# - Dispatcher.call_json_sync() and call_sync() follow the library's one
#   blocking-call policy: they iterate the main context that was thread-default
#   when the dispatcher was made (for a script: the global default context)
#   until the call completes. A tool that completes later may therefore use
#   GLib.timeout_add()/idle_add() or MainContext.get_thread_default(): both
#   work from a sync call and under a GLib.MainLoop (the MCP server,
#   invoke_async), and scripts may mix blocking and asynchronous calls.
# - An exception escaping do_invoke is printed by PyGObject and swallowed:
#   the call is then never completed. Catch and return_error_literal().
# - Tools arrive one by one (add_tool) or as a Stagewright.ToolProvider: a
#   named set of tools plus the error codes they add (`<name>.CODE`),
#   registered while the provider is in a dispatcher. Fill it (or subclass
#   it and fill it in __init__), then dispatcher.add_provider(provider).
# - A tool that acts on a session says so (session_requirement); the
#   dispatcher resolves it and invocation.get_session() hands it over.

import faulthandler
import io
import json
import math
import os
import sys
import traceback

# A GLib critical (a failed precondition in the library) aborts the run: it
# is a bug even when the envelope looks right. Set before GLib is loaded.
os.environ['G_DEBUG'] = ','.join(filter(None, [os.environ.get('G_DEBUG'), 'fatal-criticals']))

import gi  # noqa: E402

gi.require_version('Stagewright', '1.0')
gi.require_version('Json', '1.0')
from gi.repository import GLib, Json, Stagewright  # noqa: E402

# A hung call (a source on the wrong context) must fail the test, not hang it.
faulthandler.dump_traceback_later(30, exit=True)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def envelope_of(text):
    assert isinstance(text, str), text
    envelope = json.loads(text)
    meta = envelope['_meta']
    assert meta['elapsed_ms'] >= 0, meta
    # ceil(code points / 4) of the serialization without _meta, which the
    # library appends last.
    head, sep, _ = text.rpartition(',"_meta":')
    assert sep, text
    assert meta['estimated_tokens'] == math.ceil(len(head + '}') / 4), (meta, text)
    return envelope


GREET_SCHEMA = '''{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "punctuation": {"type": "string", "default": "!"}
  },
  "required": ["name"],
  "additionalProperties": false
}'''


class Greet(Stagewright.Tool):
    def do_invoke(self, invocation):
        args = invocation.get_arguments()
        greeting = 'Hello, %s%s' % (args.get_string_member('name'),
                                   args.get_string_member('punctuation'))
        invocation.return_json(json.dumps({'greeting': greeting}))


class NotRunning(Stagewright.Tool):
    def do_invoke(self, invocation):
        invocation.return_error_literal('NOT_RUNNING', 'x')


class RaisesGError(Stagewright.Tool):
    def do_invoke(self, invocation):
        error = GLib.Error.new_literal(Stagewright.error_quark(), 'the window went away',
                                       int(Stagewright.Error.SURFACE_CLOSED))
        invocation.return_error(error)


class Later(Stagewright.Tool):
    """Completes 50 ms later, from a source on the thread-default context."""

    def do_invoke(self, invocation):
        source = GLib.timeout_source_new(50)

        def done(*user_data):
            invocation.return_json('{"waited": true}')
            return GLib.SOURCE_REMOVE

        source.set_callback(done)
        source.attach(GLib.MainContext.get_thread_default())


class Echo(Stagewright.Tool):
    def do_invoke(self, invocation):
        invocation.return_value(invocation.get_arguments())


def new_greet():
    return Greet(name='greet',
                 title='Greet',
                 description='Greets someone by name.',
                 input_schema=Stagewright.Schema.new_from_string(GREET_SCHEMA),
                 operation_type=Stagewright.OperationType.QUERY,
                 error_codes=['NOT_RUNNING'])


def simple(cls, name, **kwargs):
    return cls(name=name, description='%s, a test tool.' % name,
               operation_type=kwargs.pop('operation_type', Stagewright.OperationType.QUERY), **kwargs)


@test
def python_tool_metadata():
    tool = new_greet()
    assert tool.get_name() == 'greet'
    assert tool.get_title() == 'Greet'
    assert tool.get_operation_type() == Stagewright.OperationType.QUERY
    assert tool.get_read_only_hint() is True
    assert list(tool.get_error_codes()) == ['NOT_RUNNING']
    assert 'NOT_RUNNING' in tool.dup_agent_description()
    schema = json.loads(Json.to_string(tool.get_input_schema().get_node(), False))
    assert schema['required'] == ['name'], schema


@test
def tool_added_and_removed_signals():
    dispatcher = Stagewright.Dispatcher.new()
    added, removed = [], []
    dispatcher.connect('tool-added', lambda d, tool: added.append(tool.get_name()))
    dispatcher.connect('tool-removed', lambda d, tool: removed.append(tool.get_name()))
    assert dispatcher.add_tool(new_greet())
    assert added == ['greet'], added
    assert dispatcher.lookup_tool('greet').get_name() == 'greet'
    assert dispatcher.remove_tool('greet')
    assert removed == ['greet'], removed
    assert dispatcher.lookup_tool('greet') is None


@test
def call_python_tool_json_sync():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(new_greet())
    envelope = envelope_of(dispatcher.call_json_sync('greet', '{"name":"Ada"}', None))
    # Schema defaults are filled in before the tool runs.
    assert envelope['ok'] is True, envelope
    assert envelope['greeting'] == 'Hello, Ada!', envelope
    assert set(envelope) == {'ok', 'greeting', '_meta'}, envelope


@test
def call_sync_with_json_objects():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Echo, 'echo', input_schema=Stagewright.Schema.new_from_string(
        '{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}}}')))
    arguments = Json.from_string('{"n": 42, "s": "\u00e9\U0001F600"}').get_object()
    envelope = dispatcher.call_sync('echo', arguments, None)
    assert isinstance(envelope, Json.Object)
    assert Stagewright.envelope_is_ok(envelope)
    assert envelope.get_int_member('n') == 42
    assert envelope.get_string_member('s') == '\u00e9\U0001F600'
    envelope_of(Stagewright.envelope_to_string(envelope))


@test
def bad_arguments_are_bad_argument():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(new_greet())
    envelope = envelope_of(dispatcher.call_json_sync('greet', '{"name":"Ada","bogus":1}', None))
    assert envelope['ok'] is False
    assert envelope['code'] == 'BAD_ARGUMENT', envelope
    assert envelope['http'] == 400 and envelope['retryable'] is False, envelope
    issues = envelope['details']['issues']
    assert issues[0]['field'] == 'bogus' and issues[0]['code'] == 'unrecognized_keys', issues
    envelope = envelope_of(dispatcher.call_json_sync('greet', '{"name":""}', None))
    assert envelope['code'] == 'BAD_ARGUMENT'
    assert envelope['details']['issues'][0]['field'] == 'name', envelope


@test
def arguments_that_are_not_an_object_raise():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(new_greet())
    try:
        dispatcher.call_json_sync('greet', '[1, 2]', None)
    except GLib.Error as error:
        assert error.matches(Stagewright.error_quark(), int(Stagewright.Error.BAD_ARGUMENT)), error
    else:
        raise AssertionError('no GLib.Error')


@test
def unknown_tool_raises():
    dispatcher = Stagewright.Dispatcher.new()
    try:
        dispatcher.call_json_sync('no_such_tool', None, None)
    except GLib.Error as error:
        assert error.domain == GLib.quark_to_string(Stagewright.error_quark()), error.domain
        assert error.code == int(Stagewright.Error.BAD_ARGUMENT), error
    else:
        raise AssertionError('no GLib.Error')


@test
def return_error_literal_envelope():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(NotRunning, 'not_running', error_codes=['NOT_RUNNING']))
    envelope = envelope_of(dispatcher.call_json_sync('not_running', None, None))
    assert envelope['ok'] is False
    assert envelope['code'] == 'NOT_RUNNING', envelope
    assert envelope['error'] == 'x', envelope
    assert envelope['http'] == 409, envelope
    assert envelope['retryable'] is False, envelope
    assert envelope['hint'], envelope


@test
def return_error_json_carries_hint_details_and_next_actions():
    class Rich(Stagewright.Tool):
        def do_invoke(self, invocation):
            invocation.return_error_json(json.dumps({
                'code': 'REF_NOT_FOUND', 'error': 'stale ref 7', 'hint': 'take a snapshot',
                'details': {'ref': 7}, 'next_actions': ['electron_snapshot()'],
                'similar_refs': [{'ref': 8, 'role': 'button', 'name': 'Save'}]}))

    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Rich, 'rich', error_codes=['REF_NOT_FOUND']))
    envelope = envelope_of(dispatcher.call_json_sync('rich', None, None))
    assert envelope['code'] == 'REF_NOT_FOUND' and envelope['http'] == 404, envelope
    assert envelope['error'] == 'stale ref 7' and envelope['hint'] == 'take a snapshot', envelope
    assert envelope['details'] == {'ref': 7}, envelope
    assert envelope['next_actions'] == ['electron_snapshot()'], envelope
    assert envelope['similar_refs'] == [{'ref': 8, 'role': 'button', 'name': 'Save'}], envelope


@test
def an_exception_in_do_invoke_answers_internal_error_at_once():
    # The override (bindings/python/gi/overrides/Stagewright.py) must be in
    # use: without it the call would wait for the 120 s backstop.
    class Broken(Stagewright.Tool):
        def do_invoke(self, invocation):
            raise ValueError('boom')

    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.set_operation_timeout_ms(5000)
    dispatcher.add_tool(simple(Broken, 'broken'))
    stderr = sys.stderr
    sys.stderr = io.StringIO()
    try:
        envelope = envelope_of(dispatcher.call_json_sync('broken', None, None))
        logged = sys.stderr.getvalue()
    finally:
        sys.stderr = stderr
    assert envelope['code'] == 'INTERNAL_ERROR', envelope
    assert envelope['error'] == 'ValueError: boom', envelope
    assert envelope['_meta']['elapsed_ms'] < 1000, envelope
    assert 'ValueError: boom' in logged, logged


@test
def return_error_with_a_glib_error():
    # A GLib.Error in the Stagewright domain keeps its code through PyGObject.
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(RaisesGError, 'raises', error_codes=['SURFACE_CLOSED']))
    envelope = envelope_of(dispatcher.call_json_sync('raises', None, None))
    assert envelope['code'] == 'SURFACE_CLOSED', envelope
    assert envelope['error'] == 'the window went away', envelope
    code_name = Stagewright.error_code_to_string(Stagewright.Error.SURFACE_CLOSED)
    assert code_name == 'SURFACE_CLOSED'


@test
def asynchronous_tool_on_the_thread_default_context():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Later, 'later'))
    envelope = envelope_of(dispatcher.call_json_sync('later', None, None))
    assert envelope['ok'] is True and envelope['waited'] is True, envelope
    assert envelope['_meta']['elapsed_ms'] >= 40, envelope


@test
def invoke_async_under_a_main_loop():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Later, 'later'))
    dispatcher.add_tool(new_greet())
    loop = GLib.MainLoop()
    results = {}

    def on_done(source, result, name):
        results[name] = source.invoke_finish(result)
        if len(results) == 2:
            loop.quit()

    for name, args in (('later', '{}'), ('greet', '{"name":"Grace"}')):
        invocation = dispatcher.create_invocation(name, Json.from_string(args).get_object())
        dispatcher.invoke_async(invocation, None, on_done, name)
    GLib.timeout_add_seconds(10, loop.quit)
    loop.run()
    assert set(results) == {'later', 'greet'}, results
    assert results['later'].get_boolean_member('waited')
    assert results['greet'].get_string_member('greeting') == 'Hello, Grace!'


@test
def call_started_and_finished_signals():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(new_greet())
    seen = []
    dispatcher.connect('call-started', lambda d, inv: seen.append(('started', inv.get_tool().get_name())))
    dispatcher.connect('call-finished',
                       lambda d, inv, env: seen.append(('finished', Stagewright.envelope_is_ok(env))))
    dispatcher.call_json_sync('greet', '{"name":"Ada"}', None)
    assert seen == [('started', 'greet'), ('finished', True)], seen


@test
def core_tools_electron_status():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    envelope = envelope_of(dispatcher.call_json_sync('electron_status', None, None))
    assert envelope['ok'] is True, envelope
    assert envelope['server']['version'] == Stagewright.VERSION_S, envelope
    assert envelope['server']['tool_profile'] == 'full', envelope
    assert envelope['active_sessions'] == 0 and envelope['sessions'] == [], envelope


@test
def error_registry_from_python():
    registry = Stagewright.ErrorRegistry.get_default()
    found, http, retryable, hint = registry.lookup('NOT_RUNNING')
    assert found is True
    assert http == 409, http
    assert retryable is False
    assert hint
    found, http, retryable, _ = registry.lookup('CDP_TIMEOUT')
    assert found and retryable is True, (http, retryable)
    assert registry.lookup('NO_SUCH_CODE')[0] is False
    assert registry.contains('BAD_ARGUMENT')
    codes = registry.list_codes()
    assert len(codes) >= 35 and 'INTERNAL_ERROR' in codes, codes
    ok, code = Stagewright.error_code_from_string('WAIT_TIMEOUT')
    assert ok and code == Stagewright.Error.WAIT_TIMEOUT


@test
def tool_profile_hides_doctor():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    names = [tool.get_name() for tool in dispatcher.list_tools()]
    assert names == sorted(names) and 'electron_doctor' in names, names
    dispatcher.set_tool_profile(Stagewright.ToolProfile.ESSENTIAL)
    assert dispatcher.get_tool_profile() == Stagewright.ToolProfile.ESSENTIAL
    names = [tool.get_name() for tool in dispatcher.list_tools()]
    assert 'electron_doctor' not in names and 'electron_status' in names, names
    assert not dispatcher.is_tool_visible(dispatcher.lookup_tool('electron_doctor'))
    envelope = envelope_of(dispatcher.call_json_sync('electron_doctor', None, None))
    assert envelope['code'] == 'BAD_ARGUMENT', envelope
    assert any('debug' in action for action in envelope['next_actions']), envelope


@test
def invalid_tool_is_refused_at_registration():
    dispatcher = Stagewright.Dispatcher.new()
    try:
        dispatcher.add_tool(simple(Echo, 'Not-A-Name'))
    except GLib.Error as error:
        assert 'Not-A-Name' in error.message, error.message
    else:
        raise AssertionError('an invalid tool name was accepted')
    assert dispatcher.list_tools() == []


@test
def eval_guard_in_python():
    class Eval(Stagewright.Tool):
        def do_invoke(self, invocation):
            invocation.return_json('{"ran": true}')

    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(Eval(name='py_eval', description='Evaluates code.',
                             input_schema=Stagewright.Schema.new_from_string(
                                 '{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}'),
                             operation_type=Stagewright.OperationType.EVAL,
                             eval_target=Stagewright.EvalTarget.RENDERER,
                             code_argument='code'))
    envelope = envelope_of(dispatcher.call_json_sync('py_eval', '{"code":"1"}', None))
    assert envelope['code'] == 'BAD_ARGUMENT' and '--allow-eval' in envelope['error'], envelope

    dispatcher.set_allow_eval(Stagewright.EvalTarget.RENDERER)
    seen = []

    def guard(dispatcher, tool, arguments, data):
        seen.append((tool.get_name(), arguments.get_string_member('code'), data))
        if 'forbidden' in arguments.get_string_member('code'):
            raise GLib.Error.new_literal(Stagewright.error_quark(), 'refused by the guard',
                                         int(Stagewright.Error.EVAL_BLOCKED_CONSTRUCT))
        return True

    dispatcher.set_eval_guard(guard, 'data')
    assert envelope_of(dispatcher.call_json_sync('py_eval', '{"code":"1"}', None))['ok'] is True
    envelope = envelope_of(dispatcher.call_json_sync('py_eval', '{"code":"forbidden()"}', None))
    assert envelope['code'] == 'EVAL_BLOCKED_CONSTRUCT', envelope
    assert seen == [('py_eval', '1', 'data'), ('py_eval', 'forbidden()', 'data')], seen
    dispatcher.set_eval_guard(None, None)
    assert envelope_of(dispatcher.call_json_sync('py_eval', '{"code":"forbidden()"}', None))['ok'] is True


@test
def a_source_on_the_default_context_runs_during_a_sync_call():
    # A script's dispatcher belongs to the global default context, so a
    # tool that answers from GLib.timeout_add() completes a blocking call.
    # (Before the blocking-call policy, call_json_sync() ran a private context
    # and such a tool only ended through the operation backstop.)
    class Later(Stagewright.Tool):
        def do_invoke(self, invocation):
            GLib.timeout_add(20, lambda: invocation.return_json('{"late": true}') or False)

    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Later, 'later'))
    dispatcher.set_operation_timeout_ms(5000)
    started = GLib.get_monotonic_time()
    envelope = envelope_of(dispatcher.call_json_sync('later', None, None))
    assert envelope['ok'] is True and envelope['late'] is True, envelope
    assert GLib.get_monotonic_time() - started < 2000000, 'answered by the timeout, not the backstop'


class Refuse(Stagewright.Tool):
    def do_invoke(self, invocation):
        invocation.return_error_literal('demo.NO_GREETING', 'nobody to greet')


class DemoProvider(Stagewright.ToolProvider):
    """A provider written in Python: two tools and the error code they add."""

    def __init__(self, name='demo'):
        super().__init__(name=name)
        self.add_error_code('NO_GREETING', 404, False, 'Say who to greet.')
        self.add_tool(Greet(name=name + '_greet', description='Greets someone by name.',
                            input_schema=Stagewright.Schema.new_from_string(GREET_SCHEMA),
                            operation_type=Stagewright.OperationType.QUERY))
        self.add_tool(Refuse(name=name + '_refuse', description='Never greets.',
                             operation_type=Stagewright.OperationType.QUERY,
                             error_codes=['demo.NO_GREETING']))


@test
def a_python_provider_adds_tools_and_an_error_code():
    registry = Stagewright.ErrorRegistry.get_default()
    provider = DemoProvider()
    assert provider.get_name() == 'demo'
    assert [tool.get_name() for tool in provider.list_tools()] == ['demo_greet', 'demo_refuse']
    assert not registry.contains('demo.NO_GREETING')

    dispatcher = Stagewright.Dispatcher.new()
    added, removed = [], []
    dispatcher.connect('tool-added', lambda d, tool: added.append(tool.get_name()))
    dispatcher.connect('tool-removed', lambda d, tool: removed.append(tool.get_name()))
    assert dispatcher.add_provider(provider)
    assert added == ['demo_greet', 'demo_refuse'], added
    assert provider.is_in_use() and dispatcher.lookup_provider('demo') == provider
    found, http, retryable, hint = registry.lookup('demo.NO_GREETING')
    assert (found, http, retryable, hint) == (True, 404, False, 'Say who to greet.')

    greeted = envelope_of(dispatcher.call_json_sync('demo_greet', '{"name":"Ada"}', None))
    assert greeted['greeting'] == 'Hello, Ada!', greeted
    refused = envelope_of(dispatcher.call_json_sync('demo_refuse', None, None))
    assert refused['code'] == 'demo.NO_GREETING' and refused['http'] == 404, refused
    assert refused['hint'] == 'Say who to greet.' and refused['retryable'] is False, refused
    assert 'demo.NO_GREETING' in dispatcher.lookup_tool('demo_refuse').dup_agent_description()

    assert dispatcher.remove_provider(provider)
    assert sorted(removed) == ['demo_greet', 'demo_refuse'], removed
    assert dispatcher.list_tools() == []
    assert not registry.contains('demo.NO_GREETING')
    assert not provider.is_in_use()


@test
def a_conflicting_provider_is_refused_whole():
    registry = Stagewright.ErrorRegistry.get_default()
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Echo, 'clash_refuse'))
    try:
        dispatcher.add_provider(DemoProvider('clash'))
    except GLib.Error as error:
        assert 'clash_refuse' in error.message, error.message
    else:
        raise AssertionError('a provider with a taken tool name was accepted')
    assert [tool.get_name() for tool in dispatcher.list_tools()] == ['clash_refuse']
    assert not registry.contains('clash.NO_GREETING')
    assert dispatcher.lookup_provider('clash') is None


@test
def the_dispatcher_hands_a_python_tool_its_session():
    class Session(Stagewright.Tool):
        def do_invoke(self, invocation):
            session = invocation.get_session()
            invocation.return_json(json.dumps({'has_session': session is not None}))

    schema = Stagewright.Schema.new_from_string(
        '{"type":"object","properties":{"sessionId":{"type":"string"}}}')
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Session, 'needs_session', input_schema=schema,
                               session_requirement=Stagewright.SessionRequirement.REQUIRED))
    dispatcher.add_tool(simple(Session, 'takes_session', input_schema=schema,
                               session_requirement=Stagewright.SessionRequirement.OPTIONAL))
    envelope = envelope_of(dispatcher.call_json_sync('needs_session', None, None))
    assert envelope['code'] == 'NOT_RUNNING', envelope
    envelope = envelope_of(dispatcher.call_json_sync('needs_session', '{"sessionId":"app-7"}', None))
    assert envelope['code'] == 'NOT_RUNNING' and 'app-7' in envelope['error'], envelope
    envelope = envelope_of(dispatcher.call_json_sync('takes_session', None, None))
    assert envelope['ok'] is True and envelope['has_session'] is False, envelope
    assert 'session_id' not in envelope['_meta'], envelope


@test
def a_python_tool_names_its_profiles():
    flags = Stagewright.ToolProfileFlags
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_tool(simple(Echo, 'debug_only', profiles=flags.DEBUG | flags.FULL))
    dispatcher.add_tool(simple(Echo, 'everywhere'))
    tool = dispatcher.lookup_tool('debug_only')
    assert tool.is_in_profile(Stagewright.ToolProfile.DEBUG)
    assert not tool.is_in_profile(Stagewright.ToolProfile.TESTING)
    assert dispatcher.lookup_tool('everywhere').get_profiles() == flags.ALL
    dispatcher.set_tool_profile(Stagewright.ToolProfile.ESSENTIAL)
    assert [t.get_name() for t in dispatcher.list_tools()] == ['everywhere']
    dispatcher.set_tool_profile(Stagewright.ToolProfile.DEBUG)
    assert [t.get_name() for t in dispatcher.list_tools()] == ['debug_only', 'everywhere']


def main():
    print('1..%d' % len(TESTS))
    failed = 0
    for number, fn in enumerate(TESTS, 1):
        name = fn.__name__.replace('_', ' ')
        try:
            fn()
        except Exception:
            failed += 1
            print('not ok %d - %s' % (number, name))
            for line in traceback.format_exc().splitlines():
                print('# ' + line)
        else:
            print('ok %d - %s' % (number, name))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
