// mcp-inspector.test.mjs: the real stagewright binary, driven by the MCP
// Inspector CLI (@modelcontextprotocol/inspector, pinned in tests/package.json)
// the way an operator would run it:
//   mcp-inspector --cli -q <bin> --method … --format json [-- <server args>]
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Exit codes observed with Inspector 2.12.0 (they agree with the reference
// note, §5.2, where it speaks; the rest is what we saw):
//   0  success
//   5  tool error: isError:true, or a tool that tools/list does not show
//      (the Inspector lists tools first and never sends the call)
//   1  any other JSON-RPC error, e.g. resources/read of an unknown URI
//      (our -32002) — not 5, which is for tools only
//   1  also for a log level the Inspector itself rejects before sending
// On failure stderr carries one JSON line {"error":{"code","message"}}.
//
// Run by hand:
//   STAGEWRIGHT_BIN=$PWD/stagewright/stagewright node --test --test-reporter=tap tests/e2e/mcp-inspector.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test as nodeTest, after } from 'node:test';

import {
  BIN,
  INSPECTOR,
  assertBinaryBuilt,
  inspectorSkipReason,
  makeTempDir,
  run,
} from './lib/harness.mjs';

const skip = inspectorSkipReason() ?? false;

// Top-level tests only, so that automake's tap-driver.sh sees each one.
function test (name, fn) {
  return nodeTest(name, { skip }, fn);
}

// The Inspector keeps a catalog and client config under $HOME; give it a
// scratch home so a test run never writes to the real one.
const home = makeTempDir('stw-inspector-home-');
after(() => fs.rmSync(home, { recursive: true, force: true }));

const BUDGET_MS = 60000;
const timings = [];

/** One Inspector CLI run against the binary; server args go after `--`. */
async function inspect (options, serverArgs = [], { target = BIN } = {}) {
  const args = ['--cli', '-q', target, ...options, '--format', 'json'];
  if (serverArgs.length > 0) args.push('--', ...serverArgs);
  const result = await run(INSPECTOR, args, {
    env: { ...process.env, HOME: home },
    timeoutMs: 30000,
  });
  timings.push([options.join(' '), result.ms]);
  result.json = result.stdout.trim() ? JSON.parse(result.stdout) : null;
  result.errorJson = null;
  const errorLine = result.stderr.trim().split('\n').pop();
  if (result.code !== 0 && errorLine) {
    try {
      result.errorJson = JSON.parse(errorLine);
    } catch {
      // left null: the assertion below prints stderr
    }
  }
  return result;
}

function envelopeOf (result) {
  const structured = result.json.result.structuredContent;
  assert.deepEqual(JSON.parse(result.json.result.content[0].text), structured);
  return structured;
}

test('initialize: server info and negotiated protocol', async () => {
  assertBinaryBuilt(assert);
  const r = await inspect(['--method', 'initialize']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.result.serverInfo.name, 'stagewright');
  assert.equal(r.json.result.protocolVersion, '2025-11-25');
  assert.equal(r.json.result.capabilities.tools.listChanged, true);
});

test('tools/list lists electron_status', async () => {
  const r = await inspect(['--method', 'tools/list']);
  assert.equal(r.code, 0, r.stderr);
  const names = r.json.result.tools.map((t) => t.name);
  assert.ok(names.includes('electron_status'));
  assert.ok(names.includes('electron_doctor'));
  for (const tool of r.json.result.tools) assert.equal(tool.inputSchema.type, 'object');
});

test('tools/list --strict finds no error-severity schema portability problem', async () => {
  const r = await inspect(['--method', 'tools/list', '--strict']);
  assert.equal(r.code, 0, `exit ${r.code} (6 = a portability error); stderr:\n${r.stderr}`);
});

test('tools/call electron_status: exit 0, ok true', async () => {
  const r = await inspect(['--method', 'tools/call', '--tool-name', 'electron_status']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.result.isError, false);
  const envelope = envelopeOf(r);
  assert.equal(envelope.ok, true);
  assert.equal(envelope.server.tool_profile, 'full');
});

test('tools/call with bad arguments: exit 5 (isError), BAD_ARGUMENT envelope on stdout', async () => {
  const r = await inspect(['--method', 'tools/call', '--tool-name', 'electron_status',
                           '--tool-args-json', '{"bogus":1}']);
  assert.equal(r.code, 5, r.stderr);
  assert.equal(r.errorJson?.error?.code, 'tool_is_error');
  assert.equal(r.json.result.isError, true);
  const envelope = envelopeOf(r);
  assert.equal(envelope.code, 'BAD_ARGUMENT');
  assert.equal(envelope.details.issues[0].field, 'bogus');
  assert.equal(envelope.details.issues[0].code, 'unrecognized_keys');
});

test('tools/call of an unknown tool: exit 5', async () => {
  const r = await inspect(['--method', 'tools/call', '--tool-name', 'electron_no_such_tool']);
  assert.equal(r.code, 5, r.stderr);
  assert.equal(r.errorJson?.error?.code, 'tool_not_found');
  assert.equal(r.stdout, '');
});

test('server args after --: --tool-profile essential hides electron_doctor', async () => {
  const list = await inspect(['--method', 'tools/list'], ['--tool-profile', 'essential']);
  assert.equal(list.code, 0, list.stderr);
  const names = list.json.result.tools.map((t) => t.name);
  assert.ok(names.includes('electron_status'));
  assert.ok(!names.includes('electron_doctor'));
  // Hidden tools are not listed, so the Inspector refuses to call them.
  const call = await inspect(['--method', 'tools/call', '--tool-name', 'electron_doctor'],
                             ['--tool-profile', 'essential']);
  assert.equal(call.code, 5);
});

test('resources/list and resources/read stagewright://docs/quickstart', async () => {
  const list = await inspect(['--method', 'resources/list']);
  assert.equal(list.code, 0, list.stderr);
  const uris = list.json.result.resources.map((r) => r.uri);
  assert.ok(uris.includes('stagewright://docs/quickstart'));

  const read = await inspect(['--method', 'resources/read', '--uri', 'stagewright://docs/quickstart']);
  assert.equal(read.code, 0, read.stderr);
  const [content] = read.json.result.contents;
  assert.equal(content.uri, 'stagewright://docs/quickstart');
  assert.equal(content.mimeType, 'text/markdown');
  assert.match(content.text, /^# /);
});

test('resources/read of an unknown URI: exit 1 with the server\'s message', async () => {
  const r = await inspect(['--method', 'resources/read', '--uri', 'stagewright://docs/nope']);
  assert.equal(r.code, 1);
  assert.equal(r.errorJson?.error?.message, 'Resource not found');
});

test('logging/setLevel debug: exit 0, empty result', async () => {
  const r = await inspect(['--method', 'logging/setLevel', '--log-level', 'debug']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json, { result: {} });
});

test('--protocol-era auto: server/discover answers, then 2026-07-28 without initialize', async (t) => {
  // A wrapper records what crosses the pipes, so we know the probe happened
  // and how the server answered it.
  const dir = makeTempDir('stw-inspector-trace-');
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const inLog = path.join(dir, 'in.log');
  const outLog = path.join(dir, 'out.log');
  const wrapper = path.join(dir, 'stagewright-traced');
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  fs.writeFileSync(wrapper, `#!/bin/sh\ntee ${q(inLog)} | ${q(BIN)} "$@" | tee ${q(outLog)}\n`, { mode: 0o755 });

  const r = await inspect(['--method', 'tools/list', '--protocol-era', 'auto'], [], { target: wrapper });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.json.result.tools.some((t) => t.name === 'electron_status'));

  const sent = fs.readFileSync(inLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const received = fs.readFileSync(outLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(sent[0].method, 'server/discover', 'the Inspector probes first');
  const probe = received.find((m) => m.id === sent[0].id);
  assert.equal(probe.result.supportedVersions[0], '2026-07-28');
  assert.equal(probe.result.resultType, 'complete');
  // Stdio speaks both eras: the Inspector stays in the new one.
  assert.ok(!sent.some((m) => m.method === 'initialize'), 'no initialize in 2026-07-28');
  const list = sent.find((m) => m.method === 'tools/list');
  assert.equal(list.params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
  assert.equal(received.find((m) => m.id === list.id).result.resultType, 'complete');
  // A listen it opens (for list changes) is acknowledged first.
  for (const listen of sent.filter((m) => m.method === 'subscriptions/listen')) {
    const ack = received.find((m) => m.method === 'notifications/subscriptions/acknowledged' &&
                                     m.params._meta['io.modelcontextprotocol/subscriptionId'] === listen.id);
    assert.ok(ack, `listen ${listen.id} acknowledged`);
  }
});

test('--load: 200 concurrent electron_status calls, no errors', async (t) => {
  const r = await inspect(['--method', 'tools/call', '--tool-name', 'electron_status',
                           '--load', '--load-requests', '200', '--load-concurrency', '10']);
  assert.equal(r.code, 0, r.stderr);
  const summary = r.json.result;
  assert.equal(summary.requests, 200);
  assert.equal(summary.ok, 200);
  assert.equal(summary.toolErrors, 0);
  assert.equal(summary.errors, 0);
  t.diagnostic(`load: p50 ${summary.latencyMs.p50} ms, p99 ${summary.latencyMs.p99} ms, ${summary.throughput} calls/s`);
});

// Last, so that it sees every run above (tests in a file run in order).
test('the Inspector runs fit the time budget', async (t) => {
  const total = timings.reduce((sum, [, ms]) => sum + ms, 0);
  for (const [what, ms] of timings) t.diagnostic(`${ms.toFixed(0).padStart(5)} ms  ${what}`);
  t.diagnostic(`${total.toFixed(0).padStart(5)} ms  total over ${timings.length} Inspector runs`);
  assert.ok(total < BUDGET_MS, `${total.toFixed(0)} ms ≥ ${BUDGET_MS} ms`);
});
