// a11y.test.mjs: the a11y plugin (issue 20, items 7, 8 and 10) over MCP with
// the official SDK client, on tests/fixtures/a11y-pages/ served by pages-app:
// axe-core 4.14.1 (tests/node_modules, pinned in tests/package.json) finds
// the unlabeled input, the image without alt and the low-contrast text, and
// the images without alt in a same-origin and a cross-origin frame, on a
// page that forges axe and breaks its main world's globals; every node has
// a ref electron_get_attribute uses; the scope by selector and by ref; the
// codes (UNSUPPORTED without an engine, INVALID_SELECTOR, SCOPE_NOT_FOUND,
// ENGINE_FAILED when the page hangs); the electron_plugins entry.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';
import { NODE_MODULES } from './lib/harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const PAGES_APP = path.join(FIXTURES, 'pages-app');
const A11Y_PAGES = path.join(FIXTURES, 'a11y-pages');
const ENGINE = path.join(NODE_MODULES, 'axe-core', 'axe.min.js');
const built = fs.existsSync(path.join(PLUGIN_DIR, 'liba11y.so')) ? null : `${PLUGIN_DIR}/liba11y.so is not built`;
const engine = fs.existsSync(ENGINE) ? null : `${ENGINE} is missing (tests/package.json pins axe-core)`;
const skip = electronSkipReason() ?? built ?? engine ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options }, fn);
}

function serverEnv () {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

async function startA11y (t, config = { engine: ENGINE }) {
  const args = ['--plugin', 'a11y', '--plugin-config', `a11y=${JSON.stringify(config)}`];
  return startServer(t, { args, env: serverEnv() });
}

async function launchPage (t, server, page = 'audit') {
  const launch = ok(await server.call('electron_launch',
    launchArgs(PAGES_APP, { args: [`--page=${page}`, `--pages-dir=${A11Y_PAGES}`] })), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  return launch.session_id;
}

// The audit page is ready once both its frames are there to audit.
async function launchAudit (t, server) {
  const sessionId = await launchPage(t, server);
  await waitUntil(async () => {
    const audit = await server.call('a11y_audit', { sessionId, rules: ['image-alt'] });
    return audit.ok && audit.violations[0]?.nodes.length === 3;
  }, 20000, 200).catch(() => {});
  return sessionId;
}

const byId = (audit, id) => audit.violations.find((v) => v.id === id);

async function idOf (server, sessionId, ref) {
  const answer = ok(await server.call('electron_get_attribute', { sessionId, ref, name: 'id' }),
    `electron_get_attribute ref ${ref}`);
  return answer.value;
}

test('audit: the three violations, in the page and both frames, each node with a ref that electron_get_attribute uses', { skip }, async (t) => {
  const server = await startA11y(t);
  const sessionId = await launchAudit(t, server);

  const audit = ok(await server.call('a11y_audit', { sessionId }), 'a11y_audit');
  for (const id of ['label', 'image-alt', 'color-contrast']) {
    const violation = byId(audit, id);
    assert.ok(violation, `${id} is reported: ${JSON.stringify(audit.violations.map((v) => v.id))}`);
    assert.match(violation.helpUrl, /^https:\/\/dequeuniversity\.com\/rules\/axe\/4\.14\//);
    assert.ok(['minor', 'moderate', 'serious', 'critical'].includes(violation.impact));
    assert.ok(Array.isArray(violation.tags) && violation.tags.length > 0);
    assert.equal(typeof violation.help, 'string');
    assert.equal(violation.nodeCount, violation.nodes.length);
    for (const node of violation.nodes) {
      assert.equal(typeof node.ref, 'number', `${id}: ${JSON.stringify(node)}`);
      assert.ok(Array.isArray(node.target) && node.target.length >= 1);
      assert.ok(node.failureSummary.length > 0);
    }
  }

  // Each offending element is the one expected, and its ref acts at once.
  const ids = async (id) => Promise.all(byId(audit, id).nodes.map((n) => idOf(server, sessionId, n.ref)));
  assert.deepEqual(await ids('label'), ['nameless']);
  assert.deepEqual(await ids('color-contrast'), ['faint']);
  const images = byId(audit, 'image-alt').nodes;
  assert.deepEqual((await ids('image-alt')).sort(), ['frame-noalt', 'frame-noalt', 'noalt']);
  // The frames' images are reached through their frames' selectors.
  const framed = images.filter((n) => n.target.length === 2).map((n) => n.target[0]).sort();
  assert.equal(framed.length, 2, JSON.stringify(images));
  assert.ok(framed.some((s) => s.includes('inner')) && framed.some((s) => s.includes('cross')), JSON.stringify(framed));
  assert.equal(new Set(images.map((n) => n.ref)).size, 3, 'three elements, three refs');

  // The forged window.axe and broken globals of the main world were not used.
  assert.equal(audit.capabilities.version, '4.14.1');
  assert.equal(audit.capabilities.world, 'isolated');
  assert.equal(audit.capabilities.frames, 3);
  assert.equal(audit.capabilities.framesSkipped, 0);
  assert.equal(audit.capabilities.closedShadowRoots, false);
  assert.ok(audit.capabilities.notes.some((n) => /closed shadow roots/.test(n)));
  assert.ok(audit.passes > 0);

  // A second audit gives the same elements the same refs.
  const again = ok(await server.call('a11y_audit', { sessionId, rules: ['image-alt'] }), 'a11y_audit again');
  assert.deepEqual(again.violations.map((v) => v.id), ['image-alt']);
  assert.deepEqual(again.violations[0].nodes.map((n) => n.ref).sort(), images.map((n) => n.ref).sort());
});

test('audit: scope by selector and by ref, tags and rules', { skip }, async (t) => {
  const server = await startA11y(t);
  const sessionId = await launchAudit(t, server);

  const clean = ok(await server.call('a11y_audit', { sessionId, selector: '#clean' }), 'a11y_audit #clean');
  assert.deepEqual(clean.violations.filter((v) => ['label', 'image-alt', 'color-contrast'].includes(v.id)), []);

  const whole = ok(await server.call('a11y_audit', { sessionId, rules: ['label'] }), 'a11y_audit label');
  const ref = whole.violations[0].nodes[0].ref;
  const scoped = ok(await server.call('a11y_audit', { sessionId, ref, rules: ['label', 'image-alt'] }), 'a11y_audit by ref');
  assert.deepEqual(scoped.violations.map((v) => v.id), ['label']);
  assert.equal(scoped.violations[0].nodes[0].ref, ref);

  const tagged = ok(await server.call('a11y_audit', { sessionId, tags: ['wcag2aa'] }), 'a11y_audit wcag2aa');
  assert.ok(tagged.violations.length > 0);
  for (const v of tagged.violations)
    assert.ok(v.tags.includes('wcag2aa'), `${v.id} has wcag2aa: ${v.tags}`);
  assert.ok(byId(tagged, 'color-contrast'));
  assert.equal(byId(tagged, 'label'), undefined, 'label is wcag2a, not wcag2aa');

  failsWith(await server.call('a11y_audit', { sessionId, rules: ['no-such-rule'] }), 'BAD_ARGUMENT');
});

test('codes: INVALID_SELECTOR, SCOPE_NOT_FOUND, UNSUPPORTED without an engine or with one that is not axe', { skip }, async (t) => {
  const server = await startA11y(t);
  const sessionId = await launchAudit(t, server);

  failsWith(await server.call('a11y_audit', { sessionId, selector: 'main >>> ##' }), 'a11y.INVALID_SELECTOR');
  failsWith(await server.call('a11y_audit', { sessionId, selector: '#no-such-element' }), 'a11y.SCOPE_NOT_FOUND');
  failsWith(await server.call('a11y_audit', { sessionId, ref: 999999 }), 'a11y.SCOPE_NOT_FOUND');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-a11y-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const notAxe = path.join(dir, 'not-axe.js');
  fs.writeFileSync(notAxe, 'window.notAxe = 1;\n');
  for (const config of [{ engine: path.join(dir, 'missing', 'axe.min.js') }, { engine: notAxe }]) {
    const other = await startA11y(t, config);
    const otherSession = await launchPage(t, other);
    const refused = failsWith(await other.call('a11y_audit', { sessionId: otherSession }), 'a11y.UNSUPPORTED');
    assert.match(refused.hint, /npm install axe-core/);
    assert.equal(refused.details.engine, config.engine);
  }
});

test('the default engine location is node_modules/axe-core/axe.min.js under the working directory', { skip }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-a11y-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const start = async () => {
    const transport = new sdk.StdioClientTransport({
      command: BIN, args: ['--plugin', 'a11y'], env: serverEnv(), cwd: dir, stderr: 'pipe',
    });
    const client = new sdk.Client({ name: 'a11y-default-engine', version: '0.0.0' });
    await client.connect(transport);
    t.after(() => client.close().catch(() => {}));
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      return JSON.parse(result.content[0].text);
    };
    const launch = ok(await call('electron_launch',
      launchArgs(PAGES_APP, { args: ['--page=audit', `--pages-dir=${A11Y_PAGES}`] })), 'launch');
    t.after(() => call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
    return { call, sessionId: launch.session_id };
  };

  const bare = await start();
  const refused = failsWith(await bare.call('a11y_audit', { sessionId: bare.sessionId }), 'a11y.UNSUPPORTED');
  assert.equal(refused.details.engine, 'node_modules/axe-core/axe.min.js');

  fs.mkdirSync(path.join(dir, 'node_modules', 'axe-core'), { recursive: true });
  fs.copyFileSync(ENGINE, path.join(dir, 'node_modules', 'axe-core', 'axe.min.js'));
  // Read once it is there: the same server finds it now.
  const audit = ok(await bare.call('a11y_audit', { sessionId: bare.sessionId, rules: ['label'] }), 'a11y_audit');
  assert.deepEqual(audit.violations.map((v) => v.id), ['label']);
});

test('hostile: a page that hangs its renderer ends the audit with ENGINE_FAILED within timeoutMs', { skip }, async (t) => {
  const server = await startA11y(t, { engine: ENGINE, timeoutMs: 3000 });
  const sessionId = await launchPage(t, server, 'hang');
  // Let the page start its busy loop.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const started = Date.now();
  const failed = failsWith(await server.call('a11y_audit', { sessionId }), 'a11y.ENGINE_FAILED');
  const elapsed = Date.now() - started;
  // Within the budget, not the transport's own 15 s timeout of the pending call.
  assert.ok(elapsed < 10000, `ended after ${elapsed} ms`);
  assert.equal(failed.details.timeoutMs, 3000, JSON.stringify(failed));
});

test('electron_plugins lists a11y with its tool, codes and safe config; tools/list stays terse', { skip }, async (t) => {
  const server = await startA11y(t, { engine: ENGINE, maxNodes: 10 });
  const plugins = ok(await server.call('electron_plugins', {}), 'electron_plugins');
  const entry = plugins.plugins.find((p) => p.name === 'a11y');
  assert.ok(entry, JSON.stringify(plugins));
  assert.deepEqual(entry.tools.map((tool) => tool.name), ['a11y_audit']);
  for (const code of ['a11y.UNSUPPORTED', 'a11y.INVALID_SELECTOR', 'a11y.SCOPE_NOT_FOUND', 'a11y.ENGINE_FAILED'])
    assert.ok(JSON.stringify(entry.errorCodes).includes(code), `${code} in ${JSON.stringify(entry.errorCodes)}`);
  assert.equal(entry.effectiveConfig.engine, ENGINE);
  assert.equal(entry.effectiveConfig.maxNodes, 10);
  assert.equal(entry.effectiveConfig.timeoutMs, 30000);

  const { tools } = await server.client.listTools();
  const audit = tools.find((tool) => tool.name === 'a11y_audit');
  const size = JSON.stringify(audit).length;
  // The whole tool entry in tools/list, in characters (tokens ≈ / 4).
  assert.ok(size < 1600, `a11y_audit's tools/list entry is ${size} characters`);
});
