// main-window-states.js: what only the main process knows of each window.
// In the main process, not a page.
//
// A function of the DevTools target ids of the session's windows;
// stw-session.c calls it with them (Runtime.evaluate, by value) and reads
// back, for each id it could map to a BrowserWindow (through
// webContents.fromDevToolsTargetId), Electron's own window id and whether
// the window is shown, focused, minimized, maximized or full screen, with
// its bounds. A method the app lacks or that throws answers its default.
(ids) => {
  const { webContents, BrowserWindow } = require('electron');
  const states = {};
  if (!webContents || typeof webContents.fromDevToolsTargetId !== 'function') return states;
  for (const id of ids) {
    let window = null;
    try { window = BrowserWindow.fromWebContents(webContents.fromDevToolsTargetId(id)); } catch (e) {}
    if (!window || (typeof window.isDestroyed === 'function' && window.isDestroyed())) continue;
    const call = (name, fallback) => {
      try { return typeof window[name] === 'function' ? window[name]() : fallback; } catch (e) { return fallback; }
    };
    states[id] = { electronId: window.id, visible: !!call('isVisible', true), focused: !!call('isFocused', false),
                   minimized: !!call('isMinimized', false), maximized: !!call('isMaximized', false),
                   fullscreen: !!call('isFullScreen', false), bounds: call('getBounds', null) };
  }
  return states;
}
