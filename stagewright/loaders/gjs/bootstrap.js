// bootstrap.js: imports JavaScript plugins for libgjsloader.so
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Evaluated once per GjsContext (stw-loader-gjs.c), then each plugin is
// loaded by `__stagewrightLoader.load(uri, owned)`. gjs_context_eval() of a
// rejected import() still succeeds, so the result goes back to C
// explicitly: the plugin made, or a bare Stagewright.Plugin whose
// description is the reason, appended to a new Gio.ListStore of
// Stagewright.Plugin, whose items-changed the loader catches with an
// emission hook. No report is a failure.
//
// The plugin's vfuncs are guarded as the classes are registered: an
// exception (a rejected promise too) fails the call, the setup or the
// teardown with its message, and its stack goes to stderr, instead of
// GJS logging it and leaving the call unanswered. In the server's own
// context System.exit() throws instead of ending the server, and print()
// writes to stderr.

(function () {
    if (globalThis.__stagewrightLoader)
        return;

    imports.gi.versions.Stagewright = '1.0';
    const Gio = imports.gi.Gio;
    const GObject = imports.gi.GObject;
    const Stagewright = imports.gi.Stagewright;

    const reason = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    const report = (e) => printerr(e instanceof Error && e.stack ? `${reason(e)}\n${e.stack}` : reason(e));

    function tell(plugin) {
        const store = new Gio.ListStore({item_type: Stagewright.Plugin.$gtype});
        store.append(plugin);
    }

    function guard(proto, name, onError) {
        if (!Object.prototype.hasOwnProperty.call(proto, name) || typeof proto[name] !== 'function' ||
            proto[name].__stagewrightGuarded)
            return;
        const method = proto[name];
        const guarded = function (arg) {
            const failed = (e) => {
                report(e);
                onError(arg, e);
            };
            try {
                const result = method.call(this, arg);
                if (result && typeof result.then === 'function')
                    result.then(null, failed);
            } catch (e) {
                failed(e);
            }
        };
        guarded.__stagewrightGuarded = true;
        proto[name] = guarded;
    }

    function guardClass(klass) {
        if (typeof klass !== 'function' || !klass.prototype)
            return;
        if (klass.prototype instanceof Stagewright.Tool) {
            guard(klass.prototype, 'vfunc_invoke', (invocation, e) => {
                if (!invocation.is_completed()) {
                    invocation.return_error_json(JSON.stringify({
                        code: 'INTERNAL_ERROR',
                        error: reason(e),
                        hint: 'The plugin\'s tool threw an exception; its stack is in the server log.',
                    }));
                }
            });
        }
        if (klass.prototype instanceof Stagewright.Plugin) {
            for (const name of ['vfunc_setup', 'vfunc_teardown']) {
                guard(klass.prototype, name, (completion, e) => {
                    if (!completion.is_completed())
                        completion.return_error_literal(reason(e));
                });
            }
        }
    }

    function exitThrows(system) {
        system.exit = (code) => {
            throw new Error(`System.exit(${code}) called by a plugin`);
        };
    }

    let owning = false;

    globalThis.__stagewrightLoader = {
        load(uri, owned) {
            let ready = Promise.resolve();
            if (owned && !owning) {
                owning = true;
                globalThis.print = printerr;
                exitThrows(imports.system);
                ready = import('system').then((module) => exitThrows(module.default));
            }
            const registerClass = GObject.registerClass;
            GObject.registerClass = function (...args) {
                guardClass(args[args.length - 1]);
                return registerClass.apply(this, args);
            };
            ready.then(() => import(uri)).then((module) => {
                const classes = [...new Set(Object.values(module).filter((value) =>
                    typeof value === 'function' && value.$gtype &&
                    GObject.type_is_a(value.$gtype, Stagewright.Plugin.$gtype)))];
                if (classes.length !== 1)
                    throw new Error(`${uri} exports ${classes.length} Stagewright.Plugin classes, not one`);
                tell(new classes[0]());
            }).catch((e) => {
                report(e);
                tell(new Stagewright.Plugin({description: reason(e)}));
            }).finally(() => {
                GObject.registerClass = registerClass;
            });
        },
    };
})();
