// main-stubs.js: Electron API stubs with call recording, in the main process.
//
// Not a page-side file: stw-dialogs.c evaluates `(<this>)(require('electron'),
// op, arg)` through the main process's inspector. Stubs replace methods by
// assignment (as tests of Electron apps do) and keep the originals, so
// removing a stub restores the app's own behaviour. The state lives under a
// symbol-keyed, non-enumerable property of globalThis: the app never sees it
// by enumeration and no name of the app's can collide with it.
(function (electron, op, arg) {
  'use strict';
  const KEY = Symbol.for('stagewright.electronStubs');
  const MAX_CALLS = 200;
  const MAX_JSON = 4000;
  let state = globalThis[KEY];
  if (!state) {
    state = { originals: new Map(), stubs: new Map(), calls: [], dropped: 0, clipboard: '' };
    Object.defineProperty(globalThis, KEY, { value: state, configurable: true });
  }

  // name → [default answer, async]
  const METHODS = {
    'dialog.showOpenDialog': [() => ({ canceled: true, filePaths: [] }), true],
    'dialog.showOpenDialogSync': [() => undefined, false],
    'dialog.showSaveDialog': [() => ({ canceled: true, filePath: '' }), true],
    'dialog.showSaveDialogSync': [() => undefined, false],
    'dialog.showMessageBox': [() => ({ response: 0, checkboxChecked: false }), true],
    'dialog.showMessageBoxSync': [() => 0, false],
    'dialog.showErrorBox': [() => undefined, false],
    'shell.openExternal': [() => undefined, true],
    'shell.openPath': [() => '', true],
    'clipboard.readText': [() => state.clipboard, false],
    'clipboard.writeText': [() => undefined, false],
    'clipboard.clear': [() => undefined, false],
  };

  // Short forms an agent may give: paths for an open dialog, a path for a
  // save dialog, a button index for a message box.
  function answerFor(name, value) {
    if (value === true)
      return METHODS[name][0]();
    if (name === 'dialog.showOpenDialog' && Array.isArray(value))
      return { canceled: value.length === 0, filePaths: value.map(String) };
    if (name === 'dialog.showSaveDialog' && typeof value === 'string')
      return { canceled: value === '', filePath: value };
    if (name === 'dialog.showMessageBox' && typeof value === 'number')
      return { response: value, checkboxChecked: false };
    return value;
  }

  function jsonSafe(value) {
    try {
      const text = JSON.stringify(value, (key, v) => {
        if (typeof v === 'bigint') return String(v);
        if (typeof v === 'function') return `[function ${v.name || 'anonymous'}]`;
        if (v && typeof v === 'object' && typeof v.id === 'number' && v.webContents) return { browserWindow: v.id };
        return v;
      });
      if (text === undefined) return null;
      return text.length > MAX_JSON ? { truncated: text.slice(0, MAX_JSON) } : JSON.parse(text);
    } catch (error) {
      return String(error && error.message);
    }
  }

  function record(name, args, returned) {
    const call = { type: name, args: [], timestamp: Date.now() };
    for (const a of args) {
      if (a && typeof a === 'object' && typeof a.id === 'number' && a.webContents) call.electronWindowId = a.id;
      else call.args.push(jsonSafe(a));
    }
    if (returned !== undefined) call.returned = jsonSafe(returned);
    state.calls.push(call);
    while (state.calls.length > MAX_CALLS) {
      state.calls.shift();
      state.dropped++;
    }
  }

  function install(name, value) {
    const [module, method] = name.split('.');
    const target = electron[module];
    if (!target) throw new Error(`This app's electron module has no ${module}`);
    if (!state.originals.has(name)) state.originals.set(name, target[method]);
    state.stubs.set(name, value);
    const isAsync = METHODS[name][1];
    target[method] = function (...args) {
      const current = state.stubs.get(name);
      let returned = answerFor(name, current === undefined ? true : current);
      if (name === 'clipboard.writeText') state.clipboard = String(args[0] ?? '');
      if (name === 'clipboard.clear') state.clipboard = '';
      record(name, args, returned);
      return isAsync ? Promise.resolve(returned) : returned;
    };
  }

  function restore(name) {
    if (!state.originals.has(name)) return;
    const [module, method] = name.split('.');
    electron[module][method] = state.originals.get(name);
    state.originals.delete(name);
    state.stubs.delete(name);
  }

  if (op === 'stub') {
    for (const [name, value] of Object.entries(arg)) {
      if (!Object.prototype.hasOwnProperty.call(METHODS, name)) throw new Error(`Cannot stub ${name}`);
      if (value === null) restore(name);
      else install(name, value);
    }
    return [...state.stubs.keys()];
  }
  if (op === 'drain') {
    const calls = state.calls;
    const dropped = state.dropped;
    state.calls = [];
    state.dropped = 0;
    return { calls, dropped, stubs: [...state.stubs.keys()] };
  }
  throw new Error(`Unknown op ${op}`);
})
