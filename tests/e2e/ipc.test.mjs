// ipc.test.mjs: the ipc plugin (issue 19, items 1 and 2) on the demo app,
// over MCP with the official SDK client: captures of invokes made by the
// renderer and by ipc_invoke, in ipcMain and webContents.ipc, handlers
// registered before and after the capture starts; stubs the page sees;
// the channel allowlists; redaction; hostile answers bounded; and the eval
// policy (hidden, listed disabled, refused with ipc.EVAL_REQUIRED).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  DEMO_APP,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const built = fs.existsSync(path.join(PLUGIN_DIR, 'libipc.so')) ? null : `${PLUGIN_DIR}/libipc.so is not built`;
const skip = electronSkipReason() ?? built ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options }, fn);
}

const CONFIG = {
  channels: ['notes:*', 'late:*'],
  invokeAllow: ['notes:load', 'late:*'],
  redact: ['password', 'secret'],
};

function serverEnv () {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

async function startIpc (t, { allowEval = 'main', config = CONFIG } = {}) {
  const args = ['--plugin', 'ipc', '--plugin-config', `ipc=${JSON.stringify(config)}`];
  if (allowEval)
    args.push(`--allow-eval=${allowEval}`);
  return startServer(t, { args, env: serverEnv() });
}

async function launchDemo (t, server) {
  const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  const sessionId = launch.session_id;
  // The page's script has run once its buttons answer.
  await waitUntil(async () => (await server.call('electron_get_text', { sessionId, selector: '#note-count' })).text === 'No notes yet', 15000);
  return sessionId;
}

const mainEval = async (server, sessionId, code) =>
  ok(await server.call('electron_eval_main', { sessionId, code }), 'electron_eval_main').result;

async function statusText (server, sessionId, expected) {
  let text = null;
  await waitUntil(async () => {
    text = (await server.call('electron_get_text', { sessionId, selector: '#status' })).text;
    return text === expected;
  }, 10000).catch(() => {});
  return text;
}

test('capture: renderer invokes and ipc_invoke, ipcMain and webContents.ipc, handlers from before and after the start, redacted', { skip }, async (t) => {
  const server = await startIpc(t);
  const sessionId = await launchDemo(t, server);

  const started = ok(await server.call('ipc_capture_start', { sessionId, channels: ['notes:*', 'late:*'], includeSend: true, includeOn: true }), 'ipc_capture_start');
  assert.equal(started.capturing, true);
  assert.deepEqual(started.capabilities.scopes, ['ipcMain', 'webContents.ipc', 'WebFrameMain.ipc']);
  // Registered before the start, in both scopes: notes:save on ipcMain, notes:stats on the window's own.
  assert.ok(started.handlers.some((h) => h.channel === 'notes:save' && h.scope === 'ipcMain'), JSON.stringify(started.handlers));
  assert.ok(started.handlers.some((h) => h.channel === 'notes:stats' && h.scope === 'webContents.ipc'), JSON.stringify(started.handlers));
  failsWith(await server.call('ipc_capture_start', { sessionId, channels: ['notes:*'] }), 'ipc.ALREADY_CAPTURING');

  // Registered after the start, in both scopes, by the app's main process.
  await mainEval(server, sessionId, `
    electron.ipcMain.handle('late:echo', (_event, value) => ({ echo: value, secret: 'hunter2', kept: 'visible' }));
    electron.BrowserWindow.getAllWindows()[0].webContents.ipc.handle('late:scoped', (_event, n) => n * 2);
    return true;`);
  // A message to an ipcMain.on listener, delivered as Electron does: emitted on ipcMain with its event.
  await mainEval(server, sessionId, `
    const sender = electron.BrowserWindow.getAllWindows()[0].webContents;
    electron.ipcMain.on('late:ping', () => {});
    electron.ipcMain.emit('late:ping', { sender }, 'hello', { password: 'x' });
    return true;`);

  // The renderer invokes: the Stats button (webContents.ipc), then a saved note (ipcMain).
  ok(await server.call('electron_click', { sessionId, selector: '#stats' }), 'click Stats');
  assert.equal(await statusText(server, sessionId, '0 notes, 0 pinned, 0 saves'), '0 notes, 0 pinned, 0 saves');
  ok(await server.call('electron_type', { sessionId, selector: '#note-title', text: 'Buy milk' }), 'type');
  ok(await server.call('electron_click', { sessionId, selector: '#add' }), 'click Add');
  await waitUntil(async () => (await server.call('electron_get_text', { sessionId, selector: '#note-count' })).text !== 'No notes yet', 10000);

  // ipc_invoke, on the handlers registered after the start.
  const echoed = ok(await server.call('ipc_invoke', { sessionId, channel: 'late:echo', args: [{ password: 'p4ss', note: 'x' }] }), 'ipc_invoke');
  assert.deepEqual(echoed.result, { echo: { password: '[REDACTED]', note: 'x' }, secret: '[REDACTED]', kept: 'visible' });
  assert.equal(ok(await server.call('ipc_invoke', { sessionId, channel: 'late:scoped', args: [21] })).result, 42);

  const { entries, total } = ok(await server.call('ipc_captured', { sessionId }), 'ipc_captured');
  assert.equal(total, entries.length);
  const find = (channel, kind = 'invoke') => entries.find((e) => e.channel === channel && e.kind === kind);

  const stats = find('notes:stats');
  assert.ok(stats, JSON.stringify(entries));
  assert.equal(stats.scope, 'webContents.ipc');
  assert.equal(stats.source, 'renderer');
  assert.equal(stats.direction, 'renderer-to-main');
  assert.deepEqual(stats.result, { count: 0, saves: 0, pinned: 0 });
  assert.equal(typeof stats.window.webContentsId, 'number');
  assert.equal(typeof stats.window.windowId, 'number');
  assert.equal(typeof stats.durationMs, 'number');

  const save = find('notes:save');
  assert.ok(save, JSON.stringify(entries));
  assert.equal(save.scope, 'ipcMain');
  assert.equal(save.source, 'renderer');
  assert.equal(save.args[0][0].title, 'Buy milk');
  assert.deepEqual(save.result, { count: 1, saves: 1 });
  const changed = find('notes:changed', 'send');
  assert.ok(changed, 'webContents.send captured with includeSend');
  assert.equal(changed.direction, 'main-to-renderer');
  assert.deepEqual(changed.args, [1]);

  const echo = find('late:echo');
  assert.equal(echo.source, 'ipc_invoke');
  assert.deepEqual(echo.args, [{ password: '[REDACTED]', note: 'x' }]);
  assert.equal(echo.result.secret, '[REDACTED]');
  const ping = find('late:ping', 'on');
  assert.ok(ping, 'ipcMain.on message captured with includeOn');
  assert.deepEqual(ping.args, ['hello', { password: '[REDACTED]' }]);
  assert.equal(ping.listeners, 1);
  assert.equal(typeof ping.window.webContentsId, 'number');
  const scoped = find('late:scoped');
  assert.equal(scoped.scope, 'webContents.ipc');
  assert.equal(scoped.result, 42);
  // notes:load was not called: nothing else was captured.
  assert.ok(entries.every((e) => /^(notes|late):/.test(e.channel)), JSON.stringify(entries));

  const filtered = ok(await server.call('ipc_captured', { sessionId, channel: 'late:*', limit: 1 }));
  assert.equal(filtered.entries.length, 1);
  assert.equal(filtered.entries[0].channel, 'late:scoped');
  assert.equal(filtered.total, 3);

  const stopped = ok(await server.call('ipc_capture_stop', { sessionId }), 'ipc_capture_stop');
  assert.equal(stopped.capturing, false);
  assert.equal(stopped.total, entries.length);
  failsWith(await server.call('ipc_captured', { sessionId }), 'ipc.NOT_CAPTURING');
  failsWith(await server.call('ipc_capture_stop', { sessionId }), 'ipc.NOT_CAPTURING');
  // The app's handlers are its own again (Electron's wrapper, not ours).
  assert.equal(await mainEval(server, sessionId,
    "return String(electron.ipcMain._invokeHandlers.get('notes:save')).includes('e._reply(await');"), true);
  assert.equal(await mainEval(server, sessionId,
    "return Object.prototype.hasOwnProperty.call(electron.ipcMain._invokeHandlers, 'set');"), false);
});

test('capture: a window opened after the start has its webContents.ipc wrapped too', { skip }, async (t) => {
  const server = await startIpc(t);
  const sessionId = await launchDemo(t, server);
  ok(await server.call('ipc_capture_start', { sessionId, channels: ['late:*'] }));

  ok(await server.call('electron_click', { sessionId, selector: '#new-window' }));
  await waitUntil(async () => ok(await server.call('electron_windows_list', { sessionId })).windows.length === 2, 15000);
  const id = await mainEval(server, sessionId, `
    const all = electron.BrowserWindow.getAllWindows();
    const second = all[all.length - 1];
    second.webContents.ipc.handle('late:second', () => 'from the second window');
    return second.webContents.id;`);

  const answer = ok(await server.call('ipc_invoke', { sessionId, channel: 'late:second', webContentsId: id }), 'ipc_invoke');
  assert.equal(answer.result, 'from the second window');
  const { entries } = ok(await server.call('ipc_captured', { sessionId }));
  assert.equal(entries.length, 1, JSON.stringify(entries));
  assert.equal(entries[0].scope, 'webContents.ipc');
  assert.equal(entries[0].window.webContentsId, id);
});

test('stub: what the renderer gets changes in the page; once; throws; unstub', { skip }, async (t) => {
  const server = await startIpc(t);
  const sessionId = await launchDemo(t, server);

  const stub = ok(await server.call('ipc_stub', { sessionId, channel: 'notes:stats', returns: { count: 42, pinned: 3, saves: 7 } }), 'ipc_stub');
  assert.equal(stub.handlers, 1);
  ok(await server.call('electron_click', { sessionId, selector: '#stats' }));
  assert.equal(await statusText(server, sessionId, '42 notes, 3 pinned, 7 saves'), '42 notes, 3 pinned, 7 saves');

  assert.equal(ok(await server.call('ipc_unstub', { sessionId, channel: 'notes:stats' })).removed, true);
  ok(await server.call('electron_click', { sessionId, selector: '#stats' }));
  assert.equal(await statusText(server, sessionId, '0 notes, 0 pinned, 0 saves'), '0 notes, 0 pinned, 0 saves');

  ok(await server.call('ipc_stub', { sessionId, channel: 'notes:load', throws: 'disk on fire', once: true }));
  const thrown = failsWith(await server.call('ipc_invoke', { sessionId, channel: 'notes:load' }), 'ipc.INVOKE_FAILED');
  assert.match(thrown.error, /disk on fire/);
  assert.deepEqual(ok(await server.call('ipc_invoke', { sessionId, channel: 'notes:load' })).result, [], 'once: the real handler answers next');
  failsWith(await server.call('ipc_stub', { sessionId, channel: 'notes:load' }), 'BAD_ARGUMENT', 'a stub needs returns or throws');
});

test('allowlist: a channel outside it is refused and its handler does not run', { skip }, async (t) => {
  const server = await startIpc(t);
  const sessionId = await launchDemo(t, server);
  await mainEval(server, sessionId, `
    let runs = 0;
    electron.ipcMain.handle('danger:wipe', () => ++runs);
    electron.ipcMain.handle('late:runs', () => runs);
    return true;`);

  for (const [tool, args, list] of [
    ['ipc_invoke', { channel: 'danger:wipe' }, 'invokeAllow'],
    ['ipc_invoke', { channel: 'notes:save', args: [[]] }, 'invokeAllow'],
    ['ipc_stub', { channel: 'danger:wipe', returns: 1 }, 'channels'],
    ['ipc_capture_start', { channels: ['notes:*', 'danger:*'] }, 'channels'],
    ['ipc_capture_start', { channels: ['*'] }, 'channels'],
  ]) {
    const refused = failsWith(await server.call(tool, { sessionId, ...args }), 'ipc.CHANNEL_NOT_ALLOWED', tool);
    assert.equal(refused.details.allowlist, list);
  }
  assert.equal(ok(await server.call('ipc_invoke', { sessionId, channel: 'late:runs' })).result, 0, 'danger:wipe never ran');
  assert.deepEqual(ok(await server.call('ipc_invoke', { sessionId, channel: 'notes:load' })).result, [], 'notes:save never ran');

  // A capture of allowed channels leaves the others alone.
  ok(await server.call('ipc_capture_start', { sessionId, channels: ['late:*'] }));
  ok(await server.call('electron_click', { sessionId, selector: '#stats' }));
  await statusText(server, sessionId, '0 notes, 0 pinned, 0 saves');
  ok(await server.call('ipc_invoke', { sessionId, channel: 'late:runs' }));
  const { entries } = ok(await server.call('ipc_captured', { sessionId }));
  assert.deepEqual(entries.map((e) => e.channel), ['late:runs']);
});

test('hostile answers: cycles, getters that throw, depth, size and count are bounded', { skip }, async (t) => {
  const server = await startIpc(t);
  const sessionId = await launchDemo(t, server);
  await mainEval(server, sessionId, `
    electron.ipcMain.handle('late:hostile', () => {
      const o = { big: 'x'.repeat(1000000), list: new Array(100000).fill(7), when: new Date(0) };
      o.self = o;
      Object.defineProperty(o, 'boom', { enumerable: true, get () { throw new Error('no'); } });
      let d = o;
      for (let i = 0; i < 100; i++) { d.next = { i }; d = d.next; }
      for (let i = 0; i < 5000; i++) o['k' + i] = i;
      return o;
    });
    return true;`);
  ok(await server.call('ipc_capture_start', { sessionId, channels: ['late:hostile'] }));
  const started = Date.now();
  const { result } = ok(await server.call('ipc_invoke', { sessionId, channel: 'late:hostile' }), 'ipc_invoke');
  assert.ok(Date.now() - started < 10000);
  assert.equal(result.self, '[Circular]');
  assert.equal(result.boom, '[Getter]');
  assert.equal(result.when, '1970-01-01T00:00:00.000Z');
  assert.ok(result.big.length < 2100, `big is cut: ${result.big.length}`);
  assert.equal(result.list.length, 101);
  assert.ok(Object.keys(result).length <= 101);
  assert.ok(JSON.stringify(result).length < 200000);
  const { entries } = ok(await server.call('ipc_captured', { sessionId }));
  assert.equal(entries.length, 1);
  assert.ok(JSON.stringify(entries[0]).length < 70000, 'one entry stays under 64 KiB');
});

test('eval policy: without main eval the ipc tools are hidden, listed disabled, and refused with ipc.EVAL_REQUIRED', { skip: built ?? false }, async (t) => {
  for (const allowEval of [null, 'renderer']) {
    const server = await startIpc(t, { allowEval });
    const { tools } = await server.client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(!names.some((name) => name.startsWith('ipc_')), `hidden: ${names.join(' ')}`);

    const plugins = ok(await server.call('electron_plugins', {}), 'electron_plugins');
    const ipc = plugins.plugins.find((p) => p.name === 'ipc');
    assert.equal(ipc.tools.length, 6);
    for (const tool of ipc.tools) {
      assert.equal(tool.state, 'disabled', tool.name);
      assert.deepEqual(tool.disabledReason, { kind: 'eval_policy_disabled', target: 'main' });
    }
    assert.deepEqual(ipc.requirements?.evalTargets, ['main']);
    assert.deepEqual(ipc.effectiveConfig.channels, CONFIG.channels);
    assert.ok(ipc.errorCodes.includes('ipc.EVAL_REQUIRED'));

    const refused = failsWith(await server.call('ipc_capture_start', { channels: ['notes:*'] }), 'ipc.EVAL_REQUIRED');
    assert.match(refused.error, /--allow-eval=main/);
    assert.match(refused.hint, /--allow-eval=main/);
    await server.close();
  }

  // With it, they are listed and enabled.
  const server = await startIpc(t, { allowEval: 'main' });
  const { tools } = await server.client.listTools();
  const names = tools.map((tool) => tool.name).filter((name) => name.startsWith('ipc_')).sort();
  assert.deepEqual(names, ['ipc_capture_start', 'ipc_capture_stop', 'ipc_captured', 'ipc_invoke', 'ipc_stub', 'ipc_unstub']);
  const plugins = ok(await server.call('electron_plugins', {}));
  assert.ok(plugins.plugins.find((p) => p.name === 'ipc').tools.every((tool) => tool.state === 'enabled'));
});
