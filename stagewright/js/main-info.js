// main-info.js: the app's versions and identity, as its main process sees
// them. In the main process, not a page.
//
// stw-session.c evaluates this (Runtime.evaluate, by value) for
// electron_info. Every field is read on its own: an app without one of
// these methods (a stub, an old Electron, a patched app) answers null for
// that field and a note saying why, never a failure of the whole call. A
// plain Node process (injected) has no electron module: app is null.
(() => {
  let app = null;
  try { app = require('electron').app; } catch (e) {}
  if (!app || (typeof app !== 'object' && typeof app !== 'function')) app = null;
  const notes = {};
  const why = (e) => {
    try { return String(e && e.message !== undefined ? e.message : e).slice(0, 200); } catch (f) { return 'an exception'; }
  };
  const read = (key, f) => {
    try { const v = f(); return v === undefined ? null : v; } catch (e) { notes[key] = why(e); return null; }
  };
  const call = (key, name, ...args) => read(key, () => {
    if (typeof app[name] !== 'function') throw new Error('app.' + name + ' is not a function');
    return app[name](...args);
  });
  const v = read('versions', () => process.versions) || {};
  const version = (n) => read('versions.' + n, () => v[n] || null);
  return {
    versions: { electron: version('electron'), node: version('node'), chrome: version('chrome'), v8: version('v8') },
    app: app && { name: call('app.name', 'getName'), version: call('app.version', 'getVersion'),
                  path: call('app.path', 'getAppPath'), exe_path: read('app.exe_path', () => process.execPath),
                  user_data_path: call('app.user_data_path', 'getPath', 'userData'),
                  packaged: !!read('app.packaged', () => app.isPackaged) },
    notes
  };
})()
