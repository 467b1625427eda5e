#!/usr/bin/gjs
// test-gi-native-gjs.js: bindings/gjs/stagewright.js makes the library feel
// like JavaScript — launch with an options object, promises over the async
// calls, plain objects in and out where the API speaks JSON, withApp()
// stopping the app when its function settles — driving the demo app.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Prints TAP. A script (the tests run under plain `gjs`) that imports the ES
// module dynamically. By hand, from the build tree:
//   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs gjs tests/test-gi-native-gjs.js

imports.gi.versions.Stagewright = '1.0';
const { GLib, Stagewright } = imports.gi;
const System = imports.system;

GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_ERROR);

const topSrcdir = GLib.getenv('STW_TOP_SRCDIR') ??
  GLib.path_get_dirname(GLib.path_get_dirname(GLib.canonicalize_filename(System.programInvocationName, null)));
const fixtures = GLib.build_filenamev([topSrcdir, 'tests', 'fixtures']);
const electron = GLib.build_filenamev([fixtures, 'electron']);
const demoApp = GLib.build_filenamev([fixtures, 'demo-app']);
const chromium = GLib.getenv('STW_CHROMIUM') ?? '/usr/lib/chromium/chromium';
const moduleUri = GLib.filename_to_uri(GLib.build_filenamev([topSrcdir, 'bindings', 'gjs', 'stagewright.js']), null);

function assertEqual (actual, expected, message = '') {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e)
    throw new Error(`${message} expected ${e}, got ${a}`);
}

function assert (condition, message) {
  if (!condition)
    throw new Error(message);
}

const sel = (selector) => Stagewright.Target.new_for_selector(selector);

async function snapshotText (window) {
  const snapshot = await window.snapshot_async({ format: 'text' }, null);
  return typeof snapshot.snapshot_text === 'string' ? snapshot.snapshot_text : snapshot.get_text();
}

function refIn (text, role, name) {
  const line = text.split('\n').find((l) => l.includes(`] ${role} ${JSON.stringify(name)}`));
  if (!line)
    throw new Error(`no ${role} "${name}" in:\n${text}`);
  return Stagewright.Target.new_for_ref(Number(/\[(\d+)\]/.exec(line)[1]));
}

const tests = [];
const state = {};
function test (name, fn) {
  tests.push([name, fn]);
}

test('launch with an options object; withApp stops the app', async () => {
  const { withApp } = state.module;
  let seen = null;
  const answer = await withApp({ executablePath: electron, main: demoApp, env: { STW_NATIVE_TEST: 'gjs' } }, async (session) => {
    seen = session;
    assert(session instanceof Stagewright.Session && session.is_running(), 'not running');
    assert(session.active_surface instanceof Stagewright.Surface, 'no active surface');
    const [value] = await session.run_main_async('return process.env.STW_NATIVE_TEST;', null, 0, null);
    assertEqual(value, 'gjs', 'env');
    return 42;
  });
  assertEqual(answer, 42);
  assert(!seen.is_running(), 'withApp left the app running');
});

test('withApp stops the app when its function throws', async () => {
  const { withApp } = state.module;
  let seen = null;
  try {
    await withApp({ executablePath: electron, main: demoApp }, async (session) => {
      seen = session;
      throw new Error('inside');
    });
    throw new Error('the error was swallowed');
  } catch (error) {
    assertEqual(error.message, 'inside');
  }
  assert(seen && !seen.is_running(), 'the app still runs');
});

test('JSON in and out as plain values, async calls as promises', async () => {
  const { launch } = state.module;
  const session = state.session = await launch({ executablePath: electron, main: demoApp });
  const window = state.window = session.active_surface;
  const [value, serialized] = await session.run_renderer_async(
    'return {sum: arg.a + arg.b, items: [arg.a, null, "x"], title: document.title};', { a: 2, b: 3 }, 0, null);
  assertEqual(value, { sum: 5, items: [2, null, 'x'], title: 'Stagewright Notes' });
  assertEqual(typeof serialized, 'boolean');
  const [blocking] = session.run_renderer_sync('return [arg, arg * 2];', 21, 0, null);
  assertEqual(blocking, [21, 42]);
  const found = await window.find_async({ role: 'checkbox', visible: true }, null);
  assertEqual(found.get_count(), 1);
  assertEqual(found.get_element(0).get_element().get_name(), 'Pinned');
  assert((await snapshotText(window)).includes('"Stagewright Notes"'), 'snapshot');
});

test('snapshot, fill, click by ref answering an ElementRef, get_state', async () => {
  const window = state.window;
  const text = await snapshotText(window);
  const title = refIn(text, 'textbox', 'Title');
  const pinned = refIn(text, 'checkbox', 'Pinned');
  const filled = await window.fill_async(title, 'Groceries', null, null);
  assert(filled.get_target() instanceof Stagewright.ElementRef, 'fill answers no ElementRef');
  assertEqual([filled.get_target().get_role(), filled.get_target().get_name()], ['textbox', 'Title']);
  await window.click_async(pinned, null, null);
  const [elementState, element] = await window.get_state_async(pinned, null);
  assert(elementState instanceof Stagewright.ElementState && element instanceof Stagewright.ElementRef, 'types');
  const Flags = Stagewright.StateFlags;
  assert(elementState.known & Flags.CHECKED && elementState.values & Flags.CHECKED, 'not checked');
  assert(elementState.matches({ checked: true, enabled: true }), 'an ElementState from an object');
  const clicked = await window.click_async(refIn(text, 'button', 'Add'), null, null);
  const target = clicked.get_target();
  assert(target instanceof Stagewright.ElementRef, 'click answers no ElementRef');
  assertEqual([target.get_role(), target.get_name(), target.get_surface_id()], ['button', 'Add', window.get_id()]);
  // The note is saved through the main process: wait for the count.
  await window.expect_text_async(sel('#note-count'), 'equals', '1 note', null, 5000, null);
});

test('a screenshot resolves to a Screenshot whose size is its PNG\'s', async () => {
  const window = state.window;
  const shot = await window.capture_screenshot_async(null, null);
  assert(shot instanceof Stagewright.Screenshot, 'no Screenshot');
  // The PNG's own IHDR, read by hand.
  const data = shot.get_bytes().toArray();
  assertEqual(Array.from(data.subarray(0, 8)), [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  assertEqual([view.getUint32(16), view.getUint32(20)], [shot.width, shot.height]);
  assert(shot.width > 0 && shot.format === Stagewright.ImageFormat.PNG && shot.path === null, 'fields');
  const jpeg = await state.session.capture_screenshot_async(null, { format: 'jpeg' }, null);
  assertEqual([jpeg.get_mime_type(), jpeg.get_width(), jpeg.get_height()], ['image/jpeg', shot.width, shot.height]);
});

test('a stale ref rejects with REF_NOT_FOUND', async () => {
  const window = state.window;
  const remove = refIn(await snapshotText(window), 'button', 'Delete Groceries');
  await state.session.run_renderer_async('document.getElementById("notes").replaceChildren();', null, 0, null);
  try {
    await window.click_async(remove, null, null);
    throw new Error('expected REF_NOT_FOUND');
  } catch (error) {
    assert(error instanceof GLib.Error && error.matches(Stagewright.error_quark(), Stagewright.Error.REF_NOT_FOUND),
      `${error}`);
  }
});

test('stop', async () => {
  await state.module.stop(state.session);
  assert(!state.session.is_running() && state.window.closed, 'still running');
  await state.module.stop(state.session); // stopping a stopped session is a no-op
});

const skip = [electron, chromium, GLib.build_filenamev([demoApp, 'package.json'])]
  .find((path) => !GLib.file_test(path, GLib.FileTest.EXISTS));

async function main () {
  print(`1..${tests.length}`);
  let failed = 0;
  if (!skip)
    state.module = await import(moduleUri);
  for (const [index, [name, fn]] of tests.entries()) {
    if (skip) {
      print(`ok ${index + 1} - ${name} # SKIP ${skip} is missing`);
      continue;
    }
    try {
      await fn();
      print(`ok ${index + 1} - ${name}`);
    } catch (error) {
      failed++;
      print(`not ok ${index + 1} - ${name}`);
      for (const line of `${error}\n${error.stack ?? ''}`.split('\n'))
        print(`# ${line}`);
    }
  }
  if (state.session?.is_running())
    state.session.stop_sync(5000, null);
  return failed;
}

const loop = new GLib.MainLoop(null, false);
let status = 1;
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 300, () => {
  print('# timed out');
  loop.quit();
  return GLib.SOURCE_REMOVE;
});
main().then((failed) => {
  status = failed ? 1 : 0;
}, (error) => {
  print(`# ${error}\n${error.stack}`);
}).finally(() => loop.quit());
loop.run();
System.exit(status);
