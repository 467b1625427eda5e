// standin-surface.test.mjs: the Electron stand-in (tests/fixtures/electron-standin)
// defines nothing Electron lacks. Every member of its Menu, MenuItem, Tray,
// Notification, ipcMain, webContents, session (and its Session and Cookies) — static, on the prototype chain up to
// EventEmitter, or set on an instance — must be declared for the same class in
// electron.d.ts of the pinned `electron` package (installed with --ignore-scripts:
// only its types are read). Members named with a leading underscore are Electron's
// own internals (ipcMain._invokeHandlers, which real Electron keeps and tools read)
// and are not in the d.ts; EventEmitter's own members come from Node.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand (STW_ELECTRON_DTS names another electron.d.ts):
//   node --test --test-reporter=tap tests/e2e/standin-surface.test.mjs

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';

import { NODE_MODULES, TOP_SRCDIR } from './lib/harness.mjs';

const DTS = process.env.STW_ELECTRON_DTS ?? path.join(NODE_MODULES, 'electron', 'electron.d.ts');
const skip = fs.existsSync(DTS) ? false : `${DTS} is missing (the pinned electron package, installed with --ignore-scripts)`;

const require = createRequire(import.meta.url);
const { createElectron } = require(path.join(TOP_SRCDIR, 'tests', 'fixtures', 'electron-standin', 'lib', 'electron.js'));

// The members declared in `  class NAME …{` or `  interface NAME …{`, up to its
// closing `  }`: one a line at four spaces, `static`/`readonly` dropped.
function declared (dts, kind, name) {
  const start = dts.search(new RegExp(`^  ${kind} ${name}\\b[^\\n]*\\{$`, 'm'));
  assert.notEqual(start, -1, `${kind} ${name} in electron.d.ts`);
  const end = dts.indexOf('\n  }\n', start);
  const members = new Set();
  for (const line of dts.slice(start, end).split('\n')) {
    const match = /^ {4}(?:static )?(?:readonly )?([A-Za-z_$][\w$]*)\??[(:<]/.exec(line);
    if (match)
      members.add(match[1]);
  }
  return members;
}

// What the stand-in defines on a class, its prototypes up to EventEmitter's
// or Object's, and an instance.
function defined (klass, instance) {
  const names = new Set();
  if (klass) {
    for (const name of Object.getOwnPropertyNames(klass))
      if (!['length', 'name', 'prototype'].includes(name))
        names.add(`static ${name}`);
  }
  for (let proto = klass ? klass.prototype : Object.getPrototypeOf(instance);
    proto && proto !== EventEmitter.prototype && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto))
    for (const name of Object.getOwnPropertyNames(proto))
      if (name !== 'constructor')
        names.add(name);
  for (const name of Object.keys(instance ?? {}))
    names.add(name);
  return [...names].filter((name) => !/^(static )?_/.test(name));
}

function assertSubset (label, names, allowed) {
  const missing = names.filter((name) => !allowed.has(name.replace(/^static /, '')));
  assert.deepEqual(missing, [], `${label}: the stand-in defines what electron.d.ts lacks`);
}

test('the stand-in\'s native UI, ipcMain, webContents and session exist in electron.d.ts', { skip }, () => {
  const dts = fs.readFileSync(DTS, 'utf8');
  const { electron } = createElectron({
    appPath: TOP_SRCDIR, name: 'surface', version: '1.0.0', paths: { userData: TOP_SRCDIR },
    isHeadless: true, quitProcess () {},
  });
  const { Menu, MenuItem, Tray, Notification, ipcMain, webContents, session } = electron;

  const menu = Menu.buildFromTemplate([{ label: 'File', submenu: [{ label: 'Open', click () {} }] }]);
  const tray = new Tray('/nonexistent.png');
  tray.setContextMenu(menu);
  tray.setToolTip('tip');

  const cases = [
    ['Menu', defined(Menu, menu), declared(dts, 'class', 'Menu')],
    ['MenuItem', defined(MenuItem, menu.items[0]), declared(dts, 'class', 'MenuItem')],
    ['Tray', defined(Tray, tray), declared(dts, 'class', 'Tray')],
    ['Notification', defined(Notification, new Notification({ title: 't', body: 'b' })),
      declared(dts, 'class', 'Notification')],
    ['IpcMain', defined(null, ipcMain), declared(dts, 'interface', 'IpcMain')],
    ['webContents', Object.keys(webContents).map((name) => `static ${name}`), declared(dts, 'class', 'WebContents')],
    // The session module is Electron's `typeof Session`: its statics.
    ['session', Object.keys(session).map((name) => `static ${name}`), declared(dts, 'class', 'Session')],
    ['Session', defined(null, session.fromPartition('persist:surface')), declared(dts, 'class', 'Session')],
    ['Cookies', defined(null, session.defaultSession.cookies), declared(dts, 'class', 'Cookies')],
  ];
  for (const [label, names, allowed] of cases) {
    assert.ok(names.length > 0, `${label}: the stand-in defines members`);
    assertSubset(label, names, allowed);
  }

  // fromPartition: one Session per string; '' is the default session; persist: is persistent.
  assert.equal(session.fromPartition('persist:surface'), session.fromPartition('persist:surface'));
  assert.equal(session.fromPartition(''), session.defaultSession);
  assert.equal(session.fromPartition('persist:surface').isPersistent(), true);
  assert.equal(session.fromPartition('in-memory').isPersistent(), false);
  assert.equal(session.fromPartition('in-memory').storagePath, null);
  assert.equal(session.fromPartition('in-memory').getStoragePath(), null);

  // Real Electron keeps no getter for a tray's tooltip: neither does the stand-in.
  assert.equal(typeof tray.getToolTip, 'undefined');
  assert.ok(!declared(dts, 'class', 'Tray').has('getToolTip'));
  // And the check can fail: a member Electron lacks is caught.
  assert.throws(() => assertSubset('Tray', ['getToolTip'], declared(dts, 'class', 'Tray')), /Tray/);
});
