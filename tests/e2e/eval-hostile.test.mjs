// eval-hostile.test.mjs: what a page or an app does to its own JSON, its
// own `app` object or a value's shape cannot crash the server, forge the
// value an eval tool answers, or fail electron_info whole; and the eval
// guard refuses the built-in module loaders over MCP. Driven with the
// official SDK client against the Electron stand-in.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/eval-hostile.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test as nodeTest } from 'node:test';

import {
  DEMO_APP,
  FIXTURES,
  demoAppSkipReason,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  processAlive,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');
const skip = electronSkipReason() ?? demoAppSkipReason() ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-evalh-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// 100,000 nested brackets: json-glib's recursive parser overflows its stack
// on them, and so did the server when it parsed what the page's JSON wrote.
const DEEP_STRINGIFY = "JSON.stringify = () => '['.repeat(100000) + ']'.repeat(100000);";
// The value an agent reads back, as the page would have it.
const FORGING_STRINGIFY = "JSON.stringify = () => '{\"forged\":true}';" +
  " Object.defineProperty(Object.prototype, 'toJSON', { value () { return { forged: true }; }, writable: true, configurable: true });";

const PAGES = {
  'eval-deep': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Deep JSON</title>
<script>${DEEP_STRINGIFY}</script></head><body><button>Deep</button></body></html>`,
  'eval-forge': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Forged JSON</title>
<script>${FORGING_STRINGIFY}
Object.defineProperty(Object.prototype, 'evil', { enumerable: true, configurable: true,
  get () { try { this.forged = true; } catch (e) {} return 0; } });
</script></head><body><button>Forge</button></body></html>`,
};
const pagesDir = path.join(scratch, 'pages');
fs.mkdirSync(pagesDir);
for (const [name, html] of Object.entries(PAGES))
  fs.writeFileSync(path.join(pagesDir, `${name}.html`), html);

/** VmRSS of a pid in kB, or 0 when it is gone. */
function rssKb (pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * A server with --allow-eval=all, and a watchdog that SIGKILLs it (by its
 * own pid: we started it) past 1 GiB, so that a runaway fails the test
 * instead of eating the machine.
 */
async function evalServer (t) {
  const server = await startServer(t, { args: ['--allow-eval=all'] });
  let peak = 0;
  const watchdog = setInterval(() => {
    const rss = rssKb(server.pid);
    peak = Math.max(peak, rss);
    if (rss > 1024 * 1024) {
      try {
        process.kill(server.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  }, 100);
  t.after(() => clearInterval(watchdog));
  server.peakKb = () => peak;
  t.after(() => server.call('electron_stop', {}).catch(() => {}));
  return server;
}

async function launchPage (server, name, title) {
  ok(await server.call('electron_launch', launchArgs(PAGES_APP, { args: [`--page=${name}`, `--pages-dir=${pagesDir}`] })),
     `electron_launch --page=${name}`);
  assert.ok(await waitUntil(async () => {
    const list = ok(await server.call('electron_windows_list', {}));
    return list.windows[0]?.title === title;
  }, 15000, 50), `the window is titled ${title}`);
}

/** The answers that show the server read its values itself, and lives. */
async function assertHonest (server, tool, what) {
  const call = async (code) => ok(await server.call(tool, { code }), `${what}: ${tool} ${code}`);

  assert.equal((await call('return 6 * 7')).result, 42, `${what}: 6 * 7`);
  assert.deepEqual((await call('return { a: [1, "two", null], b: { c: true } }')).result,
                   { a: [1, 'two', null], b: { c: true } }, `${what}: an object`);
  assert.equal((await call('return "text"')).result, 'text');
  const undef = await call('return undefined');
  assert.equal(undef.result_serialized, true);
  assert.equal(undef.result, 'undefined');
  assert.equal((await call('return 10n ** 20n')).result, '100000000000000000000');
  assert.equal((await call('return NaN')).result, null);
  // Too deep for any JSON a peer may send, a cycle, a value shared 2^40
  // times: their string form, at once, never a crash or a hang.
  const started = Date.now();
  const deep = await call('let v = []; for (let i = 0; i < 5000; i++) v = [v]; return v');
  assert.equal(deep.result_serialized, true, JSON.stringify(deep).slice(0, 200));
  const cycle = await call('const o = { a: 1 }; o.o = o; return o');
  assert.equal(cycle.result_serialized, true, JSON.stringify(cycle).slice(0, 200));
  assert.ok(Date.now() - started < 20000, `${what}: deep values answered in ${Date.now() - started} ms`);
  // Within the inspector's depth but past what a peer's JSON may nest:
  // the transport will not read that reply and fails its call at once
  // (it used to wait out the read's own 10 s bound).
  const between = Date.now();
  const nested = await call('let v = []; for (let i = 0; i < 400; i++) v = [v]; return v');
  assert.equal(nested.result_serialized, true, JSON.stringify(nested).slice(0, 200));
  assert.ok(Date.now() - between < 5000, `${what}: a 400-deep value answered in ${Date.now() - between} ms`);
  assert.equal(processAlive(server.pid), true, `${what}: the server lives`);
}

test('renderer: a page whose JSON.stringify writes 100,000 brackets cannot crash the server', async (t) => {
  const server = await evalServer(t);
  await launchPage(server, 'eval-deep', 'Deep JSON');
  // The page's own JSON is what the old code used: prove it is in place.
  assert.equal(ok(await server.call('electron_eval_renderer', { code: 'return JSON.stringify(1).length' })).result,
               200000);
  await assertHonest(server, 'electron_eval_renderer', 'deep page');
  assert.ok(server.peakKb() < 512 * 1024, `server RSS peaked at ${server.peakKb()} kB`);
  ok(await server.call('electron_windows_list', {}), 'the server still answers');
});

test('renderer: a page that forges JSON.stringify and toJSON cannot change the value read back', async (t) => {
  const server = await evalServer(t);
  await launchPage(server, 'eval-forge', 'Forged JSON');
  assert.equal(ok(await server.call('electron_eval_renderer', { code: 'return JSON.stringify(1)' })).result,
               '{"forged":true}');
  await assertHonest(server, 'electron_eval_renderer', 'forging page');
  // An object the agent builds: the page's inherited getter and toJSON
  // do not add to it.
  assert.deepEqual(ok(await server.call('electron_eval_renderer', { code: 'return { title: document.title }' })).result,
                   { title: 'Forged JSON' });
});

test('main: an app that replaces its JSON.stringify cannot crash the server or forge a value', async (t) => {
  const server = await evalServer(t);
  ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  ok(await server.call('electron_eval_main', { code: `${DEEP_STRINGIFY} return 1` }), 'deep JSON in the main process');
  assert.equal(ok(await server.call('electron_eval_main', { code: 'return JSON.stringify(1).length' })).result, 200000);
  await assertHonest(server, 'electron_eval_main', 'deep main');
  ok(await server.call('electron_eval_main', { code: `${FORGING_STRINGIFY} return 1` }), 'forged JSON in the main process');
  await assertHonest(server, 'electron_eval_main', 'forging main');
  assert.ok(server.peakKb() < 512 * 1024, `server RSS peaked at ${server.peakKb()} kB`);
  // The app's own info still reads.
  ok(await server.call('electron_info', {}), 'electron_info');
});

test('info: an app without app.getAppPath answers with that field null and a note', async (t) => {
  const server = await evalServer(t);
  const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  const before = ok(await server.call('electron_info', {}), 'electron_info');
  assert.equal(typeof before.app.path, 'string');
  assert.equal(before.capabilities.notes?.['app.path'], undefined);

  // As a stub, an old Electron or a patched app would have it: one method
  // missing, another throwing.
  ok(await server.call('electron_eval_main', {
    code: 'const app = electron.app; app.getAppPath = undefined;' +
          ' app.getVersion = () => { throw new Error("no version here"); }; return true',
  }), 'patch the app');
  const info = ok(await server.call('electron_info', {}), 'electron_info on a patched app');
  assert.equal(info.app.path, null);
  assert.equal(info.app.version, null);
  assert.equal(info.app.name, before.app.name, 'the other fields are read');
  assert.equal(info.app.exe_path, before.app.exe_path);
  assert.deepEqual(info.versions, before.versions);
  assert.match(info.capabilities.notes['app.path'], /getAppPath is not a function/);
  assert.match(info.capabilities.notes['app.version'], /no version here/);
  assert.equal(info.session_id, launch.session_id);
});

test('guard: the built-in module loaders are refused over MCP', async (t) => {
  const server = await evalServer(t);
  ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  const payloads = {
    "process.getBuiltinModule('vm').runInThisContext(\"process.mainModule.require('child_process').execSync('id')\")":
      'getBuiltinModule',
    "return process.getBuiltinModule('fs').readFileSync('/etc/hostname', 'utf8')": 'getBuiltinModule',
    "return process[`getBuiltin${'Module'}`]('module').createRequire('/')('fs')": 'getBuiltinModule',
    "const m = arg; return m.createRequire('/')": 'createRequire',
    "const vm = arg; return vm['runIn' + 'NewContext']('1')": 'runInNewContext',
  };
  for (const [code, keyword] of Object.entries(payloads)) {
    const refused = failsWith(await server.call('electron_eval_main', { code }), 'EVAL_BLOCKED_KEYWORD', code);
    assert.equal(refused.details?.keyword, keyword, JSON.stringify(refused));
  }
  const pattern = failsWith(await server.call('electron_eval_main', {
    code: "const k = ['pro', 'cess'].join(''); const { [k]: p } = globalThis; return p.pid",
  }), 'EVAL_BLOCKED_CONSTRUCT', 'computed destructuring of globalThis');
  assert.equal(pattern.details?.construct, 'global-computed-member');
  // Ordinary code still runs.
  assert.equal(ok(await server.call('electron_eval_main', { code: 'return process.platform' })).result, process.platform);
});
