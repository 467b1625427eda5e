// production.test.mjs: the production plugin (issue 20, items 9 and 10)
// over MCP with the official SDK client, and its CLI: fixture artifacts
// built here (tests/fixtures/production-artifacts/build.mjs: fuses flipped
// both ways by @electron/fuses, asar archives with integrity, unpacked
// apps, AppImages made with mksquashfs, .debs made with dpkg-deb) answer
// the expected pass/fail per check; the codes; --app-root confinement;
// the CLI's exit codes 0/1/2; bounds on hostile artifacts.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as nodeTest } from 'node:test';
import { pathToFileURL } from 'node:url';

import { BIN, FIXTURES, failsWith, ok, sdk, startServer } from './lib/lifecycle-harness.mjs';
import { NODE_MODULES } from './lib/harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const missingTool = ['mksquashfs', 'unsquashfs', 'dpkg-deb', 'desktop-file-validate', 'objcopy']
  .find((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const skip = !fs.existsSync(path.join(PLUGIN_DIR, 'libproduction.so')) ? `${PLUGIN_DIR}/libproduction.so is not built`
  : missingTool ? `${missingTool} is not installed` : false;

function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options }, fn);
}

const { buildAll } = await import(pathToFileURL(path.join(FIXTURES, 'production-artifacts', 'build.mjs')).href);
const fuses = await import(pathToFileURL(path.join(NODE_MODULES, '@electron', 'fuses', 'dist', 'index.js')).href);

let built = null;
async function artifacts () {
  if (built === null) {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-prod-'));
    process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
    built = { out, ...(await buildAll(out)) };
  }
  return built;
}

function serverEnv () {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

async function startProduction (t, appRoot, config) {
  const args = ['--plugin', 'production', '--app-root', appRoot];
  if (config)
    args.push('--plugin-config', `production=${JSON.stringify(config)}`);
  return startServer(t, { args, env: serverEnv() });
}

// { id: status } of a report, and the evidence of one check.
const statuses = (report) => Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
const evidence = (report, id) => report.checks.find((c) => c.id === id)?.evidence ?? '';

const SECURE_FUSES = {
  'fuses.wire': 'pass',
  'fuses.RunAsNode': 'pass',
  'fuses.EnableCookieEncryption': 'pass',
  'fuses.EnableNodeOptionsEnvironmentVariable': 'pass',
  'fuses.EnableNodeCliInspectArguments': 'pass',
  'fuses.EnableEmbeddedAsarIntegrityValidation': 'pass',
  'fuses.OnlyLoadAppFromAsar': 'pass',
};

test('the fixtures: @electron/fuses flipped the wire both ways (read back with its own reader)', { skip }, async () => {
  const a = await artifacts();
  const O = fuses.FuseV1Options;
  const secure = await fuses.getCurrentFuseWire(path.join(a.secureDir, 'fixture-app'));
  const insecure = await fuses.getCurrentFuseWire(path.join(a.insecureDir, 'fixture-app'));
  assert.equal(secure[O.RunAsNode], fuses.FuseState.DISABLE);
  assert.equal(secure[O.OnlyLoadAppFromAsar], fuses.FuseState.ENABLE);
  assert.equal(insecure[O.RunAsNode], fuses.FuseState.ENABLE);
  assert.equal(insecure[O.EnableCookieEncryption], fuses.FuseState.DISABLE);
});

test('an unpacked app, secure: every fuse, asar and its integrity pass; the sandbox as its owner allows', { skip }, async (t) => {
  const a = await artifacts();
  const server = await startProduction(t, a.out);
  const report = ok(await server.call('production_validate', { path: a.secureDir }), 'production_validate');
  assert.equal(report.artifact, 'directory');
  assert.deepEqual(statuses(report), {
    'artifact.structure': 'pass',
    ...SECURE_FUSES,
    'asar.present': 'pass',
    'asar.integrity': 'pass',
    // Root-owned 4755 only when the test could chown it to root.
    sandbox: a.root ? 'pass' : 'fail',
    desktop: 'unknown',
  });
  assert.equal(report.passed, a.root);
  assert.match(evidence(report, 'fuses.RunAsNode'), /^disabled/);
  assert.match(evidence(report, 'fuses.EnableEmbeddedAsarIntegrityValidation'), /informational/);
  assert.match(evidence(report, 'asar.integrity'), /^3 files match/);
  assert.deepEqual(report.summary, { pass: a.root ? 11 : 10, fail: a.root ? 0 : 1, unknown: 1 });
});

test('an unpacked app, insecure: the fuses, a tampered file of app.asar and chrome-sandbox 0755 fail', { skip }, async (t) => {
  const a = await artifacts();
  const server = await startProduction(t, a.out);
  const report = ok(await server.call('production_validate', { path: a.insecureDir }), 'production_validate');
  assert.equal(report.passed, false);
  assert.deepEqual(statuses(report), {
    'artifact.structure': 'pass',
    'fuses.wire': 'pass',
    'fuses.RunAsNode': 'fail',
    'fuses.EnableCookieEncryption': 'fail',
    'fuses.EnableNodeOptionsEnvironmentVariable': 'fail',
    'fuses.EnableNodeCliInspectArguments': 'fail',
    // Informational on Linux: never a failure.
    'fuses.EnableEmbeddedAsarIntegrityValidation': 'pass',
    'fuses.OnlyLoadAppFromAsar': 'fail',
    'asar.present': 'pass',
    'asar.integrity': 'fail',
    sandbox: 'fail',
    desktop: 'unknown',
  });
  assert.match(evidence(report, 'fuses.RunAsNode'), /^enabled; should be disabled/);
  assert.match(evidence(report, 'asar.integrity'), /lib\/util\.js \(SHA256 differs\)/);
  assert.match(evidence(report, 'sandbox'), /mode 0755/);
});

test('an AppImage: ELF and squashfs, its signature section, the sandbox alternative and the desktop file pass', { skip }, async (t) => {
  const a = await artifacts();
  const server = await startProduction(t, a.out);
  const report = ok(await server.call('production_validate', { path: a.appImage }), 'production_validate');
  assert.equal(report.artifact, 'appimage');
  assert.deepEqual(statuses(report), {
    'artifact.structure': 'pass',
    ...SECURE_FUSES,
    'asar.present': 'pass',
    'asar.integrity': 'pass',
    sandbox: 'pass',
    desktop: 'pass',
    'appimage.signature': 'pass',
  });
  assert.equal(report.passed, true);
  assert.match(evidence(report, 'artifact.structure'), /squashfs at offset \d+; unsquashfs listed \d+ entries/);
  assert.match(evidence(report, 'sandbox'), /documented alternative/);
  assert.match(evidence(report, 'desktop'), /fixture-app\.desktop: valid, icon fixture-app\.png/);

  const unsafe = ok(await server.call('production_validate', { path: a.appImageNoSandbox }), 'production_validate');
  assert.equal(statuses(unsafe).sandbox, 'fail');
  assert.match(evidence(unsafe, 'sandbox'), /--no-sandbox/);
  assert.equal(statuses(unsafe)['appimage.signature'], undefined, 'no signature section, no check');
  assert.equal(statuses(unsafe).desktop, 'fail');
  assert.match(evidence(unsafe, 'desktop'), /desktop-file-validate: .*"Bogus" for key "Type"/);
});

test('a .deb with chrome-sandbox 0755 fails the sandbox only; a postinst that makes it 4755 passes', { skip }, async (t) => {
  const a = await artifacts();
  const server = await startProduction(t, a.out);
  const report = ok(await server.call('production_validate', { path: a.deb }), 'production_validate');
  assert.equal(report.artifact, 'deb');
  assert.deepEqual(statuses(report), {
    'artifact.structure': 'pass',
    ...SECURE_FUSES,
    'asar.present': 'pass',
    'asar.integrity': 'pass',
    sandbox: 'fail',
    desktop: 'pass',
    'deb.control': 'pass',
    'deb.scripts': 'pass',
  });
  assert.equal(report.passed, false);
  assert.match(evidence(report, 'sandbox'), /opt\/Fixture App\/chrome-sandbox has mode 0755 and owner uid 0/);
  assert.match(evidence(report, 'deb.control'), /Package fixture-app, Version 1\.0\.0/);

  const fixed = ok(await server.call('production_validate', { path: a.debPostinst }), 'production_validate');
  assert.equal(statuses(fixed).sandbox, 'pass');
  assert.match(evidence(fixed, 'sandbox'), /postinst makes it setuid root/);
  assert.equal(fixed.passed, true);
});

test('codes: APP_NOT_FOUND, NOT_A_BUNDLE, UNSUPPORTED_ARTIFACT; a path outside --app-root is refused', { skip }, async (t) => {
  const a = await artifacts();
  const server = await startProduction(t, a.out);
  failsWith(await server.call('production_validate', { path: a.missing }), 'production.APP_NOT_FOUND');
  failsWith(await server.call('production_validate', { path: a.notAnApp }), 'production.NOT_A_BUNDLE');
  failsWith(await server.call('production_validate', { path: a.textFile }), 'production.UNSUPPORTED_ARTIFACT');
  // Relative paths are read under the app root.
  ok(await server.call('production_validate', { path: 'secure-app' }), 'relative path');
  const outside = failsWith(await server.call('production_validate', { path: '/usr/bin' }), 'BAD_ARGUMENT');
  assert.match(outside.error, /outside --app-root/);
  fs.symlinkSync('/usr', path.join(a.out, 'escape'));
  t.after(() => fs.unlinkSync(path.join(a.out, 'escape')));
  failsWith(await server.call('production_validate', { path: 'escape/bin' }), 'BAD_ARGUMENT');
});

test('hostile: a member past maxMemberBytes is not read to its end; nothing is written', { skip }, async (t) => {
  const a = await artifacts();
  const dir = fs.mkdtempSync(path.join(a.out, 'big-'));
  // An "Electron binary" of 64 MiB, mostly zeros, inside a .deb.
  const root = path.join(dir, 'root');
  const opt = path.join(root, 'opt', 'Big');
  fs.mkdirSync(path.join(opt, 'resources'), { recursive: true });
  fs.mkdirSync(path.join(root, 'DEBIAN'));
  fs.writeFileSync(path.join(root, 'DEBIAN', 'control'),
    'Package: big\nVersion: 1\nArchitecture: amd64\nMaintainer: X <x@example.org>\nDescription: big\n');
  const big = path.join(opt, 'big');
  fs.copyFileSync('/usr/bin/true', big);
  fs.truncateSync(big, 64 * 1024 * 1024);
  fs.chmodSync(big, 0o755);
  fs.copyFileSync('/usr/bin/true', path.join(opt, 'chrome-sandbox'));
  fs.writeFileSync(path.join(opt, 'resources', 'app.asar'), Buffer.from([4, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f]));
  const deb = path.join(dir, 'big.deb');
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-b', root, deb], { stdio: 'ignore' });
  fs.rmSync(root, { recursive: true });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-prod-tmp-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const server = await startServer(t, {
    args: ['--plugin', 'production', '--app-root', a.out, '--plugin-config', 'production={"maxMemberBytes":1048576}'],
    env: { ...serverEnv(), TMPDIR: tmp },
  });
  const report = ok(await server.call('production_validate', { path: deb }), 'production_validate');
  assert.equal(statuses(report)['fuses.wire'], 'fail');
  assert.match(evidence(report, 'fuses.wire'), /opt\/Big\/big: larger than 1048576 bytes/);
  // An asar whose header claims 2 GiB is refused before anything is read.
  assert.equal(statuses(report)['asar.integrity'], 'fail');
  assert.match(evidence(report, 'asar.integrity'), /not an asar archive/);
  // The one file written, a .desktop copy for desktop-file-validate, goes at once.
  assert.equal(statuses(ok(await server.call('production_validate', { path: a.deb }), 'the .deb')).desktop, 'pass');
  assert.deepEqual(fs.readdirSync(tmp), [], 'no temporary file is left');
});

function cli (args) {
  const result = spawnSync(BIN, ['production', ...args], {
    encoding: 'utf8',
    env: { ...process.env, STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR, LC_ALL: 'C.UTF-8' },
    timeout: 60000,
  });
  return result;
}

test('the CLI: exit 0 when no check fails, 1 when one does, 2 when it cannot run; --json is the report', { skip }, async () => {
  const a = await artifacts();
  const pass = cli(['validate', '--app', a.appImage]);
  assert.equal(pass.status, 0, pass.stderr);
  assert.match(pass.stdout, /^\s+pass\s+fuses\.RunAsNode\s+disabled/m);
  assert.match(pass.stdout, /^PASSED: 13 passed, 0 failed, 0 unknown$/m);

  const fail = cli(['validate', '--app', a.deb]);
  assert.equal(fail.status, 1, fail.stderr);
  assert.match(fail.stdout, /^\s+FAIL\s+sandbox\s+/m);

  const json = cli(['validate', '--app', a.insecureDir, '--json']);
  assert.equal(json.status, 1, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.equal(report.ok, true);
  assert.equal(report.passed, false);
  assert.equal(statuses(report)['fuses.RunAsNode'], 'fail');

  // Not confined: the CLI reads what its caller names (no --app-root).
  const missing = cli(['validate', '--app', a.missing]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /production\.APP_NOT_FOUND/);
  const missingJson = cli(['validate', '--app', a.notAnApp, '--json']);
  assert.equal(missingJson.status, 2);
  assert.equal(JSON.parse(missingJson.stdout).code, 'production.NOT_A_BUNDLE');
  assert.equal(cli(['validate', '--app', a.textFile]).status, 2);
  assert.equal(cli(['validate']).status, 2, 'usage: --app is required');
  assert.equal(cli(['frobnicate', '--app', a.appImage]).status, 2);
});

test('production_validate is listed with no session needed, and its entry is terse', { skip }, async (t) => {
  const a = await artifacts();
  const server = await startProduction(t, a.out);
  const { tools } = await server.client.listTools();
  const tool = tools.find((entry) => entry.name === 'production_validate');
  assert.ok(tool, 'production_validate is listed');
  assert.deepEqual(tool.inputSchema.required, ['path']);
  const size = JSON.stringify(tool).length;
  // characters / 4 ≈ tokens; the whole full profile must stay under 15,000 with nine plugins.
  assert.ok(size / 4 < 400, `production_validate costs ${Math.round(size / 4)} tokens`);
  const plugins = ok(await server.call('electron_plugins', {}), 'electron_plugins');
  const entry = (plugins.plugins ?? []).find((p) => p.name === 'production');
  assert.ok(entry, 'electron_plugins lists production');
});
