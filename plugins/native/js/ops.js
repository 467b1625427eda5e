// ops.js: the native plugin's tools, run in the app's main process.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// One function expression, called over the main-process inspector with the
// state hooks.js returned, the operation's name and its JSON arguments. It
// answers {value} or {error: {code, message}} (a code of the plugin's,
// without its "native." prefix). Only this fixed code runs: the agent's
// arguments are data.
(function nativeOp(electron, state, op, args) {
  const { BrowserWindow, Menu, webContents } = electron;
  const fail = (code, message) => ({ error: { code, message } });

  function itemName(item) {
    return item.label || item.role || '';
  }

  function describeItem(item, path) {
    const described = {
      label: item.label ?? '',
      role: item.role ?? null,
      type: item.type ?? 'normal',
      enabled: item.enabled !== false,
      visible: item.visible !== false,
      checked: !!item.checked,
      accelerator: item.accelerator ?? null,
      id: item.id ? String(item.id) : null,
      path,
    };
    if (item.submenu)
      described.submenu = describeMenu(item.submenu, path);
    return described;
  }

  function describeMenu(menu, prefix = []) {
    return (menu?.items ?? []).map((item) => describeItem(item, [...prefix, itemName(item)]));
  }

  function liveTrays() {
    const trays = [];
    for (const ref of state.trays) {
      const tray = ref.deref();
      if (tray !== undefined && !(typeof tray.isDestroyed === 'function' && tray.isDestroyed()))
        trays.push(tray);
    }
    return trays;
  }

  function notInstrumented(what) {
    return fail('NOT_INSTRUMENTED',
                `${what}: trays made before the plugin's first call cannot be seen; launch with `
                + 'plugins.native.instrumentNative: true (needs main)');
  }

  function trayAt(index) {
    const trays = liveTrays();
    if (trays.length === 0 && !state.instrumented)
      return { failure: notInstrumented(`No tray at index ${index}`) };
    if (!Number.isInteger(index) || index < 0 || index >= trays.length)
      return { failure: fail('NOT_FOUND', `No tray at index ${index} (${trays.length} known)`) };
    return { tray: trays[index] };
  }

  function menuOf(which) {
    if (which === undefined || which === null || which === 'application') {
      return { name: 'application', menu: Menu.getApplicationMenu() };
    }
    const { tray, failure } = trayAt(which);
    if (failure)
      return { failure };
    return { name: which, menu: state.trayInfo.get(tray)?.contextMenu ?? null };
  }

  // The item and its ancestors, by path (labels, or roles for unlabelled
  // items) or by id (depth first).
  function find(menu, target) {
    if (Array.isArray(target.path)) {
      const chain = [];
      let items = menu?.items ?? [];
      for (const segment of target.path) {
        const item = items.find((i) => itemName(i) === segment);
        if (item === undefined)
          return null;
        chain.push(item);
        items = item.submenu?.items ?? [];
      }
      return chain.length > 0 ? chain : null;
    }
    const walk = (m, chain) => {
      for (const item of m?.items ?? []) {
        if (item.id !== undefined && item.id !== '' && String(item.id) === String(target.id))
          return [...chain, item];
        const found = item.submenu ? walk(item.submenu, [...chain, item]) : null;
        if (found)
          return found;
      }
      return null;
    };
    return walk(menu, []);
  }

  function pathOf(chain) {
    return chain.map(itemName);
  }

  function lookup(args) {
    const { name, menu, failure } = menuOf(args.menu);
    if (failure)
      return { failure };
    if (!menu)
      return { failure: fail('NOT_FOUND', name === 'application' ? 'The app has no application menu'
                                                                 : `Tray ${name} has no context menu`) };
    const chain = find(menu, args);
    if (!chain)
      return { failure: fail('NOT_FOUND', Array.isArray(args.path) ? `No menu item at ${JSON.stringify(args.path)}`
                                                                   : `No menu item with id ${JSON.stringify(args.id)}`) };
    return { chain, name };
  }

  // As the user would: only a reachable item — every ancestor enabled
  // and visible, and the item too — and through Electron's own click
  // (it flips a checkbox, runs a role, then the app's handler with
  // (menuItem, browserWindow, event)).
  function click(chain) {
    const item = chain[chain.length - 1];
    const blocked = chain.find((i) => i.enabled === false || i.visible === false);
    if (blocked)
      return fail('ITEM_DISABLED', `"${pathOf(chain).join(' › ')}" cannot be clicked: `
                  + `"${itemName(blocked)}" is ${blocked.enabled === false ? 'disabled' : 'invisible'}`);
    if (item.type === 'separator' || item.type === 'submenu')
      return fail('UNSUPPORTED', `"${pathOf(chain).join(' › ')}" is a ${item.type}: it has no click`);
    if (typeof item.click !== 'function')
      return fail('UNSUPPORTED', 'This menu item has no click');
    const event = { shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, triggeredByAccelerator: false };
    const win = BrowserWindow?.getFocusedWindow?.() ?? undefined;
    const contents = webContents?.getFocusedWebContents?.() ?? undefined;
    item.click(event, win, contents);
    return { value: { invoked: true, item: describeItem(item, pathOf(chain)) } };
  }

  function notification(entry, index) {
    return {
      index,
      title: entry.title,
      body: entry.body,
      time: entry.time,
      shown: entry.shown,
      clicked: entry.clicked,
      closed: entry.closed,
    };
  }

  switch (op) {
    case 'menu': {
      const { name, menu, failure } = menuOf(args.menu);
      if (failure)
        return failure;
      return { value: { menu: name, present: !!menu, items: describeMenu(menu) } };
    }
    case 'menu_item': {
      const { chain, failure } = lookup(args);
      return failure ?? { value: { item: describeItem(chain[chain.length - 1], pathOf(chain)) } };
    }
    case 'menu_invoke': {
      const { chain, failure } = lookup(args);
      return failure ?? click(chain);
    }
    case 'trays': {
      const trays = liveTrays();
      if (trays.length === 0 && !state.instrumented)
        return notInstrumented('No tray seen');
      return {
        value: {
          instrumented: state.instrumented,
          trays: trays.map((tray, index) => {
            const info = state.trayInfo.get(tray);
            return {
              index,
              toolTip: info.toolTip,
              title: info.title ?? (typeof tray.getTitle === 'function' ? tray.getTitle() : null),
              hasContextMenu: !!info.contextMenu,
              menu: info.contextMenu ? describeMenu(info.contextMenu) : null,
            };
          }),
        },
      };
    }
    case 'tray_invoke': {
      const { tray, failure } = trayAt(args.index);
      if (failure)
        return failure;
      if (args.action === 'click') {
        const bounds = typeof tray.getBounds === 'function' ? tray.getBounds() : { x: 0, y: 0, width: 0, height: 0 };
        const event = { shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, triggeredByAccelerator: false };
        const listeners = tray.listenerCount('click');
        tray.emit('click', event, bounds, { x: bounds.x, y: bounds.y });
        return { value: { index: args.index, action: 'click', listeners } };
      }
      const menu = state.trayInfo.get(tray)?.contextMenu ?? null;
      if (!menu)
        return fail('NOT_FOUND', `Tray ${args.index} has no context menu`);
      if (!Array.isArray(args.path))
        return { value: { index: args.index, action: 'menu', items: describeMenu(menu) } };
      const chain = find(menu, { path: args.path });
      if (!chain)
        return fail('NOT_FOUND', `No item at ${JSON.stringify(args.path)} in tray ${args.index}'s menu`);
      const clicked = click(chain);
      if (clicked.error)
        return clicked;
      return { value: { index: args.index, action: 'menu', ...clicked.value } };
    }
    case 'notifications_start': {
      if (state.capturing)
        return fail('ALREADY_CAPTURING', 'Notifications are being captured; stop with native_notifications_stop');
      // The first capture of an instrumented app keeps what start-up showed.
      state.captureFrom = state.instrumented && !state.captureStarted ? 0 : state.notifications.length;
      state.captureStarted = true;
      state.capturing = true;
      return { value: { capturing: true, instrumented: state.instrumented,
                        captured: state.notifications.length - state.captureFrom } };
    }
    case 'notifications': {
      if (!state.capturing)
        return fail('NOT_CAPTURING', 'Start capturing with native_notifications_start');
      const all = state.notifications.slice(state.captureFrom)
        .map((entry, i) => notification(entry, i));
      const limit = Number.isInteger(args.limit) ? args.limit : 50;
      const shown = limit > 0 ? all.slice(-limit) : [];
      return { value: { count: all.length, truncated: shown.length < all.length, notifications: shown } };
    }
    case 'notifications_stop': {
      if (!state.capturing)
        return fail('NOT_CAPTURING', 'Nothing is being captured');
      state.capturing = false;
      return { value: { capturing: false, captured: state.notifications.length - state.captureFrom } };
    }
    case 'notification_invoke': {
      if (!state.capturing)
        return fail('NOT_CAPTURING', 'Start capturing with native_notifications_start');
      const entry = state.notifications[state.captureFrom + args.index];
      if (!Number.isInteger(args.index) || args.index < 0 || entry === undefined)
        return fail('NOT_FOUND', `No captured notification at index ${args.index}`);
      const event = { preventDefault() {} };
      if (args.action === 'click') {
        entry.clicked = true;
        entry.notification.emit('click', event);
      } else {
        entry.notification.close();
      }
      return { value: { action: args.action, notification: notification(entry, args.index) } };
    }
    default:
      return fail('UNSUPPORTED', `Unknown operation ${op}`);
  }
})
