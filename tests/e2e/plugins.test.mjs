// plugins.test.mjs: --plugin and --plugin-config on the real binary, with
// the sample C plugin (plugins/samples/c) driving the demo app over MCP
// through the official SDK client; and a server that cannot load what it
// was asked to load exiting 2 with one line on stderr, stdout untouched.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/plugins.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { test as nodeTest } from 'node:test';

import { run } from './lib/harness.mjs';
import {
  BIN,
  CHROMIUM,
  TOP_SRCDIR,
  DEMO_APP,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  shortTempDir,
  startServer,
  envelopeOf,
  startHttpServer,
} from './lib/lifecycle-harness.mjs';

const SAMPLE_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const SAMPLE_FILE = path.join(SAMPLE_DIR, 'sample.plugin');

const built = fs.existsSync(path.join(SAMPLE_DIR, 'libsample.so')) ? null : `${SAMPLE_DIR}/libsample.so is not built`;
const electronSkip = electronSkipReason() ?? built ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options }, fn);
}

// A UTF-8 locale: GOption converts arguments from the locale's encoding
// (the configuration below has a non-ASCII prefix), and messages come back
// with their typographic quotes.
function serverEnv (extra = {}) {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', ...extra };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

const CONFIG = 'sample={"prefix":"» ","apiKey":"hush-hush-42"}';

test('by name: the sample\'s tool reads the demo app\'s window title; its code comes back namespaced', { skip: electronSkip }, async (t) => {
  const server = await startServer(t, {
    args: ['--plugin', 'sample', '--plugin-config', CONFIG],
    env: serverEnv({ STAGEWRIGHT_PLUGIN_PATH: `/nonexistent:${SAMPLE_DIR}` }),
  });
  const { tools } = await server.client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.ok(names.includes('sample_title'), `sample_title listed: ${names.join(' ')}`);
  assert.ok(names.includes('electron_plugins'), 'electron_plugins listed while a plugin is loaded');
  assert.ok(!names.includes('title'), 'the short name is not registered');
  const tool = tools.find((entry) => entry.name === 'sample_title');
  assert.match(tool.description, /active window/);
  assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ['expect', 'sessionId']);

  const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));

  // What the app's window says, read through the core tools, not the plugin.
  const windows = ok(await server.call('electron_windows_list', { sessionId: launch.session_id }), 'windows_list');
  const active = windows.windows.find((w) => w.focused) ?? windows.windows[0];

  const title = ok(await server.call('sample_title', { sessionId: launch.session_id }), 'sample_title');
  assert.equal(title.title, 'Stagewright Notes');
  assert.equal(title.title, active.title);
  assert.equal(title.label, '» Stagewright Notes', 'the configured prefix reached the plugin');
  assert.equal(typeof title.surfaceId, 'string');

  const same = ok(await server.call('sample_title', { sessionId: launch.session_id, expect: 'Stagewright Notes' }));
  assert.equal(same.title, 'Stagewright Notes');

  const mismatch = failsWith(await server.call('sample_title', { sessionId: launch.session_id, expect: 'Other' }),
                             'sample.TITLE_MISMATCH', 'sample_title with a wrong expectation');
  assert.equal(mismatch.http, 409);
  assert.equal(mismatch.retryable, true);
  assert.equal(mismatch.hint, 'The title differs; wait for the app to update it and retry.');
  assert.match(mismatch.error, /titled “Stagewright Notes”, not “Other”/);

  // A bad argument is refused by the tool's schema, as for core tools.
  failsWith(await server.call('sample_title', { sessionId: launch.session_id, expect: 3 }), 'BAD_ARGUMENT');

  const listing = ok(await server.call('electron_plugins', {}), 'electron_plugins');
  assert.equal(listing.plugins.length, 1);
  const [entry] = listing.plugins;
  assert.equal(entry.name, 'sample');
  assert.equal(entry.version, '1.0.0');
  assert.equal(entry.language, 'c');
  assert.equal(entry.state, 'loaded');
  assert.deepEqual(entry.tools, [{ name: 'sample_title', state: 'enabled' }]);
  assert.deepEqual(entry.errorCodes, ['sample.NO_WINDOW', 'sample.TITLE_MISMATCH']);
  assert.deepEqual(entry.effectiveConfig, { prefix: '» ' }, 'only the fields the schema marks safe');
  assert.doesNotMatch(JSON.stringify(listing), /hush-hush-42/, 'the secret is shown nowhere');

  ok(await server.call('electron_stop', { sessionId: launch.session_id }), 'electron_stop');
});

test('by path: the absolute .plugin path loads the same plugin; no plugin, no electron_plugins', { skip: built ?? false }, async (t) => {
  const server = await startServer(t, { args: ['--plugin', SAMPLE_FILE], env: serverEnv() });
  const { tools } = await server.client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.ok(names.includes('sample_title'));
  assert.ok(names.includes('electron_plugins'));
  // No app: the core's refusal, before the plugin's tool runs.
  failsWith(await server.call('sample_title', {}), 'NOT_RUNNING');
  const listing = ok(await server.call('electron_plugins', {}));
  assert.deepEqual(listing.plugins.map((p) => [p.name, p.language]), [['sample', 'c']]);
  assert.equal(listing.plugins[0].effectiveConfig.prefix, '', 'the schema\'s default');

  const plain = await startServer(t, { env: serverEnv() });
  const plainTools = (await plain.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!plainTools.includes('electron_plugins'), 'electron_plugins only while a plugin is loaded');
  assert.ok(!plainTools.some((name) => name.startsWith('sample_')));
});

test('the tools command lists the plugin\'s tools too', { skip: built ?? false }, async () => {
  const result = await run(BIN, ['--plugin', SAMPLE_FILE, 'tools'], { env: serverEnv() });
  assert.equal(result.code, 0, result.stderr);
  const manifest = JSON.parse(result.stdout);
  assert.ok(manifest.some((tool) => tool.name === 'sample_title'));
});

test('a server that cannot load what it was asked exits 2: one stderr line, nothing on stdout', { skip: built ?? false }, async (t) => {
  const dir = shortTempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name, text) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const snake = write('snake.plugin', '[Plugin]\nModule=snake\nLoader=python3\nVersion=1\nX-Stagewright-Core=*\n');
  const script = write('script.plugin', '[Plugin]\nModule=script\nLoader=gjs\nVersion=1\nX-Stagewright-Core=*\n');
  const future = write('future.plugin', '[Plugin]\nModule=future\nVersion=1\nX-Stagewright-Core=>=99.0\n');
  const broken = write('broken.plugin', '[Plugin]\nVersion=1\n');
  const ghost = write('ghost.plugin', '[Plugin]\nModule=ghost\nVersion=1\nX-Stagewright-Core=*\n');
  const env = serverEnv({ STAGEWRIGHT_PLUGIN_PATH: `${dir}:${SAMPLE_DIR}` });

  const cases = [
    [['--plugin', 'nosuch'], /^stagewright: Plugin “nosuch”: no nosuch\.plugin in .*\n$/],
    [['--plugin', 'sample,nosuch'], /^stagewright: Plugin “nosuch”: no nosuch\.plugin in /],
    [['--plugin', 'sample', '--plugin', 'sample'], /^stagewright: Plugin “sample”: it is asked for twice\n$/],
    [['--plugin', 'sample', '--plugin-config', 'sample={"prefix":1,"extra":true}'],
      /^stagewright: Plugin “sample”: invalid configuration prefix: .* \(and 1 more\)\n$/],
    [['--plugin', snake], /^stagewright: Plugin “snake”: _NotFound: neither snake\.py nor snake\/__init__\.py in /],
    [['--plugin', script], /^stagewright: Plugin “script”: no script\.js in /],
    [['--plugin', 'sample,future'], /^stagewright: Plugin “future”: it needs Stagewright >=99\.0, this is /],
    [['--plugin', broken], /^stagewright: Plugin “.*broken\.plugin”: .*Module must match/],
    [['--plugin', ghost], /^stagewright: Plugin “ghost”: cannot load its module: /],
    [['--plugin', 'relative/sample.plugin'], /^stagewright: Plugin “relative\/sample\.plugin”: a plugin is a name or the absolute path/],
    [['--plugin-config', 'sample=[1]'], /^stagewright: --plugin-config sample: the configuration must be a JSON object\n$/],
  ];
  for (const [args, stderr] of cases) {
    const result = await run(BIN, args, { env, input: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n', timeoutMs: 20000 });
    assert.equal(result.code, 2, `${args.join(' ')}: exit status; stderr ${result.stderr}`);
    assert.equal(result.stdout, '', `${args.join(' ')}: stdout untouched`);
    assert.match(result.stderr, stderr, args.join(' '));
    assert.equal(result.stderr.trimEnd().split('\n').length, 1, `${args.join(' ')}: one line: ${result.stderr}`);
  }

  // A configuration for a plugin that is not loaded only warns.
  const warned = await run(BIN, ['--plugin', 'sample', '--plugin-config', 'other={}', 'tools'], { env });
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /warning: --plugin-config other: no plugin of that name is loaded/);
});

const TRACE_FILE = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built', 'trace.plugin');

test('trace: a server killed mid-recording leaves a .partial of whole records, secrets redacted', { skip: fs.existsSync(TRACE_FILE) ? false : `${TRACE_FILE} is not built` }, async (t) => {
  const dir = shortTempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'run.jsonl');
  const server = await startServer(t, { args: ['--plugin', TRACE_FILE, '--app-root', dir], env: serverEnv() });
  const { tools } = await server.client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).filter((name) => name.startsWith('trace_')).sort(),
                   ['trace_budget', 'trace_export', 'trace_replay', 'trace_start', 'trace_status', 'trace_stop',
                    'trace_tokens']);
  failsWith(await server.call('trace_start', { path: path.join(path.dirname(dir), 'elsewhere.jsonl') }), 'BAD_ARGUMENT');
  ok(await server.call('trace_start', { path: file }), 'trace_start');
  failsWith(await server.call('trace_start', { path: file }), 'trace.ALREADY_RECORDING');
  // Two core calls that fail, the second with a secret among its arguments.
  const first = await server.call('electron_type', { sessionId: 'nope', selector: '#p', text: 'x' });
  assert.equal(first.ok, false);
  const second = await server.call('electron_launch', {
    executablePath: path.join(dir, 'no-such-electron'), main: dir, env: { API_TOKEN: 'hunter2-secret' },
  });
  assert.equal(second.ok, false);
  const status = ok(await server.call('trace_status', {}));
  assert.equal(status.records, 2);

  // We started it; we end it, by its pid.
  process.kill(server.pid, 'SIGKILL');
  await new Promise((resolve) => server.transport._process.once('exit', resolve));
  assert.equal(fs.existsSync(file), false, 'not renamed: the stop never ran');
  const text = fs.readFileSync(`${file}.partial`, 'utf8');
  assert.ok(text.endsWith('\n'), 'only whole lines');
  const records = text.trimEnd().split('\n').map((line) => JSON.parse(line));
  assert.equal(records[0].type, 'header');
  assert.deepEqual(records.slice(1).map((r) => [r.seq, r.tool, r.ok, r.code]),
                   [[1, 'electron_type', false, first.code], [2, 'electron_launch', false, second.code]]);
  assert.equal(records[2].args.env.API_TOKEN, '[REDACTED]');
  assert.ok(!text.includes('hunter2-secret'), 'the secret is nowhere in the recording');

  // The .partial a killed server left exports and replays from a new one.
  const again = await startServer(t, { args: ['--plugin', TRACE_FILE, '--app-root', dir], env: serverEnv() });
  const out = path.join(dir, 'partial.json');
  const exported = ok(await again.call('trace_export', { format: 'chrome', recording: file, path: out }), 'trace_export');
  assert.equal(exported.records, 3);
  const chrome = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.deepEqual(chrome.traceEvents.filter((e) => e.ph === 'b').map((e) => e.name), ['electron_type', 'electron_launch']);
  failsWith(await again.call('trace_export', { format: 'chrome', recording: path.join(dir, 'none.jsonl'), path: out }),
            'trace.ARTIFACT_NOT_FOUND');
  fs.writeFileSync(path.join(dir, 'junk.jsonl'), '{"type":"nothing"}\n');
  failsWith(await again.call('trace_replay', { path: path.join(dir, 'junk.jsonl') }), 'trace.ARTIFACT_INVALID');
  failsWith(await again.call('trace_export', { format: 'chrome', recording: file, path: path.join(path.dirname(dir), 'x.json') }),
            'BAD_ARGUMENT');
  const replay = ok(await again.call('trace_replay', { path: file }), 'trace_replay of the .partial');
  assert.equal(replay.calls.length, 2);
  // The launch had a secret in its arguments: redacted, so not replayable.
  assert.deepEqual(replay.calls.map((c) => c.status), ['matched', 'not replayable']);
});

test('trace: a token budget with enforce refuses the next call with trace.BUDGET_EXCEEDED', { skip: fs.existsSync(TRACE_FILE) ? false : `${TRACE_FILE} is not built` }, async (t) => {
  const dir = shortTempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const server = await startServer(t, { args: ['--plugin', TRACE_FILE], env: serverEnv() });
  ok(await server.call('trace_start', { path: path.join(dir, 'b.jsonl'), budgetTokens: 1, enforce: true }), 'trace_start');
  // Under budget: it runs (and fails on its own account).
  const first = await server.call('electron_type', { sessionId: 'nope', selector: '#p', text: 'x' });
  assert.notEqual(first.code, 'trace.BUDGET_EXCEEDED');
  const refused = failsWith(await server.call('electron_type', { sessionId: 'nope', selector: '#p', text: 'x' }),
                            'trace.BUDGET_EXCEEDED');
  assert.equal(refused.http, 429);
  const tokens = ok(await server.call('trace_tokens', {}));
  assert.ok(tokens.total >= 1 && tokens.byTool.electron_type === tokens.total, JSON.stringify(tokens));
  const budget = ok(await server.call('trace_budget', { budgetTokens: 1000000 }));
  assert.equal(budget.exceeded, false);
  assert.notEqual((await server.call('electron_type', { sessionId: 'nope', selector: '#p', text: 'x' })).code,
                  'trace.BUDGET_EXCEEDED', 'a raised budget lets calls through again');
  ok(await server.call('trace_stop', {}));
});

// Opens a trace.zip in Playwright's trace viewer (playwright-core's
// show-trace, served on loopback), drives it with headless Chromium, and
// returns the action titles, the tab labels, the failed action's error and
// the page's HTML. The viewer is ours: it is stopped by its pid.
async function showTrace (zip) {
  const modules = path.join(path.dirname(path.dirname(BIN)), 'tests', 'node_modules');
  const require = createRequire(path.join(modules, 'x.js'));
  const { chromium } = require('playwright-core');
  const viewer = spawn(process.execPath, [path.join(modules, 'playwright-core', 'cli.js'), 'show-trace',
                                          '--host', '127.0.0.1', '--port', '0', zip],
                       { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`show-trace printed no URL: ${out}`)), 30000);
      const read = (data) => {
        out += data;
        const match = out.match(/http:\/\/127\.0\.0\.1:\d+\S*/);
        if (match) { clearTimeout(timer); resolve(match[0]); }
      };
      viewer.stdout.on('data', read);
      viewer.stderr.on('data', read);
      viewer.once('exit', (code) => reject(new Error(`show-trace exited (${code}): ${out}`)));
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForSelector('.action-title', { timeout: 30000 });
      const titles = await page.locator('.action-title').allTextContents();
      const tabs = await page.locator('[role=tab]').allTextContents();
      await page.locator('.action-title', { hasText: 'electron_expect_text' }).nth(1).click();
      await page.locator('[role=tab]', { hasText: 'Errors' }).click();
      const body = await page.locator('body').innerText();
      const error = body.split('\n').find((line) => /^[A-Z_]+: /.test(line)) ?? '';
      return { titles, tabs, error, html: await page.content() };
    } finally {
      await browser.close();
    }
  } finally {
    viewer.kill('SIGTERM');
  }
}

const PAGES_APP = path.join(path.dirname(DEMO_APP), 'pages-app');
const TRACE_PAGES = path.join(path.dirname(DEMO_APP), 'trace-pages');

test('trace end to end: record a session, export Chrome JSON, no password anywhere, replay matches then not', { skip: electronSkipReason() ?? (fs.existsSync(TRACE_FILE) ? false : `${TRACE_FILE} is not built`), timeout: 240000 }, async (t) => {
  const dir = shortTempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pages = path.join(dir, 'pages');
  fs.mkdirSync(pages);
  fs.copyFileSync(path.join(TRACE_PAGES, 'trace.html'), path.join(pages, 'trace.html'));
  const PASSWORD = 'Tr4ce-P4ssw0rd-zq';
  const file = path.join(dir, 'run.jsonl');
  const server = await startServer(t, { args: ['--plugin', TRACE_FILE], env: serverEnv() });
  const sessions = [];
  t.after(async () => { for (const id of sessions) await server.call('electron_force_kill', { sessionId: id }).catch(() => {}); });

  ok(await server.call('trace_start', { path: file, bodies: true }), 'trace_start');
  const launch = ok(await server.call('electron_launch',
    launchArgs(PAGES_APP, { args: ['--page=trace', `--pages-dir=${pages}`] })), 'electron_launch');
  sessions.push(launch.session_id);
  const sessionId = launch.session_id;
  ok(await server.call('electron_snapshot', { sessionId }), 'electron_snapshot');
  ok(await server.call('electron_type', { sessionId, selector: '#password', text: PASSWORD }), 'electron_type');
  ok(await server.call('electron_click', { sessionId, selector: '#save' }), 'electron_click');
  ok(await server.call('electron_expect_text', { sessionId, selector: '#save', equals: 'Save' }), 'expect_text');
  const failed = await server.call('electron_expect_text', { sessionId, selector: '#status', equals: 'Never', timeoutMs: 300 });
  assert.equal(failed.ok, false);
  ok(await server.call('electron_screenshot', { sessionId, path: path.join(dir, 'shot.png') }), 'electron_screenshot');
  const logs = ok(await server.call('electron_console_logs', { sessionId }), 'console_logs');
  assert.match(JSON.stringify(logs), /trace fixture ready/);
  const stop = ok(await server.call('trace_stop', {}), 'trace_stop');
  assert.equal(stop.records, 8);
  ok(await server.call('electron_stop', { sessionId }), 'electron_stop');

  const text = fs.readFileSync(file, 'utf8');
  const records = text.trimEnd().split('\n').map((line) => JSON.parse(line));
  const calls = records.filter((r) => r.type === 'call');
  assert.deepEqual(calls.map((c) => c.tool), ['electron_launch', 'electron_snapshot', 'electron_type', 'electron_click',
                                              'electron_expect_text', 'electron_expect_text', 'electron_screenshot',
                                              'electron_console_logs']);
  assert.equal(calls[5].ok, false);
  assert.equal(calls[5].code, failed.code);
  assert.equal(calls[2].redacted, true, 'the password field\'s call is marked');
  assert.ok(calls.every((c) => c.tokens > 0 && c.durationUs >= 0), JSON.stringify(calls.map((c) => [c.tokens, c.durationUs])));
  const cdp = records.filter((r) => r.type === 'cdp');
  assert.ok(cdp.length > 10, `CDP traffic recorded (${cdp.length})`);
  assert.ok(cdp.some((r) => r.method === 'Input.insertText' || r.method === 'Runtime.callFunctionOn'), 'typing traffic recorded');
  const consoles = records.filter((r) => r.type === 'console').map((r) => r.text);
  assert.ok(consoles.includes('trace fixture ready'), JSON.stringify(consoles));
  assert.ok(consoles.some((line) => line.startsWith('saving with password [REDACTED]')), JSON.stringify(consoles));
  const shots = records.filter((r) => r.type === 'screenshot');
  assert.equal(shots.length, 1);
  assert.equal(shots[0].path, path.join(dir, 'shot.png'));
  assert.ok(!text.includes(PASSWORD), 'the typed password is nowhere in the recording');

  // Chrome Trace Event JSON: every b has its e; each call's CDP round trips lie within its span.
  const out = path.join(dir, 'trace.json');
  ok(await server.call('trace_export', { format: 'chrome', recording: file, path: out }), 'trace_export chrome');
  const chromeText = fs.readFileSync(out, 'utf8');
  assert.ok(!chromeText.includes(PASSWORD), 'the typed password is nowhere in the export');
  const events = JSON.parse(chromeText).traceEvents;
  const open = new Map();
  const spans = new Map();
  for (const event of events.filter((e) => e.ph === 'b' || e.ph === 'e')) {
    if (event.ph === 'b') { assert.ok(!open.has(event.id), `id ${event.id} once`); open.set(event.id, event); continue; }
    const begin = open.get(event.id);
    assert.ok(begin, `e ${event.id} has its b`);
    assert.ok(event.ts >= begin.ts);
    open.delete(event.id);
    spans.set(event.id, { begin, end: event });
  }
  assert.equal(open.size, 0, 'every b has its e');
  const callSpans = [...spans.values()].filter((s) => s.begin.cat === 'call');
  assert.equal(callSpans.length, 8);
  const inCalls = [...spans.values()].filter((s) => s.begin.cat === 'cdp' && s.begin.args.call);
  assert.ok(inCalls.length > 0);
  for (const span of inCalls) {
    const call = spans.get(`call-${span.begin.args.call}`);
    assert.ok(span.begin.ts >= call.begin.ts && span.end.ts <= call.end.ts,
              `${span.begin.name} lies within call ${span.begin.args.call}`);
  }
  const processes = events.filter((e) => e.ph === 'M').map((e) => e.args.name);
  assert.ok(processes.includes('MCP client 1') && processes.some((name) => name.startsWith('app ')), processes.join());

  // Playwright's trace.zip, checked against what the viewer's loader reads:
  // <name>.trace (context-options first), <name>.network, resources/<sha1>.
  const zip = path.join(dir, 'trace.zip');
  ok(await server.call('trace_export', { format: 'playwright', recording: file, path: zip }), 'trace_export playwright');
  const listing = spawnSync('python3', ['-c', `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps({n: z.read(n).decode('latin-1') for n in z.namelist()}))
`, zip], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(listing.status, 0, listing.stderr);
  const entries = JSON.parse(listing.stdout);
  const names = Object.keys(entries);
  assert.ok(names.includes('trace.trace') && names.includes('trace.network'), names.join());
  for (const [name, content] of Object.entries(entries)) assert.ok(!content.includes(PASSWORD), `no password in ${name}`);
  const traceEvents = entries['trace.trace'].trimEnd().split('\n').map((line) => JSON.parse(line));
  assert.equal(traceEvents[0].type, 'context-options');
  assert.equal(traceEvents[0].version, 8);
  const befores = traceEvents.filter((e) => e.type === 'before');
  const afters = new Map(traceEvents.filter((e) => e.type === 'after').map((e) => [e.callId, e]));
  assert.deepEqual(befores.map((e) => e.apiName), calls.map((c) => c.tool));
  for (const before of befores) assert.ok(afters.get(before.callId).endTime >= before.startTime);
  assert.match(afters.get(befores[5].callId).error.message, new RegExp(failed.code));
  assert.equal(befores[1].params.sessionId, sessionId);
  const frames = traceEvents.filter((e) => e.type === 'screencast-frame');
  assert.equal(frames.length, 1);
  assert.ok(names.includes(`resources/${frames[0].sha1}`), 'the frame\'s image is in resources/');
  assert.ok(entries[`resources/${frames[0].sha1}`].startsWith('\x89PNG'));
  assert.ok(traceEvents.some((e) => e.type === 'console' && e.text === 'trace fixture ready'));

  // The strongest proof: Playwright's own viewer (show-trace, on loopback)
  // opens it in headless Chromium and shows the calls, the error and the frame.
  const shown = await showTrace(zip);
  assert.equal(shown.titles.length, calls.length, shown.titles.join());
  // A title is followed by its duration (and badges).
  shown.titles.forEach((title, i) => assert.match(title, new RegExp(`^${calls[i].tool}\\d`), 'every call is an action'));
  assert.ok(shown.tabs.includes('Errors1'), shown.tabs.join());
  assert.match(shown.error, new RegExp(`^${failed.code}: `));
  assert.ok(shown.html.includes(`resources/${frames[0].sha1}`), 'the screenshot is a frame of the film strip');

  // Replay: everything that can be replayed matches …
  const replay = ok(await server.call('trace_replay', { path: file }), 'trace_replay');
  sessions.push(...Object.values(replay.sessions));
  assert.equal(replay.mismatched, 0, JSON.stringify(replay.calls));
  assert.equal(replay.notReplayable, 1, 'the password call');
  for (const id of Object.values(replay.sessions)) ok(await server.call('electron_stop', { sessionId: id }));
  // `stagewright replay FILE` does the same without an agent: 0 when all matched.
  const replayEnv = serverEnv({ STAGEWRIGHT_PLUGIN_PATH: path.dirname(TRACE_FILE) });
  const cli = spawnSync(BIN, ['replay', file], { env: replayEnv, encoding: 'utf8', timeout: 120000 });
  assert.equal(cli.status, 0, `${cli.stdout}\n${cli.stderr}`);
  assert.match(cli.stdout, /^3 electron_type: not replayable/m);
  assert.match(cli.stdout, /7 matched, 0 mismatched, 1 not replayable/);
  const missing = spawnSync(BIN, ['replay', path.join(dir, 'none.jsonl')], { env: replayEnv, encoding: 'utf8', timeout: 60000 });
  assert.equal(missing.status, 2, 'could not run');
  assert.match(missing.stderr, /No recording at/);
  // … until the app's button label changes.
  fs.writeFileSync(path.join(pages, 'trace.html'),
                   fs.readFileSync(path.join(TRACE_PAGES, 'trace.html'), 'utf8').replace('>Save<', '>Store<'));
  const changed = ok(await server.call('trace_replay', { path: file }), 'trace_replay after the change');
  sessions.push(...Object.values(changed.sessions));
  assert.deepEqual(changed.calls.filter((c) => c.status === 'mismatch').map((c) => [c.call, c.tool]),
                   [[5, 'electron_expect_text']]);
  for (const id of Object.values(changed.sessions)) ok(await server.call('electron_stop', { sessionId: id }));
  const mismatch = spawnSync(BIN, ['replay', file], { env: replayEnv, encoding: 'utf8', timeout: 120000 });
  assert.equal(mismatch.status, 1, `${mismatch.stdout}\n${mismatch.stderr}`);
  assert.match(mismatch.stdout, /^5 electron_expect_text: mismatch \(expected ok, got error EXPECTATION_FAILED\)$/m);
});

// A plugin that writes to stdout (tests/plugins/noisy.c) in its setup and
// in its tool, through printf and through fd 1 itself: on stdio, stdout
// still carries nothing but JSON-RPC, and what the plugin wrote is on
// stderr.
const NOISY_FILE = path.join(path.dirname(path.dirname(BIN)), 'tests', 'plugins', 'built', 'noisy.plugin');

test('a plugin that writes to stdout: stdout carries JSON-RPC only, the writes land on stderr', { skip: fs.existsSync(NOISY_FILE) ? false : `${NOISY_FILE} is not built` }, async () => {
  const requests = [
    { jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'noisy-test', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'noisy_shout', arguments: {} } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'noisy_shout', arguments: {} } },
  ];
  const { code, stdout, stderr } = await run(BIN, ['--plugin', NOISY_FILE], {
    env: serverEnv(), input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n',
  });
  assert.equal(code, 0, stderr);
  const lines = stdout.split('\n').filter((line) => line !== '');
  const answers = lines.map((line) => JSON.parse(line));
  assert.deepEqual(answers.map((a) => [a.jsonrpc, a.id]), [['2.0', 1], ['2.0', 2], ['2.0', 3]]);
  for (const answer of answers.slice(1)) {
    assert.equal(answer.result.isError, false, JSON.stringify(answer));
    assert.equal(answer.result.structuredContent.shouted, true);
  }
  assert.ok(!stdout.includes('noisy:'), 'nothing the plugin wrote is on stdout');
  assert.match(stderr, /noisy: setup through printf/);
  assert.equal(stderr.match(/noisy: tool through printf/g)?.length, 2, stderr);
  assert.equal(stderr.match(/noisy: raw bytes on fd 1, no newline/g)?.length, 3, stderr);
});

// Python plugins (plugins/samples/python, tests/plugins/py*.py) run in the
// Python the server embeds (stagewright/loaders/python3); it imports
// Stagewright through gi, so the server needs the typelib's path.
const PY_SAMPLE_DIR = path.join(TOP_SRCDIR, 'plugins', 'samples', 'python');
const TEST_PLUGIN_DIR = path.join(TOP_SRCDIR, 'tests', 'plugins');
const PY_LOADER = path.join(path.dirname(path.dirname(BIN)), 'stagewright', 'loaders', '.libs', 'libpython3loader.so');
const pySkip = fs.existsSync(PY_LOADER) ? false : `${PY_LOADER} is not built`;
// JavaScript plugins (plugins/samples/js, tests/plugins/js*.js) run in the
// GJS the server embeds (stagewright/loaders/gjs).
const JS_SAMPLE_DIR = path.join(TOP_SRCDIR, 'plugins', 'samples', 'js');
const JS_LOADER = path.join(path.dirname(path.dirname(BIN)), 'stagewright', 'loaders', '.libs', 'libgjsloader.so');
const jsSkip = fs.existsSync(JS_LOADER) ? false : `${JS_LOADER} is not built`;

function giEnv (extra = {}) {
  return serverEnv({ GI_TYPELIB_PATH: process.env.GI_TYPELIB_PATH ?? '', ...extra });
}

// The sample tool of one language: reads the title, fails with its
// namespaced code and the code's metadata on a wrong expectation.
async function checkTitleTool (server, sessionId, plugin, label) {
  const title = ok(await server.call(`${plugin}_title`, { sessionId }), `${plugin}_title`);
  assert.equal(title.title, 'Stagewright Notes');
  assert.equal(title.label, `${label}Stagewright Notes`, `the configured prefix reached ${plugin}`);
  const mismatch = failsWith(await server.call(`${plugin}_title`, { sessionId, expect: 'Other' }),
                             `${plugin}.TITLE_MISMATCH`, `${plugin}_title with a wrong expectation`);
  assert.equal(mismatch.http, 409);
  assert.equal(mismatch.retryable, true);
  assert.equal(mismatch.hint, 'The title differs; wait for the app to update it and retry.');
  assert.match(mismatch.error, /titled “Stagewright Notes”, not “Other”/);
  assert.deepEqual(mismatch.details, { expected: 'Other', actual: 'Stagewright Notes' });
  return title;
}

test('python and javascript: the samples by name, beside the C one, read the demo app\'s title; codes namespaced', { skip: electronSkip || pySkip || jsSkip }, async (t) => {
  const server = await startServer(t, {
    args: ['--plugin', 'sample,pysample', '--plugin', 'jssample',
           '--plugin-config', 'pysample={"prefix":"py» "}', '--plugin-config', 'jssample={"prefix":"js» "}'],
    env: giEnv({ STAGEWRIGHT_PLUGIN_PATH: `${SAMPLE_DIR}:${PY_SAMPLE_DIR}:${JS_SAMPLE_DIR}` }),
  });
  const { tools } = await server.client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ['sample_title', 'pysample_title', 'jssample_title']) assert.ok(names.includes(name), `${name} listed`);
  for (const name of ['pysample_title', 'jssample_title']) {
    const tool = tools.find((entry) => entry.name === name);
    assert.match(tool.description, /active window/);
    assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ['expect', 'sessionId']);
  }

  const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  const windows = ok(await server.call('electron_windows_list', { sessionId: launch.session_id }), 'windows_list');
  const active = windows.windows.find((w) => w.focused) ?? windows.windows[0];
  const c = ok(await server.call('sample_title', { sessionId: launch.session_id }), 'sample_title');
  for (const [plugin, label] of [['pysample', 'py» '], ['jssample', 'js» ']]) {
    const title = await checkTitleTool(server, launch.session_id, plugin, label);
    assert.equal(title.title, active.title);
    assert.equal(title.surfaceId, c.surfaceId, 'the same window as the C sample reads');
  }

  const listing = ok(await server.call('electron_plugins', {}), 'electron_plugins');
  assert.deepEqual(listing.plugins.map((p) => [p.name, p.language]),
                   [['sample', 'c'], ['pysample', 'python3'], ['jssample', 'gjs']]);
  for (const [index, plugin, prefix] of [[1, 'pysample', 'py» '], [2, 'jssample', 'js» ']]) {
    const entry = listing.plugins[index];
    assert.deepEqual(entry.tools, [{ name: `${plugin}_title`, state: 'enabled' }]);
    assert.deepEqual(entry.errorCodes, [`${plugin}.NO_WINDOW`, `${plugin}.TITLE_MISMATCH`]);
    assert.deepEqual(entry.effectiveConfig, { prefix });
  }
  ok(await server.call('electron_stop', { sessionId: launch.session_id }), 'electron_stop');
});

test('python: the sample by path', { skip: pySkip }, async (t) => {
  const server = await startServer(t, { args: ['--plugin', path.join(PY_SAMPLE_DIR, 'pysample.plugin')], env: giEnv() });
  const names = (await server.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('pysample_title'));
  failsWith(await server.call('pysample_title', {}), 'NOT_RUNNING');
  const listing = ok(await server.call('electron_plugins', {}));
  assert.deepEqual(listing.plugins.map((p) => [p.name, p.language, p.version]), [['pysample', 'python3', '1.0.0']]);
});

// A noisy plugin (tests/plugins/{py,js}noisy): `shout` prints and answers,
// `quit` tries to end the process. Over stdio, twice each, then a ping.
async function runNoisy (name) {
  const call = (id, tool) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: `${name}_${tool}`, arguments: {} } });
  const requests = [
    { jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `${name}-test`, version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    call(2, 'shout'), call(3, 'quit'), call(4, 'shout'), call(5, 'quit'),
    { jsonrpc: '2.0', id: 6, method: 'ping' },
  ];
  const { code, stdout, stderr } = await run(BIN, ['--plugin', path.join(TEST_PLUGIN_DIR, `${name}.plugin`)], {
    env: giEnv(), input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', timeoutMs: 60000,
  });
  assert.equal(code, 0, stderr);
  const answers = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  // Tools answer when they are done: ping may overtake them.
  assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3, 4, 5, 6], stdout);
  const answer = (id) => answers.find((a) => a.id === id).result;
  for (const id of [2, 4]) {
    assert.equal(answer(id).isError, false, JSON.stringify(answer(id)));
    assert.equal(answer(id).structuredContent.shouted, true);
  }
  const quits = [3, 5].map((id) => answer(id).structuredContent);
  for (const envelope of quits) {
    assert.equal(envelope.ok, false);
    assert.equal(envelope.code, 'INTERNAL_ERROR');
  }
  assert.deepEqual(answer(6), {}, 'the server still serves');
  assert.ok(!stdout.includes(`${name}:`), 'nothing the plugin printed is on stdout');
  assert.equal(stderr.match(new RegExp(`${name}: setup through print`, 'g'))?.length, 1, stderr);
  assert.equal(stderr.match(new RegExp(`${name}: tool through print`, 'g'))?.length, 2, stderr);
  return { quits, stderr };
}

test('python: print() in setup and in a tool lands on stderr; SystemExit in a tool is an error, the server serves on', { skip: pySkip }, async () => {
  const { quits, stderr } = await runNoisy('pynoisy');
  for (const envelope of quits) assert.equal(envelope.error, 'SystemExit: 3');
  assert.equal(stderr.match(/pynoisy: tool through sys\.stdout, no newline/g)?.length, 2, stderr);
  assert.match(stderr, /Traceback[^]*raise SystemExit\(3\)/, 'the traceback is on stderr');
});

test('python: a plugin whose import fails: exit 2, its name and the reason on stderr, the traceback too', { skip: pySkip }, async () => {
  const result = await run(BIN, ['--plugin', path.join(TEST_PLUGIN_DIR, 'pybroken.plugin')], {
    env: giEnv(), input: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n', timeoutMs: 30000,
  });
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.at(-1), 'stagewright: Plugin “pybroken”: RuntimeError: pybroken needs a widget this machine lacks');
  assert.match(result.stderr, /Traceback[^]*pybroken\.py/, 'the traceback names the file');
});

test('javascript: the sample by path', { skip: jsSkip }, async (t) => {
  const server = await startServer(t, { args: ['--plugin', path.join(JS_SAMPLE_DIR, 'jssample.plugin')], env: giEnv() });
  const names = (await server.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('jssample_title'));
  failsWith(await server.call('jssample_title', {}), 'NOT_RUNNING');
  const listing = ok(await server.call('electron_plugins', {}));
  assert.deepEqual(listing.plugins.map((p) => [p.name, p.language, p.version]), [['jssample', 'gjs', '1.0.0']]);
});

test('javascript: print() in setup and in a tool lands on stderr; System.exit() in a tool is an error, the server serves on', { skip: jsSkip }, async () => {
  const { quits, stderr } = await runNoisy('jsnoisy');
  for (const envelope of quits) assert.equal(envelope.error, 'Error: System.exit(3) called by a plugin');
  assert.match(stderr, /System\.exit\(3\) called by a plugin\n[^]*?vfunc_invoke@file:[^\n]*jsnoisy\.js/, 'the stack is on stderr');
});

test('javascript: a plugin whose import fails: exit 2, its name and the reason on stderr, the stack too', { skip: jsSkip }, async () => {
  const result = await run(BIN, ['--plugin', path.join(TEST_PLUGIN_DIR, 'jsbroken.plugin')], {
    env: giEnv(), input: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n', timeoutMs: 30000,
  });
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.at(-1), 'stagewright: Plugin “jsbroken”: Error: jsbroken needs a widget this machine lacks');
  assert.match(result.stderr, /jsbroken\.js:\d+/, 'the stack names the file');
});

// Issue 17: the Chrome export gives each MCP client its own track, named
// by the order of its first call: never by its MCP session id, which is
// its credential over HTTP.
test('trace over --http: two clients, two tracks in the Chrome export, no session id anywhere', { skip: fs.existsSync(TRACE_FILE) ? false : `${TRACE_FILE} is not built`, timeout: 120000 }, async (t) => {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const dir = shortTempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const server = await startHttpServer(t, ['--plugin', TRACE_FILE]);
  const connect = async (name) => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new sdk.Client({ name, version: '0.0.0' });
    await client.connect(transport);
    t.after(() => client.close().catch(() => {}));
    assert.equal(typeof transport.sessionId, 'string');
    return { transport, call: async (tool, args = {}) => envelopeOf(await client.callTool({ name: tool, arguments: args })) };
  };
  const first = await connect('trace-first');
  const second = await connect('trace-second');
  assert.notEqual(first.transport.sessionId, second.transport.sessionId);
  const file = path.join(dir, 'two.jsonl');
  ok(await first.call('trace_start', { path: file }), 'trace_start');
  ok(await second.call('electron_status'), 'second: electron_status');
  ok(await first.call('electron_status'), 'first: electron_status');
  ok(await first.call('electron_plugins'), 'first: electron_plugins');
  ok(await second.call('electron_plugins'), 'second: electron_plugins');
  ok(await first.call('trace_stop'), 'trace_stop');

  const recording = fs.readFileSync(file, 'utf8');
  const calls = recording.trimEnd().split('\n').map((line) => JSON.parse(line)).filter((r) => r.type === 'call');
  // The second client called first: it is client 1.
  assert.deepEqual(calls.map((c) => [c.tool, c.client]), [['electron_status', 'MCP client 1'], ['electron_status', 'MCP client 2'],
                                                          ['electron_plugins', 'MCP client 2'],
                                                          ['electron_plugins', 'MCP client 1']]);
  const out = path.join(dir, 'two.json');
  ok(await first.call('trace_export', { format: 'chrome', recording: file, path: out }), 'trace_export chrome');
  const chromeText = fs.readFileSync(out, 'utf8');
  const events = JSON.parse(chromeText).traceEvents;
  const tracks = new Map(events.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => [e.args.name, e.pid]));
  assert.ok(tracks.has('MCP client 1') && tracks.has('MCP client 2'), [...tracks.keys()].join());
  assert.notEqual(tracks.get('MCP client 1'), tracks.get('MCP client 2'));
  const onTrack = (label) => events.filter((e) => e.cat === 'call' && e.ph === 'b' && e.pid === tracks.get(label)).map((e) => e.name);
  assert.deepEqual(onTrack('MCP client 1'), ['electron_status', 'electron_plugins']);
  assert.deepEqual(onTrack('MCP client 2'), ['electron_status', 'electron_plugins']);
  for (const id of [first.transport.sessionId, second.transport.sessionId]) {
    assert.ok(!recording.includes(id), 'no MCP session id in the recording');
    assert.ok(!chromeText.includes(id), 'no MCP session id in the export');
  }
});
