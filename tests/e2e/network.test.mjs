// network.test.mjs: the network plugin (issue 20, items 1–4 and 10) over MCP
// with the official SDK client, on the network fixture app whose page this
// test serves over loopback HTTP: captured requests (a fetch, an image, a
// redirect, a new window's first request) with secrets redacted and bodies
// in files under the app root; a HAR that har-validator 5.1.5 accepts and
// whose entries match; stubs that change what the page shows, a `fail`
// stub that runs the page's error path, `times`, the last stub winning;
// a service worker's own requests captured, in the HAR and stubbed, while
// it never becomes a surface; and the codes.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import { NODE_MODULES } from './lib/harness.mjs';
import {
  BIN,
  FIXTURES,
  TOP_SRCDIR,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const APP = path.join(FIXTURES, 'network-app');
const PAGE_DIR = path.join(APP, 'page');
const built = fs.existsSync(path.join(PLUGIN_DIR, 'libnetwork.so')) ? null : `${PLUGIN_DIR}/libnetwork.so is not built`;
const skip = electronSkipReason() ?? built ?? false;
const require = createRequire(import.meta.url);
const harValidator = require(path.join(NODE_MODULES, 'har-validator'));

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.json': 'application/json', '.png': 'image/png' };

/** The page's server on 127.0.0.1: page/ as files, /api/old a redirect,
 * a secret cookie on every answer; `hits` counts the requests per path. */
async function pageServer (t) {
  const hits = new Map();
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    response.setHeader('Set-Cookie', 'sid=server-s3cret; Path=/');
    if (url.pathname === '/api/old') {
      response.writeHead(302, { Location: '/api/moved.json' });
      response.end();
      return;
    }
    const file = path.normalize(path.join(PAGE_DIR, url.pathname === '/' ? 'index.html' : url.pathname));
    if (!file.startsWith(PAGE_DIR + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    response.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${server.address().port}/`, hits };
}

/** A scratch directory inside the source tree, the app root of these tests. */
function scratch (t) {
  const dir = fs.mkdtempSync(path.join(TOP_SRCDIR, 'tests', 'e2e', 'network-scratch-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startNetwork (t, { config = {} } = {}) {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  const args = ['--plugin', 'network', `--app-root=${TOP_SRCDIR}`, '--plugin-config', `network=${JSON.stringify(config)}`];
  return startServer(t, { args, env });
}

async function launch (t, server, page) {
  const launched = ok(await server.call('electron_launch', launchArgs(APP, { args: [`--url=${page.url}`] })), 'electron_launch');
  const sessionId = launched.session_id;
  t.after(() => server.call('electron_stop', { sessionId }).catch(() => {}));
  await textIs(server, sessionId, '#secret', 'secret: ok');
  return sessionId;
}

async function textOf (server, sessionId, selector) {
  return (await server.call('electron_get_text', { sessionId, selector })).text;
}

async function textIs (server, sessionId, selector, expected) {
  let text = null;
  await waitUntil(async () => {
    text = await textOf(server, sessionId, selector);
    return expected instanceof RegExp ? expected.test(text) : text === expected;
  }, 15000).catch(() => {});
  if (expected instanceof RegExp)
    assert.match(text, expected, selector);
  else
    assert.equal(text, expected, selector);
  return text;
}

async function click (server, sessionId, selector) {
  ok(await server.call('electron_click', { sessionId, selector }), `click ${selector}`);
}

async function captured (server, sessionId, args = {}) {
  return ok(await server.call('network_captured', { sessionId, ...args }), 'network_captured');
}

test('capture: a fetch, an image, a redirect and a new window\'s first request; secrets redacted; bodies in files under the app root', async (t) => {
  const page = await pageServer(t);
  const dir = scratch(t);
  const server = await startNetwork(t, { config: { bodyDir: dir } });
  const sessionId = await launch(t, server, page);

  failsWith(await server.call('network_captured', { sessionId }), 'network.NOT_CAPTURING', 'before any capture');
  failsWith(await server.call('network_capture_stop', { sessionId }), 'network.NOT_CAPTURING', 'stop before any capture');
  const started = ok(await server.call('network_capture_start', { sessionId, bodies: 'text' }), 'network_capture_start');
  assert.equal(started.capturing, true);
  assert.equal(started.capabilities.mainProcess, false, 'the main process is out of reach, and says so');
  failsWith(await server.call('network_capture_start', { sessionId }), 'network.ALREADY_CAPTURING');

  // A fetch in the first window.
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'hello from the server (200, load 2)');
  // A new window: its document and its image, from its first request on.
  await click(server, sessionId, '#open');
  let entries = [];
  await waitUntil(async () => {
    entries = (await captured(server, sessionId, { limit: 500 })).entries;
    // The raw headers (with Set-Cookie) may come after the request finished.
    return entries.some((e) => e.url.endsWith('/pixel.png?second') && !e.pending) &&
           entries.some((e) => e.url.endsWith('/api/data.json') &&
                               Object.keys(e.responseHeaders).some((name) => name.toLowerCase() === 'set-cookie'));
  }, 20000).catch(() => {});

  const fetchEntry = entries.find((e) => e.url === `${page.url}api/data.json`);
  assert.ok(fetchEntry, `the fetch was captured: ${JSON.stringify(entries.map((e) => e.url))}`);
  assert.equal(fetchEntry.type, 'Fetch');
  assert.equal(fetchEntry.status, 200);
  assert.equal(fetchEntry.method, 'GET');
  assert.match(fetchEntry.mimeType, /json/);
  // The server's cookie is redacted, in the raw headers too.
  const setCookie = Object.entries(fetchEntry.responseHeaders).find(([name]) => name.toLowerCase() === 'set-cookie');
  assert.ok(setCookie, `Set-Cookie is listed: ${JSON.stringify(fetchEntry.responseHeaders)}`);
  assert.equal(setCookie[1], '[REDACTED]');
  assert.ok(!JSON.stringify(entries).includes('server-s3cret'), 'no cookie value anywhere');
  // The body is in a file under the app root, the text the server sent.
  await waitUntil(async () => (await captured(server, sessionId, { url: '**/api/data.json' })).entries[0]?.responseBody, 10000);
  const withBody = (await captured(server, sessionId, { url: '**/api/data.json' })).entries[0];
  assert.ok(withBody.responseBody.path.startsWith(dir + path.sep), withBody.responseBody.path);
  assert.equal(fs.readFileSync(withBody.responseBody.path, 'utf8'), fs.readFileSync(path.join(PAGE_DIR, 'api', 'data.json'), 'utf8'));
  assert.equal(withBody.responseBody.truncated, false);

  const document = entries.find((e) => e.url === `${page.url}second.html`);
  assert.ok(document, 'the new window\'s document request was captured');
  assert.equal(document.type, 'Document');
  const image = entries.find((e) => e.url === `${page.url}pixel.png?second`);
  assert.ok(image, 'the new window\'s image was captured');
  assert.equal(image.type, 'Image');
  assert.equal(image.status, 200);
  assert.equal(image.mimeType, 'image/png');
  assert.equal(image.responseBody, undefined, 'bodies: text keeps no image');
  assert.notEqual(document.surfaceId, fetchEntry.surfaceId, 'each window is its own surface');

  // Filters and pages.
  const images = await captured(server, sessionId, { type: 'Image' });
  assert.ok(images.entries.length >= 1 && images.entries.every((e) => e.type === 'Image'));
  const first = await captured(server, sessionId, { limit: 1 });
  assert.equal(first.entries.length, 1);
  assert.ok(first.nextCursor, 'a next page');
  const second = await captured(server, sessionId, { limit: 1, cursor: first.nextCursor });
  assert.ok(Number(second.entries[0].id) > Number(first.entries[0].id));
  failsWith(await server.call('network_captured', { sessionId, url: '{unclosed' }), 'network.INVALID_PATTERN');

  const stopped = ok(await server.call('network_capture_stop', { sessionId }), 'network_capture_stop');
  assert.equal(stopped.capturing, false);
  assert.ok(stopped.total >= 4, JSON.stringify(stopped));
  failsWith(await server.call('network_capture_stop', { sessionId }), 'network.NOT_CAPTURING');
  // Nothing more is recorded once stopped; the entries stay readable.
  const before = (await captured(server, sessionId, { limit: 500 })).total;
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'hello from the server (200, load 3)');
  assert.equal((await captured(server, sessionId, { limit: 500 })).total, before);
});

test('HAR: har-validator 5.1.5 accepts it; entries, redirects, timings, sizes and bodies match the capture; confined to the app root', async (t) => {
  const page = await pageServer(t);
  const dir = scratch(t);
  const server = await startNetwork(t, { config: { bodyDir: dir } });
  const sessionId = await launch(t, server, page);

  ok(await server.call('network_capture_start', { sessionId, bodies: 'all', urls: ['**/api/**', '**/*.png*', '**/second.html'] }),
     'network_capture_start');
  await click(server, sessionId, '#open');
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'hello from the server (200, load 2)');
  let entries = [];
  await waitUntil(async () => {
    entries = (await captured(server, sessionId, { limit: 500 })).entries;
    return entries.some((e) => e.url.endsWith('pixel.png?second') && e.responseBody) &&
           entries.some((e) => e.url.endsWith('/api/secret.json') && !e.pending);
  }, 20000).catch(() => {});
  assert.ok(entries.every((e) => /\/api\/|\.png|second\.html/.test(e.url)), 'only the URLs asked for');

  const har = path.join(dir, 'capture.har');
  const exported = ok(await server.call('network_export_har', { sessionId, path: har }), 'network_export_har');
  assert.equal(exported.path, har);
  const document = JSON.parse(fs.readFileSync(har, 'utf8'));
  await harValidator.har(document);
  assert.equal(document.log.version, '1.2');
  assert.equal(document.log.entries.length, exported.entries);
  assert.deepEqual(document.log.entries.map((e) => e.request.url), entries.map((e) => e.url));

  const data = document.log.entries.find((e) => e.request.url === `${page.url}api/data.json`);
  assert.equal(data.response.status, 200);
  assert.equal(data.response.content.text, fs.readFileSync(path.join(PAGE_DIR, 'api', 'data.json'), 'utf8'));
  assert.ok(data.time >= 0 && data.timings.wait >= 0 && data.timings.send >= 0);
  assert.ok(data.response.headers.some((h) => h.name.toLowerCase() === 'set-cookie' && h.value === '[REDACTED]'));
  assert.ok(!fs.readFileSync(har, 'utf8').includes('s3cret'), 'no secret in the HAR');
  // The redirect: the 302 entry names the next entry's URL, which follows it.
  const old = document.log.entries.findIndex((e) => e.request.url === `${page.url}api/old`);
  assert.ok(old >= 0, 'the redirect was captured');
  assert.equal(document.log.entries[old].response.status, 302);
  assert.equal(document.log.entries[old].response.redirectURL, `${page.url}api/moved.json`);
  assert.ok(document.log.entries.slice(old + 1).some((e) => e.request.url === `${page.url}api/moved.json` &&
                                                           e.response.status === 200));
  // The page's Authorization header is redacted.
  const secret = document.log.entries.find((e) => e.request.url === `${page.url}api/secret.json`);
  assert.ok(secret.request.headers.some((h) => h.name.toLowerCase() === 'authorization' && h.value === '[REDACTED]'),
            JSON.stringify(secret.request.headers));
  const png = document.log.entries.find((e) => e.request.url.endsWith('pixel.png?second'));
  // The popup's image, from its first request on: say what was captured when it is not.
  assert.ok(png, `the popup's image is in the HAR: ${JSON.stringify(entries.map((e) =>
    [e.url.replace(page.url, '/'), e.status ?? null, e.pending ? 'pending' : '', e.responseBody ? 'body' : '']))}`);
  assert.equal(png.response.content.encoding, 'base64');
  assert.deepEqual(Buffer.from(png.response.content.text, 'base64'), fs.readFileSync(path.join(PAGE_DIR, 'pixel.png')));
  assert.equal(png.response.content.size, fs.statSync(path.join(PAGE_DIR, 'pixel.png')).size);

  // A HAR outside the app root, or not named .har, is refused and not written.
  const outside = path.join(os.tmpdir(), `stw-network-${process.pid}.har`);
  failsWith(await server.call('network_export_har', { sessionId, path: outside }), 'BAD_ARGUMENT', 'a HAR outside the root');
  assert.equal(fs.existsSync(outside), false);
  failsWith(await server.call('network_export_har', { sessionId, path: path.join(dir, 'main.js') }), 'BAD_ARGUMENT');
  assert.equal(fs.existsSync(path.join(dir, 'main.js')), false);
});

test('stubs: a body changes what the page shows and never reaches the server; times; the last registered wins; fail runs the error path; unstub', async (t) => {
  const page = await pageServer(t);
  const dir = scratch(t);
  const server = await startNetwork(t, { config: { bodyDir: dir } });
  const sessionId = await launch(t, server, page);
  const served = () => page.hits.get('/api/data.json') ?? 0;

  failsWith(await server.call('network_stub', { sessionId, url: '/(unclosed/' }), 'network.INVALID_PATTERN');
  failsWith(await server.call('network_stub', { sessionId, url: '**', body: 'x', fail: 'failed' }), 'BAD_ARGUMENT');

  // times: 1 — the first reload sees the stub, the second the server.
  const once = ok(await server.call('network_stub', {
    sessionId, url: '**/api/data.json', times: 1,
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'stubbed once' }),
  }), 'network_stub');
  assert.match(once.id, /^stub-/);
  assert.equal(once.matched, 0);
  const before = served();
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'stubbed once (200, load 2)');
  assert.equal(served(), before, 'the stubbed request never reached the server');
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'hello from the server (200, load 3)');
  assert.equal(served(), before + 1);
  let listed = ok(await server.call('network_stubs', { sessionId })).stubs;
  assert.deepEqual(listed.map((s) => [s.id, s.matched, s.active]), [[once.id, 1, false]]);

  // Two stubs match: the last registered answers; a regex with a status.
  const first = ok(await server.call('network_stub', { sessionId, url: '**/api/*.json', body: '{"message":"first"}' }));
  const last = ok(await server.call('network_stub', {
    sessionId, url: '/\\/api\\/DATA\\.json$/i', status: 201, body: '{"message":"last"}', method: 'GET',
  }));
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'last (201, load 4)');
  // The page's other JSON fetches (after #data) matched the first stub only.
  await textIs(server, sessionId, '#secret', 'secret: undefined');
  listed = ok(await server.call('network_stubs', { sessionId })).stubs;
  assert.equal(listed.find((s) => s.id === last.id).matched, 1);
  assert.ok(listed.find((s) => s.id === first.id).matched >= 1);

  // fail: the page's fetch rejects and its error path runs.
  const failing = ok(await server.call('network_stub', { sessionId, url: '**/api/data.json', fail: 'failed' }));
  assert.equal(failing.fail, 'failed');
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'failed (load 5)');
  await textIs(server, sessionId, '#error', /^error: /);

  // Removing the last one: the one before answers again; all: the server.
  const removed = ok(await server.call('network_unstub', { sessionId, id: failing.id }));
  assert.equal(removed.removed, 1);
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'last (201, load 6)');
  assert.equal(ok(await server.call('network_unstub', { sessionId, all: true })).removed, 3);
  assert.deepEqual(ok(await server.call('network_stubs', { sessionId })).stubs, []);
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'hello from the server (200, load 7)');
});

test('stubs: a delayed answer from a body file under the app root, seen by a capture as stubbed', async (t) => {
  const page = await pageServer(t);
  const dir = scratch(t);
  const server = await startNetwork(t, { config: { bodyDir: dir } });
  const sessionId = await launch(t, server, page);
  const bodyFile = path.join(dir, 'canned.json');
  fs.writeFileSync(bodyFile, JSON.stringify({ message: 'from a file' }));

  ok(await server.call('network_capture_start', { sessionId }), 'network_capture_start');
  const stub = ok(await server.call('network_stub', { sessionId, url: '**/api/data.json', bodyPath: bodyFile, delayMs: 300 }));
  const started = performance.now();
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#data', 'from a file (200, load 2)');
  assert.ok(performance.now() - started >= 300, 'the answer waited delayMs');
  let entry;
  await waitUntil(async () => {
    entry = (await captured(server, sessionId, { url: '**/api/data.json' })).entries.at(-1);
    return entry && !entry.pending;
  }, 10000);
  assert.equal(entry.stub, stub.id);
  assert.equal(entry.status, 200);
  // A body file outside the app root is refused.
  failsWith(await server.call('network_stub', { sessionId, url: '**', bodyPath: '/etc/hostname' }), 'BAD_ARGUMENT');
});

test('tools/list: the network tools are listed with their codes, in a bounded size', async (t) => {
  const server = await startNetwork(t);
  const { tools } = await server.client.listTools();
  const mine = tools.filter((tool) => tool.name.startsWith('network_'));
  assert.deepEqual(mine.map((tool) => tool.name).sort(),
                   ['network_capture_start', 'network_capture_stop', 'network_captured', 'network_export_har',
                    'network_stub', 'network_stubs', 'network_unstub']);
  const size = JSON.stringify(mine).length;
  assert.ok(size / 4 < 1800, `the network tools take ${size / 4} tokens`);
  const plugins = ok(await server.call('electron_plugins', {}));
  const network = plugins.plugins.find((p) => p.name === 'network');
  assert.ok(network, 'electron_plugins lists the plugin');
  for (const code of ['network.UNSUPPORTED', 'network.ALREADY_CAPTURING', 'network.NOT_CAPTURING', 'network.INVALID_PATTERN'])
    assert.ok(network.errorCodes.some((c) => (c.code ?? c) === code), `${code} in ${JSON.stringify(network.errorCodes)}`);
  assert.equal(network.effectiveConfig.redact, true, 'secrets are redacted by default');
});

test('bounds: the ring keeps maxEntries and counts the dropped; a body past maxBodyBytes is truncated in its file', async (t) => {
  const page = await pageServer(t);
  const dir = scratch(t);
  const server = await startNetwork(t, { config: { bodyDir: dir, maxEntries: 3 } });
  const sessionId = await launch(t, server, page);

  ok(await server.call('network_capture_start', { sessionId, bodies: 'all', maxBodyBytes: 8 }), 'network_capture_start');
  // One reload: data.json, old (302), moved.json, secret.json — four requests, more than three.
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#secret', 'secret: ok');
  let page1;
  await waitUntil(async () => {
    page1 = await captured(server, sessionId, { limit: 500 });
    return page1.total >= 4 && page1.entries.every((e) => !e.pending && (e.status !== 200 || e.responseBody));
  }, 15000).catch(() => {});
  assert.equal(page1.entries.length, 3, JSON.stringify(page1.entries.map((e) => e.url)));
  assert.equal(page1.dropped, page1.total - 3);
  assert.ok(page1.dropped >= 1);
  assert.equal(page1.entries.at(-1).url, `${page.url}api/secret.json`, 'the newest are kept');
  const secret = page1.entries.at(-1);
  assert.equal(secret.responseBody.truncated, true);
  assert.equal(secret.responseBody.size, fs.statSync(path.join(PAGE_DIR, 'api', 'secret.json')).size);
  assert.equal(fs.readFileSync(secret.responseBody.path, 'utf8'),
               fs.readFileSync(path.join(PAGE_DIR, 'api', 'secret.json'), 'utf8').slice(0, 8));
  // The page's Authorization header is redacted in the capture too.
  const authorization = Object.entries(secret.requestHeaders).find(([name]) => name.toLowerCase() === 'authorization');
  assert.deepEqual(authorization?.[1], '[REDACTED]');

  // A partition no window of the app uses (yet): the capture runs and the
  // default session's window is not in it.
  ok(await server.call('network_capture_stop', { sessionId }));
  ok(await server.call('network_capture_start', { sessionId, partition: 'persist:other' }), 'a capture of persist:other');
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#secret', 'secret: ok');
  assert.equal((await captured(server, sessionId)).total, 0, 'nothing of the default session');
  ok(await server.call('network_capture_stop', { sessionId }));
  failsWith(await server.call('network_capture_stop', { sessionId }), 'network.NOT_CAPTURING');
});

test('partition: a capture of persist:net sees its window\'s requests only, not the default session\'s', async (t) => {
  const page = await pageServer(t);
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  const server = await startServer(t, { args: ['--plugin', 'network', `--app-root=${TOP_SRCDIR}`, '--allow-eval=main'], env });
  const launched = ok(await server.call('electron_launch', launchArgs(APP, { args: [`--url=${page.url}`, '--partition=persist:net'] })),
                      'electron_launch');
  const sessionId = launched.session_id;
  t.after(() => server.call('electron_stop', { sessionId }).catch(() => {}));
  await textIs(server, sessionId, '#secret', 'secret: ok');
  const partitionWindow = `const w = electron.BrowserWindow.getAllWindows()
    .find((b) => b.webContents.session === electron.session.fromPartition('persist:net'));`;
  await waitUntil(async () => ok(await server.call('electron_eval_main', { sessionId, code: `${partitionWindow} return w.webContents.getURL()` }))
    .result.endsWith('second.html'), 15000);

  ok(await server.call('network_capture_start', { sessionId, partition: 'persist:net' }), 'network_capture_start');
  const before = page.hits.get('/api/secret.json') ?? 0;
  ok(await server.call('electron_eval_main', { sessionId, code: `${partitionWindow} w.webContents.reload(); return true` }));
  await click(server, sessionId, '#reload');
  await textIs(server, sessionId, '#secret', 'secret: ok');
  await waitUntil(() => (page.hits.get('/api/secret.json') ?? 0) > before, 15000);
  let entries = [];
  await waitUntil(async () => {
    entries = (await captured(server, sessionId, { limit: 500 })).entries;
    return entries.some((e) => e.url.endsWith('/pixel.png?second') && !e.pending);
  }, 15000).catch(() => {});
  const urls = entries.map((e) => e.url);
  assert.ok(urls.includes(`${page.url}second.html`), JSON.stringify(urls));
  assert.ok(urls.includes(`${page.url}pixel.png?second`), JSON.stringify(urls));
  assert.deepEqual(urls.filter((u) => u.includes('/api/')), [], 'the default session\'s requests are not captured');
  ok(await server.call('network_capture_stop', { sessionId }));

  // Without a partition, both windows' requests are.
  ok(await server.call('network_capture_start', { sessionId }));
  ok(await server.call('electron_eval_main', { sessionId, code: `${partitionWindow} w.webContents.reload(); return true` }));
  await click(server, sessionId, '#reload');
  await waitUntil(async () => {
    const all = (await captured(server, sessionId, { limit: 500 })).entries.map((e) => e.url);
    return all.includes(`${page.url}pixel.png?second`) && all.some((u) => u.includes('/api/secret.json'));
  }, 15000);
  ok(await server.call('network_capture_stop', { sessionId }));
});

test('bodies without --app-root or bodyDir: the temporary body directory goes with its capture and with the server', async (t) => {
  const page = await pageServer(t);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-nt-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const dirs = () => fs.readdirSync(tmp).filter((name) => name.startsWith('stw-network-'));
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR, TMPDIR: tmp };
  const server = await startServer(t, { args: ['--plugin', 'network'], env });
  const sessionId = await launch(t, server, page);
  const bodyOf = async () => {
    let path_ = null;
    await waitUntil(async () => {
      const entry = (await captured(server, sessionId, { limit: 500 })).entries.find((e) => e.responseBody?.path);
      path_ = entry?.responseBody.path ?? null;
      return path_ !== null;
    }, 15000);
    return path_;
  };

  ok(await server.call('network_capture_start', { sessionId, bodies: 'text' }), 'network_capture_start');
  await click(server, sessionId, '#reload');
  const first = await bodyOf();
  assert.equal(path.dirname(path.dirname(first)), tmp, first);
  ok(await server.call('network_capture_stop', { sessionId }));
  assert.ok(fs.existsSync(first), 'a stopped capture\'s bodies stay readable');
  assert.equal(dirs().length, 1);

  // The next capture drops the previous one's entries, and its directory.
  ok(await server.call('network_capture_start', { sessionId, bodies: 'text' }));
  assert.equal(fs.existsSync(path.dirname(first)), false, 'the previous capture\'s body directory is removed');
  await click(server, sessionId, '#reload');
  const second = await bodyOf();
  assert.deepEqual(dirs(), [path.basename(path.dirname(second))]);

  // When the server goes, so does the last one, stopped but not cleared.
  ok(await server.call('network_capture_stop', { sessionId }));
  await server.call('electron_stop', { sessionId });
  await server.close();
  await waitUntil(() => dirs().length === 0, 10000).catch(() => {});
  assert.deepEqual(dirs(), [], 'no body directory is left behind');
});

/** The service-worker page (page/sw.html) in a new launch: a click of
 * #register registers its worker, and #sw says "ready" once it is active. */
async function launchWorkerPage (t, server, page) {
  const launched = ok(await server.call('electron_launch', launchArgs(APP, { args: [`--url=${page.url}sw.html`] })), 'electron_launch');
  const sessionId = launched.session_id;
  t.after(() => server.call('electron_stop', { sessionId }).catch(() => {}));
  return sessionId;
}

test('service worker: its own requests are captured (serviceWorker: true, from its first one), in the HAR and stubbed; it is never a window or a surface', async (t) => {
  const page = await pageServer(t);
  const dir = scratch(t);
  const server = await startNetwork(t, { config: { bodyDir: dir } });
  const sessionId = await launchWorkerPage(t, server, page);
  const served = () => page.hits.get('/api/from-sw.json') ?? 0;

  // Capturing before the worker registers: its first request (the script
  // it imports as it starts) is captured too.
  const started = ok(await server.call('network_capture_start', { sessionId, bodies: 'text' }), 'network_capture_start');
  assert.equal(started.capabilities.serviceWorkers, true);
  await click(server, sessionId, '#register');
  await textIs(server, sessionId, '#sw', 'ready');
  await click(server, sessionId, '#ask');
  await textIs(server, sessionId, '#sw', 'hello from the server to the worker (200) (ask 1)');
  let entries = [];
  await waitUntil(async () => {
    entries = (await captured(server, sessionId, { limit: 500 })).entries;
    return entries.some((e) => e.url === `${page.url}api/from-sw.json` && !e.pending);
  }, 15000).catch(() => {});
  const fromWorker = entries.find((e) => e.url === `${page.url}api/from-sw.json`);
  assert.ok(fromWorker, `the worker's fetch was captured: ${JSON.stringify(entries.map((e) => e.url))}`);
  assert.equal(fromWorker.serviceWorker, true);
  assert.equal(fromWorker.surfaceId, undefined, 'a worker is no surface');
  assert.equal(fromWorker.status, 200);
  assert.equal(fromWorker.method, 'GET');
  const imported = entries.find((e) => e.url === `${page.url}sw-lib.js`);
  assert.ok(imported, `the worker's first request (importScripts) was captured: ${JSON.stringify(entries.map((e) => e.url))}`);
  assert.equal(imported.serviceWorker, true);
  // The page's own requests are not the worker's.
  await click(server, sessionId, '#fetch');
  await textIs(server, sessionId, '#page', 'page: 200 (fetch 1)');
  await waitUntil(async () => (await captured(server, sessionId, { url: '**/api/data.json' })).entries.length > 0, 15000);
  const own = (await captured(server, sessionId, { url: '**/api/data.json' })).entries[0];
  assert.ok(own.surfaceId && own.serviceWorker === undefined, JSON.stringify(own));

  // The HAR: valid, with the worker's request marked.
  const har = path.join(dir, 'worker.har');
  ok(await server.call('network_export_har', { sessionId, path: har }), 'network_export_har');
  const log = JSON.parse(fs.readFileSync(har, 'utf8'));
  await harValidator.har(log);
  const harEntry = log.log.entries.find((e) => e.request.url === `${page.url}api/from-sw.json`);
  assert.ok(harEntry, 'the worker\'s request is in the HAR');
  assert.equal(harEntry._serviceWorker, true);
  assert.equal(harEntry.response.status, 200);

  // A stub answers the worker's fetch, which never reaches the server.
  const before = served();
  const stub = ok(await server.call('network_stub', {
    sessionId, url: '**/api/from-sw.json', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: 'stubbed for the worker' }),
  }), 'network_stub');
  await click(server, sessionId, '#ask');
  await textIs(server, sessionId, '#sw', 'stubbed for the worker (200) (ask 2)');
  assert.equal(served(), before, 'the stubbed request never reached the server');
  assert.equal(ok(await server.call('network_stubs', { sessionId })).stubs.find((s) => s.id === stub.id).matched, 1);
  ok(await server.call('network_unstub', { sessionId, all: true }));
  await click(server, sessionId, '#ask');
  await textIs(server, sessionId, '#sw', 'hello from the server to the worker (200) (ask 3)');
  assert.equal(served(), before + 1);

  // The worker is neither a window nor a surface: one window, one surface.
  const { windows } = ok(await server.call('electron_windows_list', { sessionId }), 'electron_windows_list');
  assert.deepEqual(windows.map((w) => w.url), [`${page.url}sw.html`], JSON.stringify(windows));
  const { surfaces } = ok(await server.call('electron_surfaces_list', { sessionId }), 'electron_surfaces_list');
  assert.deepEqual(surfaces.map((s) => s.kind), ['window'], JSON.stringify(surfaces));
  ok(await server.call('network_capture_stop', { sessionId }));
});

test('service worker: a capture of one partition leaves the worker\'s requests out (a worker has no window)', async (t) => {
  const page = await pageServer(t);
  const server = await startNetwork(t);
  const sessionId = await launchWorkerPage(t, server, page);
  await click(server, sessionId, '#register');
  await textIs(server, sessionId, '#sw', 'ready');

  // The default session's partition ("") holds the window, not the worker.
  ok(await server.call('network_capture_start', { sessionId, partition: '' }), 'network_capture_start');
  await click(server, sessionId, '#ask');
  await textIs(server, sessionId, '#sw', 'hello from the server to the worker (200) (ask 1)');
  await click(server, sessionId, '#fetch');
  await textIs(server, sessionId, '#page', 'page: 200 (fetch 1)');
  let entries = [];
  await waitUntil(async () => {
    entries = (await captured(server, sessionId, { limit: 500 })).entries;
    return entries.some((e) => e.url === `${page.url}api/data.json` && !e.pending);
  }, 15000).catch(() => {});
  assert.ok(entries.some((e) => e.url === `${page.url}api/data.json`), `the window's fetch is in the partition: ${JSON.stringify(entries.map((e) => e.url))}`);
  assert.deepEqual(entries.filter((e) => e.serviceWorker), [], 'no worker request in a partition capture');
  ok(await server.call('network_capture_stop', { sessionId }));

  // Without a partition, the same ask is captured.
  ok(await server.call('network_capture_start', { sessionId }));
  await click(server, sessionId, '#ask');
  await textIs(server, sessionId, '#sw', 'hello from the server to the worker (200) (ask 2)');
  assert.ok(await waitUntil(async () => (await captured(server, sessionId, { limit: 500 })).entries
    .some((e) => e.url === `${page.url}api/from-sw.json` && e.serviceWorker), 15000), 'captured without partition');
  ok(await server.call('network_capture_stop', { sessionId }));
});

test('dedicated worker: its own requests, from its first one, are its page\'s, in a capture of the page\'s partition too', async (t) => {
  const page = await pageServer(t);
  const server = await startNetwork(t);
  const sessionId = await launchWorkerPage(t, server, page);
  const { surfaces } = ok(await server.call('electron_surfaces_list', { sessionId }), 'electron_surfaces_list');
  const fromWorker = async () => (await captured(server, sessionId, { limit: 500 })).entries
    .filter((e) => e.url === `${page.url}api/from-worker.json`);

  // The default session's partition ("") holds the window, so its worker too.
  ok(await server.call('network_capture_start', { sessionId, partition: '' }), 'network_capture_start');
  await click(server, sessionId, '#worker-ask');
  await textIs(server, sessionId, '#worker', 'hello from the server to the dedicated worker (200) (answer 1)');
  // The answer came from the fetch the worker made as it started.
  assert.ok(await waitUntil(async () => (await fromWorker()).some((e) => !e.pending), 15000),
    `the worker's first request was captured: ${JSON.stringify(await fromWorker())}`);
  await click(server, sessionId, '#worker-ask');
  await textIs(server, sessionId, '#worker', 'hello from the server to the dedicated worker (200) (answer 2)');
  assert.ok(await waitUntil(async () => (await fromWorker()).filter((e) => !e.pending).length === 2, 15000));
  for (const entry of await fromWorker()) {
    assert.equal(entry.surfaceId, surfaces[0].id, 'a dedicated worker\'s request is its page\'s');
    assert.equal(entry.serviceWorker, undefined);
    assert.equal(entry.status, 200);
  }
  assert.equal(page.hits.get('/api/from-worker.json'), 2);
  // Still one window, one surface.
  const after = ok(await server.call('electron_surfaces_list', { sessionId }), 'electron_surfaces_list');
  assert.deepEqual(after.surfaces.map((s) => s.kind), ['window']);
  ok(await server.call('network_capture_stop', { sessionId }));
});
