// native.test.mjs: the native plugin (plugins/native) over MCP with the
// official SDK client, on the demo app: its application menu, the tray and
// the notification it makes at start-up (seen thanks to the plugin's
// instrumentNative launch option), and the refusals.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/native.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import { waitUntil } from './lib/harness.mjs';
import {
  BIN,
  CHROMIUM,
  DEMO_APP,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  startServer,
} from './lib/lifecycle-harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const built = fs.existsSync(path.join(PLUGIN_DIR, 'libnative.so')) ? null : `${PLUGIN_DIR}/libnative.so is not built`;
const skip = electronSkipReason() ?? built ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, fn) {
  return nodeTest(name, { timeout: 120000, skip }, fn);
}

function serverEnv () {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

async function launchDemo (t, server, extra = {}) {
  const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP, extra)), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  // The demo app builds its menu, tray and notification once it is ready.
  const sessionId = launch.session_id;
  await waitUntil(async () => {
    const menu = await server.call('native_menu', { sessionId });
    return menu.ok && menu.present;
  }, 15000);
  return sessionId;
}

async function mainLines (server, sessionId, pattern) {
  const logs = ok(await server.call('electron_console_logs', { sessionId, source: 'main', limit: 1000 }), 'console');
  return logs.entries.filter((e) => pattern.test(e.text)).map((e) => e.text);
}

// Every handler the demo app's menus, tray and notification ran, in order,
// as the main console says (the app logs "[menu] … clicked" and so on).
async function handlersRun (server, sessionId) {
  return mainLines(server, sessionId, /^\[(menu|tray|notification)\] /);
}

function find (items, label) {
  const item = items.find((i) => i.label === label);
  assert.ok(item, `no item "${label}" in ${JSON.stringify(items.map((i) => i.label))}`);
  return item;
}

test('tools: the plugin lists its nine tools and its launch option; electron_launch no longer has its own', async (t) => {
  const server = await startServer(t, { args: ['--plugin', 'native'], env: serverEnv() });
  const { tools } = await server.client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).filter((name) => name.startsWith('native_')).sort(), [
    'native_menu', 'native_menu_invoke', 'native_menu_item', 'native_notification_invoke', 'native_notifications',
    'native_notifications_start', 'native_notifications_stop', 'native_tray_invoke', 'native_trays',
  ]);
  const launch = tools.find((tool) => tool.name === 'electron_launch');
  assert.equal(launch.inputSchema.properties.instrumentNative, undefined);
  assert.equal(launch.inputSchema.properties.plugins.properties.native.properties.instrumentNative.type, 'boolean');
  const plugins = ok(await server.call('electron_plugins', {}), 'electron_plugins');
  const native = plugins.plugins.find((p) => p.name === 'native');
  assert.ok(native.tools.every((tool) => tool.state === 'enabled'), JSON.stringify(native.tools));
  for (const code of ['native.UNSUPPORTED', 'native.ALREADY_CAPTURING', 'native.NOT_CAPTURING',
    'native.NOT_INSTRUMENTED', 'native.ITEM_DISABLED'])
    assert.ok(native.errorCodes.includes(code), `${code} in ${native.errorCodes}`);
});

test('instrumented: menu tree, Export… runs, a disabled item does not, a checkbox toggles, the start-up tray and notification', async (t) => {
  // --allow-eval=main only to make the app show a second notification.
  const server = await startServer(t, { args: ['--plugin', 'native', '--allow-eval=main'], env: serverEnv() });
  const sessionId = await launchDemo(t, server, { plugins: { native: { instrumentNative: true } } });

  // The application menu as a tree.
  const menu = ok(await server.call('native_menu', { sessionId }), 'native_menu');
  assert.equal(menu.menu, 'application');
  const file = find(menu.items, 'File');
  assert.equal(file.type, 'submenu');
  const exportItem = find(file.submenu, 'Export…');
  assert.deepEqual(exportItem, {
    label: 'Export…', role: null, type: 'normal', enabled: true, visible: true, checked: false,
    accelerator: 'CmdOrCtrl+E', id: 'file-export', path: ['File', 'Export…'],
  });
  assert.equal(find(file.submenu, 'Print').enabled, false);
  assert.equal(find(file.submenu, 'Quit').role, 'quit');
  const wrap = find(find(menu.items, 'View').submenu, 'Word Wrap');
  assert.equal(wrap.type, 'checkbox');
  assert.equal(wrap.checked, true);

  assert.deepEqual(ok(await server.call('native_menu', { sessionId, menu: 'application' })).items, menu.items);
  failsWith(await server.call('native_menu', { sessionId, menu: 'dock' }), 'BAD_ARGUMENT');
  failsWith(await server.call('native_menu_item', { sessionId, id: 'file-export', path: ['File'] }), 'BAD_ARGUMENT');

  // One item, by id and by path.
  assert.deepEqual(ok(await server.call('native_menu_item', { sessionId, id: 'file-export' })).item, exportItem);
  assert.deepEqual(ok(await server.call('native_menu_item', { sessionId, path: ['File', 'Export…'] })).item, exportItem);
  failsWith(await server.call('native_menu_item', { sessionId, path: ['File', 'Nothing'] }), 'native.NOT_FOUND');

  // File › Export… runs its handler: the main console says so.
  const invoked = ok(await server.call('native_menu_invoke', { sessionId, path: ['File', 'Export…'] }), 'invoke');
  assert.equal(invoked.invoked, true);
  await waitUntil(async () => (await mainLines(server, sessionId, /^\[menu\] File › Export… clicked$/)).length === 1, 10000);

  // A disabled item is refused and its handler does not run; nor does an invisible one's.
  failsWith(await server.call('native_menu_invoke', { sessionId, path: ['File', 'Print'] }), 'native.ITEM_DISABLED');
  failsWith(await server.call('native_menu_invoke', { sessionId, id: 'view-hidden' }), 'native.ITEM_DISABLED');
  assert.deepEqual(await handlersRun(server, sessionId), ['[menu] File › Export… clicked']);

  // A checkbox toggles, and back.
  const off = ok(await server.call('native_menu_invoke', { sessionId, id: 'view-wrap' }), 'checkbox');
  assert.equal(off.item.checked, false);
  assert.equal(ok(await server.call('native_menu_item', { sessionId, id: 'view-wrap' })).item.checked, false);
  const on = ok(await server.call('native_menu_invoke', { sessionId, path: ['View', 'Word Wrap'] }), 'checkbox');
  assert.equal(on.item.checked, true);
  await waitUntil(async () => (await handlersRun(server, sessionId)).length === 3, 10000);
  assert.deepEqual(await handlersRun(server, sessionId), [
    '[menu] File › Export… clicked',
    '[menu] View › Word Wrap clicked (checked: false)',
    '[menu] View › Word Wrap clicked (checked: true)',
  ]);

  // A radio item is checked, and its group's other item unchecked.
  const dark = ok(await server.call('native_menu_invoke', { sessionId, id: 'theme-dark' }), 'radio');
  assert.equal(dark.item.checked, true);
  assert.equal(ok(await server.call('native_menu_item', { sessionId, id: 'theme-light' })).item.checked, false);

  // The tray made at start-up: listed with its tooltip; its menu item runs.
  const trays = ok(await server.call('native_trays', { sessionId }), 'native_trays');
  assert.equal(trays.instrumented, true);
  assert.equal(trays.trays.length, 1);
  assert.equal(trays.trays[0].toolTip, 'Stagewright Notes');
  assert.equal(trays.trays[0].hasContextMenu, true);
  assert.deepEqual(trays.trays[0].menu.map((i) => i.label), ['New Note', '', 'Quit']);
  const trayMenu = ok(await server.call('native_menu', { sessionId, menu: 0 }), 'tray menu');
  assert.deepEqual(trayMenu.items, trays.trays[0].menu);
  ok(await server.call('native_tray_invoke', { sessionId, index: 0, action: 'menu', path: ['New Note'] }), 'tray menu item');
  const clicked = ok(await server.call('native_tray_invoke', { sessionId, index: 0, action: 'click' }), 'tray click');
  assert.equal(clicked.listeners, 1);
  await waitUntil(async () => (await handlersRun(server, sessionId)).length === 5, 10000);
  assert.deepEqual((await handlersRun(server, sessionId)).slice(3), ['[menu] Tray › New Note clicked', '[tray] clicked']);
  failsWith(await server.call('native_tray_invoke', { sessionId, index: 3, action: 'click' }), 'native.NOT_FOUND');

  // The notification shown at start-up is captured.
  failsWith(await server.call('native_notifications', { sessionId }), 'native.NOT_CAPTURING');
  const started = ok(await server.call('native_notifications_start', { sessionId }), 'start');
  assert.equal(started.instrumented, true);
  failsWith(await server.call('native_notifications_start', { sessionId }), 'native.ALREADY_CAPTURING');
  const captured = ok(await server.call('native_notifications', { sessionId }), 'notifications');
  assert.equal(captured.count, 1);
  assert.deepEqual({ ...captured.notifications[0], time: undefined }, {
    index: 0, title: 'Stagewright Notes', body: 'Ready to take notes', time: undefined,
    shown: true, clicked: false, closed: false,
  });
  assert.ok(!Number.isNaN(Date.parse(captured.notifications[0].time)));
  const clickedNote = ok(await server.call('native_notification_invoke', { sessionId, index: 0, action: 'click' }));
  assert.equal(clickedNote.notification.clicked, true);
  await waitUntil(async () => (await mainLines(server, sessionId, /^\[notification\] clicked$/)).length === 1, 10000);

  // A notification shown later is captured too.
  ok(await server.call('electron_eval_main', {
    sessionId, code: "new electron.Notification({ title: 'Later', body: 'Saved' }).show(); return true;",
  }), 'a later notification');
  const later = ok(await server.call('native_notifications', { sessionId, limit: 1 }), 'notifications');
  assert.equal(later.count, 2);
  assert.equal(later.truncated, true);
  assert.equal(later.notifications[0].title, 'Later');
  assert.equal(later.notifications[0].index, 1);
  ok(await server.call('native_notifications_stop', { sessionId }), 'stop');
  failsWith(await server.call('native_notifications_stop', { sessionId }), 'native.NOT_CAPTURING');
});

test('without instrumentNative: the start-up tray is native.NOT_INSTRUMENTED; the menu still works', async (t) => {
  const server = await startServer(t, { args: ['--plugin', 'native'], env: serverEnv() });
  const sessionId = await launchDemo(t, server);
  failsWith(await server.call('native_trays', { sessionId }), 'native.NOT_INSTRUMENTED');
  failsWith(await server.call('native_tray_invoke', { sessionId, index: 0, action: 'click' }), 'native.NOT_INSTRUMENTED');
  failsWith(await server.call('native_menu', { sessionId, menu: 0 }), 'native.NOT_INSTRUMENTED');
  // The start-up notification was missed: a capture starts empty.
  ok(await server.call('native_notifications_start', { sessionId }), 'start');
  assert.equal(ok(await server.call('native_notifications', { sessionId })).count, 0);
  // The application menu has a getter: it needs no instrumentation.
  ok(await server.call('native_menu_invoke', { sessionId, path: ['File', 'Export…'] }), 'invoke');
  await waitUntil(async () => (await handlersRun(server, sessionId)).length === 1, 10000);
  assert.deepEqual(await handlersRun(server, sessionId), ['[menu] File › Export… clicked']);
});

test('instrumentNative without main (a packaged launch) is refused with BAD_ARGUMENT; an agent\'s -r stays refused', async (t) => {
  const server = await startServer(t, { args: ['--plugin', 'native'], env: serverEnv() });
  const refused = failsWith(await server.call('electron_launch', {
    executablePath: launchArgs(DEMO_APP).executablePath, plugins: { native: { instrumentNative: true } },
  }), 'BAD_ARGUMENT');
  assert.match(refused.error, /instrumentNative needs main/);
  failsWith(await server.call('electron_launch', launchArgs(DEMO_APP, { args: ['-r', path.join(DEMO_APP, 'main.js')] })),
            'BAD_ARGUMENT');
  failsWith(await server.call('electron_launch', launchArgs(DEMO_APP, { instrumentNative: true })), 'BAD_ARGUMENT');
});

test('plain Chromium has no main process: native.UNSUPPORTED', async (t) => {
  const server = await startServer(t, { args: ['--plugin', 'native'], env: serverEnv() });
  const launch = ok(await server.call('electron_launch', {
    executablePath: CHROMIUM,
    args: ['--headless', '--disable-gpu', '--no-first-run', 'data:text/html,<title>Plain</title>'],
  }), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  failsWith(await server.call('native_menu', { sessionId: launch.session_id }), 'native.UNSUPPORTED');
  failsWith(await server.call('native_notifications_start', { sessionId: launch.session_id }), 'native.UNSUPPORTED');
});
