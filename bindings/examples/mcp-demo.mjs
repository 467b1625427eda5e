#!/usr/bin/env node
// Stagewright's main job, as an agent would do it: the official MCP TypeScript
// SDK client starts `stagewright` over stdio and drives the bundled demo app
// (the Electron stand-in running tests/fixtures/demo-app). Every call and its
// envelope is printed; the screenshot lands in ./demo-output/.
//
//   node bindings/examples/mcp-demo.mjs
//
// DEMO_OUTPUT names another output directory; STAGEWRIGHT_BIN another
// stagewright (an installed one finds its own plugins).

import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The npm clients: tests/node_modules, or the copy STW_NODE_MODULES names
// (an out-of-tree build of a tarball, which has none).
const modules = process.env.STW_NODE_MODULES;
const require = createRequire(modules ? join(modules, '..', 'stw-anchor.js') : join(root, 'tests', 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const server = process.env.STAGEWRIGHT_BIN ?? join(root, 'stagewright', 'stagewright');
const outDir = process.env.DEMO_OUTPUT ?? join(root, 'demo-output');
mkdirSync(outDir, { recursive: true });

const color = process.stdout.isTTY ? (c, s) => `\x1b[${c}m${s}\x1b[0m` : (_c, s) => s;
const show = (value, max = 700) => {
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
};

// Two first-party plugins reach outside the page: ipc (the main process's
// IPC handlers; it needs main-process eval, and captures only the channels
// its config allows) and native (the application menu, the tray,
// notifications). From the build tree they load from plugins/built/; an
// installed stagewright finds them in its own plugin directory.
const pluginDir = join(root, 'plugins', 'built');
const env = { ...process.env };
if (!process.env.STAGEWRIGHT_BIN) env.STAGEWRIGHT_PLUGIN_PATH = pluginDir;
const ipcConfig = { channels: ['notes:*'], invokeAllow: ['notes:load'] };

const client = new Client({ name: 'stagewright-demo', version: '1.0.0' });
const transport = new StdioClientTransport({
  command: server,
  args: ['--screenshot-dir', outDir, '--plugin', 'ipc,native', '--allow-eval=main',
         '--plugin-config', `ipc=${JSON.stringify(ipcConfig)}`],
  env,
  stderr: 'pipe',
});

let failures = 0;
async function call(name, args = {}) {
  console.log(color('36', `\n→ ${name} ${show(args)}`));
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args });
  const envelope = result.structuredContent ?? JSON.parse(result.content[0].text);
  const ms = (performance.now() - started).toFixed(1);
  console.log(color(envelope.ok ? '32' : '31', `← ${envelope.ok ? 'ok' : envelope.code} in ${ms} ms`), show(envelope));
  if (!envelope.ok) failures++;
  return envelope;
}

await client.connect(transport);
const info = client.getServerVersion();
console.log(color('1', `Connected to ${info.name} ${info.version} (MCP ${transport._process ? 'stdio' : ''})`));
const { tools } = await client.listTools();
console.log(`${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);

await call('electron_doctor');
const launch = await call('electron_launch', {
  executablePath: join(root, 'tests', 'fixtures', 'electron'),
  main: process.env.DEMO_APP ?? join(root, "tests", "fixtures", "demo-app"),
  // The native plugin's hook runs before the app's main script, so the tray
  // and notification made at start-up are seen.
  plugins: { native: { instrumentNative: true } },
});
// The ref of the one line of a text snapshot that shows ROLE "NAME".
function refOf (text, role, name) {
  const line = text.split('\n').find((l) => l.includes(`] ${role} ${JSON.stringify(name)}`));
  const match = line && /\[(\d+)\]/.exec(line);
  if (!match) throw new Error(`no ${role} "${name}" in the snapshot`);
  return Number(match[1]);
}

if (launch.ok) {
  await call('electron_info');
  await call('electron_windows_list');
  await call('electron_surfaces_list');

  // See, then act by ref with real input, then read the result by ref.
  const seen = await call('electron_snapshot', { format: 'text' });
  if (seen.ok) {
    console.log(color('2', seen.snapshot_text));
    const text = seen.snapshot_text;
    // Watch the renderer talk to the main process while we use the form.
    await call('ipc_capture_start', { channels: ['notes:*'] });
    await call('electron_type', { ref: refOf(text, 'textbox', 'Title'), text: 'Buy oat milk' });
    await call('electron_type', { ref: refOf(text, 'textbox', 'Body'), text: 'Two cartons, the barista kind.' });
    await call('electron_select_option', { ref: refOf(text, 'combobox', 'Category'), values: ['Work'] });
    await call('electron_check', { ref: refOf(text, 'checkbox', 'Pinned') });
    await call('electron_click', { ref: refOf(text, 'button', 'Add') });
    const changed = await call('electron_snapshot', { format: 'text', since: 'last' });
    if (changed.ok) console.log(color('2', changed.diff_text ?? changed.snapshot_text));
    await call('electron_get_text', { ref: refOf(text, 'status', '') });
    // Assert in one call instead of reading and comparing.
    await call('electron_expect_text', { ref: refOf(text, 'status', ''), contains: 'Saved 1 note' });
    // What the Add button sent over IPC, then the same handler called directly.
    await call('ipc_captured', { limit: 5 });
    await call('ipc_capture_stop');
    await call('ipc_invoke', { channel: 'notes:load' });
    // A native open dialog never blocks the app: stub it with a canned answer,
    // press the button that opens it, then read what the main process logged.
    await call('electron_dialog_handler', { stub: { 'dialog.showOpenDialog': ['/srv/notes/groceries.json'] } });
    await call('electron_click', { ref: refOf(text, 'button', 'Open notes…') });
    // The app answers in its own time: wait for what it shows, not a sleep.
    await call('electron_expect_text', { ref: refOf(text, 'status', ''), contains: 'groceries.json' });
    await call('electron_dialog_handler', { type: 'dialog', limit: 5 });
    await call('electron_console_logs', { source: 'main', match: 'open dialog', limit: 5 });
    // The native side: the application menu, a click on File › Export… as
    // the user would, the tray made at start-up, the notification it showed.
    await call('native_menu_item', { path: ['File', 'Export…'] });
    await call('native_menu_invoke', { path: ['File', 'Export…'] });
    await call('native_trays');
    // Start-up notifications were recorded by the hook; capturing shows them.
    await call('native_notifications_start');
    await call('native_notifications');
    await call('native_notifications_stop');
    await call('electron_console_logs', { source: 'main', match: '\\[menu\\]', limit: 5 });
  }
  const shot = await call('electron_screenshot', { format: 'png' });
  await call('electron_status');
  await call('electron_stop');
  if (shot.ok) console.log(color('1', `\nScreenshot: ${shot.path} (${shot.width}×${shot.height}, ${shot.bytes} bytes)`));
}

await client.close();
console.log(failures === 0 ? color('32', '\nDemo finished: every call succeeded.') : color('31', `\nDemo finished with ${failures} failed call(s).`));
process.exit(failures === 0 ? 0 : 1);
