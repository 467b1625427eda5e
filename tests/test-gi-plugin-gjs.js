#!/usr/bin/gjs
// test-gi-plugin-gjs.js: plugins loaded into a GJS host's own dispatcher
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Prints TAP. By hand, from the build tree:
//   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs G_TEST_BUILDDIR=$PWD/tests gjs tests/test-gi-plugin-gjs.js
//
// The C sample (plugins/samples/c) by path, its symbols resolved in the
// library GJS loaded; a plugin subclassed in JavaScript through the same
// engine; a failing one leaving nothing behind.

imports.gi.versions.Stagewright = '1.0';
imports.gi.versions.Json = '1.0';
const { GLib, GObject, Json, Stagewright } = imports.gi;
const System = imports.system;

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

const BUILDDIR = GLib.getenv('G_TEST_BUILDDIR') ?? GLib.get_current_dir();
const SAMPLE = GLib.build_filenamev([BUILDDIR, '..', 'plugins', 'built', 'sample.plugin']);
const SRCDIR = GLib.getenv('G_TEST_SRCDIR') ?? GLib.get_current_dir();
const JS_SAMPLE_DIR = GLib.build_filenamev([SRCDIR, '..', 'plugins', 'samples', 'js']);
const JS_LOADER = GLib.build_filenamev([BUILDDIR, '..', 'stagewright', 'loaders', '.libs', 'libgjsloader.so']);

function call (dispatcher, name, args = '{}') {
  return JSON.parse(dispatcher.call_json_sync(name, args, null));
}

function assertClean (dispatcher, name) {
  assertEqual(dispatcher.list_plugins().length, 0, 'plugins');
  assert(dispatcher.lookup_provider(name) === null, `${name} provider gone`);
  assert(dispatcher.lookup_tool('electron_plugins') === null, 'electron_plugins gone');
  assertEqual(dispatcher.list_tools().map((t) => t.get_name()).filter((n) => n.startsWith(`${name}_`)), []);
  assertEqual(Stagewright.ErrorRegistry.get_default().list_codes().filter((c) => c.startsWith(`${name}.`)), []);
}

function configs (value) {
  return Json.from_string(JSON.stringify(value)).get_object();
}

test('the C sample by path', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  const loaded = dispatcher.load_plugins_sync([SAMPLE], configs({ sample: { prefix: '> ' } }), null);
  assertEqual(loaded.map((p) => p.get_name()), ['sample']);
  assert(loaded[0].is_loaded(), 'loaded');
  assert(dispatcher.lookup_tool('sample_title') !== null, 'sample_title');
  assertEqual(call(dispatcher, 'sample_title').code, 'NOT_RUNNING');
  const listing = call(dispatcher, 'electron_plugins');
  assertEqual(listing.plugins[0].effectiveConfig, { prefix: '> ' });
  assert(dispatcher.unload_plugins_sync(null), 'unload');
  assertClean(dispatcher, 'sample');
});

const Hello = GObject.registerClass(
  class Hello extends Stagewright.Tool {
    vfunc_invoke (invocation) {
      invocation.return_json(JSON.stringify({ hello: 'gjs' }));
    }
  });

const JsPlugin = GObject.registerClass(
  class JsPlugin extends Stagewright.Plugin {
    _init (params, fail = false) {
      super._init(params);
      this._fail = fail;
      this.events = [];
      this.add_tool(new Hello({
        name: 'hello', description: 'Says hello.',
        input_schema: Stagewright.Schema.new_from_string('{"type":"object"}'),
      }));
    }

    vfunc_setup (completion) {
      this.events.push('setup');
      if (this._fail)
        completion.return_error_literal('no database');
      else
        completion.return_success();
    }

    vfunc_teardown (completion) {
      this.events.push('teardown');
      completion.return_success();
    }
  });

test('a JavaScript plugin loads and unloads; a failing one unloads the one before', () => {
  const dispatcher = Stagewright.Dispatcher.new();
  const one = new JsPlugin({ name: 'jsone', version: '1', core_versions: '*' });
  assert(dispatcher.add_plugins_sync([one], null, null), 'add');
  const envelope = call(dispatcher, 'jsone_hello');
  assertEqual([envelope.ok, envelope.hello], [true, 'gjs']);
  assert(dispatcher.unload_plugins_sync(null), 'unload');
  assertEqual(one.events, ['setup', 'teardown']);
  assertClean(dispatcher, 'jsone');

  const good = new JsPlugin({ name: 'jsgood', version: '1', core_versions: '*' });
  const bad = new JsPlugin({ name: 'jsbad', version: '1', core_versions: '*' }, true);
  let message = null;
  try {
    dispatcher.add_plugins_sync([good, bad], null, null);
  } catch (error) {
    message = error.message;
  }
  assertEqual(message, 'Plugin “jsbad”: its setup failed: no database');
  assertEqual(good.events, ['setup', 'teardown']);
  assertClean(dispatcher, 'jsgood');
  assertClean(dispatcher, 'jsbad');
});

// The loader shares this host's GjsContext: the plugin's class is a class
// of this context, its objects plain JS objects here.
test('the JavaScript sample by name and by path, in this context', () => {
  assert(GLib.file_test(JS_LOADER, GLib.FileTest.EXISTS), `${JS_LOADER} is built`);
  GLib.setenv('STAGEWRIGHT_PLUGIN_PATH', JS_SAMPLE_DIR, true);
  try {
    for (const spec of ['jssample', GLib.build_filenamev([JS_SAMPLE_DIR, 'jssample.plugin'])]) {
      const dispatcher = Stagewright.Dispatcher.new();
      const loaded = dispatcher.load_plugins_sync([spec], configs({ jssample: { prefix: '> ' } }), null);
      assertEqual(loaded.map((p) => p.get_name()), ['jssample']);
      const plugin = loaded[0];
      assertEqual(plugin.get_language(), 'gjs');
      assertEqual(plugin.constructor.name, 'JsSamplePlugin', 'a class of this context');
      assert(plugin instanceof Stagewright.Plugin, 'a Stagewright.Plugin');
      assert(Stagewright.ErrorRegistry.get_default().contains('jssample.TITLE_MISMATCH'), 'its codes');
      assertEqual(call(dispatcher, 'jssample_title').code, 'NOT_RUNNING');
      const listing = call(dispatcher, 'electron_plugins');
      assertEqual(listing.plugins.map((p) => [p.name, p.language]), [['jssample', 'gjs']]);
      assertEqual(listing.plugins[0].effectiveConfig, { prefix: '> ' });
      assert(dispatcher.unload_plugins_sync(null), 'unloaded');
      assertClean(dispatcher, 'jssample');
    }
  } finally {
    GLib.unsetenv('STAGEWRIGHT_PLUGIN_PATH');
  }
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
