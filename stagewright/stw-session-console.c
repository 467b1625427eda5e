/* stw-session-console.c: what the app logged, in every process
 *
 * One ring per session of STW_CONSOLE_ENTRIES_MAX entries, filled as events
 * arrive: every renderer target's `Runtime.consoleAPICalled`,
 * `Runtime.exceptionThrown` and `Log.entryAdded` (windows, out-of-process
 * frames, webviews; a same-process frame's messages come through its page
 * and are told apart by their execution context), the main process's
 * console through its inspector, and the app's stdout and stderr lines as
 * the launcher reads them. Reading is a filter over the ring: no I/O.
 * The session holds the ring (its private struct) and turns each renderer
 * target on as it becomes a surface (_stw_session_console_enable()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-console.h"
#include "stw-regex-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"

/* Text kept per entry (characters): what `match` sees too. */
#define TEXT_MAX_CHARS 20000
#define ARGS_MAX 64
#define LIMIT_DEFAULT 200

struct _StwConsoleMessage
{
  gatomicrefcount  ref_count;
  JsonObject      *entry;   /* as the ring holds it */
};

struct _StwConsoleLog
{
  gatomicrefcount  ref_count;
  GPtrArray       *messages;   /* of StwConsoleMessage, oldest first */
  guint64          overflowed;
};

static JsonNode *console_message_serialize (gconstpointer boxed);
/* Their JSON (json_boxed_serialize()) is the wire form of their tool. */
G_DEFINE_BOXED_TYPE_WITH_CODE (StwConsoleMessage, stw_console_message, stw_console_message_ref, stw_console_message_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, console_message_serialize))
static JsonNode *console_log_serialize (gconstpointer boxed);
G_DEFINE_BOXED_TYPE_WITH_CODE (StwConsoleLog, stw_console_log, stw_console_log_ref, stw_console_log_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, console_log_serialize))

static StwConsoleMessage *console_message_new (JsonObject *entry);

struct _StwSessionConsole
{
  GQueue      entries;     /* JsonObject*, oldest first */
  guint64     overflowed;
  /* "cdp-session/context-id" → frame id, from executionContextCreated. */
  GHashTable *contexts;
};
typedef StwSessionConsole Console;

Console *
_stw_session_console_new (void)
{
  Console *console = g_new0 (Console, 1);

  g_queue_init (&console->entries);
  console->contexts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return console;
}

void
_stw_session_console_free (Console *console)
{
  g_queue_clear_full (&console->entries, (GDestroyNotify) json_object_unref);
  g_hash_table_unref (console->contexts);
  g_free (console);
}

static Console *
console_get (StwSession *session)
{
  return _stw_session_get_console (session);
}

/* Keeps at most TEXT_MAX_CHARS characters of @text (valid UTF-8). */
static void
set_text (JsonObject *entry,
          const char *text)
{
  if (g_utf8_strlen (text, -1) > TEXT_MAX_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (text, 0, TEXT_MAX_CHARS);

      json_object_set_string_member (entry, "text", cut);
      json_object_set_boolean_member (entry, "truncated", TRUE);
    }
  else
    json_object_set_string_member (entry, "text", text);
}

static void
push (StwSession *session,
      JsonObject *entry)
{
  Console *console = console_get (session);

  g_queue_push_tail (&console->entries, entry);
  while (console->entries.length > STW_CONSOLE_ENTRIES_MAX)
    {
      json_object_unref (g_queue_pop_head (&console->entries));
      console->overflowed++;
    }
}

static JsonObject *
entry_new (const char *source,
           const char *type,
           double      timestamp_ms)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "source", source);
  json_object_set_string_member (entry, "type", type);
  json_object_set_int_member (entry, "timestamp",
                              timestamp_ms > 0 ? (gint64) timestamp_ms : g_get_real_time () / 1000);
  return entry;
}

/* --- formatting a console call ------------------------------------------ */

/* An object or array as DevTools shows it in one line, from the preview
 * the inspector sends: `{a: 1, b: "x"}`, `[1, 2, …]`. */
static void
append_preview (GString    *out,
                JsonObject *preview)
{
  gboolean array = g_strcmp0 (stw_json_get_string (preview, "subtype"), "array") == 0;
  JsonArray *properties = json_object_has_member (preview, "properties")
                          ? json_object_get_array_member (preview, "properties") : NULL;

  g_string_append_c (out, array ? '[' : '{');
  for (guint i = 0; properties != NULL && i < json_array_get_length (properties); i++)
    {
      JsonObject *property = json_array_get_object_element (properties, i);
      const char *value = property ? stw_json_get_string (property, "value") : NULL;

      if (property == NULL)
        continue;
      if (i > 0)
        g_string_append (out, ", ");
      if (!array)
        g_string_append_printf (out, "%s: ", stw_json_get_string (property, "name") ?: "");
      if (g_strcmp0 (stw_json_get_string (property, "type"), "string") == 0)
        g_string_append_printf (out, "\"%s\"", value ?: "");
      else
        g_string_append (out, value ?: "…");
    }
  if (json_object_get_boolean_member_with_default (preview, "overflow", FALSE))
    g_string_append (out, properties && json_array_get_length (properties) > 0 ? ", …" : "…");
  g_string_append_c (out, array ? ']' : '}');
}

static void
append_remote (GString    *out,
               JsonObject *object)
{
  JsonNode *value = object ? json_object_get_member (object, "value") : NULL;
  const char *text;

  if (object == NULL)
    return;
  /* Plain objects and arrays from their preview; the description says
   * more for the rest (an Error's is its stack). */
  if (value == NULL && json_object_has_member (object, "preview") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "preview")) &&
      (stw_json_get_string (object, "subtype") == NULL ||
       g_strcmp0 (stw_json_get_string (object, "subtype"), "array") == 0))
    append_preview (out, json_object_get_object_member (object, "preview"));
  else if (value != NULL && JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    g_string_append (out, json_node_get_string (value));
  else if (value != NULL)
    {
      g_autofree char *json = stw_json_to_string (value, NULL);
      g_string_append (out, json);
    }
  else if ((text = stw_json_get_string (object, "unserializableValue")) != NULL ||
           (text = stw_json_get_string (object, "description")) != NULL ||
           (text = stw_json_get_string (object, "type")) != NULL)
    g_string_append (out, text);
}

/* console.log's own rules, in short: a string first argument may hold
 * %s %d %i %f %o %O %c, each taking the next argument. */
static char *
format_args (JsonArray *args)
{
  GString *out = g_string_new (NULL);
  guint n = args ? MIN (json_array_get_length (args), ARGS_MAX) : 0;
  guint next = 1;

  if (n == 0)
    return g_string_free (out, FALSE);

  {
    JsonObject *first = json_array_get_object_element (args, 0);
    JsonNode *value = first ? json_object_get_member (first, "value") : NULL;

    if (value != NULL && JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
      {
        const char *p = json_node_get_string (value);

        for (; *p != '\0'; p++)
          {
            if (p[0] == '%' && p[1] != '\0' && strchr ("sdifoOc%", p[1]) != NULL)
              {
                p++;
                if (*p == '%')
                  g_string_append_c (out, '%');
                else if (next < n)
                  {
                    if (*p != 'c')
                      append_remote (out, json_array_get_object_element (args, next));
                    next++;
                  }
                else
                  {
                    g_string_append_c (out, '%');
                    g_string_append_c (out, *p);
                  }
                continue;
              }
            g_string_append_c (out, *p);
          }
      }
    else
      {
        append_remote (out, first);
      }
  }
  for (guint i = next; i < n; i++)
    {
      g_string_append_c (out, ' ');
      append_remote (out, json_array_get_object_element (args, i));
    }
  return g_string_free (out, FALSE);
}

static void
set_location (JsonObject *entry,
              const char *url,
              gint64      line,
              gint64      column)
{
  JsonObject *location;

  if (url == NULL || *url == '\0')
    return;
  location = json_object_new ();
  json_object_set_string_member (location, "url", url);
  if (line >= 0)
    json_object_set_int_member (location, "line", line + 1);
  if (column >= 0)
    json_object_set_int_member (location, "column", column + 1);
  json_object_set_object_member (entry, "location", location);
}

static void
set_location_from_stack (JsonObject *entry,
                         JsonObject *stack)
{
  JsonArray *frames = stack && json_object_has_member (stack, "callFrames")
                      ? json_object_get_array_member (stack, "callFrames") : NULL;
  JsonObject *top = frames && json_array_get_length (frames) > 0 ? json_array_get_object_element (frames, 0) : NULL;

  if (top != NULL)
    set_location (entry, stw_json_get_string (top, "url"),
                  json_object_get_int_member_with_default (top, "lineNumber", -1),
                  json_object_get_int_member_with_default (top, "columnNumber", -1));
}

/* The surface a renderer message came from: the target's, or for a
 * same-process frame (its own execution context) that frame's surface. */
static void
set_surface (StwSession *session,
             JsonObject *entry,
             const char *cdp_session,
             gint64      context_id)
{
  Console *console = console_get (session);
  StwSurface *surface = _stw_session_target_surface (session, cdp_session);
  g_autofree char *key = g_strdup_printf ("%s/%" G_GINT64_FORMAT, cdp_session ? cdp_session : "", context_id);
  const char *frame_id = g_hash_table_lookup (console->contexts, key);

  if (surface != NULL && frame_id != NULL)
    {
      StwSurface *frame = _stw_session_find_surface_by (session, stw_surface_get_target_id (surface), NULL, frame_id);

      if (frame != NULL)
        surface = frame;
    }
  if (surface == NULL)
    return;
  if (stw_surface_get_window_id (surface) != NULL)
    json_object_set_string_member (entry, "windowId", stw_surface_get_window_id (surface));
  json_object_set_string_member (entry, "surfaceId", stw_surface_get_id (surface));
}

/* console.* types as the reference names them (warn → warning). */
static const char *
console_type (const char *type)
{
  if (type == NULL)
    return "log";
  if (g_str_equal (type, "warn"))
    return "warning";
  return type;
}

static JsonObject *
console_call_entry (const char *source,
                    JsonObject *params)
{
  const char *type = console_type (stw_json_get_string (params, "type"));
  JsonArray *args = json_object_has_member (params, "args") ? json_object_get_array_member (params, "args") : NULL;
  g_autofree char *text = format_args (args);
  JsonObject *entry = entry_new (source, type, json_object_get_double_member_with_default (params, "timestamp", 0));

  set_text (entry, text);
  if (json_object_has_member (params, "stackTrace"))
    set_location_from_stack (entry, json_object_get_object_member (params, "stackTrace"));
  return entry;
}

static JsonObject *
exception_entry (const char *source,
                 JsonObject *params)
{
  JsonObject *details = json_object_has_member (params, "exceptionDetails")
                        ? json_object_get_object_member (params, "exceptionDetails") : NULL;
  JsonObject *exception = details && json_object_has_member (details, "exception")
                          ? json_object_get_object_member (details, "exception") : NULL;
  const char *text = exception ? stw_json_get_string (exception, "description") : NULL;
  JsonObject *entry = entry_new (source, "error", json_object_get_double_member_with_default (params, "timestamp", 0));

  if (text == NULL && details != NULL)
    text = stw_json_get_string (details, "text");
  set_text (entry, text ? text : "Uncaught exception");
  json_object_set_boolean_member (entry, "exception", TRUE);
  if (details != NULL)
    set_location (entry, stw_json_get_string (details, "url"),
                  json_object_get_int_member_with_default (details, "lineNumber", -1),
                  json_object_get_int_member_with_default (details, "columnNumber", -1));
  return entry;
}

/* --- renderer targets ---------------------------------------------------- */

static gboolean
is_renderer_session (StwSession *session,
                     const char *cdp_session)
{
  return _stw_session_target_surface (session, cdp_session) != NULL;
}

static void
on_renderer_console (StwTransport *transport,
                     const char   *method,
                     JsonObject   *params,
                     const char   *cdp_session,
                     StwSession   *session)
{
  JsonObject *entry;

  if (!is_renderer_session (session, cdp_session))
    return;
  entry = console_call_entry ("renderer", params);
  set_surface (session, entry, cdp_session, json_object_get_int_member_with_default (params, "executionContextId", 0));
  push (session, entry);
}

static void
on_renderer_exception (StwTransport *transport,
                       const char   *method,
                       JsonObject   *params,
                       const char   *cdp_session,
                       StwSession   *session)
{
  JsonObject *details = json_object_has_member (params, "exceptionDetails")
                        ? json_object_get_object_member (params, "exceptionDetails") : NULL;
  JsonObject *entry;

  if (!is_renderer_session (session, cdp_session))
    return;
  entry = exception_entry ("renderer", params);
  set_surface (session, entry, cdp_session,
               details ? json_object_get_int_member_with_default (details, "executionContextId", 0) : 0);
  push (session, entry);
}

static void
on_log_entry (StwTransport *transport,
              const char   *method,
              JsonObject   *params,
              const char   *cdp_session,
              StwSession   *session)
{
  JsonObject *log = json_object_has_member (params, "entry") ? json_object_get_object_member (params, "entry") : NULL;
  const char *level;
  JsonObject *entry;

  if (log == NULL || !is_renderer_session (session, cdp_session))
    return;
  level = stw_json_get_string (log, "level");
  if (level == NULL || g_str_equal (level, "verbose"))
    level = "debug";
  entry = entry_new ("renderer", level, json_object_get_double_member_with_default (log, "timestamp", 0));
  set_text (entry, stw_json_get_string (log, "text") ?: "");
  if (stw_json_get_string (log, "source") != NULL)
    json_object_set_string_member (entry, "origin", stw_json_get_string (log, "source"));
  set_location (entry, stw_json_get_string (log, "url"), json_object_get_int_member_with_default (log, "lineNumber", -1), -1);
  set_surface (session, entry, cdp_session, 0);
  push (session, entry);
}

static void
on_context_created (StwTransport *transport,
                    const char   *method,
                    JsonObject   *params,
                    const char   *cdp_session,
                    StwSession   *session)
{
  JsonObject *context = json_object_has_member (params, "context") ? json_object_get_object_member (params, "context") : NULL;
  JsonObject *aux = context && json_object_has_member (context, "auxData")
                    ? json_object_get_object_member (context, "auxData") : NULL;
  const char *frame_id = aux ? stw_json_get_string (aux, "frameId") : NULL;

  if (frame_id == NULL || !is_renderer_session (session, cdp_session))
    return;
  g_hash_table_insert (console_get (session)->contexts,
                       g_strdup_printf ("%s/%" G_GINT64_FORMAT, cdp_session,
                                        json_object_get_int_member_with_default (context, "id", 0)),
                       g_strdup (frame_id));
}

static void
on_context_destroyed (StwTransport *transport,
                      const char   *method,
                      JsonObject   *params,
                      const char   *cdp_session,
                      StwSession   *session)
{
  g_autofree char *key = g_strdup_printf ("%s/%" G_GINT64_FORMAT, cdp_session ? cdp_session : "",
                                          json_object_get_int_member_with_default (params, "executionContextId", 0));

  g_hash_table_remove (console_get (session)->contexts, key);
}

static void
on_contexts_cleared (StwTransport *transport,
                     const char   *method,
                     JsonObject   *params,
                     const char   *cdp_session,
                     StwSession   *session)
{
  GHashTable *contexts = console_get (session)->contexts;
  g_autofree char *prefix = g_strconcat (cdp_session ? cdp_session : "", "/", NULL);
  GHashTableIter iter;
  const char *key;

  g_hash_table_iter_init (&iter, contexts);
  while (g_hash_table_iter_next (&iter, (gpointer *) &key, NULL))
    if (g_str_has_prefix (key, prefix))
      g_hash_table_iter_remove (&iter);
}

/* A renderer target that became a surface: its console from now on. */
void
_stw_session_console_enable (StwTransport *browser,
                             const char   *cdp_session)
{
  stw_transport_send_notification (browser, "Runtime.enable", NULL, cdp_session);
  stw_transport_send_notification (browser, "Log.enable", NULL, cdp_session);
}

/* --- the main process ----------------------------------------------------- */

static void
on_main_console (StwTransport *transport,
                 const char   *method,
                 JsonObject   *params,
                 const char   *cdp_session,
                 StwSession   *session)
{
  push (session, console_call_entry ("main", params));
}

static void
on_main_exception (StwTransport *transport,
                   const char   *method,
                   JsonObject   *params,
                   const char   *cdp_session,
                   StwSession   *session)
{
  push (session, exception_entry ("main", params));
}

static void
on_output_line (StwProcess *process,
                const char *stream,
                const char *line,
                StwSession *session)
{
  JsonObject *entry = entry_new (stream, g_str_equal (stream, "stderr") ? "error" : "log", 0);

  set_text (entry, line);
  push (session, entry);
}

void
_stw_console_connect_inspector (StwSession   *session,
                                StwTransport *inspector)
{
  /* Runtime is enabled on the inspector when the session starts. */
  g_signal_connect (inspector, "event::Runtime.consoleAPICalled", G_CALLBACK (on_main_console), session);
  g_signal_connect (inspector, "event::Runtime.exceptionThrown", G_CALLBACK (on_main_exception), session);
}

void
_stw_console_connect (StwSession   *session,
                      StwTransport *browser,
                      StwTransport *inspector,
                      StwProcess   *process)
{
  if (browser != NULL)
    {
      g_signal_connect (browser, "event::Runtime.consoleAPICalled", G_CALLBACK (on_renderer_console), session);
      g_signal_connect (browser, "event::Runtime.exceptionThrown", G_CALLBACK (on_renderer_exception), session);
      g_signal_connect (browser, "event::Runtime.executionContextCreated", G_CALLBACK (on_context_created), session);
      g_signal_connect (browser, "event::Runtime.executionContextDestroyed", G_CALLBACK (on_context_destroyed), session);
      g_signal_connect (browser, "event::Runtime.executionContextsCleared", G_CALLBACK (on_contexts_cleared), session);
      g_signal_connect (browser, "event::Log.entryAdded", G_CALLBACK (on_log_entry), session);
    }
  if (inspector != NULL)
    _stw_console_connect_inspector (session, inspector);
  if (process != NULL)
    g_signal_connect (process, "output-line", G_CALLBACK (on_output_line), session);
}

/* --- the match pattern ----------------------------------------------------- */

/* @match is a pattern, or /pattern/flags as in JavaScript. It passes the
 * library's one safety check (stw-regex.c: flags of imsu, a length cap,
 * no shape that backtracks exponentially) before GRegex compiles it. */
GRegex *
_stw_console_compile_match (const char  *match,
                            GError     **error)
{
  g_autofree char *pattern = NULL;
  g_autofree char *letters = NULL;
  /* ECMA-262 `$` does not match before a trailing newline. */
  GRegexCompileFlags flags = G_REGEX_OPTIMIZE | G_REGEX_DOLLAR_ENDONLY;
  g_autoptr(GError) local = NULL;
  GRegex *regex;

  if (match[0] == '/' && strrchr (match, '/') != match)
    {
      const char *end = strrchr (match, '/');

      pattern = g_strndup (match + 1, (gsize) (end - match - 1));
      letters = g_strdup (end + 1);
    }
  else
    pattern = g_strdup (match);

  if (!_stw_regex_check (pattern, letters, "match", error))
    return NULL;
  for (const char *f = letters; f != NULL && *f != '\0'; f++)
    if (*f == 'i')
      flags |= G_REGEX_CASELESS;
    else if (*f == 'm')
      flags |= G_REGEX_MULTILINE;
    else if (*f == 's')
      flags |= G_REGEX_DOTALL;
    /* u: GRegex matches UTF-8 already */

  regex = g_regex_new (pattern, flags, 0, &local);
  if (regex == NULL)
    g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("match is not a valid regular expression: %s"), local->message));
  return regex;
}

/* --- reading --------------------------------------------------------------- */

/* @member of @filter as a set of strings: a string or an array of them. */
static GPtrArray *
string_set (JsonObject  *filter,
            const char  *member,
            GError     **error)
{
  JsonNode *node = filter ? json_object_get_member (filter, member) : NULL;
  g_autoptr(GPtrArray) set = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  set = g_ptr_array_new ();
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_ptr_array_add (set, (gpointer) json_node_get_string (node));
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
            break;
          g_ptr_array_add (set, (gpointer) json_node_get_string (item));
        }
      if (set->len != json_array_get_length (array))
        set->len = 0;
    }
  if (set->len == 0)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be a string or a non-empty array of strings"), member));
      return NULL;
    }
  return g_steal_pointer (&set);
}

static gboolean
read_number (JsonObject  *filter,
             const char  *member,
             double       min,
             double       max,
             double      *value,
             GError     **error)
{
  JsonNode *node = filter ? json_object_get_member (filter, member) : NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE) ||
      json_node_get_double (node) < min || json_node_get_double (node) > max)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be a number from %.0f to %.0f"), member, min, max));
      return FALSE;
    }
  *value = json_node_get_double (node);
  return TRUE;
}

static gboolean
in_set (GPtrArray  *set,
        const char *value)
{
  if (set == NULL)
    return TRUE;
  for (guint i = 0; i < set->len; i++)
    if (g_strcmp0 (g_ptr_array_index (set, i), value) == 0)
      return TRUE;
  return FALSE;
}

/**
 * stw_session_read_console:
 * @self: a #StwSession
 * @filter: (nullable): `{type?, source?, match?, since?, limit?}`
 * @error: where to put a BAD_ARGUMENT
 *
 * What the app logged: every renderer's console (windows, frames,
 * webviews) and uncaught exceptions, the main process's console (through
 * its inspector, when the session has one) and, for an app the session
 * launched, each line it wrote on stdout or stderr. The session keeps the
 * newest %STW_CONSOLE_ENTRIES_MAX; older ones are counted as `overflowed`.
 *
 * Each entry is `{source, type, text, timestamp, windowId?, surfaceId?,
 * location?{url, line, column}, truncated?, exception?}`:
 * `source` is `renderer`, `main`, `stdout` or `stderr`; `type` is the
 * console method (`log`, `info`, `warning`, `error`, `debug`, …; stdout
 * lines are `log`, stderr lines `error`); `timestamp` is in epoch
 * milliseconds; text is cut at 20,000 characters.
 *
 * @filter selects: `type` and `source` (a string or an array of them),
 * `match` (a regular expression, bare or `/pattern/flags` with flags from
 * `imsu`, at most 1000 characters, no nested quantifiers), `since` (epoch
 * ms, inclusive) and `limit` (1 to 1000, 200 by default: the newest).
 * Reading does not consume entries.
 *
 * Returns: (transfer full): the messages picked, oldest first, or %NULL
 *   with @error set for an invalid @filter
 *
 * Since: 1.0
 */
StwConsoleLog *
stw_session_read_console (StwSession  *self,
                          JsonObject  *filter,
                          GError     **error)
{
  Console *console;
  g_autoptr(GPtrArray) types = NULL;
  g_autoptr(GPtrArray) sources = NULL;
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) picked = g_ptr_array_new ();
  StwConsoleLog *log;
  const char *match;
  double since = 0;
  double limit = LIMIT_DEFAULT;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  types = string_set (filter, "type", &local);
  if (local == NULL)
    sources = string_set (filter, "source", &local);
  if (local == NULL)
    read_number (filter, "since", 0, 1e15, &since, &local);
  if (local == NULL)
    read_number (filter, "limit", 1, STW_CONSOLE_ENTRIES_MAX, &limit, &local);
  match = filter && json_object_has_member (filter, "match") ? stw_json_get_string (filter, "match") : NULL;
  if (local == NULL && filter && json_object_has_member (filter, "match") && match == NULL)
    local = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("match must be a string"));
  if (local == NULL && match != NULL)
    regex = _stw_console_compile_match (match, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }

  console = console_get (self);
  /* Newest first until the limit, then in order. */
  for (GList *l = console->entries.tail; l != NULL && picked->len < (guint) limit; l = l->prev)
    {
      JsonObject *entry = l->data;

      if (json_object_get_double_member (entry, "timestamp") < since ||
          !in_set (types, stw_json_get_string (entry, "type")) ||
          !in_set (sources, stw_json_get_string (entry, "source")))
        continue;
      if (regex != NULL && !g_regex_match (regex, stw_json_get_string (entry, "text"), 0, NULL))
        continue;
      g_ptr_array_add (picked, entry);
    }

  log = g_new0 (StwConsoleLog, 1);
  g_atomic_ref_count_init (&log->ref_count);
  log->messages = g_ptr_array_new_full (picked->len, (GDestroyNotify) stw_console_message_unref);
  for (guint i = picked->len; i > 0; i--)
    g_ptr_array_add (log->messages, console_message_new (g_ptr_array_index (picked, i - 1)));
  log->overflowed = console->overflowed;
  return log;
}

/* --- typed messages -------------------------------------------------------- */

static StwConsoleMessage *
console_message_new (JsonObject *entry)
{
  StwConsoleMessage *self = g_new0 (StwConsoleMessage, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->entry = json_object_ref (entry);
  return self;
}

/**
 * stw_console_message_ref:
 * @self: a #StwConsoleMessage
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwConsoleMessage *
stw_console_message_ref (StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_console_message_unref:
 * @self: (transfer full): a #StwConsoleMessage
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_console_message_unref (StwConsoleMessage *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->entry);
  g_free (self);
}

/**
 * stw_console_message_get_source:
 * @self: a #StwConsoleMessage
 *
 * Gets where the message came from.
 *
 * Returns: (transfer none): `renderer`, `main`, `stdout` or `stderr`
 *
 * Since: 1.0
 */
const char *
stw_console_message_get_source (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "source");
}

/**
 * stw_console_message_get_level:
 * @self: a #StwConsoleMessage
 *
 * Gets the console method that logged the message (its `type` in the
 * `electron_console_read` tool): `log`, `info`, `warning`, `error`,
 * `debug`, …; a stdout line is `log` and a stderr line `error`.
 *
 * Returns: (transfer none): the level
 *
 * Since: 1.0
 */
const char *
stw_console_message_get_level (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "type");
}

/**
 * stw_console_message_get_text:
 * @self: a #StwConsoleMessage
 *
 * Gets the message's text, cut at 20,000 characters (see
 * [method@Stagewright.ConsoleMessage.is_truncated]).
 *
 * Returns: (transfer none): the text
 *
 * Since: 1.0
 */
const char *
stw_console_message_get_text (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "text");
}

/**
 * stw_console_message_get_timestamp:
 * @self: a #StwConsoleMessage
 *
 * Gets when the message was logged.
 *
 * Returns: the time in milliseconds since the epoch
 *
 * Since: 1.0
 */
gint64
stw_console_message_get_timestamp (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return json_object_get_int_member_with_default (self->entry, "timestamp", 0);
}

/**
 * stw_console_message_get_url:
 * @self: a #StwConsoleMessage
 *
 * Gets the script or page the message was logged from.
 *
 * Returns: (transfer none) (nullable): the URL, or %NULL when unknown
 *
 * Since: 1.0
 */
const char *
stw_console_message_get_url (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (stw_json_get_object (self->entry, "location"), "url");
}

/**
 * stw_console_message_get_line:
 * @self: a #StwConsoleMessage
 *
 * Gets the line the message was logged from.
 *
 * Returns: the line, from 1, or 0 when unknown
 *
 * Since: 1.0
 */
int
stw_console_message_get_line (const StwConsoleMessage *self)
{
  JsonObject *location;

  g_return_val_if_fail (self != NULL, 0);

  location = stw_json_get_object (self->entry, "location");
  return location ? (int) json_object_get_int_member_with_default (location, "line", 0) : 0;
}

/**
 * stw_console_message_get_column:
 * @self: a #StwConsoleMessage
 *
 * Gets the column the message was logged from.
 *
 * Returns: the column, from 1, or 0 when unknown
 *
 * Since: 1.0
 */
int
stw_console_message_get_column (const StwConsoleMessage *self)
{
  JsonObject *location;

  g_return_val_if_fail (self != NULL, 0);

  location = stw_json_get_object (self->entry, "location");
  return location ? (int) json_object_get_int_member_with_default (location, "column", 0) : 0;
}

/**
 * stw_console_message_get_window_id:
 * @self: a #StwConsoleMessage
 *
 * Gets the window of the surface that logged the message.
 *
 * Returns: (transfer none) (nullable): the window id, or %NULL for a
 *   message from the main process or the app's output
 *
 * Since: 1.0
 */
const char *
stw_console_message_get_window_id (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "windowId");
}

/**
 * stw_console_message_get_surface_id:
 * @self: a #StwConsoleMessage
 *
 * Gets the surface (window, frame or webview) that logged the message.
 *
 * Returns: (transfer none) (nullable): the surface id, or %NULL for a
 *   message from the main process or the app's output
 *
 * Since: 1.0
 */
const char *
stw_console_message_get_surface_id (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "surfaceId");
}

/**
 * stw_console_message_is_truncated:
 * @self: a #StwConsoleMessage
 *
 * Whether the text was cut at 20,000 characters.
 *
 * Returns: %TRUE when it was cut
 *
 * Since: 1.0
 */
gboolean
stw_console_message_is_truncated (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->entry, "truncated", FALSE);
}

/**
 * stw_console_message_is_exception:
 * @self: a #StwConsoleMessage
 *
 * Whether the message is an uncaught exception rather than a console
 * call.
 *
 * Returns: %TRUE for an uncaught exception
 *
 * Since: 1.0
 */
gboolean
stw_console_message_is_exception (const StwConsoleMessage *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->entry, "exception", FALSE);
}

/* The message as the `electron_console_read` tool answers it: `{source,
 * type, text, timestamp, windowId?, surfaceId?, location?, truncated?,
 * exception?}`. Registered as the type's JSON serialization, which the tool
 * calls through json_boxed_serialize(). */
static JsonObject *
console_message_to_json (const StwConsoleMessage *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->entry, NULL);
  return copy;
}

static JsonNode *
console_message_serialize (gconstpointer boxed)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, console_message_to_json (boxed));
  return node;
}

/**
 * stw_console_log_ref:
 * @self: a #StwConsoleLog
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwConsoleLog *
stw_console_log_ref (StwConsoleLog *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_console_log_unref:
 * @self: (transfer full): a #StwConsoleLog
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_console_log_unref (StwConsoleLog *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_ptr_array_unref (self->messages);
  g_free (self);
}

/**
 * stw_console_log_get_n_messages:
 * @self: a #StwConsoleLog
 *
 * Gets how many messages were picked.
 *
 * Returns: the number of messages
 *
 * Since: 1.0
 */
guint
stw_console_log_get_n_messages (const StwConsoleLog *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->messages->len;
}

/**
 * stw_console_log_get_message:
 * @self: a #StwConsoleLog
 * @index: a position, below [method@Stagewright.ConsoleLog.get_n_messages]
 *
 * Gets a message, oldest first.
 *
 * Returns: (transfer none): the message
 *
 * Since: 1.0
 */
StwConsoleMessage *
stw_console_log_get_message (const StwConsoleLog *self,
                             guint                index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->messages->len, NULL);

  return g_ptr_array_index (self->messages, index);
}

/**
 * stw_console_log_get_overflowed:
 * @self: a #StwConsoleLog
 *
 * Gets how many older messages the session dropped, as it keeps the
 * newest %STW_CONSOLE_ENTRIES_MAX.
 *
 * Returns: the number of dropped messages
 *
 * Since: 1.0
 */
guint64
stw_console_log_get_overflowed (const StwConsoleLog *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->overflowed;
}

/* The log as the `electron_console_read` tool answers it: `{entries, count,
 * overflowed}`. Registered as the type's JSON serialization, which the tool
 * calls through json_boxed_serialize(). */
static JsonObject *
console_log_to_json (const StwConsoleLog *self)
{
  JsonObject *answer;
  JsonArray *entries;

  g_return_val_if_fail (self != NULL, NULL);

  answer = json_object_new ();
  entries = json_array_new ();
  for (guint i = 0; i < self->messages->len; i++)
    json_array_add_object_element (entries, console_message_to_json (g_ptr_array_index (self->messages, i)));
  json_object_set_array_member (answer, "entries", entries);
  json_object_set_int_member (answer, "count", self->messages->len);
  json_object_set_int_member (answer, "overflowed", (gint64) self->overflowed);
  return answer;
}

static JsonNode *
console_log_serialize (gconstpointer boxed)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, console_log_to_json (boxed));
  return node;
}
