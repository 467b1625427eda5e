// mcp-sdk.test.mjs: the real stagewright binary, driven by the official
// TypeScript MCP SDK client (pinned in tests/package.json), plus raw
// protocol checks the SDK cannot make (garbage lines, cancellation races,
// stdout cleanliness, exit codes).
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   STAGEWRIGHT_BIN=$PWD/stagewright/stagewright node --test --test-reporter=tap tests/e2e/mcp-sdk.test.mjs

import assert from 'node:assert/strict';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  GI_PYTHON,
  RawSession,
  RecordingTransport,
  TOP_SRCDIR,
  assertBinaryBuilt,
  assertNoGLibCriticals,
  estimateTokens,
  giEnv,
  loadSdk,
  makeSlowNode,
  processAlive,
  run,
  sleep,
  textWithoutMeta,
  waitUntil,
  withoutMeta,
} from './lib/harness.mjs';

const sdk = await loadSdk();
const skip = sdk.skip ?? false;

const LATEST = '2025-11-25';

// Top-level tests only: automake's tap-driver.sh reads the top-level TAP
// stream, so each test is its own result there.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { ...options, skip: skip || options.skip }, fn);
}

/** A connected SDK client on a fresh server; closes it after the test. */
async function connect (t, args = [], { env } = {}) {
  const transport = new sdk.StdioClientTransport({
    command: BIN,
    args,
    env,          // merged over the SDK's filtered default environment
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr += chunk; });
  // The SDK hands the negotiated version to transports that want it (the
  // HTTP transport uses it for its header); the stdio one does not, so we
  // take it here.
  let negotiated = null;
  transport.setProtocolVersion = (version) => { negotiated = version; };

  const client = new sdk.Client({ name: 'stagewright-e2e', version: '0.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  t.after(async () => {
    await client.close();
    // Whatever a test did, GLib never complained.
    assertNoGLibCriticals(assert, stderr, 'server stderr');
  });
  return { client, transport, errors, negotiated: () => negotiated, stderr: () => stderr };
}

function parseText (result) {
  assert.ok(Array.isArray(result.content) && result.content.length >= 1, 'content has an item');
  assert.equal(result.content[0].type, 'text');
  return JSON.parse(result.content[0].text);
}

/** The envelope invariants every tools/call answer must satisfy. */
function checkEnvelope (result) {
  const fromText = parseText(result);
  assert.deepEqual(result.structuredContent, fromText, 'structuredContent is the text item, parsed');
  assert.equal(result.isError, !fromText.ok, 'isError = !ok');

  const meta = fromText._meta;
  assert.equal(typeof meta, 'object');
  assert.ok(Number.isInteger(meta.elapsed_ms) && meta.elapsed_ms >= 0, 'elapsed_ms ≥ 0');
  // The server counts the characters (code points) of its own
  // serialization of the envelope without _meta; that serialization is the
  // text item minus its trailing _meta member. Exact, no tolerance.
  const counted = textWithoutMeta(result.content[0].text);
  assert.equal(meta.estimated_tokens, estimateTokens(counted), 'estimated_tokens = ceil(chars/4)');
  // The text is compact, canonical JSON: the same as an independent
  // serialization of the object (holds for the integer/string/bool payloads
  // of today's tools; a payload with doubles may need a looser check).
  assert.equal(counted, JSON.stringify(withoutMeta(fromText)));
  return fromText;
}

let version = null;

test('--version prints the package version', async () => {
  assertBinaryBuilt(assert);
  const { code, stdout, stderr } = await run(BIN, ['--version']);
  assert.equal(code, 0, stderr);
  const match = /^stagewright (\d+\.\d+\.\d+\S*)\n$/.exec(stdout);
  assert.ok(match, `unexpected --version output ${JSON.stringify(stdout)}`);
  version = match[1];
});

test('initialize: server info, protocol, capabilities, instructions', async (t) => {
  const { client, negotiated } = await connect(t);
  const info = client.getServerVersion();
  assert.equal(info.name, 'stagewright');
  assert.equal(info.version, version);
  assert.equal(negotiated(), LATEST);
  const capabilities = client.getServerCapabilities();
  assert.equal(capabilities.tools?.listChanged, true);
  assert.ok(capabilities.resources, 'resources capability');
  assert.ok(capabilities.logging, 'logging capability');
  const instructions = client.getInstructions();
  assert.equal(typeof instructions, 'string');
  assert.ok(instructions.trim().length > 0, 'instructions are not empty');
  await client.ping();
});

test('tools/list: sorted, well-formed, read-only status tools', async (t) => {
  const { client } = await connect(t);
  const { tools, nextCursor } = await client.listTools();
  assert.equal(nextCursor, undefined);
  const names = tools.map((tool) => tool.name);
  assert.deepEqual(names, [...names].sort(), 'tools are sorted by name');
  assert.equal(new Set(names).size, names.length, 'names are unique');
  for (const name of ['electron_status', 'electron_doctor']) assert.ok(names.includes(name), name);
  for (const tool of tools) {
    assert.match(tool.name, /^[a-z][a-z0-9_]*$/);
    assert.equal(tool.inputSchema?.type, 'object', `${tool.name} inputSchema.type`);
    assert.equal(typeof tool.description, 'string');
    assert.ok(tool.description.length > 0, `${tool.name} has a description`);
  }
  for (const name of ['electron_status', 'electron_doctor']) {
    const tool = tools.find((x) => x.name === name);
    assert.equal(tool.annotations?.readOnlyHint, true, `${name} is read-only`);
  }
});

test('tools/call electron_status: envelope, version, _meta', async (t) => {
  const { client } = await connect(t);
  const result = await client.callTool({ name: 'electron_status', arguments: {} });
  const envelope = checkEnvelope(result);
  assert.equal(result.isError, false);
  assert.equal(envelope.ok, true);
  assert.equal(envelope.server.version, version, 'server.version matches --version');
  assert.equal(envelope.server.tool_profile, 'full');
  assert.ok(envelope.server.uptime_ms >= 0);
  assert.ok(!Number.isNaN(Date.parse(envelope.server.started_at)), 'started_at is ISO 8601');
  assert.equal(envelope.active_sessions, 0);
  assert.deepEqual(envelope.sessions, []);
});

test('tools/call electron_doctor: checks with ids and statuses', async (t) => {
  const { client } = await connect(t);
  const result = await client.callTool({ name: 'electron_doctor', arguments: {} });
  const envelope = checkEnvelope(result);
  assert.equal(envelope.ok, true);
  assert.equal(typeof envelope.doctor_ok, 'boolean');
  assert.ok(Array.isArray(envelope.checks) && envelope.checks.length > 0);
  const ids = envelope.checks.map((c) => c.id);
  for (const id of ['node', 'electron', 'chromium', 'display', 'eval_policy', 'app_root', 'screenshot_dir', 'libsoup']) {
    assert.ok(ids.includes(id), `check ${id}`);
  }
  for (const check of envelope.checks) {
    assert.ok(['pass', 'warn', 'fail', 'skip'].includes(check.status), `${check.id}: ${check.status}`);
    assert.equal(typeof check.message, 'string');
  }
  assert.equal(envelope.doctor_ok, !envelope.checks.some((c) => c.status === 'fail'));
  assert.equal(envelope.runtime.server.stagewright, version);
  // libsoup is opened on demand; the doctor opens it and names its version.
  assert.match(envelope.runtime.server.libsoup, /^3\.\d+\.\d+$/);
  assert.equal(envelope.checks.find((c) => c.id === 'libsoup').status, 'pass');
});

test('bad arguments are a tool error: BAD_ARGUMENT with field-addressed issues', async (t) => {
  const { client } = await connect(t);
  const result = await client.callTool({ name: 'electron_status', arguments: { bogus: 1 } });
  const envelope = checkEnvelope(result);
  assert.equal(result.isError, true);
  assert.equal(envelope.ok, false);
  assert.equal(envelope.code, 'BAD_ARGUMENT');
  assert.equal(envelope.http, 400);
  assert.equal(envelope.retryable, false);
  assert.equal(typeof envelope.error, 'string');
  assert.equal(typeof envelope.hint, 'string');
  assert.equal(envelope.details.issues[0].field, 'bogus');
  assert.equal(envelope.details.issues[0].code, 'unrecognized_keys');
});

test('an unknown tool is a JSON-RPC error -32602 (McpError)', async (t) => {
  const { client } = await connect(t);
  await assert.rejects(
    client.callTool({ name: 'electron_no_such_tool', arguments: {} }),
    (error) => {
      assert.ok(error instanceof sdk.McpError, `an McpError, got ${error}`);
      assert.equal(error.code, sdk.ErrorCode.InvalidParams);
      assert.equal(error.code, -32602);
      return true;
    });
  await client.ping();   // the session survives
});

test('--tool-profile essential hides electron_doctor and explains how to get it', async (t) => {
  const { client } = await connect(t, ['--tool-profile', 'essential']);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.ok(names.includes('electron_status'));
  assert.ok(!names.includes('electron_doctor'), 'electron_doctor is hidden');

  // Hidden is not unknown: the call is answered with an envelope that
  // tells the agent which profile has the tool.
  const result = await client.callTool({ name: 'electron_doctor', arguments: {} });
  const envelope = checkEnvelope(result);
  assert.equal(result.isError, true);
  assert.equal(envelope.code, 'BAD_ARGUMENT');
  assert.match(envelope.error, /debug/);
  assert.ok(Array.isArray(envelope.next_actions) && envelope.next_actions.length > 0);
  assert.match(envelope.next_actions.join('\n'), /--tool-profile[= ]debug/);

  const status = checkEnvelope(await client.callTool({ name: 'electron_status', arguments: {} }));
  assert.equal(status.server.tool_profile, 'essential');
});

// Issue 8: tools/list is read by every agent on every session. Tokens as
// `_meta.estimated_tokens` counts them: characters / 4 of what the client
// reads (the whole JSON-RPC response).
test('tools/list stays within its token budgets; essential leaves sessionId unlisted but takes it', async (t) => {
  const listed = async (profile) => {
    const session = new RawSession(['--tool-profile', profile]);
    t.after(() => session.close());
    session.send({ jsonrpc: '2.0', id: 0, method: 'initialize',
                   params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    await session.waitForResponse(0);
    session.notify('notifications/initialized');
    session.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const response = await session.waitForResponse(1);
    return { tools: response.result.tools, tokens: JSON.stringify(response).length / 4 };
  };
  const essential = await listed('essential');
  const full = await listed('full');
  assert.ok(essential.tokens <= 2400, `essential tools/list: ${essential.tokens} tokens`);
  assert.ok(full.tokens <= 10000, `full tools/list: ${full.tokens} tokens`);
  assert.equal(essential.tools.length, 29);

  // One app at a time: no tool of the essential profile lists sessionId or
  // allowMultiple; in the full profile every session tool does.
  for (const tool of essential.tools) {
    assert.ok(!('sessionId' in (tool.inputSchema.properties ?? {})), `${tool.name} lists sessionId`);
    assert.ok(!('allowMultiple' in (tool.inputSchema.properties ?? {})), `${tool.name} lists allowMultiple`);
  }
  const fullByName = new Map(full.tools.map((tool) => [tool.name, tool]));
  assert.ok('sessionId' in fullByName.get('electron_click').inputSchema.properties);
  assert.ok('allowMultiple' in fullByName.get('electron_launch').inputSchema.properties);
  // Tuning arguments and error lists are the other profiles' (issue 16's
  // terse task fits 3,000 tokens with them left out of essential).
  const essentialByName = new Map(essential.tools.map((tool) => [tool.name, tool]));
  assert.ok(!('force' in essentialByName.get('electron_click').inputSchema.properties));
  assert.ok('force' in fullByName.get('electron_click').inputSchema.properties);
  assert.ok(!essentialByName.get('electron_click').description.includes('Errors:'));
  assert.ok(fullByName.get('electron_click').description.includes('Errors: ELEMENT_NOT_VISIBLE'));

  // Unlisted is still taken: a sessionId that names no app is NOT_RUNNING,
  // not an unknown argument; a name no tool takes is still refused.
  const { client } = await connect(t, ['--tool-profile', 'essential']);
  const named = checkEnvelope(await client.callTool({ name: 'electron_info', arguments: { sessionId: 'app-9-deadbeef' } }));
  assert.equal(named.code, 'NOT_RUNNING');
  const unknown = checkEnvelope(await client.callTool({ name: 'electron_info', arguments: { windowId: 'w' } }));
  assert.equal(unknown.code, 'BAD_ARGUMENT');
});

test('resources: list and read the quick start', async (t) => {
  const { client } = await connect(t);
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri);
  assert.ok(uris.includes('stagewright://docs/quickstart'));
  for (const resource of resources) {
    assert.equal(typeof resource.name, 'string');
    assert.equal(typeof resource.description, 'string');
  }
  const { contents } = await client.readResource({ uri: 'stagewright://docs/quickstart' });
  assert.equal(contents.length, 1);
  assert.equal(contents[0].uri, 'stagewright://docs/quickstart');
  assert.equal(contents[0].mimeType, 'text/markdown');
  assert.ok(contents[0].text.length > 0);
  await assert.rejects(client.readResource({ uri: 'stagewright://docs/nope' }),
                       (error) => error instanceof sdk.McpError && error.code === -32002);
});

test('logging/setLevel is accepted; a bad level is -32602', async (t) => {
  const { client } = await connect(t);
  await client.setLoggingLevel('debug');
  await assert.rejects(client.request({ method: 'logging/setLevel', params: { level: 'loud' } },
                                      sdk.EmptyResultSchema),
                       (error) => error instanceof sdk.McpError && error.code === -32602);
});

// --- raw protocol ----------------------------------------------------------

test('a garbage line gets -32700 and the next lines are served', async (t) => {
  const session = new RawSession();
  t.after(() => session.close());
  // One write: the garbage, a valid initialize and a ping.
  session.write('garbage\n' +
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize',
                     params: { protocolVersion: LATEST, capabilities: {},
                               clientInfo: { name: 'raw', version: '0' } } }) + '\n' +
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n' +
    JSON.stringify({ jsonrpc: '2.0', id: 'p-1', method: 'ping' }) + '\n');
  const init = await session.waitForResponse(0);
  const ping = await session.waitForResponse('p-1');
  assert.deepEqual(session.frames[0], { jsonrpc: '2.0', id: null, error: { code: -32700, message: session.frames[0].error.message } });
  assert.equal(init.result.protocolVersion, LATEST);
  assert.deepEqual(ping.result, {});
  // Other malformed input, each answered, none fatal.
  session.write('[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n');
  session.write('{"jsonrpc":"2.0","id":null,"method":"ping"}\n');
  session.notify('notifications/no_such_notification');
  const after = await session.request('ping', undefined);
  assert.deepEqual(after.result, {});
  const errors = session.frames.filter((f) => f.error).map((f) => [f.id, f.error.code]);
  assert.deepEqual(errors, [[null, -32700], [null, -32600], [null, -32600]]);
  assert.deepEqual(session.badLines, []);
  const { code } = await session.close();
  assert.equal(code, 0);
});

test('cancellation of a slow electron_doctor: no response, child killed, session alive', async (t) => {
  // No core tool is slow by itself yet. electron_doctor runs `node
  // --version` from PATH, so a fake node that sleeps makes it
  // deterministically slow (2 s) without special-casing anything in the
  // server. (The in-process C test tests/test-mcp-server.c covers the
  // same path with a slow test tool.)
  const slow = makeSlowNode(2000);
  t.after(() => slow.cleanup());
  const session = new RawSession([], { env: { ...process.env, PATH: slow.pathEnv } });
  t.after(() => session.close());
  await session.initialize();

  const id = session.sendRequest('tools/call', { name: 'electron_doctor', arguments: {} });
  // Cancel once the tool is provably running: its child is up.
  const pid = await waitUntil(() => slow.readPid(), 5000);
  assert.ok(pid, 'the fake node started');
  session.notify('notifications/cancelled', { requestId: id, reason: 'test' });

  const ping = await session.request('ping');
  assert.deepEqual(ping.result, {});
  await sleep(1000);
  assert.deepEqual(session.responsesFor(id), [], 'a cancelled request gets no response');
  assert.equal(await waitUntil(() => !processAlive(pid), 2000), true,
               'the tool\'s child process was killed on cancel');

  const status = await session.request('tools/call', { name: 'electron_status', arguments: {} });
  assert.equal(status.result.structuredContent.ok, true);
  assertNoGLibCriticals(assert, session.stderr);
  assert.equal((await session.close()).code, 0);
});

test('cancellation racing a fast call: at most one response, session alive', async (t) => {
  // electron_status completes inside the dispatch of its request, but the
  // answer is delivered on the next main-loop iteration (GTask defers a
  // return made in the iteration that created the task), by which time the
  // cancellation in the same read has been seen; GTask then reports
  // CANCELLED and the server sends nothing. Either outcome is allowed by
  // MCP (the response had not gone out); the invariants are: at most one
  // response, no crash, the session still serves.
  const session = new RawSession();
  t.after(() => session.close());
  await session.initialize();
  const id = session.sendRequest('tools/call', { name: 'electron_status', arguments: {} });
  session.notify('notifications/cancelled', { requestId: id });
  // Invalid cancellations are ignored silently.
  session.notify('notifications/cancelled', { requestId: 'never-sent' });
  session.notify('notifications/cancelled', { requestId: null });
  session.notify('notifications/cancelled', {});
  const ping = await session.request('ping');
  assert.deepEqual(ping.result, {});
  await sleep(1000);
  const n = session.responsesFor(id).length;
  assert.ok(n <= 1, `at most one response, got ${n}`);
  t.diagnostic(`fast call cancelled in the same read: ${n} response(s)`);

  // A cancellation arriving after the answer changes nothing.
  const late = session.sendRequest('tools/call', { name: 'electron_status', arguments: {} });
  await session.waitForResponse(late);
  session.notify('notifications/cancelled', { requestId: late });
  assert.deepEqual((await session.request('ping')).result, {});
  assert.equal(session.responsesFor(late).length, 1, 'exactly one response');
  assert.deepEqual(session.badLines, []);
  assertNoGLibCriticals(assert, session.stderr);
  assert.equal((await session.close()).code, 0);
});

test('SDK AbortSignal cancels a slow call; no late response reaches the client', async (t) => {
  const slow = makeSlowNode(1500);
  t.after(() => slow.cleanup());
  const { client, errors } = await connect(t, [], { env: { PATH: slow.pathEnv } });
  const controller = new AbortController();
  const call = client.callTool({ name: 'electron_doctor', arguments: {} }, undefined,
                               { signal: controller.signal });
  await waitUntil(() => slow.readPid(), 5000);
  controller.abort('test');
  await assert.rejects(call);
  await client.ping();
  await sleep(1000);
  // The SDK reports a response for an id it no longer waits for through
  // onerror ("Received a response for an unknown message ID").
  assert.deepEqual(errors.map(String), []);
});

// (This found a use-after-free in the dispatcher's backstop: answering freed
// the call, which was read afterwards; the server died of SIGSEGV.)
test('the operation backstop answers OPERATION_TIMEOUT and the server survives', async (t) => {
  const slow = makeSlowNode(2000);
  t.after(() => slow.cleanup());
  const session = new RawSession(['--operation-timeout-ms', '500'],
                                 { env: { ...process.env, PATH: slow.pathEnv } });
  t.after(() => session.close());
  await session.initialize();
  const response = await session.request('tools/call', { name: 'electron_doctor', arguments: {} });
  assert.equal(response.result.isError, true);
  assert.equal(response.result.structuredContent.code, 'OPERATION_TIMEOUT');
  assert.equal(response.result.structuredContent.retryable, true);
  assert.equal(response.result.structuredContent.details.timeout_ms, 500);
  // The tool was told to stop: its child does not outlive the call. (Under
  // load the child may be killed before it even wrote its pid; had it not
  // been killed, it would be up and sleeping within this window.)
  let pid = null;
  const dead = await waitUntil(() => {
    pid = slow.readPid();
    return pid !== null && !processAlive(pid);
  }, 2500);
  if (pid !== null) assert.equal(dead, true, 'the child was killed');
  else t.diagnostic('the child was killed before it started');
  const ping = await session.request('ping');
  assert.deepEqual(ping.result, {});
  assertNoGLibCriticals(assert, session.stderr);
  assert.equal((await session.close()).code, 0);
});

test('electron_doctor never hands the protocol stdin to its child', async (t) => {
  const slow = makeSlowNode(0);
  t.after(() => slow.cleanup());
  const { client } = await connect(t, [], { env: { PATH: slow.pathEnv } });
  const envelope = checkEnvelope(await client.callTool({ name: 'electron_doctor', arguments: {} }));
  const node = envelope.checks.find((c) => c.id === 'node');
  assert.equal(node.status, 'pass');
  assert.match(node.message, /stdin=\/dev\/null/);
});

test('stdout carries JSON-RPC frames only over a full SDK session', async (t) => {
  const transport = new RecordingTransport(['--tool-profile', 'full']);
  const client = new sdk.Client({ name: 'stagewright-e2e-recorder', version: '0.0.0' });
  await client.connect(transport);
  assert.equal(transport.protocolVersion, LATEST);
  const session = transport.session;

  // Logs at debug level, so that everything the server logs is sent as
  // notifications/message and nothing leaks as raw text.
  await client.setLoggingLevel('debug');
  await client.listTools();
  await client.callTool({ name: 'electron_status', arguments: {} });
  await client.callTool({ name: 'electron_doctor', arguments: {} });
  await client.callTool({ name: 'electron_status', arguments: { bogus: 1 } });
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }));
  await client.listResources();
  await client.readResource({ uri: 'stagewright://docs/quickstart' });
  await client.readResource({ uri: 'stagewright://manifest/profile' });
  await client.ping();
  // SIGTERM logs "shutting down", which is forwarded as a log notification
  // while the server stops: that frame too must be whole or absent.
  session.kill('SIGTERM');
  const exit = await session.exited;
  assert.equal(exit.code, 0);

  assert.ok(session.lines.length >= 10, `saw ${session.lines.length} lines`);
  assert.deepEqual(session.badLines, [], 'every stdout line is a JSON-RPC frame');
  assert.equal(session.partial, '', 'stdout ends with a complete line');
  const methods = new Set(session.frames.filter((f) => f.method).map((f) => f.method));
  for (const method of methods) assert.ok(method.startsWith('notifications/'), method);
  // The server's own log lines reached the client (sent from the main
  // loop, after the code that logged them has returned).
  assert.ok(session.frames.some((f) => f.method === 'notifications/message' && f.params?.logger === 'stagewright'),
            'the server forwarded its own log lines');
});

// --- process lifecycle -------------------------------------------------------

test('SIGTERM exits 0 promptly', async (t) => {
  const session = new RawSession();
  t.after(() => session.kill('SIGKILL'));
  await session.initialize();
  const sent = performance.now();
  session.kill('SIGTERM');
  const exit = await session.exited;
  const ms = performance.now() - sent;
  assert.equal(exit.signal, null);
  assert.equal(exit.code, 0);
  assert.ok(ms < 2000, `exited in ${ms.toFixed(0)} ms`);
  t.diagnostic(`SIGTERM → exit in ${ms.toFixed(1)} ms`);
});

test('closing stdin exits 0 promptly', async (t) => {
  const session = new RawSession();
  t.after(() => session.kill('SIGKILL'));
  await session.initialize();
  const sent = performance.now();
  session.closeStdin();
  const exit = await session.exited;
  const ms = performance.now() - sent;
  assert.equal(exit.code, 0);
  assert.ok(ms < 2000, `exited in ${ms.toFixed(0)} ms`);
  t.diagnostic(`stdin EOF → exit in ${ms.toFixed(1)} ms`);
});

test('closing stdin with a call in flight: the answer still comes, then exit 0', async (t) => {
  const slow = makeSlowNode(500);
  t.after(() => slow.cleanup());
  const session = new RawSession([], { env: { ...process.env, PATH: slow.pathEnv } });
  t.after(() => session.kill('SIGKILL'));
  await session.initialize();
  const id = session.sendRequest('tools/call', { name: 'electron_doctor', arguments: {} });
  session.closeStdin();
  const exit = await session.exited;
  assert.equal(exit.code, 0);
  const [response] = session.responsesFor(id);
  assert.ok(response, 'the in-flight call was answered before exit');
  assert.equal(response.result.structuredContent.ok, true);
});

test('--help prints usage on stdout and exits 0', async () => {
  const { code, stdout, stderr } = await run(BIN, ['--help']);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^Usage:/m);
  for (const flag of ['--tool-profile', '--allow-eval', '--app-root', '--operation-timeout-ms', '--version']) {
    assert.ok(stdout.includes(flag), flag);
  }
});

// [arguments, what the message must name]
for (const [args, names] of [
  [['--tool-profile', 'nope'], 'nope'],
  [['--app-root', 'relative'], 'relative'],
  [['--app-root', '/nonexistent-stagewright-dir'], '/nonexistent-stagewright-dir'],
  [['--allow-eval=sideways'], 'sideways'],
  [['--operation-timeout-ms', '-5'], '--operation-timeout-ms'],
  [['--plugin-config', 'trace=[1]'], 'trace'],
  [['--no-such-flag'], '--no-such-flag'],
  [['serve-me'], 'serve-me'],
  [['tools', 'extra'], 'extra'],
]) {
  test(`bad command line ${args.join(' ')}: exit 2, message on stderr, nothing on stdout`, async () => {
    const { code, stdout, stderr } = await run(BIN, args);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /^stagewright: \S/);
    assert.ok(stderr.includes(names), `the message names ${names}: ${stderr}`);
  });
}

test('`stagewright tools` prints the manifest as a JSON array', async () => {
  const { code, stdout, stderr } = await run(BIN, ['tools']);
  assert.equal(code, 0, stderr);
  const tools = JSON.parse(stdout);
  assert.ok(Array.isArray(tools) && tools.length >= 2);
  for (const tool of tools) {
    assert.equal(typeof tool.name, 'string');
    assert.equal(typeof tool.operationType, 'string');
    assert.equal(tool.inputSchema?.type, 'object');
  }
  assert.equal(tools.find((x) => x.name === 'electron_status').operationType, 'query');
  const essential = JSON.parse((await run(BIN, ['--tool-profile', 'essential', 'tools'])).stdout);
  assert.ok(!essential.some((x) => x.name === 'electron_doctor'));
});

// --- the Python example ------------------------------------------------------

test('bindings/python/example-tool.py serves Python tools to the SDK client', async (t) => {
  const example = path.join(TOP_SRCDIR, 'bindings', 'python', 'example-tool.py');
  const probe = await run(GI_PYTHON, ['-c', "import gi; gi.require_version('Stagewright', '1.0')"],
                          { env: { ...process.env, ...giEnv() } });
  if (probe.code !== 0) {
    t.skip(`${GI_PYTHON} cannot load Stagewright through gi: ${probe.stderr.trim().split('\n').pop()}`);
    return;
  }

  const transport = new sdk.StdioClientTransport({
    command: GI_PYTHON, args: [example], env: giEnv(), stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr += chunk; });
  const client = new sdk.Client({ name: 'stagewright-e2e-example', version: '0.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  t.after(() => client.close());

  assert.equal(client.getServerVersion().name, 'stagewright');
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ['electron_status', 'text_stats', 'wait']) assert.ok(names.includes(name), name);

  const stats = checkEnvelope(await client.callTool({ name: 'text_stats',
                                                      arguments: { text: 'to be or not to be\nthat' } }));
  assert.deepEqual(withoutMeta(stats), { ok: true, characters: 23, words: 7, lines: 2 });
  const unique = checkEnvelope(await client.callTool({ name: 'text_stats',
                                                       arguments: { text: 'to be or not to be', unique: true } }));
  assert.equal(unique.words, 4);
  const bad = checkEnvelope(await client.callTool({ name: 'text_stats', arguments: { txt: 'x' } }));
  assert.equal(bad.code, 'BAD_ARGUMENT');

  const waited = checkEnvelope(await client.callTool({ name: 'wait', arguments: { ms: 50 } }));
  assert.equal(waited.waited_ms, 50);
  assert.ok(waited._meta.elapsed_ms >= 45, `elapsed ${waited._meta.elapsed_ms}`);

  // A Python tool is cancelled like a C one.
  const controller = new AbortController();
  const call = client.callTool({ name: 'wait', arguments: { ms: 600 } }, undefined,
                               { signal: controller.signal });
  await sleep(100);
  controller.abort('test');
  await assert.rejects(call);
  await client.ping();
  await sleep(800);
  assert.deepEqual(errors.map(String), [], 'no late response');
  assertNoGLibCriticals(assert, stderr);
  assert.doesNotMatch(stderr, /Traceback/, stderr);
});
