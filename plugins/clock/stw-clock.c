/* stw-clock.c: the clock plugin's API — a controllable clock in every renderer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 19's clock plugin, with Playwright's clock semantics, over CDP. The
 * fake clock (clock-agent.js, a GResource of the module) must replace the
 * page's own Date and timers, so it runs in the page's main world — the
 * one deliberate exception to the isolated-world rule. Its controller is a
 * closure: the plugin reaches it through a window event named with a
 * per-session secret, dispatched from the plugin's isolated world, so the
 * page can neither find it on a global nor call it (docs/reference/
 * plugin-clock.md, "Safety").
 *
 * Every target of a session (windows, out-of-process frames, webviews)
 * gets the agent as a new-document script carrying the clock's current
 * state, re-registered after each operation: a document made later (a new
 * window, a navigation, a frame) starts from that state before its first
 * script. The new-surface hook adds it to targets that appear later. The
 * documents that already run get it once, on install (runImmediately), and
 * each operation is sent to every live document.
 *
 * The session's clock is also modelled here (wall time at a real instant,
 * fixed, paused), so the state handed to new documents does not depend on
 * any one page.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/random.h>

#include "stw-clock-private.h"

#define CLOCK_AGENT_RESOURCE "/org/stagewright/plugins/clock/clock-agent.js"
#define CLOCK_DEFAULT_MAX_TIMERS 10000
#define CLOCK_CALL_BUDGET_MS 20000

/* The plugin's isolated-world side: sends one request to the document's
 * controller and waits for its answer. A document without a controller
 * does not acknowledge it; that is answered at once. */
static const char clock_driver[] =
  "(secret, op, arg, budget) => new Promise((resolve) => {\n"
  "  const id = 'c' + Math.random().toString(36).slice(2);\n"
  "  const name = 'stw-clock-r-' + secret;\n"
  "  let acked = false;\n"
  "  let timer = 0;\n"
  "  const done = (value) => { window.removeEventListener(name, listen); clearTimeout(timer); resolve(value); };\n"
  "  const listen = (event) => {\n"
  "    let r;\n"
  "    try { r = JSON.parse(event.detail); } catch { return; }\n"
  "    if (r === null || typeof r !== 'object' || r.id !== id) return;\n"
  "    if (r.ack === true) { acked = true; return; }\n"
  "    done(r);\n"
  "  };\n"
  "  window.addEventListener(name, listen);\n"
  "  window.dispatchEvent(new CustomEvent('stw-clock-' + secret, { detail: JSON.stringify({ id, op, arg }) }));\n"
  "  if (!acked) { done({ absent: true }); return; }\n"
  "  timer = setTimeout(() => done({ timeout: true }), budget);\n"
  "})";

GResource *clock_get_resource (void);

/* --- the status ------------------------------------------------------------ */

/**
 * StwClockStatus:
 *
 * The clock of a session after an operation: the first document's view of
 * it (the active window's when it answered), with the timers counted over
 * every document the operation reached.
 */
struct _StwClockStatus
{
  GObject  parent_instance;
  gboolean installed;
  gboolean paused;
  gboolean fixed;
  gint64   now;
  gint64   ticks;
  guint    pending_timers;
  guint    fired;
  gboolean limit_reached;
  guint    timer_errors;
  guint    documents;
  guint    max_timers;
  gboolean main_process;
};

G_DEFINE_FINAL_TYPE (StwClockStatus, stw_clock_status, G_TYPE_OBJECT)

enum
{
  STATUS_PROP_0,
  STATUS_PROP_INSTALLED,
  STATUS_PROP_PAUSED,
  STATUS_PROP_FIXED,
  STATUS_PROP_NOW,
  STATUS_PROP_TICKS,
  STATUS_PROP_PENDING_TIMERS,
  STATUS_PROP_FIRED,
  STATUS_PROP_LIMIT_REACHED,
  STATUS_PROP_TIMER_ERRORS,
  STATUS_PROP_DOCUMENTS,
  STATUS_PROP_MAX_TIMERS,
  STATUS_PROP_MAIN_PROCESS,
  N_STATUS_PROPS
};

static GParamSpec *status_props[N_STATUS_PROPS];

static void
stw_clock_status_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  StwClockStatus *self = STW_CLOCK_STATUS (object);

  switch (prop_id)
    {
    case STATUS_PROP_INSTALLED: g_value_set_boolean (value, self->installed); break;
    case STATUS_PROP_PAUSED: g_value_set_boolean (value, self->paused); break;
    case STATUS_PROP_FIXED: g_value_set_boolean (value, self->fixed); break;
    case STATUS_PROP_NOW: g_value_set_int64 (value, self->now); break;
    case STATUS_PROP_TICKS: g_value_set_int64 (value, self->ticks); break;
    case STATUS_PROP_PENDING_TIMERS: g_value_set_uint (value, self->pending_timers); break;
    case STATUS_PROP_FIRED: g_value_set_uint (value, self->fired); break;
    case STATUS_PROP_LIMIT_REACHED: g_value_set_boolean (value, self->limit_reached); break;
    case STATUS_PROP_TIMER_ERRORS: g_value_set_uint (value, self->timer_errors); break;
    case STATUS_PROP_DOCUMENTS: g_value_set_uint (value, self->documents); break;
    case STATUS_PROP_MAX_TIMERS: g_value_set_uint (value, self->max_timers); break;
    case STATUS_PROP_MAIN_PROCESS: g_value_set_boolean (value, self->main_process); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_clock_status_class_init (StwClockStatusClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = stw_clock_status_get_property;

  /**
   * StwClockStatus:installed:
   *
   * Whether the session's clock is installed.
   */
  status_props[STATUS_PROP_INSTALLED] = g_param_spec_boolean ("installed", NULL, NULL, FALSE, flags);
  /**
   * StwClockStatus:paused:
   *
   * Whether the clock stands still between operations.
   */
  status_props[STATUS_PROP_PAUSED] = g_param_spec_boolean ("paused", NULL, NULL, FALSE, flags);
  /**
   * StwClockStatus:fixed:
   *
   * Whether `Date.now()` is frozen (set_time) while timers still run.
   */
  status_props[STATUS_PROP_FIXED] = g_param_spec_boolean ("fixed", NULL, NULL, FALSE, flags);
  /**
   * StwClockStatus:now:
   *
   * The page's `Date.now()`, in milliseconds since the epoch.
   */
  status_props[STATUS_PROP_NOW] = g_param_spec_int64 ("now", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  /**
   * StwClockStatus:ticks:
   *
   * The fake monotonic time since the install (`performance.now()` less
   * its value at the install), in milliseconds.
   */
  status_props[STATUS_PROP_TICKS] = g_param_spec_int64 ("ticks", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  /**
   * StwClockStatus:pending-timers:
   *
   * The timers waiting, over every document reached.
   */
  status_props[STATUS_PROP_PENDING_TIMERS] = g_param_spec_uint ("pending-timers", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwClockStatus:fired:
   *
   * The timers this operation fired, over every document reached.
   */
  status_props[STATUS_PROP_FIRED] = g_param_spec_uint ("fired", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwClockStatus:limit-reached:
   *
   * Whether a document stopped firing at the plugin's `maxTimersPerCall`
   * before the end of the span: its clock stands at the last timer fired.
   */
  status_props[STATUS_PROP_LIMIT_REACHED] = g_param_spec_boolean ("limit-reached", NULL, NULL, FALSE, flags);
  /**
   * StwClockStatus:timer-errors:
   *
   * The timers of this operation that threw (reported to the page as an
   * uncaught error, as the browser does).
   */
  status_props[STATUS_PROP_TIMER_ERRORS] = g_param_spec_uint ("timer-errors", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwClockStatus:documents:
   *
   * The live documents (windows, frames, webviews) the operation reached.
   */
  status_props[STATUS_PROP_DOCUMENTS] = g_param_spec_uint ("documents", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwClockStatus:max-timers:
   *
   * The bound on the timers one call fires per document.
   */
  status_props[STATUS_PROP_MAX_TIMERS] = g_param_spec_uint ("max-timers", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwClockStatus:main-process:
   *
   * Whether the operation reached the app's main process too (only when
   * the server allows main-process eval): its `Date` follows the clock.
   */
  status_props[STATUS_PROP_MAIN_PROCESS] = g_param_spec_boolean ("main-process", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_STATUS_PROPS, status_props);
}

static void
stw_clock_status_init (StwClockStatus *self)
{
}

/**
 * stw_clock_status_get_installed:
 * @self: a #StwClockStatus
 *
 * Returns: whether the clock is installed
 */
gboolean
stw_clock_status_get_installed (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), FALSE);
  return self->installed;
}

/**
 * stw_clock_status_get_paused:
 * @self: a #StwClockStatus
 *
 * Returns: whether the clock is paused
 */
gboolean
stw_clock_status_get_paused (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), FALSE);
  return self->paused;
}

/**
 * stw_clock_status_get_fixed:
 * @self: a #StwClockStatus
 *
 * Returns: whether `Date.now()` is frozen
 */
gboolean
stw_clock_status_get_fixed (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), FALSE);
  return self->fixed;
}

/**
 * stw_clock_status_get_now:
 * @self: a #StwClockStatus
 *
 * Returns: the page's `Date.now()`, in ms since the epoch
 */
gint64
stw_clock_status_get_now (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->now;
}

/**
 * stw_clock_status_get_ticks:
 * @self: a #StwClockStatus
 *
 * Returns: the fake monotonic ms since the install
 */
gint64
stw_clock_status_get_ticks (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->ticks;
}

/**
 * stw_clock_status_get_pending_timers:
 * @self: a #StwClockStatus
 *
 * Returns: the timers waiting, over every document reached
 */
guint
stw_clock_status_get_pending_timers (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->pending_timers;
}

/**
 * stw_clock_status_get_fired:
 * @self: a #StwClockStatus
 *
 * Returns: the timers the operation fired
 */
guint
stw_clock_status_get_fired (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->fired;
}

/**
 * stw_clock_status_get_limit_reached:
 * @self: a #StwClockStatus
 *
 * Returns: whether a document stopped at the bound on timers per call
 */
gboolean
stw_clock_status_get_limit_reached (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), FALSE);
  return self->limit_reached;
}

/**
 * stw_clock_status_get_timer_errors:
 * @self: a #StwClockStatus
 *
 * Returns: the timers of the operation that threw
 */
guint
stw_clock_status_get_timer_errors (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->timer_errors;
}

/**
 * stw_clock_status_get_documents:
 * @self: a #StwClockStatus
 *
 * Returns: the live documents the operation reached
 */
guint
stw_clock_status_get_documents (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->documents;
}

/**
 * stw_clock_status_get_max_timers:
 * @self: a #StwClockStatus
 *
 * Returns: the bound on the timers one call fires per document
 */
guint
stw_clock_status_get_max_timers (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), 0);
  return self->max_timers;
}

/**
 * stw_clock_status_get_main_process:
 * @self: a #StwClockStatus
 *
 * Returns: whether the operation reached the app's main process too
 */
gboolean
stw_clock_status_get_main_process (StwClockStatus *self)
{
  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), FALSE);
  return self->main_process;
}

/**
 * stw_clock_status_to_json:
 * @self: a #StwClockStatus
 *
 * The status as the clock tools answer it: `{installed, paused, fixed,
 * now, iso, ticks, pendingTimers, fired, limitReached, timerErrors,
 * documents, mainProcess, maxTimersPerCall}`.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
stw_clock_status_to_json (StwClockStatus *self)
{
  JsonObject *object = json_object_new ();
  g_autoptr(GDateTime) when = NULL;

  g_return_val_if_fail (STW_IS_CLOCK_STATUS (self), object);
  json_object_set_boolean_member (object, "installed", self->installed);
  json_object_set_boolean_member (object, "paused", self->paused);
  json_object_set_boolean_member (object, "fixed", self->fixed);
  json_object_set_int_member (object, "now", self->now);
  when = g_date_time_new_from_unix_utc (self->now / 1000);
  if (when != NULL && self->now >= 0)
    {
      g_autofree char *date = g_date_time_format (when, "%Y-%m-%dT%H:%M:%S");
      g_autofree char *iso = g_strdup_printf ("%s.%03dZ", date, (int) (self->now % 1000));

      json_object_set_string_member (object, "iso", iso);
    }
  json_object_set_int_member (object, "ticks", self->ticks);
  json_object_set_int_member (object, "pendingTimers", self->pending_timers);
  json_object_set_int_member (object, "fired", self->fired);
  json_object_set_boolean_member (object, "limitReached", self->limit_reached);
  json_object_set_int_member (object, "timerErrors", self->timer_errors);
  json_object_set_int_member (object, "documents", self->documents);
  json_object_set_boolean_member (object, "mainProcess", self->main_process);
  json_object_set_int_member (object, "maxTimersPerCall", self->max_timers);
  return object;
}

/* --- a session's clock ----------------------------------------------------- */

typedef struct
{
  char        secret[33];
  gboolean    installed;
  gint64      wall;         /* the fake wall time at real time @real */
  gint64      real;         /* this machine's real ms when @wall was set */
  gboolean    fixed;
  gint64      fixed_at;     /* Date.now() while fixed */
  gboolean    paused;
  GHashTable *scripts;      /* CDP session id → new-document script id */
} ClockState;

static void
clock_state_free (ClockState *state)
{
  g_hash_table_unref (state->scripts);
  g_free (state);
}

static gint64
real_ms (void)
{
  return g_get_real_time () / 1000;
}

static gint64
model_wall (ClockState *state)
{
  return state->paused ? state->wall : state->wall + (real_ms () - state->real);
}

static void
model_set_wall (ClockState *state,
                gint64      wall)
{
  state->wall = wall;
  state->real = real_ms ();
}

/* Where a session keeps its clock. */
static GQuark
state_quark (void)
{
  return g_quark_from_static_string ("stw-clock-state");
}

/* The clock of @session as this plugin keeps it, made on first use. */
static ClockState *
ensure_state (StwClockPlugin *self,
              StwSession     *session)
{
  ClockState *state = g_object_get_qdata (G_OBJECT (session), state_quark ());
  guint8 bytes[16];

  if (state != NULL)
    return state;
  state = g_new0 (ClockState, 1);
  /* The secret names the page's channel: unguessable, per session. */
  if (getrandom (bytes, sizeof bytes, 0) != sizeof bytes)
    for (guint i = 0; i < sizeof bytes; i++)
      bytes[i] = (guint8) g_random_int_range (0, 256);
  for (guint i = 0; i < sizeof bytes; i++)
    g_snprintf (state->secret + 2 * i, 3, "%02x", bytes[i]);
  state->scripts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_object_set_qdata_full (G_OBJECT (session), state_quark (), state, (GDestroyNotify) clock_state_free);
  return state;
}

/* The new-document script: the agent called with the secret and the state. */
static char *
agent_call (ClockState *state,
            gboolean    main_timers,
            const char *mode)
{
  g_autoptr(GBytes) agent = g_resource_lookup_data (clock_get_resource (), CLOCK_AGENT_RESOURCE,
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *fixed = state->fixed ? g_strdup_printf ("%" G_GINT64_FORMAT, state->fixed_at) : g_strdup ("null");

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (agent != NULL);
  return g_strdup_printf ("%.*s(\"%s\", {\"installed\":%s,\"wall\":%" G_GINT64_FORMAT ",\"fixed\":%s,"
                          "\"paused\":%s,\"serverReal\":%" G_GINT64_FORMAT ",\"mainTimers\":%s}, \"%s\")",
                          (int) g_bytes_get_size (agent), (const char *) g_bytes_get_data (agent, NULL),
                          mode[0] == 'm' ? "" : state->secret, state->installed ? "true" : "false", state->wall,
                          fixed, state->paused ? "true" : "false", state->real, main_timers ? "true" : "false", mode);
}

static char *
agent_source (ClockState *state)
{
  g_autofree char *call = agent_call (state, FALSE, "page");

  return g_strconcat (call, ";\n", NULL);
}

/* --- the plugin ------------------------------------------------------------ */

/**
 * StwClockPlugin:
 *
 * The clock plugin (`--plugin clock`): a fake clock in every renderer of a
 * session, with Playwright's clock semantics. Each operation is an async
 * pair answering a [class@StagewrightClock.ClockStatus]; a session whose
 * clock is not installed refuses every operation but install and status
 * with `clock.NOT_INSTALLED`.
 */
struct _StwClockPlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_ENUM_TYPE (StwClockError, stw_clock_error,
                    G_DEFINE_ENUM_VALUE (STW_CLOCK_ERROR_UNSUPPORTED, "unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_CLOCK_ERROR_NOT_INSTALLED, "not-installed"))

/**
 * stw_clock_error_quark:
 *
 * The error domain of the clock plugin, `stw-clock-error-quark`, registered
 * with stw_error_register_domain() so that stw_error_new() makes its codes
 * in it.
 *
 * Returns: %STW_CLOCK_ERROR
 *
 * Since: 1.0
 */
GQuark
stw_clock_error_quark (void)
{
  return stw_error_register_domain ("clock", STW_TYPE_CLOCK_ERROR);
}

G_DEFINE_FINAL_TYPE (StwClockPlugin, stw_clock_plugin, STW_TYPE_PLUGIN)

static guint
max_timers (StwClockPlugin *self)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));
  gint64 value = config ? json_object_get_int_member_with_default (config, "maxTimersPerCall",
                                                                   CLOCK_DEFAULT_MAX_TIMERS)
                        : CLOCK_DEFAULT_MAX_TIMERS;

  return (guint) CLAMP (value, 1, 1000000);
}

/* --- adding the script to targets ------------------------------------------ */

typedef struct
{
  StwPluginCompletion *completion;
  StwSession          *session;
} HookCall;

typedef struct
{
  GTask      *task;        /* the operation, or NULL in the hook */
  HookCall   *hook;        /* the hook, or NULL in an operation */
  ClockState *state;       /* owned by the session the task or hook holds */
  char       *key;
} ScriptCall;

static void on_scripts_done (GTask *task);
static void hook_done (HookCall *hook);

static void
on_script_added (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ScriptCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply != NULL && json_object_has_member (reply, "identifier"))
    g_hash_table_replace (call->state->scripts, g_strdup (call->key),
                          g_strdup (json_object_get_string_member (reply, "identifier")));
  else if (error != NULL)
    g_debug ("clock: no new-document script on %s: %s", call->key, error->message);
  if (call->task != NULL)
    on_scripts_done (call->task);
  if (call->hook != NULL)
    hook_done (call->hook);
  g_free (call->key);
  g_free (call);
}

static const char *
surface_key (StwSurface *surface)
{
  const char *key = stw_surface_get_cdp_session_id (surface);

  return key != NULL ? key : "";
}

/* Replaces the target's new-document script with one carrying the state;
 * with @now, runs it in the documents that already run too. */
static void
register_script (ClockState *state,
                 StwSurface *surface,
                 gboolean    now,
                 GTask      *task,
                 HookCall   *hook)
{
  g_autoptr(JsonObject) params = json_object_new ();
  g_autofree char *source = agent_source (state);
  const char *key = surface_key (surface);
  const char *old = g_hash_table_lookup (state->scripts, key);
  ScriptCall *call = g_new0 (ScriptCall, 1);

  if (old != NULL)
    {
      g_autoptr(JsonObject) remove = json_object_new ();

      json_object_set_string_member (remove, "identifier", old);
      stw_surface_send_cdp_async (surface, "Page.removeScriptToEvaluateOnNewDocument", remove, NULL, NULL, NULL);
    }
  json_object_set_string_member (params, "source", source);
  json_object_set_boolean_member (params, "runImmediately", now);
  call->task = task;
  call->hook = hook;
  call->state = state;
  call->key = g_strdup (key);
  stw_surface_send_cdp_async (surface, "Page.addScriptToEvaluateOnNewDocument", params, NULL,
                              on_script_added, call);
}

/* --- an operation ---------------------------------------------------------- */

typedef struct
{
  StwClockPlugin *plugin;
  StwSession     *session;
  ClockState     *state;
  char           *op;
  gint64          value;
  gboolean        has_value;
  GPtrArray      *surfaces;     /* the active window first */
  GPtrArray      *answers;      /* one JsonObject (or NULL) per surface */
  guint           waiting;
  int             phase;
  JsonObject     *main_answer;  /* the main process's, or NULL */
} ClockOp;

static void
clock_op_free (ClockOp *data)
{
  g_object_unref (data->plugin);
  g_object_unref (data->session);
  g_free (data->op);
  g_clear_pointer (&data->surfaces, g_ptr_array_unref);
  g_clear_pointer (&data->answers, g_ptr_array_unref);
  g_clear_pointer (&data->main_answer, json_object_unref);
  g_free (data);
}

static GError *
not_installed (const char *op)
{
  GError *error = stw_error_new ("clock.NOT_INSTALLED",
                                 "The clock of this session is not installed: clock %s needs clock_install first",
                                 op);

  stw_error_set_hint (error, "Call clock_install first");
  return error;
}

static GError *
bad_argument (const char *what,
              gint64      value)
{
  GError *error = stw_error_new ("BAD_ARGUMENT", "%s", what);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_int_member (details, "value", value);
  json_object_set_int_member (details, "maxMs", STW_CLOCK_MAX_MS);
  stw_error_set_details (error, details);
  stw_error_set_hint (error, "Give ms from 0 to 31622400000 (366 days), and a time within JavaScript's Date range");
  return error;
}

/* The state after @data's operation, in the plugin's model. */
static void
model_apply (ClockOp *data)
{
  ClockState *state = data->state;
  const char *op = data->op;

  if (g_str_equal (op, "install"))
    {
      state->installed = TRUE;
      state->fixed = FALSE;
      state->paused = FALSE;
      model_set_wall (state, data->value);
    }
  else if (g_str_equal (op, "set_time"))
    {
      state->fixed = TRUE;
      state->fixed_at = data->value;
    }
  else if (g_str_equal (op, "set_system_time"))
    {
      state->fixed = FALSE;
      model_set_wall (state, data->value);
    }
  else if (g_str_equal (op, "advance") || g_str_equal (op, "run_for"))
    model_set_wall (state, model_wall (state) + data->value);
  else if (g_str_equal (op, "pause"))
    {
      gint64 wall = data->has_value ? data->value : model_wall (state);

      state->paused = TRUE;
      model_set_wall (state, wall);
    }
  else if (g_str_equal (op, "resume"))
    {
      model_set_wall (state, model_wall (state));
      state->paused = FALSE;
    }
}

static StwClockStatus *
status_from (ClockOp *data)
{
  StwClockStatus *status = g_object_new (STW_TYPE_CLOCK_STATUS, NULL);
  ClockState *state = data->state;
  gboolean first = TRUE;

  status->installed = state->installed;
  status->paused = state->paused;
  status->fixed = state->fixed;
  status->now = state->fixed ? state->fixed_at : (state->installed ? model_wall (state) : real_ms ());
  status->max_timers = max_timers (data->plugin);
  if (data->main_answer != NULL)
    {
      status->main_process = TRUE;
      status->fired += json_object_get_int_member_with_default (data->main_answer, "fired", 0);
      status->pending_timers += json_object_get_int_member_with_default (data->main_answer, "pending", 0);
      status->timer_errors += json_object_get_int_member_with_default (data->main_answer, "errors", 0);
      status->limit_reached |= json_object_get_boolean_member_with_default (data->main_answer, "limitReached", FALSE);
    }
  for (guint i = 0; data->answers != NULL && i < data->answers->len; i++)
    {
      JsonObject *value = g_ptr_array_index (data->answers, i);

      if (value == NULL)
        continue;
      status->documents++;
      status->pending_timers += json_object_get_int_member_with_default (value, "pending", 0);
      status->fired += json_object_get_int_member_with_default (value, "fired", 0);
      status->timer_errors += json_object_get_int_member_with_default (value, "errors", 0);
      status->limit_reached |= json_object_get_boolean_member_with_default (value, "limitReached", FALSE);
      if (first)
        {
          first = FALSE;
          status->installed = json_object_get_boolean_member_with_default (value, "installed", FALSE);
          status->paused = json_object_get_boolean_member_with_default (value, "paused", FALSE);
          status->fixed = json_object_get_boolean_member_with_default (value, "fixed", FALSE);
          status->now = json_object_get_int_member_with_default (value, "now", status->now);
          status->ticks = json_object_get_int_member_with_default (value, "ticks", 0);
        }
    }
  return status;
}

static void step (GTask *task);

static void
on_scripts_done (GTask *task)
{
  ClockOp *data = g_task_get_task_data (task);

  if (--data->waiting == 0)
    step (task);
  g_object_unref (task);
}

/* Adds the script to each target once (a same-process frame shares its
 * window's). Returns how many calls were sent. */
static guint
register_scripts (GTask    *task,
                  gboolean  now)
{
  ClockOp *data = g_task_get_task_data (task);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint sent = 0;

  for (guint i = 0; i < data->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (data->surfaces, i);

      if (stw_surface_is_closed (surface) || !g_hash_table_add (seen, (gpointer) surface_key (surface)))
        continue;
      sent++;
    }
  data->waiting = sent + 1;
  g_hash_table_remove_all (seen);
  for (guint i = 0; i < data->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (data->surfaces, i);

      if (stw_surface_is_closed (surface) || !g_hash_table_add (seen, (gpointer) surface_key (surface)))
        continue;
      register_script (data->state, surface, now, g_object_ref (task), NULL);
    }
  return sent;
}

typedef struct
{
  GTask *task;
  guint  index;
} DocCall;

static void
on_document_answered (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  DocCall *call = user_data;
  GTask *task = call->task;
  ClockOp *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  JsonObject *answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;

  if (answer == NULL)
    g_debug ("clock: %s unreachable: %s", stw_surface_get_id (STW_SURFACE (object)),
             error ? error->message : "no answer");
  else if (json_object_get_boolean_member_with_default (answer, "ok", FALSE) &&
           json_object_has_member (answer, "value") &&
           JSON_NODE_HOLDS_OBJECT (json_object_get_member (answer, "value")))
    g_ptr_array_index (data->answers, call->index) = json_object_ref (json_object_get_object_member (answer, "value"));
  else if (json_object_has_member (answer, "error"))
    g_debug ("clock: %s answered %s", stw_surface_get_id (STW_SURFACE (object)),
             json_object_get_string_member_with_default (answer, "error", "?"));
  g_free (call);
  on_scripts_done (task);
}

static JsonObject *
op_argument (ClockOp *data)
{
  JsonObject *arg = json_object_new ();

  if (data->has_value)
    {
      if (g_str_equal (data->op, "advance") || g_str_equal (data->op, "run_for"))
        json_object_set_int_member (arg, "ms", data->value);
      else
        json_object_set_int_member (arg, "time", data->value);
    }
  else if (g_str_equal (data->op, "install"))
    json_object_set_int_member (arg, "time", data->value);
  json_object_set_int_member (arg, "max", max_timers (data->plugin));
  return arg;
}

static void
send_to_documents (GTask *task)
{
  ClockOp *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) arg = op_argument (data);

  data->waiting = data->surfaces->len + 1;
  for (guint i = 0; i < data->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (data->surfaces, i);
      g_autoptr(JsonArray) args = json_array_new ();
      DocCall *call = g_new0 (DocCall, 1);

      json_array_add_string_element (args, data->state->secret);
      json_array_add_string_element (args, data->op);
      json_array_add_object_element (args, json_object_ref (arg));
      json_array_add_int_element (args, CLOCK_CALL_BUDGET_MS);
      call->task = g_object_ref (task);
      call->index = i;
      stw_surface_call_isolated_async (surface, clock_driver, args, g_task_get_cancellable (task),
                                       on_document_answered, call);
    }
}

/* The main process, when the server allows main-process eval: the same
 * agent in Node (its Date and performance.now; its timers with the config's
 * mainTimers), kept under a registered symbol of `process`. */
static gboolean
main_allowed (ClockOp *data)
{
  StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (data->plugin));

  return dispatcher != NULL && (stw_dispatcher_get_allow_eval (dispatcher) & STW_EVAL_TARGET_MAIN) != 0 &&
         stw_session_has_main_process (data->session);
}

static void
on_main_answered (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  ClockOp *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;

  if (answer != NULL && json_object_get_boolean_member_with_default (answer, "ok", FALSE) &&
      json_object_has_member (answer, "value") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (answer, "value")))
    data->main_answer = json_object_ref (json_object_get_object_member (answer, "value"));
  else
    g_debug ("clock: the main process did not answer: %s", error ? error->message : "no clock there");
  on_scripts_done (task);
}

static void
send_to_main (GTask *task)
{
  ClockOp *data = g_task_get_task_data (task);
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (data->plugin));
  gboolean timers = config != NULL && json_object_get_boolean_member_with_default (config, "mainTimers", FALSE);
  g_autoptr(JsonObject) arg = op_argument (data);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), arg);
  g_autofree char *arg_json = json_to_string (node, FALSE);
  g_autofree char *agent = agent_call (data->state, timers, "main");
  g_autofree char *expression = NULL;

  expression = g_strdup_printf ("(async () => {\n"
                                "const op = \"%s\";\n"
                                "const c = process[Symbol.for('stagewright.clock')] || (op === 'install' ? %s : null);\n"
                                "if (!c) return { absent: true };\n"
                                "return await c(op, %s);\n"
                                "})()",
                                data->op, agent, arg_json);
  data->waiting = 2;
  stw_session_evaluate_main_async (data->session, expression, g_task_get_cancellable (task), on_main_answered,
                                   g_object_ref (task));
}

/* The phases: (install: the script into every target and its live
 * documents), the operation in every live document, (main eval allowed:
 * in the main process), (after a change: the script with the new state
 * into every target), done. Each phase holds one reference to the task
 * per call it waits for, plus one. */
static void
step (GTask *task)
{
  ClockOp *data = g_task_get_task_data (task);
  gboolean install = g_str_equal (data->op, "install");
  gboolean query = g_str_equal (data->op, "status");

  switch (data->phase++)
    {
    case 0:
      if (install)
        {
          register_scripts (task, TRUE);
          on_scripts_done (g_object_ref (task));
          return;
        }
      G_GNUC_FALLTHROUGH;
    case 1:
      data->phase = 2;
      send_to_documents (task);
      on_scripts_done (g_object_ref (task));
      return;
    case 2:
      if (main_allowed (data))
        {
          send_to_main (task);
          on_scripts_done (g_object_ref (task));
          return;
        }
      G_GNUC_FALLTHROUGH;
    case 3:
      data->phase = 4;
      if (!install && !query)
        {
          register_scripts (task, FALSE);
          on_scripts_done (g_object_ref (task));
          return;
        }
      G_GNUC_FALLTHROUGH;
    default:
      data->phase = 5;
      g_task_return_pointer (task, status_from (data), g_object_unref);
      return;
    }
}

static void
answer_free (gpointer answer)
{
  if (answer != NULL)
    json_object_unref (answer);
}

static void
on_surfaces_refreshed (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ClockOp *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) surfaces = NULL;
  StwSurface *active;

  if (!stw_session_refresh_surfaces_finish (STW_SESSION (object), result, &error))
    {
      if (g_error_matches (error, STW_ERROR, STW_ERROR_TRANSPORT_UNSUPPORTED))
        {
          GError *unsupported = stw_error_new ("clock.UNSUPPORTED",
                                               "This session has no renderer to put a clock in: %s",
                                               error->message);

          stw_error_set_hint (unsupported, "Launch or attach the app with its renderers reachable over CDP");
          g_task_return_error (task, unsupported);
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  surfaces = stw_session_list_surfaces (data->session);
  active = stw_session_get_active_window (data->session);
  data->surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  if (active != NULL && !stw_surface_is_closed (active))
    g_ptr_array_add (data->surfaces, g_object_ref (active));
  for (GList *l = surfaces; l != NULL; l = l->next)
    if (l->data != active && !stw_surface_is_closed (l->data))
      g_ptr_array_add (data->surfaces, g_object_ref (l->data));
  data->answers = g_ptr_array_new_with_free_func (answer_free);
  g_ptr_array_set_size (data->answers, data->surfaces->len);

  if (!g_str_equal (data->op, "status"))
    model_apply (data);
  data->phase = 0;
  step (task);
}

void
_stw_clock_plugin_run_async (StwClockPlugin      *self,
                             StwSession          *session,
                             const char          *op,
                             gint64               value,
                             gboolean             has_value,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ClockOp *data;
  ClockState *state;
  gboolean span;

  g_return_if_fail (STW_IS_CLOCK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, _stw_clock_plugin_run_async);
  state = ensure_state (self, session);

  /* Hostile values stop here, for every caller (C and Python skip the
   * tools' schemas). */
  span = g_str_equal (op, "advance") || g_str_equal (op, "run_for");
  if (span && (value < 0 || value > STW_CLOCK_MAX_MS))
    {
      g_task_return_error (task, bad_argument ("ms must be from 0 to 31622400000 (366 days)", value));
      return;
    }
  if (!span && has_value && (value < -STW_CLOCK_MAX_TIME_MS || value > STW_CLOCK_MAX_TIME_MS))
    {
      g_task_return_error (task, bad_argument ("The time is outside JavaScript's Date range", value));
      return;
    }
  if (!g_str_equal (op, "install") && !g_str_equal (op, "status") && !state->installed)
    {
      g_task_return_error (task, not_installed (op));
      return;
    }
  if (g_str_equal (op, "pause") && has_value && value < model_wall (state))
    {
      g_task_return_error (task, bad_argument ("The clock cannot pause at a time before its now", value));
      return;
    }
  if (!stw_session_is_running (session))
    {
      g_task_return_error (task, stw_error_new_literal ("NOT_RUNNING", "The app is not running"));
      return;
    }

  data = g_new0 (ClockOp, 1);
  data->plugin = g_object_ref (self);
  data->session = g_object_ref (session);
  data->state = state;
  data->op = g_strdup (op);
  data->value = value;
  data->has_value = has_value;
  if (g_str_equal (op, "install") && !has_value)
    data->value = real_ms ();
  g_task_set_task_data (task, data, (GDestroyNotify) clock_op_free);
  stw_session_refresh_surfaces_async (session, cancellable, on_surfaces_refreshed, g_steal_pointer (&task));
}

StwClockStatus *
_stw_clock_plugin_run_finish (StwClockPlugin  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- the public operations ------------------------------------------------- */

static gint64
time_ms (GDateTime *time)
{
  return g_date_time_to_unix (time) * 1000 + g_date_time_get_microsecond (time) / 1000;
}

/**
 * stw_clock_plugin_new:
 *
 * A clock plugin, for [method@Stagewright.Dispatcher.add_plugins_async].
 *
 * Returns: (transfer full): a new plugin
 */
StwClockPlugin *
stw_clock_plugin_new (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"maxTimersPerCall\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000,\"default\":10000,"
    "\"x-stagewright-safe\":true},"
    "\"mainTimers\":{\"type\":\"boolean\",\"default\":false,\"x-stagewright-safe\":true}}}", NULL);

  return g_object_new (STW_TYPE_CLOCK_PLUGIN,
                       "name", "clock",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "config-schema", config,
                       NULL);
}

/**
 * stw_clock_parse_time:
 * @value: a JSON number (ms since the epoch) or string (ISO 8601, e.g.
 *   `2030-01-01T00:00:00Z`, or a date `2030-01-01`, read as UTC)
 * @ms: (out): the time in ms since the epoch
 * @error: where to put a `BAD_ARGUMENT`
 *
 * Reads a time as the clock tools take it, refusing what is not a time or
 * lies outside JavaScript's `Date` range.
 *
 * Returns: whether @value is a time
 */
gboolean
stw_clock_parse_time (JsonNode  *value,
                      gint64    *ms,
                      GError   **error)
{
  GType type = value != NULL && JSON_NODE_HOLDS_VALUE (value) ? json_node_get_value_type (value) : G_TYPE_INVALID;

  if (type == G_TYPE_INT64)
    {
      *ms = json_node_get_int (value);
      if (*ms < -STW_CLOCK_MAX_TIME_MS || *ms > STW_CLOCK_MAX_TIME_MS)
        {
          g_propagate_error (error, bad_argument ("The time is outside JavaScript's Date range", *ms));
          return FALSE;
        }
      return TRUE;
    }
  if (type == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (value);

      if (!isfinite (d) || d < -(double) STW_CLOCK_MAX_TIME_MS || d > (double) STW_CLOCK_MAX_TIME_MS)
        {
          g_propagate_error (error, bad_argument ("The time is outside JavaScript's Date range", 0));
          return FALSE;
        }
      *ms = (gint64) d;
      return TRUE;
    }
  if (type == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (value);
      g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
      g_autoptr(GDateTime) parsed = NULL;

      if (strlen (text) == 10)
        {
          g_autofree char *midnight = g_strconcat (text, "T00:00:00Z", NULL);

          parsed = g_date_time_new_from_iso8601 (midnight, utc);
        }
      else if (strlen (text) <= 64)
        parsed = g_date_time_new_from_iso8601 (text, utc);
      if (parsed != NULL)
        {
          *ms = time_ms (parsed);
          return TRUE;
        }
    }
  g_propagate_error (error, stw_error_new_literal ("BAD_ARGUMENT",
                                                   "A time is a number (ms since the epoch) or an ISO 8601 "
                                                   "string such as 2030-01-01T00:00:00Z"));
  return FALSE;
}

static void
run_time (StwClockPlugin      *self,
          StwSession          *session,
          const char          *op,
          GDateTime           *time,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  _stw_clock_plugin_run_async (self, session, op, time ? time_ms (time) : 0, time != NULL, cancellable,
                               callback, user_data);
}

/**
 * stw_clock_plugin_install_async:
 * @self: a #StwClockPlugin
 * @session: the session whose renderers get the clock
 * @time: (nullable): the time the clock starts from; %NULL for now
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Installs the fake clock in every window, frame and webview of @session,
 * those that run and those to come, from @time on: it runs with real time
 * (timers fire as time passes) until paused. Installing again sets the
 * time. Playwright's `clock.install({time})`.
 */
void
stw_clock_plugin_install_async (StwClockPlugin      *self,
                                StwSession          *session,
                                GDateTime           *time,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  run_time (self, session, "install", time, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_install_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_install_finish (StwClockPlugin  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_set_time_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: the time `Date.now()` answers from now on
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Freezes `Date.now()` at @time; timers still run. Playwright's
 * `clock.setFixedTime`. `clock.NOT_INSTALLED` before an install.
 */
void
stw_clock_plugin_set_time_async (StwClockPlugin      *self,
                                 StwSession          *session,
                                 GDateTime           *time,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (time != NULL);
  run_time (self, session, "set_time", time, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_set_time_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_set_time_finish (StwClockPlugin  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_set_system_time_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: the new wall time
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Moves the wall time to @time without firing timers (as when the
 * system's clock is changed), and unfreezes a fixed time. Playwright's
 * `clock.setSystemTime`.
 */
void
stw_clock_plugin_set_system_time_async (StwClockPlugin      *self,
                                        StwSession          *session,
                                        GDateTime           *time,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_return_if_fail (time != NULL);
  run_time (self, session, "set_system_time", time, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_set_system_time_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_set_system_time_finish (StwClockPlugin  *self,
                                         GAsyncResult    *result,
                                         GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_advance_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @ms: how far to jump, 0 to %STW_CLOCK_MAX_MS
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Jumps @ms ahead: every timer due meanwhile fires once, at the end (as
 * when a laptop's lid was closed). Playwright's `clock.fastForward`.
 */
void
stw_clock_plugin_advance_async (StwClockPlugin      *self,
                                StwSession          *session,
                                gint64               ms,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  _stw_clock_plugin_run_async (self, session, "advance", ms, TRUE, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_advance_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_advance_finish (StwClockPlugin  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_run_for_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @ms: how far to run, 0 to %STW_CLOCK_MAX_MS
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Runs the clock @ms ahead at once, firing every timer due meanwhile in
 * order (intervals as often as they fall due), with `Date` at each
 * timer's time. A document fires at most the config's `maxTimersPerCall`
 * timers per call; past that it stops at the last one fired and the
 * status says `limit-reached`. Playwright's `clock.runFor`.
 */
void
stw_clock_plugin_run_for_async (StwClockPlugin      *self,
                                StwSession          *session,
                                gint64               ms,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  _stw_clock_plugin_run_async (self, session, "run_for", ms, TRUE, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_run_for_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_run_for_finish (StwClockPlugin  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_pause_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: (nullable): jump to this time first (as advance does); %NULL
 *   to pause where the clock is
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Stops the clock: `Date` and timers stand still until an operation moves
 * them. A @time before the clock's now is `BAD_ARGUMENT`. Playwright's
 * `clock.pauseAt`.
 */
void
stw_clock_plugin_pause_async (StwClockPlugin      *self,
                              StwSession          *session,
                              GDateTime           *time,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  run_time (self, session, "pause", time, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_pause_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_pause_finish (StwClockPlugin  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_resume_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * Lets a paused clock run with real time again. Playwright's
 * `clock.resume`.
 */
void
stw_clock_plugin_resume_async (StwClockPlugin      *self,
                               StwSession          *session,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  _stw_clock_plugin_run_async (self, session, "resume", 0, FALSE, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_resume_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_resume_finish (StwClockPlugin  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/**
 * stw_clock_plugin_status_async:
 * @self: a #StwClockPlugin
 * @session: the session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the status
 * @user_data: data for @callback
 *
 * The clock's status in every live document, without changing it; before
 * an install, `installed` is false and `now` the real time.
 */
void
stw_clock_plugin_status_async (StwClockPlugin      *self,
                               StwSession          *session,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  _stw_clock_plugin_run_async (self, session, "status", 0, FALSE, cancellable, callback, user_data);
}

/**
 * stw_clock_plugin_status_finish:
 * @self: a #StwClockPlugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_status_finish (StwClockPlugin  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  return _stw_clock_plugin_run_finish (self, result, error);
}

/* The blocking forms: each iterates the context the session remembers
 * (stw-sync.h), as the library's own _sync functions do. */
static StwClockStatus *
run_sync (StwClockPlugin  *self,
          StwSession      *session,
          const char      *op,
          gint64           value,
          gboolean         has_value,
          GCancellable    *cancellable,
          GError         **error)
{
  StwSyncCall call;
  StwClockStatus *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  _stw_clock_plugin_run_async (self, session, op, value, has_value, cancellable, stw_sync_call_callback, &call);
  ret = _stw_clock_plugin_run_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_clock_plugin_install_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: (nullable): the time the clock starts from; %NULL for now
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.install_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_install_sync (StwClockPlugin  *self,
                               StwSession      *session,
                               GDateTime       *time,
                               GCancellable    *cancellable,
                               GError         **error)
{
  return run_sync (self, session, "install", time ? time_ms (time) : 0, time != NULL, cancellable, error);
}

/**
 * stw_clock_plugin_set_time_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: the time `Date.now()` answers from now on
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.set_time_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_set_time_sync (StwClockPlugin  *self,
                                StwSession      *session,
                                GDateTime       *time,
                                GCancellable    *cancellable,
                                GError         **error)
{
  return run_sync (self, session, "set_time", time ? time_ms (time) : 0, time != NULL, cancellable, error);
}

/**
 * stw_clock_plugin_set_system_time_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: the new wall time
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.set_system_time_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_set_system_time_sync (StwClockPlugin  *self,
                                       StwSession      *session,
                                       GDateTime       *time,
                                       GCancellable    *cancellable,
                                       GError         **error)
{
  return run_sync (self, session, "set_system_time", time ? time_ms (time) : 0, time != NULL, cancellable, error);
}

/**
 * stw_clock_plugin_advance_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @ms: how far to jump, 0 to %STW_CLOCK_MAX_MS
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.advance_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_advance_sync (StwClockPlugin  *self,
                               StwSession      *session,
                               gint64           ms,
                               GCancellable    *cancellable,
                               GError         **error)
{
  return run_sync (self, session, "advance", ms, TRUE, cancellable, error);
}

/**
 * stw_clock_plugin_run_for_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @ms: how far to run, 0 to %STW_CLOCK_MAX_MS
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.run_for_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_run_for_sync (StwClockPlugin  *self,
                               StwSession      *session,
                               gint64           ms,
                               GCancellable    *cancellable,
                               GError         **error)
{
  return run_sync (self, session, "run_for", ms, TRUE, cancellable, error);
}

/**
 * stw_clock_plugin_pause_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @time: (nullable): jump to this time first; %NULL to pause where the clock is
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.pause_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_pause_sync (StwClockPlugin  *self,
                             StwSession      *session,
                             GDateTime       *time,
                             GCancellable    *cancellable,
                             GError         **error)
{
  return run_sync (self, session, "pause", time ? time_ms (time) : 0, time != NULL, cancellable, error);
}

/**
 * stw_clock_plugin_resume_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.resume_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_resume_sync (StwClockPlugin  *self,
                              StwSession      *session,
                              GCancellable    *cancellable,
                              GError         **error)
{
  return run_sync (self, session, "resume", 0, FALSE, cancellable, error);
}

/**
 * stw_clock_plugin_status_sync:
 * @self: a #StwClockPlugin
 * @session: the session
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightClock.ClockPlugin.status_async].
 *
 * Returns: (transfer full): the clock's status, or %NULL with @error set
 */
StwClockStatus *
stw_clock_plugin_status_sync (StwClockPlugin  *self,
                              StwSession      *session,
                              GCancellable    *cancellable,
                              GError         **error)
{
  return run_sync (self, session, "status", 0, FALSE, cancellable, error);
}

/* --- the new-surface hook -------------------------------------------------- */

static void
hook_done (HookCall *hook)
{
  g_object_unref (hook->session);
  stw_plugin_completion_return_success (hook->completion);
  g_object_unref (hook->completion);
  g_free (hook);
}

/* A new window, frame or webview of a session whose clock is installed
 * gets the script before its first script runs, so its first script
 * already sees the fake clock. */
static void
stw_clock_plugin_surface_attached (StwPlugin           *plugin,
                                   StwPluginCompletion *completion)
{
  StwSession *session = stw_plugin_completion_get_session (completion);
  StwSurface *surface = stw_plugin_completion_get_surface (completion);
  ClockState *state = session ? g_object_get_qdata (G_OBJECT (session), state_quark ()) : NULL;
  HookCall *hook;

  if (state == NULL || !state->installed || surface == NULL ||
      g_hash_table_contains (state->scripts, surface_key (surface)))
    {
      stw_plugin_completion_return_success (completion);
      return;
    }
  hook = g_new0 (HookCall, 1);
  hook->completion = g_object_ref (completion);
  hook->session = g_object_ref (session);
  register_script (state, surface, TRUE, NULL, hook);
}

static void
stw_clock_plugin_class_init (StwClockPluginClass *klass)
{
  STW_PLUGIN_CLASS (klass)->surface_attached = stw_clock_plugin_surface_attached;

  /* The domain exists before the plugin makes its first error, so that
   * stw_error_new() makes its codes in it. */
  stw_clock_error_quark ();
}

static void
stw_clock_plugin_init (StwClockPlugin *self)
{
  _stw_clock_plugin_add_tools (self);
}
