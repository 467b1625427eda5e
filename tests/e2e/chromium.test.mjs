// chromium.test.mjs: plain Chromium as a runtime (no Electron main process),
// over a DevTools port and over --remote-debugging-pipe, driven over MCP by
// the official SDK client.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import {
  CHROMIUM, chromiumVersion, electronSkipReason, failsWith, ok, pngSize, processAlive,
  startServer, survivors,
} from './lib/lifecycle-harness.mjs';

const skip = electronSkipReason();
const PAGE = 'data:text/html,<title>Plain page</title><h1>Plain Chromium</h1><button>Go</button>';
const FLAGS = ['--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking',
               '--disable-component-update', '--disable-sync'];

for (const pipe of [false, true]) {
  test(`plain Chromium over ${pipe ? 'the pipe' : 'a DevTools port'}: launch, windows, info, screenshot, stop`,
       { skip: skip ?? false }, async (t) => {
    const server = await startServer(t);
    const launch = ok(await server.call('electron_launch', {
      executablePath: CHROMIUM, args: [...FLAGS, PAGE], pipe,
    }), 'electron_launch');

    assert.equal(launch.launch_mode, 'packaged', 'no main: a packaged-style launch');
    assert.equal(launch.renderer_ready, true);
    assert.equal(launch.capabilities.mainEval, false, 'Chromium has no main process to talk to');
    assert.equal(launch.capabilities.rendererEval, true);
    assert.equal(launch.windows.length, 1, `one window, no stray about:blank: ${JSON.stringify(launch.windows)}`);

    const windows = ok(await server.call('electron_windows_list', {}));
    assert.equal(windows.windows[0].title, 'Plain page');

    const info = ok(await server.call('electron_info', {}));
    assert.equal(info.app, null, 'no Electron app behind plain Chromium');
    assert.equal(info.versions.chrome, chromiumVersion());
    assert.equal(info.versions.electron, null);

    const shot = ok(await server.call('electron_screenshot', { format: 'png' }));
    assert.deepEqual(pngSize(shot.path), { width: shot.width, height: shot.height });
    fs.rmSync(shot.path);

    const stop = ok(await server.call('electron_stop', {}));
    assert.equal(stop.stopped, true);
    assert.equal(processAlive(launch.pid), false);
    assert.deepEqual(survivors({ pgids: [launch.pid], needles: [] }), []);
    failsWith(await server.call('electron_info', {}), 'NOT_RUNNING');
  });
}

test('plain Chromium launch preflight: a missing or relative executable fails fast', { skip: skip ?? false },
     async (t) => {
  const server = await startServer(t);
  failsWith(await server.call('electron_launch', { executablePath: '/nonexistent/chromium', pipe: true }),
            'FILE_NOT_FOUND');
  failsWith(await server.call('electron_launch', { executablePath: path.relative(process.cwd(), CHROMIUM) || 'x', pipe: true }),
            'ABSOLUTE_PATH_REQUIRED');
});
