#!/usr/bin/gjs
// test-gi-page-gjs.js: StwSurface's page operations from GJS — snapshot,
// act by ref, read — blocking and under a main loop, on the pages app's
// forms page (no MCP involved).
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Prints TAP. By hand, from the build tree:
//   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs gjs tests/test-gi-page-gjs.js

imports.gi.versions.Stagewright = '1.0';
imports.gi.versions.Json = '1.0';
const { GLib, Json, Stagewright } = imports.gi;
const System = imports.system;

GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_ERROR);

const topSrcdir = GLib.getenv('STW_TOP_SRCDIR') ??
  GLib.path_get_dirname(GLib.path_get_dirname(GLib.canonicalize_filename(System.programInvocationName, null)));
const fixtures = GLib.build_filenamev([topSrcdir, 'tests', 'fixtures']);
const electron = GLib.build_filenamev([fixtures, 'electron']);
const pagesApp = GLib.build_filenamev([fixtures, 'pages-app']);
const chromium = GLib.getenv('STW_CHROMIUM') ?? '/usr/lib/chromium/chromium';

function assertEqual (actual, expected, message = '') {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message} expected ${e}, got ${a}`);
}

const toJs = (object) => object instanceof Stagewright.ActionResult ? { target: toJs(object.get_target()) } : JSON.parse(Json.to_string(Json.Node.alloc().init_object(
  object instanceof Stagewright.ElementRef || object instanceof Stagewright.ElementState ? object.to_json() : object), false));
const sel = (selector) => Stagewright.Target.new_for_selector(selector);

const skip = [electron, chromium, GLib.build_filenamev([pagesApp, 'package.json'])]
  .find((path) => !GLib.file_test(path, GLib.FileTest.EXISTS));

const tests = [];
const state = {};
function test (name, fn) {
  tests.push([name, fn]);
}

test('reads block', () => {
  const manager = Stagewright.SessionManager.new();
  const session = manager.launch_json_sync(JSON.stringify({ executablePath: electron, main: pagesApp, args: ['--page=forms'] }), null);
  state.session = session;
  const window = session.get_active_window();
  const context = GLib.MainContext.default();
  const deadline = GLib.get_monotonic_time() + 15000000;
  while (window.get_title() !== 'Forms fixture' && GLib.get_monotonic_time() < deadline) {
    session.refresh_surfaces_sync(null);
    context.iteration(false);
  }
  state.window = window;

  const [text, element] = window.get_text_sync(sel('#save'), null);
  assertEqual(text, 'Save');
  const save = toJs(element);
  if (!(save.ref > 0)) throw new Error(`no ref: ${JSON.stringify(save)}`);
  assertEqual(window.get_text_sync(Stagewright.Target.new_for_ref(save.ref), null)[0], 'Save');
  assertEqual(window.get_value_sync(sel('#plan'), null)[0], 'free');
  assertEqual(window.get_value_sync(sel('h1'), null)[0], null);
  assertEqual(window.get_attribute_sync(sel('#email'), 'type', null)[0], 'email');
  const [box] = window.get_bbox_sync(sel('#save'), null);
  const { x, y, width, height } = box;
  if (width <= 0 || height <= 0 || x < 0 || y < 0) throw new Error(`box ${[x, y, width, height]}`);
  assertEqual(toJs(window.get_computed_style_sync(sel('#overlay'), ['position'], null)[0]), { position: 'fixed' });
  assertEqual(toJs(window.get_state_sync(sel('#delete'), null)[0]).disabled, true);
  assertEqual(window.exists_sync(sel('#nope'), null)[0], false);
  assertEqual(window.get_focused_element_sync(null), null);
  try {
    window.get_text_sync(sel('#nope'), null);
    throw new Error('expected SELECTOR_NO_MATCH');
  } catch (error) {
    assertEqual(Stagewright.error_code_to_string(error.code), 'SELECTOR_NO_MATCH');
  }
});

test('reads run async under a main loop', () => {
  const loop = GLib.MainLoop.new(null, false);
  let answer = null;
  state.window.get_text_async(sel('#phone'), null, (source, result) => {
    answer = source.get_text_finish(result)[0];
    loop.quit();
  });
  loop.run();
  assertEqual(answer, 'Phone number');
});

test('snapshot, then act and read by ref, blocking and async', () => {
  const window = state.window;
  const options = Stagewright.SnapshotOptions.new();
  options.set_format(Stagewright.SnapshotFormat.TEXT);
  const text = window.snapshot_sync(options, null).get_text();
  const refOf = (role, name) => {
    const line = text.split('\n').find((l) => l.includes(`] ${role} ${JSON.stringify(name)}`));
    if (!line) throw new Error(`no ${role} "${name}" in:\n${text}`);
    return Stagewright.Target.new_for_ref(Number(/\[(\d+)\]/.exec(line)[1]));
  };
  const phone = refOf('textbox', 'Phone number');
  const filled = toJs(window.fill_sync(phone, '+44 20 7946 0000', null, null));
  assertEqual(filled.target.name, 'Phone number');
  assertEqual(window.get_value_sync(phone, null)[0], '+44 20 7946 0000');

  const loop = GLib.MainLoop.new(null, false);
  let clicked = null;
  window.click_async(sel('#bold'), null, null, (source, result) => {
    try {
      clicked = toJs(source.click_finish(result));
    } finally {
      loop.quit();
    }
  });
  loop.run();
  assertEqual(clicked.target.role, 'button');
  assertEqual(window.get_attribute_sync(sel('#bold'), 'aria-pressed', null)[0], 'true');
});

print(`1..${tests.length}`);
let failed = 0;
tests.forEach(([name, fn], index) => {
  if (skip) {
    print(`ok ${index + 1} - ${name} # SKIP ${skip} is missing`);
    return;
  }
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
if (state.session?.is_running())
  state.session.stop_sync(2000, null);
System.exit(failed > 0 ? 1 : 0);
