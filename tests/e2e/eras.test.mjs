// eras.test.mjs: both MCP eras on both transports (issue 10, item 2),
// driven by the official split client @modelcontextprotocol/client 2.x
// (pinned in tests/package.json).
//
// Over stdio, the client's automatic mode probes `server/discover` (on a
// short-lived sibling process the SDK spawns and reaps itself), then
// speaks 2026-07-28 to the server it keeps: no initialize, the version in
// each request's _meta. The same client pinned to the previous era gets
// 2025-11-25 with initialize. `subscriptions/listen` is acknowledged with
// the part of its filter the server honors, over stdio and over HTTP, and
// closing it leaves the connection serving.
//
// Every server here is a process this test (or the SDK transport it made)
// spawned; the test waits for each to be gone by its pid.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   STAGEWRIGHT_BIN=$PWD/stagewright/stagewright STW_TOP_SRCDIR=$PWD \
//     node --test --test-reporter=tap --test-concurrency=1 tests/e2e/eras.test.mjs

import assert from 'node:assert/strict';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  demoAppRoundTrip,
  demoAppSkipReason,
  electronSkipReason,
  envelopeOf,
  ok,
  processAlive,
  startHttpServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';
import { assertNoGLibCriticals } from './lib/harness.mjs';

let client2;
try {
  const [client, stdio] = await Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]);
  client2 = { ...client, StdioClientTransport: stdio.StdioClientTransport };
} catch (error) {
  client2 = { skip: `@modelcontextprotocol/client is not installed (run npm ci in tests/): ${error.message}` };
}
const skip = client2.skip ?? false;
const appSkip = electronSkipReason() ?? demoAppSkipReason() ?? false;

const test = (name, options, fn) => nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);

const PROFILE = 'stagewright://manifest/profile';

/** A 2.x client over stdio on a fresh `stagewright`; `mode` is the version negotiation. */
async function connectStdio (t, mode) {
  const transport = new client2.StdioClientTransport({ command: BIN, args: [], stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr += chunk; });
  const client = new client2.Client({ name: 'stagewright-eras-e2e', version: '0.0.0' },
    { versionNegotiation: { mode } });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(Number.isInteger(pid), 'the transport spawned a server');
  t.after(async () => {
    await client.close().catch(() => {});
    // The transport ends the process it spawned; this test waits for it.
    assert.ok(await waitUntil(() => !processAlive(pid), 20000), `server ${pid} still running`);
    assertNoGLibCriticals(assert, stderr, 'server stderr');
  });
  return { client, transport, pid, stderr: () => stderr };
}

test('stdio, automatic mode: 2026-07-28 without initialize; demo app launched, screenshot, stopped',
  {}, async (t) => {
    const { client } = await connectStdio(t, 'auto');
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(client.getServerVersion()?.name, 'stagewright');
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);

    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'electron_status'));
    const call = async (name, args = {}) => envelopeOf(await client.callTool({ name, arguments: args }));
    ok(await call('electron_status'), 'electron_status');

    // A listen is acknowledged with what the server honors: no prompts, and
    // only resources it has.
    const subscription = await client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: [PROFILE, 'stagewright://nothing'],
    });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: [PROFILE] });

    if (!appSkip) {
      await demoAppRoundTrip(t, call, 'stw-eras-');
    } else {
      t.diagnostic(`demo app part skipped: ${appSkip}`);
    }

    // Closing the listen (notifications/cancelled on stdio) leaves the
    // connection serving, and its id may be used again.
    await subscription.close();
    assert.equal(await subscription.closed, 'local');
    ok(await call('electron_status'), 'electron_status after the listen closed');
    const again = await client.listen({ toolsListChanged: true });
    assert.deepEqual(again.honoredFilter, { toolsListChanged: true });
    await again.close();
  });

test('stdio, pinned to the previous era: initialize and 2025-11-25', {}, async (t) => {
  const { client } = await connectStdio(t, 'legacy');
  assert.equal(client.getProtocolEra(), 'legacy');
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'electron_status'));
  ok(envelopeOf(await client.callTool({ name: 'electron_status', arguments: {} })));
  await assert.rejects(client.listen({ toolsListChanged: true }), /2026-07-28/);
});

test('HTTP, automatic mode: a listen is acknowledged on its own stream and closed by the client', {}, async (t) => {
  const server = await startHttpServer(t);
  const client = new client2.Client({ name: 'stagewright-eras-e2e-http', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } });
  await client.connect(new client2.StreamableHTTPClientTransport(new URL(server.url)));
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');

  const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: [PROFILE] });
  assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: [PROFILE] });
  // The stream stays open while other requests come and go.
  const { tools } = await client.listTools();
  assert.ok(tools.length > 0);
  ok(envelopeOf(await client.callTool({ name: 'electron_status', arguments: {} })));
  await subscription.close();
  assert.equal(await subscription.closed, 'local');
  ok(envelopeOf(await client.callTool({ name: 'electron_status', arguments: {} })));
  await client.close();

  const { code } = await server.stop();
  assert.equal(code, 0, server.stderr());
});
