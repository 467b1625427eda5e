// net.test.mjs: which processes the server may signal, over MCP with the
// official SDK client (issue 7, item 3), against the Electron stand-in.
//
// The stand-in's node process is the parent of the Chromium that listens on
// the DevTools port: discovery reports the listener's pid, attach accepts the
// stand-in's pid (an ancestor in the same session) and refuses a bystander.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import test from 'node:test';
import assert from 'node:assert/strict';

import {
  DEMO_APP, demoAppSkipReason, failsWith, ok, processAlive, sleep, spawnPlain, spawnStandin, startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const skip = demoAppSkipReason();

test('attach {pid}: a bystander is refused and survives force_kill; the app\'s own pid is proven and stop ends it',
     { skip: skip ?? false }, async (t) => {
  const standin = await spawnStandin(DEMO_APP);
  t.after(() => standin.kill());
  const victim = spawnPlain('sleep', ['100']);
  t.after(() => victim.kill());
  const server = await startServer(t);

  const found = ok(await server.call('electron_discover_running', { ports: [standin.port], timeoutMs: 2000 }));
  assert.equal(found.count, 1);
  assert.equal(found.targets[0].port, standin.port);
  assert.equal(typeof found.targets[0].pid, 'number', 'the listening process is resolved');
  assert.notEqual(found.targets[0].pid, standin.pid, 'Chromium listens, its stand-in parent does not');

  for (const pid of [victim.pid, server.pid, process.pid, 1, 4294967297]) {
    const refused = failsWith(await server.call('electron_attach', { port: standin.port, pid }),
                              'BAD_ARGUMENT', `attach with pid ${pid}`);
    assert.match(JSON.stringify(refused.details ?? refused.issues ?? refused), /pid/);
  }

  // Attached without a pid: force_kill lets go and signals nothing.
  ok(await server.call('electron_attach', { port: standin.port }));
  ok(await server.call('electron_force_kill', {}));
  await sleep(200);
  assert.equal(processAlive(victim.pid), true, 'the bystander survives');
  assert.equal(processAlive(standin.pid), true, 'an app attached without its pid is not killed');

  // The stand-in is Chromium's parent in the same session: proven.
  const attached = ok(await server.call('electron_attach', { port: standin.port, pid: standin.pid }));
  assert.ok(attached.session_id);
  const stopped = ok(await server.call('electron_stop', { timeoutMs: 3000 }));
  assert.equal(stopped.stopped, true);
  await waitUntil(() => !processAlive(standin.pid), 10000);
  // Killing an ancestor alone could leave the endpoint running: its
  // listener (the proven holder of the port) goes too.
  assert.ok(await waitUntil(() => !processAlive(found.targets[0].pid), 10000),
            'the listening browser process ended with its parent');
  assert.equal(processAlive(victim.pid), true, 'the bystander still lives');
});

test('inject refuses a process that would die of SIGUSR1, whatever its name; integers are not narrowed',
     async (t) => {
  const victim = spawnPlain('bash', ['-c', 'exec -a node sleep 100']);
  t.after(() => victim.kill());
  const server = await startServer(t);
  await sleep(100);

  failsWith(await server.call('electron_inject', { pid: victim.pid, timeoutMs: 500 }), 'BAD_ARGUMENT');
  await sleep(200);
  assert.equal(processAlive(victim.pid), true, 'exec -a node sleep is never signalled');

  failsWith(await server.call('electron_inject', { pid: 4294967297 }), 'BAD_ARGUMENT');
  failsWith(await server.call('electron_switch_window', { index: 4294967296 }), 'BAD_ARGUMENT');
});

// An endpoint that completes the WebSocket handshake and then closes, at once
// or a little later: the first-window wait held the last reference to the
// session, and ending it read freed memory (GLib criticals, an abort under
// G_DEBUG=fatal-criticals). The attach answers CDP_DISCONNECTED, and the
// server keeps serving. startServer() fails the test on any critical.
for (const delayMs of [0, 200]) {
  test(`attach to an endpoint that closes ${delayMs} ms after the handshake: CDP_DISCONNECTED, no critical`,
       async (t) => {
    const { createServer } = await import('node:http');
    const { createHash } = await import('node:crypto');
    const sockets = new Set();
    const endpoint = createServer((request, response) => {
      const port = endpoint.address().port;
      response.end(JSON.stringify({ Browser: 'Chrome/1',
                                    webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/x` }));
    });
    endpoint.on('upgrade', (request, socket) => {
      sockets.add(socket);
      const accept = createHash('sha1')
        .update(request.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
                   `Sec-WebSocket-Accept: ${accept}\r\n\r\n`);
      setTimeout(() => socket.destroy(), delayMs);
    });
    await new Promise((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    t.after(() => { for (const socket of sockets) socket.destroy(); endpoint.close(); });
    const server = await startServer(t, { env: { ...process.env, G_DEBUG: 'fatal-criticals' } });

    const refused = failsWith(await server.call('electron_attach', { port: endpoint.address().port, timeoutMs: 3000 }),
                              'CDP_DISCONNECTED');
    assert.match(refused.error, /connection closed/i);
    assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
    await server.client.ping();
  });
}

// An endpoint that completes the handshake and then answers every DevTools
// call with garbage (JSON with single quotes) or not at all: the attach is
// refused after one round trip instead of succeeding with no window and
// leaving the next call to time out.
for (const mode of ['garbage', 'silent']) {
  test(`attach to an endpoint that answers DevTools calls with ${mode}: CDP_DISCONNECTED`, async (t) => {
    const { createServer } = await import('node:http');
    const { createHash } = await import('node:crypto');
    const sockets = new Set();
    const endpoint = createServer((request, response) => {
      const port = endpoint.address().port;
      response.end(JSON.stringify({ Browser: 'Chrome/1',
                                    webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/x` }));
    });
    endpoint.on('upgrade', (request, socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      const accept = createHash('sha1')
        .update(request.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
                   `Sec-WebSocket-Accept: ${accept}\r\n\r\n`);
      socket.on('data', () => {
        if (mode !== 'garbage') return;
        const text = Buffer.from("{'id':1,'result':{}}");
        socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
      });
    });
    await new Promise((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    t.after(() => { for (const socket of sockets) socket.destroy(); endpoint.close(); });
    const server = await startServer(t);

    const started = performance.now();
    const refused = failsWith(await server.call('electron_attach', { port: endpoint.address().port, timeoutMs: 1500 }),
                              'CDP_DISCONNECTED');
    assert.match(refused.error, /does not answer DevTools calls/);
    assert.ok(performance.now() - started < 6000, 'refused within the attach timeout');
    assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
    await server.client.ping();
  });
}
