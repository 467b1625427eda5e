#!/usr/bin/gjs
// test-gi-plugin-apis-gjs.js: the first-party plugins' APIs from GJS — the
// plugin the dispatcher loads from its module is the typelib's class, the
// API refuses without the dispatcher's policy with an error in the plugin's
// own domain, and a plugin made from the typelib loads into a dispatcher
// with its tools.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Prints TAP. By hand, from the build tree:
//   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs gjs tests/test-gi-plugin-apis-gjs.js

imports.gi.versions.Stagewright = '1.0';
imports.gi.versions.StagewrightIpc = '1.0';
imports.gi.versions.StagewrightNative = '1.0';
const { GLib, Stagewright, StagewrightIpc, StagewrightNative } = imports.gi;
const System = imports.system;

GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_ERROR);

const builddir = GLib.getenv('G_TEST_BUILDDIR') ??
  GLib.path_get_dirname(GLib.canonicalize_filename(System.programInvocationName, null));
const built = GLib.build_filenamev([GLib.path_get_dirname(builddir), 'plugins', 'built']);

function assert (condition, message) {
  if (!condition)
    throw new Error(message);
}

const tests = [
  ['the loaded modules make the typelibs\' classes', () => {
    const dispatcher = Stagewright.Dispatcher.new();
    const files = ['ipc', 'native'].map((name) => GLib.build_filenamev([built, `${name}.plugin`]));
    const [ipc, native] = dispatcher.load_plugins_sync(files, null, null);
    assert(ipc instanceof StagewrightIpc.IpcPlugin, `ipc is ${ipc}`);
    assert(native instanceof StagewrightNative.NativePlugin, `native is ${native}`);
    assert(dispatcher.lookup_tool('native_menu_invoke') !== null, 'native_menu_invoke is missing');
    assert(dispatcher.unload_plugins_sync(null), 'unload failed');
  }],
  ['a plugin made from the typelib loads with its tools', () => {
    const dispatcher = Stagewright.Dispatcher.new();
    const plugin = StagewrightNative.NativePlugin.new();
    assert(dispatcher.add_plugins_sync([plugin], null, null), 'add failed');
    assert(plugin.get_dispatcher() === dispatcher, 'the plugin is not in the dispatcher');
    assert(dispatcher.lookup_tool('native_trays') !== null, 'native_trays is missing');
    assert(dispatcher.unload_plugins_sync(null), 'unload failed');
  }],
  ['a plugin\'s error arrives in the plugin\'s own domain', () => {
    const dispatcher = Stagewright.Dispatcher.new();
    const [ipc] = dispatcher.load_plugins_sync([GLib.build_filenamev([built, 'ipc.plugin'])], null, null);
    // No main-process eval here: the API refuses before it uses the session.
    const session = new Stagewright.Session();
    let error = null;
    try {
      ipc.captured_sync(session, 0, null, null);
    } catch (e) {
      error = e;
    }
    assert(error instanceof GLib.Error, `not a GLib.Error: ${error}`);
    assert(error.matches(StagewrightIpc.ipc_error_quark(), StagewrightIpc.IpcError.EVAL_REQUIRED),
      `${error.domain} ${error.code}: ${error.message}`);
    assert(Stagewright.error_get_code_name(error) === 'ipc.EVAL_REQUIRED', Stagewright.error_get_code_name(error));
    assert(dispatcher.unload_plugins_sync(null), 'unload failed');
  }],
];

print(`1..${tests.length}`);
let failed = 0;
tests.forEach(([name, fn], i) => {
  try {
    fn();
    print(`ok ${i + 1} - ${name}`);
  } catch (e) {
    failed++;
    print(`not ok ${i + 1} - ${name}`);
    for (const line of `${e}\n${e.stack ?? ''}`.split('\n'))
      print(`# ${line}`);
  }
});
System.exit(failed ? 1 : 0);
