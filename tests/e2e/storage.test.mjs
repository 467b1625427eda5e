// storage.test.mjs: the storage plugin (issue 19, items 5-7) over MCP with
// the official SDK client, on a page served over loopback HTTP (a file://
// origin is opaque): cookies (sameSite, expires) and Web Storage set, read
// and cleared; a storage state saved by Playwright's own library
// (playwright-core 1.65.1, IndexedDB with a Date and a Uint8Array) loads
// into a fresh app (the storageState launch option and storage_state_load)
// and the page sees it; a state saved by Stagewright loads into a
// Playwright context and its page sees it; the IndexedDB tools and the
// snapshot; and hostile states refused before anything is applied (opfs,
// credentials, huge, malformed, a cookie for a domain the config does not
// allow, an origin that is not http(s), a path outside --app-root).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  CHROMIUM,
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

const BUILDDIR = path.dirname(path.dirname(BIN));
const PLUGIN_DIR = path.join(BUILDDIR, 'plugins', 'built');
const STORAGE_APP = path.join(FIXTURES, 'storage-app');
const built = fs.existsSync(path.join(PLUGIN_DIR, 'libstorage.so')) ? null : `${PLUGIN_DIR}/libstorage.so is not built`;
const skip = electronSkipReason() ?? built ?? false;
const require = createRequire(path.join(TOP_SRCDIR, 'tests', 'node_modules', 'x.js'));

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 180000, ...options }, fn);
}

// --app-root must hold the app and the state files: the common ancestor of
// the source and build trees; the scratch files live in the build tree.
function commonAncestor (a, b) {
  const pa = path.resolve(a).split(path.sep);
  const pb = path.resolve(b).split(path.sep);
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  return pa.slice(0, i).join(path.sep) || path.sep;
}
const APP_ROOT = commonAncestor(fs.realpathSync(TOP_SRCDIR), fs.realpathSync(BUILDDIR));

function scratchDir (t) {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(BUILDDIR), 'tests', '.stw-storage-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The fixture page on 127.0.0.1 (a real origin), for every path. */
async function servePage (t) {
  const page = fs.readFileSync(path.join(STORAGE_APP, 'page.html'));
  const sockets = new Set();
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(page);
  });
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => { for (const socket of sockets) socket.destroy(); server.close(); });
  return `http://127.0.0.1:${server.address().port}`;
}

function serverEnv () {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

async function startStorage (t, { config, args = [] } = {}) {
  const all = ['--plugin', 'storage', `--app-root=${APP_ROOT}`, ...args];
  if (config)
    all.push('--plugin-config', `storage=${JSON.stringify(config)}`);
  return startServer(t, { args: all, env: serverEnv() });
}

async function report (server, sessionId) {
  let text = 'pending';
  await waitUntil(async () => {
    const got = await server.call('electron_get_text', { sessionId, selector: '#report' });
    text = got.ok ? got.text : 'pending';
    return text !== 'pending';
  }, 20000);
  return JSON.parse(text);
}

async function launchApp (t, server, base, extra = {}) {
  const launch = ok(await server.call('electron_launch', launchArgs(STORAGE_APP, { args: [`--url=${base}/`], ...extra })),
                    'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  return { sessionId: launch.session_id, first: await report(server, launch.session_id) };
}

const inFuture = Math.floor(Date.now() / 1000) + 3600;

test('cookies with sameSite and expires, localStorage and sessionStorage: set, read (the page sees them), cleared', { skip }, async (t) => {
  const base = await servePage(t);
  const server = await startStorage(t, { args: ['--allow-eval=renderer'] });
  const { sessionId } = await launchApp(t, server, base);
  const page = async (code) => ok(await server.call('electron_eval_renderer', { sessionId, code }), 'eval').result;

  const set = ok(await server.call('storage_set_cookie', { sessionId, url: `${base}/`, name: 'sid', value: 's3cr3t',
                                                           sameSite: 'Strict', expires: inFuture }), 'set_cookie');
  assert.equal(set.session, 'default');
  ok(await server.call('storage_set_cookie', { sessionId, domain: '127.0.0.1', path: '/', name: 'theme', value: 'dark' }));

  const listed = ok(await server.call('storage_cookies', { sessionId }), 'cookies');
  assert.equal(listed.session, 'default');
  assert.equal(listed.redacted, true);
  const sid = listed.cookies.find((c) => c.name === 'sid');
  assert.deepEqual({ ...sid, expires: Math.round(sid.expires) },
                   { name: 'sid', value: '<redacted>', domain: '127.0.0.1', path: '/', expires: inFuture,
                     httpOnly: false, secure: false, sameSite: 'Strict' });
  assert.equal(listed.cookies.find((c) => c.name === 'theme').expires, -1, 'a session cookie expires -1');
  assert.equal(listed.cookies.find((c) => c.name === 'theme').sameSite, 'Lax');
  // reveal without the config's allowReveal stays redacted.
  assert.equal(ok(await server.call('storage_cookies', { sessionId, reveal: true })).cookies[0].value, '<redacted>');
  // urls filter by Playwright's rule.
  assert.equal(ok(await server.call('storage_cookies', { sessionId, urls: [`${base}/x`] })).count, 2);
  assert.equal(ok(await server.call('storage_cookies', { sessionId, urls: ['http://example.com/'] })).count, 0);
  assert.match(await page('return document.cookie'), /sid=s3cr3t/);

  const stored = ok(await server.call('storage_local_set', { sessionId, key: 'greeting', value: 'hello' }), 'local_set');
  assert.equal(stored.origin, base);
  ok(await server.call('storage_local_set', { sessionId, key: 'other', value: '2' }));
  const { ok: _, _meta, ...got } = ok(await server.call('storage_local_get', { sessionId, key: 'greeting' }));
  assert.deepEqual(got, { origin: base, key: 'greeting', found: true, value: 'hello', area: 'local', session: 'default' });
  assert.equal(ok(await server.call('storage_local_get', { sessionId, key: 'nope' })).found, false);
  assert.deepEqual(ok(await server.call('storage_local_keys', { sessionId })).keys.sort(), ['greeting', 'other']);
  assert.equal(await page("return localStorage.getItem('greeting')"), 'hello', 'the page sees it');
  assert.equal(ok(await server.call('storage_local_remove', { sessionId, key: 'other' })).removed, true);
  ok(await server.call('storage_session_set', { sessionId, key: 'tab', value: 'one' }));
  assert.equal(await page("return sessionStorage.getItem('tab')"), 'one');
  assert.equal(ok(await server.call('storage_session_get', { sessionId, key: 'tab' })).value, 'one');
  assert.equal(ok(await server.call('storage_session_clear', { sessionId })).cleared, 1);
  assert.equal(ok(await server.call('storage_local_clear', { sessionId })).cleared, 1);
  assert.equal(await page('return localStorage.length'), 0);

  assert.equal(ok(await server.call('storage_clear_cookies', { sessionId, name: 'theme' })).cleared, 1);
  assert.deepEqual(ok(await server.call('storage_cookies', { sessionId })).cookies.map((c) => c.name), ['sid']);
  assert.equal(ok(await server.call('storage_clear_cookies', { sessionId })).cleared, 1);
  assert.equal(ok(await server.call('storage_cookies', { sessionId })).count, 0);
  assert.equal(await page('return document.cookie'), '');

  // Another origin than the window's: no frame there.
  failsWith(await server.call('storage_local_get', { sessionId, origin: 'http://127.0.0.9:1', key: 'x' }), 'storage.NOT_FOUND');
  failsWith(await server.call('storage_local_get', { sessionId, origin: 'file://', key: 'x' }), 'storage.UNSUPPORTED');
  // A partition other than the default session is found by main-process eval.
  failsWith(await server.call('storage_cookies', { sessionId, partition: 'persist:other' }), 'storage.EVAL_REQUIRED');
});

/** A state written by Playwright's own storageState({indexedDB: true}). */
async function playwrightState (base, file) {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext();
    await context.addCookies([{ name: 'auth', value: 'tok-1', domain: '127.0.0.1', path: '/', expires: inFuture,
                                sameSite: 'Lax', httpOnly: true }]);
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.evaluate(async () => {
      localStorage.setItem('user', 'ada');
      const open = indexedDB.open('app', 3);
      open.onupgradeneeded = () => open.result.createObjectStore('things');
      const db = await new Promise((resolve, reject) => { open.onsuccess = () => resolve(open.result); open.onerror = () => reject(open.error); });
      const tx = db.transaction('things', 'readwrite');
      tx.objectStore('things').put({ title: 'first', when: new Date('2024-01-02T03:04:05.000Z'), bytes: new Uint8Array([1, 2, 250]) }, 'k1');
      await new Promise((resolve) => { tx.oncomplete = resolve; });
      db.close();
    });
    await context.storageState({ indexedDB: true, path: file });
  } finally {
    await browser.close();
  }
}

/** What a Playwright page at base sees with the state in file. */
async function playwrightSees (base, file) {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ storageState: file });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.waitForFunction(() => document.getElementById('report').textContent !== 'pending');
    return JSON.parse(await page.textContent('#report'));
  } finally {
    await browser.close();
  }
}

const EXPECTED_IDB = { title: 'first', whenIsDate: true, when: '2024-01-02T03:04:05.000Z', bytesIsUint8Array: true, bytes: [1, 2, 250] };

test('Playwright → Stagewright → Playwright: a storage state with a Date and a Uint8Array moves both ways', { skip }, async (t) => {
  const base = await servePage(t);
  const dir = scratchDir(t);
  const pwFile = path.join(dir, 'pw.json');
  await playwrightState(base, pwFile);
  const saved = JSON.parse(fs.readFileSync(pwFile, 'utf8'));
  const record = saved.origins[0].indexedDB[0].stores[0].records[0];
  assert.equal(record.key, 'k1');
  assert.ok(record.valueEncoded, 'Playwright encoded the Date/Uint8Array record');

  const server = await startStorage(t);
  // The launch option: the app's first page already runs with the state.
  const { sessionId, first } = await launchApp(t, server, base, { plugins: { storage: { storageState: pwFile } } });
  // The window was reloaded after the restore: read its report again.
  const seen = await waitUntil(async () => {
    const r = await report(server, sessionId);
    return r.local.user === 'ada' ? r : null;
  }, 20000).then(() => report(server, sessionId));
  assert.equal(first.origin, base);
  assert.match(seen.cookie, /auth=tok-1|^$/, 'httpOnly cookies are not in document.cookie');
  assert.equal(seen.local.user, 'ada');
  assert.deepEqual(seen.idb, EXPECTED_IDB);
  const cookies = ok(await server.call('storage_cookies', { sessionId })).cookies;
  assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly, Math.round(c.expires)]), [['auth', true, inFuture]]);

  // The IndexedDB tools see the same record, encoded as Playwright encodes it.
  const schema = ok(await server.call('storage_idb_schema', { sessionId }), 'idb_schema');
  assert.deepEqual(schema.databases, [{ name: 'app', version: 3, stores: [{ name: 'things', autoIncrement: false, indexes: [] }] }]);
  const got = ok(await server.call('storage_idb_get', { sessionId, db: 'app', store: 'things', key: 'k1' }), 'idb_get');
  assert.deepEqual(got.valueEncoded, record.valueEncoded);

  // Stagewright → Playwright.
  const swFile = path.join(dir, 'sw.json');
  const wrote = ok(await server.call('storage_state_save', { sessionId, path: swFile, indexedDB: true }), 'state_save');
  assert.deepEqual(wrote.origins, [base]);
  assert.equal((fs.statSync(swFile).mode & 0o777), 0o600);
  const ours = JSON.parse(fs.readFileSync(swFile, 'utf8'));
  assert.deepEqual(Object.keys(ours), ['cookies', 'origins']);
  assert.equal(ours.cookies[0].value, 'tok-1', 'the file holds real values');
  assert.deepEqual(ours.origins[0].indexedDB, saved.origins[0].indexedDB, 'IndexedDB as Playwright writes it');
  const pwSees = await playwrightSees(base, swFile);
  assert.equal(pwSees.local.user, 'ada');
  assert.deepEqual(pwSees.idb, EXPECTED_IDB);

  // storage_state_load into a fresh app launched without the option.
  const server2 = await startStorage(t);
  const fresh = await launchApp(t, server2, base);
  assert.deepEqual(fresh.first.local, {});
  const loaded = ok(await server2.call('storage_state_load', { sessionId: fresh.sessionId, path: pwFile }), 'state_load');
  assert.equal(loaded.cookies, 1);
  assert.deepEqual(loaded.origins.map((o) => [o.origin, o.localStorage, o.records, o.via]), [[base, 1, 1, 'frame']]);
  let after = null;
  await waitUntil(async () => {
    after = await report(server2, fresh.sessionId).catch(() => null);
    return after?.local?.user === 'ada';
  }, 20000);
  assert.deepEqual(after.idb, EXPECTED_IDB);
});

test('IndexedDB tools, a visit to an origin with no frame, and the snapshot', { skip }, async (t) => {
  const base = await servePage(t);
  const other = await servePage(t);
  const dir = scratchDir(t);
  const server = await startStorage(t);
  const { sessionId } = await launchApp(t, server, base);
  const file = path.join(dir, 'two.json');
  fs.writeFileSync(file, JSON.stringify({
    cookies: [],
    origins: [
      { origin: base, localStorage: [{ name: 'a', value: '1' }],
        indexedDB: [{ name: 'db', version: 1, stores: [{ name: 's', autoIncrement: true, keyPath: 'id', records: [{ value: { id: 1, n: 'x' } }], indexes: [{ name: 'byN', keyPath: 'n', unique: false, multiEntry: false }] }] }] },
      { origin: other, localStorage: [{ name: 'b', value: '2' }] },
    ],
  }));
  const loaded = ok(await server.call('storage_state_load', { sessionId, path: file }), 'state_load');
  assert.deepEqual(loaded.origins.map((o) => [o.origin, o.via]), [[base, 'frame'], [other, 'visit']]);
  // The window is back on its page.
  await waitUntil(async () => (await report(server, sessionId).catch(() => null))?.local?.a === '1', 20000);

  const schema = ok(await server.call('storage_idb_schema', { sessionId, db: 'db' })).databases[0];
  assert.deepEqual(schema.stores[0], { name: 's', keyPath: 'id', autoIncrement: true,
                                       indexes: [{ name: 'byN', keyPath: 'n', multiEntry: false, unique: false }] });
  assert.equal(ok(await server.call('storage_idb_count', { sessionId, db: 'db', store: 's' })).count, 1);
  ok(await server.call('storage_idb_set', { sessionId, db: 'db', store: 's', value: { id: 2, n: 'y' } }), 'idb_set');
  ok(await server.call('storage_idb_set', { sessionId, db: 'db', store: 's',
                                            valueEncoded: { o: [{ k: 'id', v: 3 }, { k: 'at', v: { d: '2030-01-01T00:00:00.000Z' } }], id: 1 } }));
  const three = ok(await server.call('storage_idb_get', { sessionId, db: 'db', store: 's', key: 3 }));
  assert.deepEqual(three.valueEncoded, { o: [{ k: 'id', v: 3 }, { k: 'at', v: { d: '2030-01-01T00:00:00.000Z' } }], id: 1 });
  assert.deepEqual(ok(await server.call('storage_idb_keys', { sessionId, db: 'db', store: 's' })).keys, [{ key: 1 }, { key: 2 }, { key: 3 }]);
  assert.equal(ok(await server.call('storage_idb_delete', { sessionId, db: 'db', store: 's', key: 2 })).deleted, 1);
  const snap = ok(await server.call('storage_snapshot', { sessionId }), 'snapshot');
  assert.equal(snap.session, 'default');
  const mine = snap.origins.find((o) => o.origin === base);
  assert.deepEqual(mine.localStorage, { count: 1, bytes: 4 });
  assert.deepEqual(mine.indexedDB, [{ name: 'db', version: 1, stores: [{ name: 's', count: 2 }] }]);
  assert.equal(ok(await server.call('storage_idb_clear', { sessionId, db: 'db', store: 's' })).cleared, 2);
  failsWith(await server.call('storage_idb_get', { sessionId, db: 'nope', store: 's' }), 'storage.NOT_FOUND');
  failsWith(await server.call('storage_idb_get', { sessionId, db: 'db', store: 'nope' }), 'storage.NOT_FOUND');
  failsWith(await server.call('storage_idb_set', { sessionId, db: 'db', store: 's', valueEncoded: { h: 1 } }), 'BAD_ARGUMENT');
});

test('hostile states are refused before anything is applied', { skip }, async (t) => {
  const base = await servePage(t);
  const dir = scratchDir(t);
  const server = await startStorage(t, { config: { cookieDomains: ['127.0.0.1', 'localhost'], maxStateBytes: 65536, maxBytes: 65536 } });
  const { sessionId } = await launchApp(t, server, base);
  ok(await server.call('storage_local_set', { sessionId, key: 'keep', value: 'me' }));
  ok(await server.call('storage_set_cookie', { sessionId, url: `${base}/`, name: 'keep', value: '1' }));
  const write = (name, content) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const good = { cookies: [{ name: 'c', value: 'v', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }],
                 origins: [{ origin: base, localStorage: [{ name: 'x', value: 'y' }] }] };
  const refuse = async (name, content, code, match) => {
    const started = Date.now();
    const refused = failsWith(await server.call('storage_state_load', { sessionId, path: write(name, content) }), code, name);
    if (match)
      assert.match(refused.error, match, name);
    assert.ok(Date.now() - started < 10000, `${name} refused in bounded time`);
    return refused;
  };

  const opfs = await refuse('opfs.json', { ...good, origins: [{ ...good.origins[0], opfs: [{ path: 'a', type: 'file', base64: '' }] }] },
                            'storage.UNSUPPORTED', /opfs/);
  assert.equal(opfs.details.field, 'origins[0].opfs');
  await refuse('credentials.json', { ...good, credentials: [{ id: 'x', rpId: 'r', userHandle: 'u', privateKey: 'k', publicKey: 'p' }] },
               'storage.UNSUPPORTED', /credentials/);
  await refuse('file-origin.json', { cookies: [], origins: [{ origin: 'file://', localStorage: [] }] }, 'storage.UNSUPPORTED', /http\(s\)/);
  await refuse('app-origin.json', { cookies: [], origins: [{ origin: 'app://bundle', localStorage: [] }] }, 'storage.UNSUPPORTED');
  await refuse('other-domain.json', { ...good, cookies: [...good.cookies, { ...good.cookies[0], domain: '.bank.example' }] },
               'storage.NOT_ALLOWED', /bank\.example/);
  await refuse('huge.json', JSON.stringify({ cookies: [], origins: [{ origin: base, localStorage: [{ name: 'big', value: 'x'.repeat(200000) }] }] }),
               'BAD_ARGUMENT', /maxStateBytes/);
  await refuse('malformed.json', '{"cookies": [', 'BAD_ARGUMENT', /not JSON/);
  await refuse('not-object.json', '[1,2]', 'BAD_ARGUMENT');
  await refuse('bad-cookie.json', { cookies: [{ name: 'a', value: 'b;c', domain: '127.0.0.1', path: '/' }], origins: [] }, 'BAD_ARGUMENT');
  await refuse('bad-expires.json', { cookies: [{ ...good.cookies[0], expires: 1e15 }], origins: [] }, 'BAD_ARGUMENT');
  await refuse('bad-local.json', { cookies: [], origins: [{ origin: base, localStorage: [{ name: 1 }] }] }, 'BAD_ARGUMENT');
  await refuse('deep.json', '['.repeat(100000) + ']'.repeat(100000), 'BAD_ARGUMENT');
  await refuse('bad-db.json', { cookies: [], origins: [{ origin: base, localStorage: [], indexedDB: [{ name: 'd', version: 0, stores: [] }] }] }, 'BAD_ARGUMENT');

  // Outside --app-root, relative, missing.
  const outside = fs.mkdtempSync('/tmp/stw-st-');
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.writeFileSync(path.join(outside, 'x.json'), JSON.stringify(good));
  if (APP_ROOT !== path.sep) {
    failsWith(await server.call('storage_state_load', { sessionId, path: path.join(outside, 'x.json') }), 'BAD_ARGUMENT');
    failsWith(await server.call('storage_state_load', { sessionId, path: path.join(dir, '..', '..', '..', '..', '..', '..', outside, 'x.json') }), 'BAD_ARGUMENT');
    failsWith(await server.call('storage_state_save', { sessionId, path: path.join(outside, 'y.json') }), 'BAD_ARGUMENT');
    assert.equal(fs.existsSync(path.join(outside, 'y.json')), false, 'nothing written outside --app-root');
  }
  failsWith(await server.call('storage_state_load', { sessionId, path: 'relative.json' }), 'ABSOLUTE_PATH_REQUIRED');
  failsWith(await server.call('storage_state_load', { sessionId, path: path.join(dir, 'missing.json') }), 'FILE_NOT_FOUND');

  // Nothing of any refused state was applied.
  assert.equal(ok(await server.call('storage_local_get', { sessionId, key: 'keep' })).value, 'me');
  assert.deepEqual(ok(await server.call('storage_cookies', { sessionId })).cookies.map((c) => c.name), ['keep']);
  // And a good one is.
  ok(await server.call('storage_state_load', { sessionId, path: write('good.json', good), reload: false }), 'good');
  assert.equal(ok(await server.call('storage_local_get', { sessionId, key: 'keep' })).found, false);
  assert.equal(ok(await server.call('storage_local_get', { sessionId, key: 'x' })).value, 'y');
  assert.deepEqual(ok(await server.call('storage_cookies', { sessionId })).cookies.map((c) => c.name), ['c']);

  // What the page stores is bounded too (maxBytes): reading more is refused.
  ok(await server.call('storage_local_set', { sessionId, key: 'big', value: 'x'.repeat(70000) }));
  const tooBig = failsWith(await server.call('storage_local_get', { sessionId, key: 'big' }), 'storage.ACCESS_FAILED');
  assert.match(tooBig.error, /65536 bytes/);
  failsWith(await server.call('storage_state_save', { sessionId, path: path.join(dir, 'big.json') }), 'storage.ACCESS_FAILED');
  assert.equal(fs.existsSync(path.join(dir, 'big.json')), false, 'nothing written');
});

test('the storageState launch option is declared under plugins.storage; a refused state fails the launch', { skip }, async (t) => {
  const base = await servePage(t);
  const dir = scratchDir(t);
  const server = await startStorage(t);
  const { tools } = await server.client.listTools();
  const launch = tools.find((tool) => tool.name === 'electron_launch');
  assert.equal(launch.inputSchema.properties.plugins.properties.storage.properties.storageState.type, 'string');
  const storageTools = tools.filter((tool) => tool.name.startsWith('storage_'));
  const size = JSON.stringify(storageTools).length;
  console.log(`# storage tools: ${storageTools.length}, ${size} characters (~${Math.round(size / 4)} tokens)`);
  const listed = ok(await server.call('electron_plugins', {})).plugins.find((p) => p.name === 'storage');
  assert.ok(listed, 'electron_plugins lists the storage plugin');

  const file = path.join(dir, 'opfs.json');
  fs.writeFileSync(file, JSON.stringify({ cookies: [], origins: [{ origin: base, localStorage: [], opfs: [{ path: 'a', type: 'file' }] }] }));
  const refused = await server.call('electron_launch', launchArgs(STORAGE_APP, { args: [`--url=${base}/`], plugins: { storage: { storageState: file } } }));
  assert.equal(refused.ok, false, JSON.stringify(refused));
  assert.match(refused.error, /opfs/);
});

// Two windows on the same origin, one in the default session and one in the
// persist:part partition (the fixture's --partition): their cookies and
// localStorage are separate, each tool reaches the one its partition names,
// and the main process's own session.fromPartition() agrees.
test('partitions: cookies and localStorage of persist:part are separate from the default session\'s; state save/load with a partition', { skip }, async (t) => {
  const base = await servePage(t);
  const dir = scratchDir(t);
  const partition = 'persist:part';
  const server = await startStorage(t, { args: ['--allow-eval=main'] });
  const launch = ok(await server.call('electron_launch', launchArgs(STORAGE_APP, { args: [`--url=${base}/`, `--partition=${partition}`] })),
                    'electron_launch');
  const sessionId = launch.session_id;
  t.after(() => server.call('electron_stop', { sessionId }).catch(() => {}));
  await report(server, sessionId);
  const main = async (code) => ok(await server.call('electron_eval_main', { sessionId, code }), 'electron_eval_main').result;
  // The partition's window has loaded its page (…/?partition).
  await waitUntil(async () => (await main(`const w = electron.BrowserWindow.getAllWindows().find((b) => b.webContents.session !== electron.session.defaultSession);
    return w ? w.webContents.getURL() : ''`)).endsWith('?partition'), 20000);
  const partitionPage = (code) => main(`const { BrowserWindow, session } = electron;
    const w = BrowserWindow.getAllWindows().find((b) => b.webContents.session === session.fromPartition(${JSON.stringify(partition)}));
    const source = [${JSON.stringify(code)}];
    return w.webContents.executeJavaScript(source[0])`);
  const defaultPage = (code) => main(`const { BrowserWindow, session } = electron;
    const w = BrowserWindow.getAllWindows().find((b) => b.webContents.session === session.defaultSession);
    const source = [${JSON.stringify(code)}];
    return w.webContents.executeJavaScript(source[0])`);

  const inPart = ok(await server.call('storage_set_cookie', { sessionId, partition, url: `${base}/`, name: 'part', value: 'p1' }),
                    'set_cookie in the partition');
  assert.equal(inPart.session, partition);
  ok(await server.call('storage_set_cookie', { sessionId, url: `${base}/`, name: 'dflt', value: 'd1' }), 'set_cookie');
  const listedPart = ok(await server.call('storage_cookies', { sessionId, partition }), 'cookies of the partition');
  assert.equal(listedPart.session, partition);
  assert.deepEqual(listedPart.cookies.map((c) => c.name), ['part']);
  assert.deepEqual(ok(await server.call('storage_cookies', { sessionId })).cookies.map((c) => c.name), ['dflt']);
  // The pages and Electron's own session API see the same split.
  assert.equal(await partitionPage('document.cookie'), 'part=p1');
  assert.equal(await defaultPage('document.cookie'), 'dflt=d1');
  assert.deepEqual(await main(`return (await electron.session.fromPartition(${JSON.stringify(partition)}).cookies.get({})).map((c) => c.name)`),
                   ['part']);

  // localStorage: a state loaded into the partition reaches its page only.
  const stateFile = path.join(dir, 'part-state.json');
  fs.writeFileSync(stateFile, JSON.stringify({
    cookies: [{ name: 'loaded', value: 'l1', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }],
    origins: [{ origin: base, localStorage: [{ name: 'where', value: 'partition' }] }],
  }));
  const loaded = ok(await server.call('storage_state_load', { sessionId, partition, path: stateFile, reload: false }), 'state_load');
  assert.equal(loaded.session, partition);
  assert.deepEqual(loaded.origins.map((o) => [o.origin, o.localStorage, o.via]), [[base, 1, 'frame']]);
  assert.equal(await partitionPage("localStorage.getItem('where')"), 'partition');
  assert.equal(await defaultPage("localStorage.getItem('where')"), null, 'the default session\'s localStorage is untouched');
  assert.equal(ok(await server.call('storage_local_get', { sessionId, key: 'where' })).found, false);
  assert.deepEqual(ok(await server.call('storage_cookies', { sessionId, partition })).cookies.map((c) => c.name), ['loaded'],
                   'load replaced the partition\'s cookies');
  assert.deepEqual(ok(await server.call('storage_cookies', { sessionId })).cookies.map((c) => c.name), ['dflt'],
                   'and left the default session\'s alone');

  // Saving: each state holds its own session's cookies and localStorage.
  const savedPart = path.join(dir, 'saved-part.json');
  const savedDefault = path.join(dir, 'saved-default.json');
  assert.equal(ok(await server.call('storage_state_save', { sessionId, partition, path: savedPart }), 'state_save').session, partition);
  ok(await server.call('storage_local_set', { sessionId, key: 'where', value: 'default' }));
  ok(await server.call('storage_state_save', { sessionId, path: savedDefault }), 'state_save (default)');
  const part = JSON.parse(fs.readFileSync(savedPart, 'utf8'));
  const dflt = JSON.parse(fs.readFileSync(savedDefault, 'utf8'));
  assert.deepEqual(part.cookies.map((c) => [c.name, c.value]), [['loaded', 'l1']]);
  assert.deepEqual(part.origins, [{ origin: base, localStorage: [{ name: 'where', value: 'partition' }] }]);
  assert.deepEqual(dflt.cookies.map((c) => [c.name, c.value]), [['dflt', 'd1']]);
  assert.deepEqual(dflt.origins, [{ origin: base, localStorage: [{ name: 'where', value: 'default' }] }]);
  const snapshot = ok(await server.call('storage_snapshot', { sessionId, partition }), 'snapshot');
  assert.equal(snapshot.session, partition);
  assert.equal(snapshot.cookies, 1);

  // A partition no window uses: refused, the default session is not used instead.
  const none = failsWith(await server.call('storage_cookies', { sessionId, partition: 'persist:none' }), 'storage.NOT_FOUND');
  assert.match(none.error, /persist:none/);
  failsWith(await server.call('storage_state_save', { sessionId, partition: 'memory-only', path: path.join(dir, 'x.json') }),
            'storage.NOT_FOUND');
  assert.equal(fs.existsSync(path.join(dir, 'x.json')), false);
});

test('partitions: without --allow-eval=main a partition is storage.EVAL_REQUIRED and nothing is touched', { skip }, async (t) => {
  const base = await servePage(t);
  const server = await startStorage(t);
  const launch = ok(await server.call('electron_launch', launchArgs(STORAGE_APP, { args: [`--url=${base}/`, '--partition=persist:part'] })),
                    'electron_launch');
  const sessionId = launch.session_id;
  t.after(() => server.call('electron_stop', { sessionId }).catch(() => {}));
  await report(server, sessionId);
  const refused = failsWith(await server.call('storage_set_cookie', { sessionId, partition: 'persist:part', url: `${base}/`, name: 'x', value: '1' }),
                            'storage.EVAL_REQUIRED');
  assert.match(refused.error, /--allow-eval=main/);
  failsWith(await server.call('storage_state_save', { sessionId, partition: 'persist:part', path: 'unused.json' }), 'storage.EVAL_REQUIRED');
  // The default session needs no eval, as before.
  assert.equal(ok(await server.call('storage_cookies', { sessionId })).count, 0);
  assert.equal(ok(await server.call('storage_cookies', { sessionId, partition: 'default' })).session, 'default');
});
