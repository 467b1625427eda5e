#!/usr/bin/gjs
// test-gi-gjs.js: the library through GObject Introspection, from GJS
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Prints TAP. By hand, from the build tree:
//   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs gjs tests/test-gi-gjs.js
//
// As in Python (see tests/test-gi-python.py): a tool subclasses
// Stagewright.Tool and implements vfunc_invoke(invocation), completing it
// exactly once; call_json_sync() runs a private thread-default main context,
// so a tool that completes later attaches its sources to
// GLib.MainContext.get_thread_default(), never via GLib.timeout_add().

imports.gi.versions.Stagewright = '1.0';
imports.gi.versions.Json = '1.0';
const { GLib, GObject, Json, Stagewright } = imports.gi;
const System = imports.system;

// A GLib critical (a failed precondition in the library) aborts the run: it
// is a bug even when the envelope looks right.
GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_ERROR);

const tests = [];
function test (name, fn) {
  tests.push([name, fn]);
}

function assert (condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

function assertEqual (actual, expected, message = '') {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message} expected ${e}, got ${a}`);
}

/** Parses an envelope and checks _meta: ceil(code points / 4) of the text without _meta. */
function envelopeOf (text) {
  assertEqual(typeof text, 'string', 'envelope text');
  const envelope = JSON.parse(text);
  const meta = envelope._meta;
  assert(meta.elapsed_ms >= 0, 'elapsed_ms');
  const at = text.lastIndexOf(',"_meta":');
  assert(at > 0, 'the text ends with _meta');
  const counted = `${text.slice(0, at)}}`;
  assertEqual(meta.estimated_tokens, Math.ceil([...counted].length / 4), 'estimated_tokens');
  return envelope;
}

const GREET_SCHEMA = JSON.stringify({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    punctuation: { type: 'string', default: '!' },
  },
  required: ['name'],
  additionalProperties: false,
});

const Greet = GObject.registerClass(
class Greet extends Stagewright.Tool {
  vfunc_invoke (invocation) {
    const args = invocation.get_arguments();
    invocation.return_json(JSON.stringify({
      greeting: `Hello, ${args.get_string_member('name')}${args.get_string_member('punctuation')}`,
    }));
  }
});

const NotRunning = GObject.registerClass(
class NotRunning extends Stagewright.Tool {
  vfunc_invoke (invocation) {
    invocation.return_error_literal('NOT_RUNNING', 'x');
  }
});

const Later = GObject.registerClass(
class Later extends Stagewright.Tool {
  vfunc_invoke (invocation) {
    const source = GLib.timeout_source_new(50);
    source.set_callback(() => {
      invocation.return_json('{"waited":true}');
      return GLib.SOURCE_REMOVE;
    });
    source.attach(GLib.MainContext.get_thread_default());
  }
});

function newGreet () {
  return new Greet({
    name: 'greet',
    title: 'Greet',
    description: 'Greets someone by name.',
    input_schema: Stagewright.Schema.new_from_string(GREET_SCHEMA),
    operation_type: Stagewright.OperationType.QUERY,
    error_codes: ['NOT_RUNNING'],
  });
}

test('a GJS tool has its metadata', () => {
  const tool = newGreet();
  assertEqual(tool.get_name(), 'greet');
  assertEqual(tool.get_operation_type(), Stagewright.OperationType.QUERY);
  assertEqual(tool.get_read_only_hint(), true);
  assertEqual(tool.get_error_codes(), ['NOT_RUNNING']);
  assert(tool.dup_agent_description().includes('NOT_RUNNING'), 'agent description lists the codes');
});

test('tool-added fires', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  const added = [];
  dispatcher.connect('tool-added', (_d, tool) => added.push(tool.get_name()));
  assert(dispatcher.add_tool(newGreet()), 'add_tool');
  assertEqual(added, ['greet']);
});

test('call_json_sync runs the GJS tool', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(newGreet());
  const envelope = envelopeOf(dispatcher.call_json_sync('greet', '{"name":"Ada"}', null));
  assertEqual(envelope.ok, true);
  assertEqual(envelope.greeting, 'Hello, Ada!');
  assertEqual(Object.keys(envelope).sort(), ['_meta', 'greeting', 'ok']);
});

test('bad arguments are BAD_ARGUMENT with field-addressed issues', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(newGreet());
  const envelope = envelopeOf(dispatcher.call_json_sync('greet', '{"name":"Ada","bogus":1}', null));
  assertEqual(envelope.ok, false);
  assertEqual(envelope.code, 'BAD_ARGUMENT');
  assertEqual(envelope.http, 400);
  assertEqual(envelope.details.issues[0].field, 'bogus');
  assertEqual(envelope.details.issues[0].code, 'unrecognized_keys');
});

test('return_error_literal gives the registry\'s http and retryable', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(new NotRunning({ name: 'not_running', description: 'Always fails.' }));
  const envelope = envelopeOf(dispatcher.call_json_sync('not_running', null, null));
  assertEqual(envelope.code, 'NOT_RUNNING');
  assertEqual(envelope.error, 'x');
  assertEqual(envelope.http, 409);
  assertEqual(envelope.retryable, false);
  assert(envelope.hint.length > 0, 'hint');
});

test('an unknown tool throws a GLib.Error in the Stagewright domain', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  let thrown = null;
  try {
    dispatcher.call_json_sync('no_such_tool', null, null);
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof GLib.Error, `a GLib.Error, got ${thrown}`);
  assert(thrown.matches(Stagewright.error_quark(), Stagewright.Error.BAD_ARGUMENT), `${thrown}`);
});

test('an asynchronous tool completes on the thread-default context', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(new Later({ name: 'later', description: 'Answers later.' }));
  const envelope = envelopeOf(dispatcher.call_json_sync('later', null, null));
  assertEqual(envelope.waited, true);
  assert(envelope._meta.elapsed_ms >= 40, `elapsed ${envelope._meta.elapsed_ms}`);
});

test('invoke_async under a main loop', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(new Later({ name: 'later', description: 'Answers later.' }));
  const loop = GLib.MainLoop.new(null, false);
  let envelope = null;
  const invocation = dispatcher.create_invocation('later', null);
  dispatcher.invoke_async(invocation, null, (source, result) => {
    envelope = source.invoke_finish(result);
    loop.quit();
  });
  const timeout = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 10, () => {
    loop.quit();
    return GLib.SOURCE_REMOVE;
  });
  loop.run();
  if (envelope === null) throw new Error('invoke_async did not complete');
  GLib.source_remove(timeout);
  assert(Stagewright.envelope_is_ok(envelope), 'ok');
  assertEqual(envelope.get_boolean_member('waited'), true);
});

test('core tools: electron_status', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_core_tools();
  const envelope = envelopeOf(dispatcher.call_json_sync('electron_status', null, null));
  assertEqual(envelope.ok, true);
  assertEqual(envelope.server.version, Stagewright.VERSION_S);
  assertEqual(envelope.active_sessions, 0);
});

test('error registry: NOT_RUNNING is 409 and not retryable', () => {
  const registry = Stagewright.ErrorRegistry.get_default();
  const [found, http, retryable, hint] = registry.lookup('NOT_RUNNING');
  assertEqual([found, http, retryable], [true, 409, false]);
  assert(hint.length > 0, 'hint');
  assertEqual(registry.lookup('NO_SUCH_CODE')[0], false);
  assert(registry.list_codes().length >= 35, 'at least the 35 core codes');
});

test('the essential profile hides electron_doctor', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_core_tools();
  assert(dispatcher.list_tools().some((t) => t.get_name() === 'electron_doctor'), 'full has doctor');
  dispatcher.set_tool_profile(Stagewright.ToolProfile.ESSENTIAL);
  const names = dispatcher.list_tools().map((t) => t.get_name());
  assert(!names.includes('electron_doctor'), `essential: ${names}`);
  assert(names.includes('electron_status'), `essential: ${names}`);
  const envelope = envelopeOf(dispatcher.call_json_sync('electron_doctor', null, null));
  assertEqual(envelope.code, 'BAD_ARGUMENT');
  assert(envelope.next_actions.some((a) => a.includes('debug')), JSON.stringify(envelope));
});

test('an eval guard written in JavaScript', () => {
  const Eval = GObject.registerClass(
  class Eval extends Stagewright.Tool {
    vfunc_invoke (invocation) {
      invocation.return_json('{"ran":true}');
    }
  });
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(new Eval({
    name: 'js_eval',
    description: 'Evaluates code.',
    input_schema: Stagewright.Schema.new_from_string(
      '{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}'),
    operation_type: Stagewright.OperationType.EVAL,
    eval_target: Stagewright.EvalTarget.RENDERER,
    code_argument: 'code',
  }));
  dispatcher.set_allow_eval(Stagewright.EvalTarget.ALL);
  const seen = [];
  dispatcher.set_eval_guard((_d, tool, args) => {
    seen.push(args.get_string_member('code'));
    if (args.get_string_member('code').includes('forbidden'))
      throw new GLib.Error(Stagewright.error_quark(), Stagewright.Error.EVAL_BLOCKED_CONSTRUCT, 'refused');
    return true;
  });
  assertEqual(envelopeOf(dispatcher.call_json_sync('js_eval', '{"code":"1"}', null)).ok, true);
  const refused = envelopeOf(dispatcher.call_json_sync('js_eval', '{"code":"forbidden()"}', null));
  assertEqual(refused.code, 'EVAL_BLOCKED_CONSTRUCT');
  assertEqual(seen, ['1', 'forbidden()']);
});

const Refuse = GObject.registerClass(
class Refuse extends Stagewright.Tool {
  vfunc_invoke (invocation) {
    invocation.return_error_literal('gjsdemo.NO_GREETING', 'nobody to greet');
  }
});

/* A provider written in JavaScript: two tools and the error code they add. */
const DemoProvider = GObject.registerClass(
class DemoProvider extends Stagewright.ToolProvider {
  _init (name = 'gjsdemo') {
    super._init({ name });
    this.add_error_code('NO_GREETING', 404, false, 'Say who to greet.');
    this.add_tool(new Greet({
      name: `${name}_greet`,
      description: 'Greets someone by name.',
      input_schema: Stagewright.Schema.new_from_string(GREET_SCHEMA),
      operation_type: Stagewright.OperationType.QUERY,
    }));
    this.add_tool(new Refuse({
      name: `${name}_refuse`,
      description: 'Never greets.',
      error_codes: [`${name}.NO_GREETING`],
    }));
  }
});

test('a GJS provider adds tools and an error code', () => {
  const registry = Stagewright.ErrorRegistry.get_default();
  const provider = new DemoProvider();
  assertEqual(provider.get_name(), 'gjsdemo');
  assertEqual(provider.list_tools().map((t) => t.get_name()), ['gjsdemo_greet', 'gjsdemo_refuse']);
  assert(!registry.contains('gjsdemo.NO_GREETING'), 'not registered before');

  const dispatcher = Stagewright.Dispatcher.new();
  const added = [];
  const removed = [];
  dispatcher.connect('tool-added', (_d, tool) => added.push(tool.get_name()));
  dispatcher.connect('tool-removed', (_d, tool) => removed.push(tool.get_name()));
  assert(dispatcher.add_provider(provider), 'add_provider');
  assertEqual(added, ['gjsdemo_greet', 'gjsdemo_refuse']);
  assert(provider.is_in_use(), 'in use');
  assertEqual(registry.lookup('gjsdemo.NO_GREETING'), [true, 404, false, 'Say who to greet.']);

  const greeted = envelopeOf(dispatcher.call_json_sync('gjsdemo_greet', '{"name":"Ada"}', null));
  assertEqual(greeted.greeting, 'Hello, Ada!');
  const refused = envelopeOf(dispatcher.call_json_sync('gjsdemo_refuse', null, null));
  assertEqual([refused.code, refused.http, refused.retryable, refused.hint],
    ['gjsdemo.NO_GREETING', 404, false, 'Say who to greet.']);

  assert(dispatcher.remove_provider(provider), 'remove_provider');
  assertEqual(removed.sort(), ['gjsdemo_greet', 'gjsdemo_refuse']);
  assertEqual(dispatcher.list_tools().length, 0);
  assert(!registry.contains('gjsdemo.NO_GREETING'), 'unregistered after');
});

test('a conflicting GJS provider is refused whole', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(new NotRunning({ name: 'gjsclash_refuse', description: 'Taken.' }));
  let thrown = null;
  try {
    dispatcher.add_provider(new DemoProvider('gjsclash'));
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof GLib.Error, `a GLib.Error, got ${thrown}`);
  assertEqual(dispatcher.list_tools().map((t) => t.get_name()), ['gjsclash_refuse']);
  assert(!Stagewright.ErrorRegistry.get_default().contains('gjsclash.NO_GREETING'), 'nothing registered');
});

test('the dispatcher resolves the session a GJS tool needs', () => {
  const Session = GObject.registerClass(
  class Session extends Stagewright.Tool {
    vfunc_invoke (invocation) {
      invocation.return_json(JSON.stringify({ has_session: invocation.get_session() !== null }));
    }
  });
  const schema = Stagewright.Schema.new_from_string(
    '{"type":"object","properties":{"sessionId":{"type":"string"}}}');
  const dispatcher = Stagewright.Dispatcher.new();
  dispatcher.add_tool(new Session({
    name: 'needs_session', description: 'Needs one.', input_schema: schema,
    session_requirement: Stagewright.SessionRequirement.REQUIRED,
  }));
  dispatcher.add_tool(new Session({
    name: 'takes_session', description: 'Takes one.', input_schema: schema,
    session_requirement: Stagewright.SessionRequirement.OPTIONAL,
    profiles: Stagewright.ToolProfileFlags.DEBUG | Stagewright.ToolProfileFlags.FULL,
  }));
  assertEqual(envelopeOf(dispatcher.call_json_sync('needs_session', null, null)).code, 'NOT_RUNNING');
  const optional = envelopeOf(dispatcher.call_json_sync('takes_session', null, null));
  assertEqual([optional.ok, optional.has_session], [true, false]);
  dispatcher.set_tool_profile(Stagewright.ToolProfile.ESSENTIAL);
  assertEqual(dispatcher.list_tools().map((t) => t.get_name()), ['needs_session']);
});

print(`1..${tests.length}`);
let failed = 0;
tests.forEach(([name, fn], index) => {
  try {
    fn();
    print(`ok ${index + 1} - ${name}`);
  } catch (error) {
    failed++;
    print(`not ok ${index + 1} - ${name}`);
    for (const line of `${error}\n${error.stack ?? ''}`.split('\n'))
      print(`# ${line}`);
  }
});
System.exit(failed > 0 ? 1 : 0);
