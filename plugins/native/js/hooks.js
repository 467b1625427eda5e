// hooks.js: the native plugin's hook in the app's main process.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// One function expression. The plugin runs it two ways: as the `-r` preload
// that instrumentNative writes into its private directory (before the app's
// main script, `startup` true), and over the main-process inspector before
// every tool's work (`startup` false: late, it sees only what is set from
// then on). Electron keeps a tray's tooltip, title and context menu in
// native code with no getter (there is no Tray#getToolTip), so the hook
// records them as they are set; notifications are recorded as they are
// shown. The state lives under a registered symbol of the main process,
// not a name the app would use; pages cannot reach the main process.
(function installNativeHooks(electron, startup) {
  const KEY = Symbol.for('stagewright.native');
  const MAX_NOTIFICATIONS = 200;
  const state = globalThis[KEY] ?? (globalThis[KEY] = {
    version: 1,
    instrumented: false,   // hooked before the app's main script
    hooked: false,
    trays: [],             // WeakRef<Tray>, in the order first seen
    trayInfo: new WeakMap(),
    notifications: [],     // {notification, title, body, time, shown, …}
    dropped: 0,
    capturing: false,
    captureFrom: 0,
    captureStarted: false,
  });

  if (startup)
    state.instrumented = true;
  if (state.hooked)
    return state;
  state.hooked = true;

  const { Tray, Notification } = electron;

  function trayInfo(tray) {
    let info = state.trayInfo.get(tray);
    if (info === undefined) {
      info = { index: state.trays.length, toolTip: null, title: null, contextMenu: null };
      state.trayInfo.set(tray, info);
      state.trays.push(new WeakRef(tray));
    }
    return info;
  }

  function wrap(proto, name, record) {
    const original = proto?.[name];
    if (typeof original !== 'function')
      return;
    proto[name] = function (...args) {
      const value = original.apply(this, args);
      try {
        record(this, args);
      } catch {
        // Recording never breaks the app.
      }
      return value;
    };
  }

  if (Tray !== undefined) {
    wrap(Tray.prototype, 'setToolTip', (tray, [toolTip]) => { trayInfo(tray).toolTip = String(toolTip); });
    wrap(Tray.prototype, 'setTitle', (tray, [title]) => { trayInfo(tray).title = String(title); });
    wrap(Tray.prototype, 'setContextMenu', (tray, [menu]) => { trayInfo(tray).contextMenu = menu ?? null; });
    wrap(Tray.prototype, 'setImage', (tray) => { trayInfo(tray); });
    wrap(Tray.prototype, 'on', (tray) => { trayInfo(tray); });
  }

  function entryOf(notification) {
    let entry = state.notifications.find((e) => e.notification === notification);
    if (entry === undefined) {
      entry = {
        notification,
        title: String(notification.title ?? ''),
        body: String(notification.body ?? ''),
        time: new Date().toISOString(),
        shown: false,
        closed: false,
        clicked: false,
      };
      state.notifications.push(entry);
      if (state.notifications.length > MAX_NOTIFICATIONS) {
        state.notifications.shift();
        state.dropped++;
        state.captureFrom = Math.max(0, state.captureFrom - 1);
      }
    }
    return entry;
  }

  if (Notification !== undefined) {
    wrap(Notification.prototype, 'show', (notification) => {
      const entry = entryOf(notification);
      entry.shown = true;
      entry.title = String(notification.title ?? '');
      entry.body = String(notification.body ?? '');
    });
    wrap(Notification.prototype, 'close', (notification) => { entryOf(notification).closed = true; });
  }
  return state;
})
