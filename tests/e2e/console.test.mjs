// console.test.mjs: electron_console_logs over MCP with the official SDK
// client — console output from two windows, a same-origin frame, an
// out-of-process frame, uncaught exceptions, the main process's console
// and its stdout; filters (type, source, match, since, limit), the safe
// regular expressions, and the ring's overflow.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/console.test.mjs

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
  (fs.existsSync(path.join(PAGES_APP, 'pages', 'console.html')) ? null : `${PAGES_APP}/pages/console.html is missing`) ?? false;

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

// server.call, except that a big answer (1,000 entries) comes without
// structuredContent: the server sends it once, as text.
async function logs (args = {}) {
  const result = await server.client.callTool({ name: 'electron_console_logs', arguments: args });
  const envelope = JSON.parse(result.content[0].text);
  if (result.structuredContent !== undefined)
    assert.deepEqual(result.structuredContent, envelope);
  return ok(envelope, `electron_console_logs ${JSON.stringify(args)}`);
}

async function waitForText (pattern, args = {}, timeoutMs = 15000) {
  let last = null;
  const found = await waitUntil(async () => {
    last = await logs({ limit: 1000, ...args });
    return last.entries.find((e) => pattern.test(e.text));
  }, timeoutMs).catch(() => null);
  assert.ok(found, `no entry matches ${pattern}: ${JSON.stringify(last?.entries.map((e) => `${e.source}/${e.type}: ${e.text}`))}`);
  return found;
}

test('tools/list: console_logs is listed, read-only, and within its budget', async () => {
  const { tools } = await server.client.listTools();
  const tool = tools.find((t) => t.name === 'electron_console_logs');
  assert.ok(tool);
  assert.equal(tool.annotations.readOnlyHint, true);
  assert.ok(JSON.stringify(tool).length / 4 <= 300, `${JSON.stringify(tool).length / 4} tokens`);
});

test('pages: the window and both frames log at load, each told apart', async () => {
  await call('electron_stop', {}).catch(() => {});
  ok(await call('electron_launch', launchArgs(PAGES_APP, { args: ['--page=console'] })), 'launch');
  const loaded = await waitForText(/^console page loaded$/);
  assert.equal(loaded.source, 'renderer');
  assert.equal(loaded.type, 'log');
  assert.match(loaded.windowId, /-w1$/);
  assert.equal(typeof loaded.surfaceId, 'string');
  assert.ok(Math.abs(loaded.timestamp - Date.now()) < 600000);
  assert.match(loaded.location.url, /console\.html/);
  assert.ok(loaded.location.line > 1);

  const info = await waitForText(/^console page info/);
  assert.equal(info.type, 'info');
  // %d is applied; the object shows from its preview — which a message
  // logged before the session enabled Runtime comes without (V8 replays
  // stored messages unpreviewed), and then is `Object` as in DevTools.
  assert.match(info.text, /^console page info 42 (\{a: 1\}|Object)$/);
  assert.equal((await waitForText(/^console page warning$/)).type, 'warning');
  assert.equal((await waitForText(/^console page error$/)).type, 'error');

  const same = await waitForText(/^frame says hello \(same-origin\)$/);
  assert.match(same.location.url, /console-frame\.html\?kind=same-origin/);
  assert.equal(same.windowId, loaded.windowId);
  const cross = await waitForText(/^frame says hello \(cross-origin\)$/);
  assert.equal(cross.windowId, loaded.windowId);
  // The out-of-process frame is a surface of its own.
  const { surfaces } = ok(await call('electron_surfaces_list', {}));
  const frameSurface = surfaces.find((s) => s.id === cross.surfaceId);
  assert.ok(frameSurface, `the cross-origin entry names a listed surface: ${JSON.stringify(surfaces)}`);
  assert.notEqual(cross.surfaceId, loaded.surfaceId);
});

test('a second window logs with its own window id; a click logs; an uncaught exception is an error', async () => {
  ok(await call('electron_click', { selector: '#open' }));
  const second = await waitForText(/^second window says hello$/);
  const first = await waitForText(/^console page loaded$/);
  assert.notEqual(second.windowId, first.windowId);

  ok(await call('electron_click', { selector: '#log' }));
  await waitForText(/^clicked 1$/);
  ok(await call('electron_click', { selector: '#throw' }));
  const thrown = await waitForText(/thrown on purpose/);
  assert.equal(thrown.type, 'error');
  assert.equal(thrown.exception, true);
});

test('filters: type, source, match, since and limit', async () => {
  const errors = await logs({ type: 'error' });
  assert.ok(errors.count >= 2 && errors.entries.every((e) => e.type === 'error'));
  const warnOrInfo = await logs({ type: ['warning', 'info'] });
  assert.deepEqual(new Set(warnOrInfo.entries.map((e) => e.type)), new Set(['warning', 'info']));

  const frames = await logs({ match: '^frame says' });
  assert.equal(frames.count, 2);
  assert.equal((await logs({ match: '/^FRAME says/i' })).count, 2);
  assert.equal((await logs({ match: '/^FRAME says/' })).count, 0);

  const renderer = await logs({ source: 'renderer', limit: 1000 });
  assert.ok(renderer.entries.every((e) => e.source === 'renderer'));

  const newest = await logs({ limit: 2 });
  assert.equal(newest.count, 2);
  const all = await logs({ limit: 1000 });
  assert.deepEqual(newest.entries, all.entries.slice(-2), 'limit keeps the newest, in order');

  const mark = Date.now();
  ok(await call('electron_click', { selector: '#log' }));
  await waitForText(/^clicked 2$/);
  const since = await logs({ since: mark, source: 'renderer' });
  assert.deepEqual(since.entries.map((e) => e.text), ['clicked 2']);
});

test('hostile filters: unsafe or malformed regular expressions and bounds are BAD_ARGUMENT', async () => {
  const bad = [
    { match: '(a+)+$' }, { match: '(a*)*' }, { match: '(?:ab+c?)+' }, { match: '((a|b)+)*' }, { match: '(x{2,})+' },
    { match: '/abc/g' }, { match: '/abc/y' }, { match: '/abc/x' }, { match: 'a'.repeat(1001) }, { match: '(' },
    { match: '[' }, { match: 7 },
    { limit: 0 }, { limit: 1001 }, { since: -5 }, { type: [] }, { type: [3] }, { source: {} }, { extra: true },
  ];
  for (const args of bad)
    failsWith(await call('electron_console_logs', args), 'BAD_ARGUMENT', JSON.stringify(args).slice(0, 60));
  // A pattern that would backtrack for ever is refused before it runs.
  const started = Date.now();
  failsWith(await call('electron_console_logs', { match: '^(\\w+\\s?)*$' }), 'BAD_ARGUMENT');
  assert.ok(Date.now() - started < 5000);
  // Safe shapes pass: a quantified group without inner quantifiers, a
  // quantifier inside a class, escaped parentheses.
  for (const match of ['(ab)+', '[a+]+', '\\(a+\\)+', 'a+b*c?', '/x/imsu'])
    ok(await call('electron_console_logs', { match }), match);
});

test('ring: 1,000 entries kept, the rest counted as overflowed', async () => {
  ok(await call('electron_click', { selector: '#flood' }));
  await waitForText(/^flood 1100$/);
  const all = await logs({ limit: 1000 });
  assert.equal(all.count, 1000);
  assert.ok(all.overflowed >= 100, `overflowed ${all.overflowed}`);
  assert.equal(all.entries.at(-1).text, 'flood 1100');
  assert.equal(all.entries.at(-1).type, 'debug');
  ok(await call('electron_stop', {}));
});

test('demo app: the main process console and its stdout', async () => {
  ok(await call('electron_launch', launchArgs(DEMO_APP)), 'launch the demo app');
  ok(await call('electron_dialog_handler', { stub: { 'dialog.showOpenDialog': ['/tmp/x.json'] } }));
  ok(await call('electron_click', { selector: '#open' }));
  const main = await waitForText(/^\[notes\] open dialog answered 1 path\(s\)$/, { source: 'main' });
  assert.equal(main.type, 'log');
  assert.equal(main.windowId, undefined);
  const stdout = await waitForText(/^\[notes\] open dialog answered 1 path\(s\)$/, { source: 'stdout' });
  assert.equal(stdout.type, 'log');
  const stderr = await logs({ source: 'stderr', limit: 1000 });
  assert.ok(stderr.entries.every((e) => e.type === 'error'));
  ok(await call('electron_stop', {}));
});
