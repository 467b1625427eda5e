// dialogs.test.mjs: electron_dialog_handler over MCP with the official SDK
// client — page dialogs (alert, confirm, prompt, beforeunload) under each
// policy, a click whose alert must not deadlock it, and Electron's native
// dialog, shell and clipboard stubbed in the demo app's main process.
//
// What each dialog answered is read from the page (pages-app dialogs.html
// writes it into #result) or from the demo app's main process, never only
// from our own report.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/dialogs.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test as nodeTest } from 'node:test';

import {
  DEMO_APP,
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');

const skip = electronSkipReason() ??
  (fs.existsSync(path.join(PAGES_APP, 'pages', 'dialogs.html')) ? null : `${PAGES_APP}/pages/dialogs.html is missing`) ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

let server = null;

before(async () => {
  if (skip) return;
  server = await startServer(null);
});

after(async () => {
  if (!server) return;
  await server.call('electron_stop', {}).catch(() => {});
  await server.close();
});

const call = (name, args) => server.call(name, args);
const text = async (selector) => ok(await call('electron_get_text', { selector })).text;
const handler = async (args = {}) => ok(await call('electron_dialog_handler', args), `electron_dialog_handler ${JSON.stringify(args)}`);

async function resultAfterClick (selector) {
  const click = ok(await call('electron_click', { selector }), `click ${selector}`);
  return { click, result: await text('#result') };
}

test('tools/list: dialog_handler is listed, writable, and within its budget', async () => {
  const { tools } = await server.client.listTools();
  const tool = tools.find((t) => t.name === 'electron_dialog_handler');
  assert.ok(tool, 'electron_dialog_handler is listed in the full profile');
  assert.equal(tool.annotations.readOnlyHint ?? false, false, 'not read-only (the MCP default, unsaid)');
  assert.match(tool.description, /TRANSPORT_UNSUPPORTED/);
  assert.ok(JSON.stringify(tool).length / 4 <= 450, `${JSON.stringify(tool).length / 4} tokens`);
});

test('pages: launch the pages app on dialogs.html', async () => {
  await call('electron_stop', {}).catch(() => {});
  ok(await call('electron_launch', launchArgs(PAGES_APP, { args: ['--page=dialogs'] })), 'launch');
  const state = await handler({ clear: true });
  assert.deepEqual(state.policy.perType, { alert: 'dismiss', confirm: 'dismiss', prompt: 'dismiss', beforeunload: 'dismiss' });
  assert.equal(state.policy.action, 'dismiss');
  assert.equal(state.count, 0);
});

test('default policy: every dialog is dismissed, the click answers at once and reports it', async () => {
  let started = Date.now();
  let { click, result } = await resultAfterClick('#alert');
  assert.ok(Date.now() - started < 10000, 'the click answers (no deadlock)');
  assert.deepEqual(click.dialog, { type: 'alert', message: 'Hello from an alert', action: 'dismiss' });
  assert.equal(result, 'alert done');

  ({ click, result } = await resultAfterClick('#confirm'));
  assert.deepEqual(click.dialog, { type: 'confirm', message: 'Delete everything?', action: 'dismiss' });
  assert.equal(result, 'confirm false');

  ({ click, result } = await resultAfterClick('#prompt'));
  assert.equal(click.dialog.action, 'dismiss');
  assert.equal(result, 'prompt null');

  const events = await handler({});
  assert.deepEqual(events.entries.map((e) => [e.type, e.action]), [['alert', 'dismiss'], ['confirm', 'dismiss'], ['prompt', 'dismiss']]);
  for (const entry of events.entries) {
    assert.ok(Number.isInteger(entry.timestamp) && Math.abs(entry.timestamp - Date.now()) < 600000, JSON.stringify(entry));
    assert.match(entry.windowId, /-w1$/);
    assert.equal(typeof entry.surfaceId, 'string');
  }
  assert.equal(events.entries[2].defaultValue, 'Ada');
});

test('accept: confirm answers true, prompt its default value, then promptText', async () => {
  let state = await handler({ action: 'accept', clear: true });
  assert.equal(state.policy.action, 'accept');
  let { click, result } = await resultAfterClick('#confirm');
  assert.equal(click.dialog.action, 'accept');
  assert.equal(result, 'confirm true');
  ({ result } = await resultAfterClick('#prompt'));
  assert.equal(result, 'prompt "Ada"');

  state = await handler({ action: 'accept', promptText: 'Grace Hopper' });
  assert.equal(state.policy.promptText, 'Grace Hopper');
  ({ result } = await resultAfterClick('#prompt'));
  assert.equal(result, 'prompt "Grace Hopper"');
  const events = await handler({ type: 'prompt' });
  assert.equal(events.entries.at(-1).promptText, 'Grace Hopper');
  assert.ok(events.entries.every((e) => e.type === 'prompt'));
});

test('perType: confirm accepted, prompt dismissed; the rest falls back to action', async () => {
  await handler({ action: 'dismiss', perType: { confirm: 'accept' } });
  assert.equal((await resultAfterClick('#confirm')).result, 'confirm true');
  assert.equal((await resultAfterClick('#prompt')).result, 'prompt null');
  const state = await handler({ action: 'accept', perType: { prompt: 'dismiss' } });
  assert.deepEqual(state.policy.perType, { alert: 'accept', confirm: 'accept', prompt: 'dismiss', beforeunload: 'accept' });
  assert.equal((await resultAfterClick('#confirm')).result, 'confirm true');
  assert.equal((await resultAfterClick('#prompt')).result, 'prompt null');
});

test('oneShot: the policy answers one dialog, then dismiss comes back', async () => {
  const state = await handler({ action: 'accept', oneShot: true });
  assert.equal(state.policy.oneShot, true);
  assert.equal((await resultAfterClick('#confirm')).result, 'confirm true');
  assert.equal((await resultAfterClick('#confirm')).result, 'confirm false');
  const after = await handler({});
  assert.equal(after.policy.action, 'dismiss');
  assert.equal(after.policy.oneShot, false);
});

test('frames: a dialog a same-origin or out-of-process frame opens is answered and names that frame', async () => {
  let surfaces = [];
  await waitUntil(async () => {
    surfaces = ok(await call('electron_surfaces_list', {})).surfaces;
    return surfaces.filter((s) => /dialogs-frame\.html/.test(s.url ?? '')).length === 2;
  }, 15000);
  const window = surfaces.find((s) => s.kind === 'window');
  await handler({ clear: true, perType: { confirm: 'accept' } });
  for (const kind of ['same-origin', 'cross-origin']) {
    const frame = surfaces.find((s) => (s.url ?? '').includes(`kind=${kind}`));
    ok(await call('electron_switch_surface', { surfaceId: frame.id }));
    const click = ok(await call('electron_click', { selector: '#frame-confirm' }));
    assert.deepEqual(click.dialog, { type: 'confirm', message: `Frame ${kind}?`, action: 'accept' });
    assert.equal(await text('#frame-result'), 'frame confirm true');
    const [entry] = (await handler({ limit: 1 })).entries;
    assert.equal(entry.surfaceId, frame.id, `${kind}: ${JSON.stringify(entry)}`);
    assert.equal(entry.windowId, window.windowId);
  }
  ok(await call('electron_switch_surface', { surfaceId: window.id }));
  await handler({});
});

test('a dialog outside any action (a timer) is answered too and recorded', async () => {
  await handler({ clear: true });
  ok(await call('electron_click', { selector: '#later' }));
  await waitUntil(async () => (await text('#result')) === 'later done', 10000);
  const events = await handler({ type: ['alert'] });
  assert.equal(events.count, 1);
  assert.equal(events.entries[0].message, 'Later');
});

test('beforeunload: dismissed keeps the page, accepted leaves it', async () => {
  await handler({ clear: true });
  ok(await call('electron_click', { selector: '#guard' }));
  assert.equal(await text('#result'), 'guarded');
  ok(await call('electron_click', { selector: '#leave' }));
  await waitUntil(async () => (await handler({ type: 'beforeunload' })).count === 1, 10000);
  // Dismissed: still this document, which wrote `leaving`.
  assert.equal(await text('#result'), 'leaving');

  await handler({ perType: { beforeunload: 'accept' } });
  ok(await call('electron_click', { selector: '#leave' }));
  await waitUntil(async () => {
    const r = await call('electron_get_text', { selector: '#result' });
    return r.ok && r.text === 'Left';
  }, 15000);
  const events = await handler({ type: 'beforeunload' });
  assert.deepEqual(events.entries.map((e) => e.action), ['dismiss', 'accept']);
});

test('hostile arguments: each is BAD_ARGUMENT and leaves the policy as it was', async () => {
  await handler({ action: 'accept' });
  const bad = [
    { action: 'maybe' },
    { perType: { toast: 'accept' } },
    { perType: { alert: 'yes' } },
    { perType: 'accept' },
    { promptText: 'x' },                                 // a policy is whole: prompts dismissed
    { action: 'dismiss', promptText: 'x' },
    { action: 'accept', perType: { prompt: 'dismiss' }, promptText: 'x' },
    { promptText: 42, action: 'accept' },
    { promptText: 'x'.repeat(10001), action: 'accept' },
    { oneShot: 'yes' },
    { limit: 0 }, { limit: 201 }, { limit: 1.5 }, { since: -1 }, { type: [] }, { type: [1] }, { type: 7 },
    { clear: 'yes' },
    { stub: { 'process.exit': true } },
    { stub: JSON.parse('{"__proto__":true}') },
    { action: 'dismiss', stub: { 'shell.beep': true } },
    { stub: 'dialog.showOpenDialog' },
    { unknown: 1 },
  ];
  for (const args of bad) {
    const envelope = await call('electron_dialog_handler', args);
    failsWith(envelope, 'BAD_ARGUMENT', JSON.stringify(args).slice(0, 80));
  }
  const state = await handler({});
  assert.equal(state.policy.action, 'accept', 'a refused call changes nothing');
  await handler({ action: 'dismiss' });
});

test('a launch with main: native stubs are available (native: true)', async () => {
  const state = await handler({});
  assert.equal(state.native, true, 'a launch with main has a main process');
});

test('ring: at most 200 events, the rest counted as overflowed', async () => {
  await handler({ clear: true });
  for (let i = 0; i < 205; i++)
    ok(await call('electron_click', { selector: '#alert' }));
  const events = await handler({ limit: 200 });
  assert.equal(events.count, 200);
  assert.equal(events.overflowed, 5);
  const newest = await handler({ limit: 3 });
  assert.equal(newest.count, 3);
  assert.ok(newest.entries[0].timestamp <= newest.entries[2].timestamp);
  const since = await handler({ since: Date.now() + 60000 });
  assert.equal(since.count, 0);
  ok(await call('electron_stop', {}));
});

// --- native dialogs, shell and clipboard: the demo app's main process -----------------

test('demo app: a stubbed open dialog returns canned paths, and the app receives them', async () => {
  ok(await call('electron_launch', launchArgs(DEMO_APP)), 'launch the demo app');
  const state = await handler({ stub: { 'dialog.showOpenDialog': ['/tmp/notes-a.json', '/tmp/notes-b.json'] } });
  assert.deepEqual(state.policy.stubs, ['dialog.showOpenDialog']);
  ok(await call('electron_click', { selector: '#open' }));
  await waitUntil(async () => /Opened/.test(await text('#status')), 10000);
  assert.equal(await text('#status'), 'Opened /tmp/notes-a.json, /tmp/notes-b.json');

  const events = await handler({ type: 'dialog' });
  assert.equal(events.count, 1);
  const [opened] = events.entries;
  assert.equal(opened.type, 'dialog.showOpenDialog');
  assert.equal(opened.source, 'main');
  assert.equal(opened.args[0].title, 'Open notes');
  assert.equal(typeof opened.electronWindowId, 'number');
  assert.deepEqual(opened.returned, { canceled: false, filePaths: ['/tmp/notes-a.json', '/tmp/notes-b.json'] });

  // The save dialog: a full answer, then the short cancel form.
  await handler({ stub: { 'dialog.showSaveDialog': true } });
  ok(await call('electron_click', { selector: '#export' }));
  await waitUntil(async () => (await text('#status')) === 'Export canceled', 10000);
});

test('demo app: shell.openExternal is recorded and not executed; clipboard is stubbed', async () => {
  await handler({ clear: true, stub: { 'shell.openExternal': true, 'clipboard.writeText': true, 'clipboard.readText': true } });
  ok(await call('electron_click', { selector: '#website' }));
  await waitUntil(async () => /website/i.test(await text('#status')), 10000);
  ok(await call('electron_click', { selector: '#copy' }));
  await waitUntil(async () => /Copied/.test(await text('#status')), 10000);
  // The stubbed clipboard gave back what the app wrote.
  assert.equal(await text('#status'), 'Copied "0 notes" (clipboard reads "0 notes")');

  const shell = await handler({ type: 'shell' });
  assert.equal(shell.count, 1);
  assert.equal(shell.entries[0].type, 'shell.openExternal');
  assert.deepEqual(shell.entries[0].args, ['https://example.org/stagewright-notes']);
  const clipboard = await handler({ type: 'clipboard' });
  assert.deepEqual(clipboard.entries.map((e) => e.type), ['clipboard.writeText', 'clipboard.readText']);
  assert.deepEqual(clipboard.entries[0].args, ['0 notes']);
  assert.equal(clipboard.entries[1].returned, '0 notes');

  // Restored, the app's own method runs again (the stand-in's records it).
  const state = await handler({ stub: { 'shell.openExternal': null } });
  assert.ok(!state.policy.stubs.includes('shell.openExternal'));
  ok(await call('electron_stop', {}));
});

test('attached over CDP without a main process: stubs are TRANSPORT_UNSUPPORTED, page dialogs still work', async (t) => {
  const { spawnStandin } = await import('./lib/lifecycle-harness.mjs');
  const app = await spawnStandin(PAGES_APP, ['--page=dialogs']);
  t.after(() => app.kill());
  const attached = ok(await call('electron_attach', { port: app.port }), 'attach');
  const sessionId = attached.session_id;
  const state = ok(await call('electron_dialog_handler', { sessionId }));
  // An attach may reach the main process another way (its own inspector):
  // then stubs work, and `native` says so.
  if (!state.native) {
    const refused = failsWith(await call('electron_dialog_handler', { sessionId, stub: { 'shell.openExternal': true } }),
                              'TRANSPORT_UNSUPPORTED');
    assert.match(refused.error, /main process/);
  }
  const click = ok(await call('electron_click', { sessionId, selector: '#confirm' }));
  assert.equal(click.dialog.action, 'dismiss');
  ok(await call('electron_detach', { sessionId }));
});
