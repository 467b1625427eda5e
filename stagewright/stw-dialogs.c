/* stw-dialogs.c: the dialogs unit — the policy, the answer to a page's
 * dialog, and the ring of dialog events
 *
 * Below the surface: it knows no session and no surface. The session
 * (stw-session-dialogs.c) enables the Page domain on each target and hands
 * every `Page.javascriptDialogOpening` here, with the surface it came
 * from; this unit decides the answer by the policy (dismiss until one is
 * set, so a dialog never blocks the app) and records it. A dialog holds
 * back the reply of the input or evaluation that opened it until it is
 * answered (cdp-field-notes 27); nothing here waits for a reply, so that
 * cannot deadlock. An action that opened a dialog asks this unit what it
 * was answered (_stw_dialogs_take_opened()).
 *
 * Native dialogs, `shell` and `clipboard` are stubbed in the main process
 * (js/main-stubs.js, through the inspector, by the session); their calls
 * join the same ring when events are read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-action-result-private.h"
#include "stw-dialogs.h"
#include "stw-dialogs-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"

#define STUBS_RESOURCE "/org/stagewright/core/js/main-stubs.js"
#define READ_LIMIT_DEFAULT 50
#define PROMPT_TEXT_MAX 10000

GResource *stw_get_resource (void);

enum { ALERT, CONFIRM, PROMPT, BEFOREUNLOAD, N_KINDS };
static const char * const kind_names[N_KINDS] = { "alert", "confirm", "prompt", "beforeunload" };

/* The methods js/main-stubs.js knows. */
static const char * const stub_names[] = {
  "dialog.showOpenDialog", "dialog.showOpenDialogSync", "dialog.showSaveDialog",
  "dialog.showSaveDialogSync", "dialog.showMessageBox", "dialog.showMessageBoxSync",
  "dialog.showErrorBox", "shell.openExternal", "shell.openPath",
  "clipboard.readText", "clipboard.writeText", "clipboard.clear", NULL
};

typedef enum { UNSET = -1, DISMISS = 0, ACCEPT = 1 } Action;

/* Both keep the JSON the tool shows, beside the typed values. */
struct _StwDialogPolicy
{
  gatomicrefcount  ref_count;
  JsonObject      *json;    /* {action, perType, promptText?, oneShot, stubs} */
  GStrv            stubs;
};

struct _StwDialogLog
{
  gatomicrefcount  ref_count;
  JsonObject      *json;      /* {policy, entries, count, overflowed, native} */
  GPtrArray       *events;    /* of StwDialogEvent */
  StwDialogPolicy *policy;
};

static JsonNode *dialog_policy_serialize (gconstpointer boxed);
/* Their JSON (json_boxed_serialize()) is the wire form of their tool. */
G_DEFINE_BOXED_TYPE_WITH_CODE (StwDialogPolicy, stw_dialog_policy, stw_dialog_policy_ref, stw_dialog_policy_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, dialog_policy_serialize))
static JsonNode *dialog_log_serialize (gconstpointer boxed);
G_DEFINE_BOXED_TYPE_WITH_CODE (StwDialogLog, stw_dialog_log, stw_dialog_log_ref, stw_dialog_log_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, dialog_log_serialize))

static StwDialogPolicy *dialog_policy_new (JsonObject *json);
static StwDialogLog    *dialog_log_new    (JsonObject *json);
static JsonObject      *policy_json       (StwDialogs *dialogs);

struct _StwDialogs
{
  Action      action;
  Action      per_kind[N_KINDS];
  char       *prompt_text;
  gboolean    one_shot;

  GQueue      events;        /* JsonObject*, oldest first */
  guint64     overflowed;
  GHashTable *answered;      /* CDP session → the dialog answered last there */
  GPtrArray  *stubs;         /* names stubbed in the main process */
  gboolean    stubs_used;    /* the main process may hold calls to drain */
};

static void
reset_policy (StwDialogs *dialogs)
{
  dialogs->action = DISMISS;
  for (guint i = 0; i < N_KINDS; i++)
    dialogs->per_kind[i] = UNSET;
  g_clear_pointer (&dialogs->prompt_text, g_free);
  dialogs->one_shot = FALSE;
}

void
_stw_dialogs_free (StwDialogs *dialogs)
{
  g_queue_clear_full (&dialogs->events, (GDestroyNotify) json_object_unref);
  g_clear_pointer (&dialogs->answered, g_hash_table_unref);
  g_clear_pointer (&dialogs->stubs, g_ptr_array_unref);
  g_free (dialogs->prompt_text);
  g_free (dialogs);
}

StwDialogs *
_stw_dialogs_new (void)
{
  StwDialogs *dialogs = g_new0 (StwDialogs, 1);

  g_queue_init (&dialogs->events);
  dialogs->answered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  dialogs->stubs = g_ptr_array_new_with_free_func (g_free);
  reset_policy (dialogs);
  return dialogs;
}

static int
kind_of (const char *name)
{
  for (guint i = 0; i < N_KINDS; i++)
    if (g_strcmp0 (name, kind_names[i]) == 0)
      return (int) i;
  return -1;
}

static void
push_event (StwDialogs    *dialogs,
            JsonObject *entry)
{
  g_queue_push_tail (&dialogs->events, entry);
  while (dialogs->events.length > STW_DIALOG_EVENTS_MAX)
    {
      json_object_unref (g_queue_pop_head (&dialogs->events));
      dialogs->overflowed++;
    }
}

/* --- answering page dialogs ------------------------------------------------- */

JsonObject *
_stw_dialogs_answer (StwDialogs *dialogs,
                     JsonObject *params,
                     const char *cdp_session,
                     const char *window_id,
                     const char *surface_id)
{
  const char *type = stw_json_get_string (params, "type") ?: "alert";
  const char *default_prompt = stw_json_get_string (params, "defaultPrompt");
  int kind = kind_of (type);
  Action action = kind >= 0 && dialogs->per_kind[kind] != UNSET ? dialogs->per_kind[kind] : dialogs->action;
  JsonObject *answer = json_object_new ();
  JsonObject *entry;

  json_object_set_boolean_member (answer, "accept", action == ACCEPT);
  entry = json_object_new ();
  json_object_set_string_member (entry, "type", type);
  json_object_set_string_member (entry, "message", stw_json_get_string (params, "message") ?: "");
  json_object_set_string_member (entry, "action", action == ACCEPT ? "accept" : "dismiss");
  if (kind == PROMPT)
    {
      json_object_set_string_member (entry, "defaultValue", default_prompt ?: "");
      if (action == ACCEPT)
        {
          const char *text = dialogs->prompt_text ?: (default_prompt ?: "");

          json_object_set_string_member (answer, "promptText", text);
          json_object_set_string_member (entry, "promptText", text);
        }
    }
  json_object_set_int_member (entry, "timestamp", g_get_real_time () / 1000);
  if (window_id != NULL)
    json_object_set_string_member (entry, "windowId", window_id);
  json_object_set_string_member (entry, "surfaceId", surface_id);
  if (stw_json_get_string (params, "url") != NULL)
    json_object_set_string_member (entry, "url", stw_json_get_string (params, "url"));

  if (dialogs->one_shot)
    reset_policy (dialogs);
  /* Kept per CDP session until the action that opened it asks: another
   * page's dialog answered in between (the same read of the connection
   * can carry both events) must not take its place. */
  if (cdp_session != NULL)
    g_hash_table_replace (dialogs->answered, g_strdup (cdp_session), json_object_ref (entry));
  push_event (dialogs, entry);
  return answer;
}

JsonObject *
_stw_dialogs_take_opened (StwDialogs   *dialogs,
                          StwTransport *transport,
                          const char   *cdp_session,
                          JsonObject   *event)
{
  JsonObject *brief = json_object_new ();
  JsonObject *answered = cdp_session != NULL ? g_hash_table_lookup (dialogs->answered, cdp_session) : NULL;

  /* Only the answer to this very dialog: an older one left on the same
   * session (answered while no action waited) is not it. */
  if (answered != NULL &&
      (g_strcmp0 (stw_json_get_string (answered, "type"), stw_json_get_string (event, "type")) != 0 ||
       g_strcmp0 (stw_json_get_string (answered, "message"), stw_json_get_string (event, "message")) != 0))
    answered = NULL;

  if (answered != NULL)
    {
      json_object_set_string_member (brief, "type", stw_json_get_string (answered, "type"));
      json_object_set_string_member (brief, "message", stw_json_get_string (answered, "message"));
      json_object_set_string_member (brief, "action", stw_json_get_string (answered, "action"));
      g_hash_table_remove (dialogs->answered, cdp_session);
    }
  else
    {
      /* Not one the session answered (no surface of its is that target):
       * dismissed, the default policy, so that it does not block. */
      g_autoptr(JsonObject) dismiss = json_object_new ();

      json_object_set_string_member (brief, "type", stw_json_get_string (event, "type") ?: "alert");
      json_object_set_string_member (brief, "message", stw_json_get_string (event, "message") ?: "");
      json_object_set_string_member (brief, "action", "dismiss");
      json_object_set_boolean_member (dismiss, "accept", FALSE);
      stw_transport_send_notification (transport, "Page.handleJavaScriptDialog", dismiss, cdp_session);
    }
  return brief;
}

/* --- the policy --------------------------------------------------------------- */

static gboolean
parse_action (JsonNode    *node,
              const char  *member,
              Action      *action,
              GError     **error)
{
  const char *name = node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
                     ? json_node_get_string (node) : NULL;

  if (g_strcmp0 (name, "accept") == 0)
    *action = ACCEPT;
  else if (g_strcmp0 (name, "dismiss") == 0)
    *action = DISMISS;
  else
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be \"accept\" or \"dismiss\""), member));
      return FALSE;
    }
  return TRUE;
}

gboolean
_stw_dialogs_set_policy (StwDialogs  *dialogs,
                         JsonObject  *policy,
                         GError     **error)
{
  Action action = DISMISS;
  Action per_kind[N_KINDS] = { UNSET, UNSET, UNSET, UNSET };
  const char *prompt_text = NULL;
  gboolean one_shot = FALSE;
  JsonNode *node;

  if ((node = json_object_get_member (policy, "action")) != NULL && !parse_action (node, "action", &action, error))
    return FALSE;
  if ((node = json_object_get_member (policy, "perType")) != NULL)
    {
      JsonObject *per_type = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(GList) members = per_type ? json_object_get_members (per_type) : NULL;

      if (per_type == NULL)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("perType must be an object")));
          return FALSE;
        }
      for (GList *l = members; l != NULL; l = l->next)
        {
          int kind = kind_of (l->data);
          g_autofree char *what = g_strdup_printf ("perType.%s", (const char *) l->data);

          if (kind < 0)
            {
              g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                            _("perType names alert, confirm, prompt or beforeunload, not %s"),
                                                            (const char *) l->data));
              return FALSE;
            }
          if (!parse_action (json_object_get_member (per_type, l->data), what, &per_kind[kind], error))
            return FALSE;
        }
    }
  if ((node = json_object_get_member (policy, "promptText")) != NULL)
    {
      Action prompt = per_kind[PROMPT] != UNSET ? per_kind[PROMPT] : action;

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
          g_utf8_strlen (json_node_get_string (node), -1) > PROMPT_TEXT_MAX)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("promptText must be a string of at most %d characters"),
                                                        PROMPT_TEXT_MAX));
          return FALSE;
        }
      if (prompt != ACCEPT)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                        _("promptText needs prompts accepted (action or perType.prompt \"accept\")")));
          return FALSE;
        }
      prompt_text = json_node_get_string (node);
    }
  if ((node = json_object_get_member (policy, "oneShot")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("oneShot must be a boolean")));
          return FALSE;
        }
      one_shot = json_node_get_boolean (node);
    }

  reset_policy (dialogs);
  dialogs->action = action;
  memcpy (dialogs->per_kind, per_kind, sizeof per_kind);
  dialogs->prompt_text = g_strdup (prompt_text);
  dialogs->one_shot = one_shot;
  return TRUE;
}

StwDialogPolicy *
_stw_dialogs_dup_policy (StwDialogs *dialogs)
{
  return dialog_policy_new (policy_json (dialogs));
}

/* `{action, perType, promptText?, oneShot, stubs}`: what
 * stw_session_set_dialog_policy() takes, and the tool shows. */
static JsonObject *
policy_json (StwDialogs *dialogs)
{
  JsonObject *policy;
  JsonObject *per_type;
  JsonArray *stubs;

  policy = json_object_new ();
  per_type = json_object_new ();
  json_object_set_string_member (policy, "action", dialogs->action == ACCEPT ? "accept" : "dismiss");
  for (guint i = 0; i < N_KINDS; i++)
    {
      Action action = dialogs->per_kind[i] != UNSET ? dialogs->per_kind[i] : dialogs->action;
      json_object_set_string_member (per_type, kind_names[i], action == ACCEPT ? "accept" : "dismiss");
    }
  json_object_set_object_member (policy, "perType", per_type);
  if (dialogs->prompt_text != NULL)
    json_object_set_string_member (policy, "promptText", dialogs->prompt_text);
  json_object_set_boolean_member (policy, "oneShot", dialogs->one_shot);
  stubs = json_array_new ();
  for (guint i = 0; i < dialogs->stubs->len; i++)
    json_array_add_string_element (stubs, g_ptr_array_index (dialogs->stubs, i));
  json_object_set_array_member (policy, "stubs", stubs);
  return policy;
}

/* --- main-process stubs --------------------------------------------------- */

char *
_stw_dialogs_stubs_expression (const char *op,
                  JsonNode   *arg)
{
  g_autoptr(GBytes) source = g_resource_lookup_data (stw_get_resource (), STUBS_RESOURCE,
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *json = arg ? stw_json_to_string (arg, NULL) : g_strdup ("null");

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (source != NULL);
  return g_strdup_printf ("%.*s(require('electron'), \"%s\", %s)",
                          (int) g_bytes_get_size (source), (const char *) g_bytes_get_data (source, NULL), op, json);
}

void
_stw_dialogs_set_stub_names (StwDialogs *dialogs,
                JsonNode *names)
{
  JsonArray *array = names && JSON_NODE_HOLDS_ARRAY (names) ? json_node_get_array (names) : NULL;

  g_ptr_array_set_size (dialogs->stubs, 0);
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      const char *name = json_array_get_string_element (array, i);

      if (name != NULL && g_strv_contains (stub_names, name))
        g_ptr_array_add (dialogs->stubs, g_strdup (name));
    }
}

/* --- reading events ---------------------------------------------------------- */

struct _StwDialogFilter
{
  GPtrArray *types;     /* nullable: every type */
  double     since;
  guint      limit;
  gboolean   clear;
};
typedef StwDialogFilter Filter;

void
_stw_dialog_filter_free (Filter *filter)
{
  g_clear_pointer (&filter->types, g_ptr_array_unref);
  g_free (filter);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Filter, _stw_dialog_filter_free)

Filter *
_stw_dialog_filter_new (JsonObject  *object,
            GError     **error)
{
  g_autoptr(Filter) filter = g_new0 (Filter, 1);
  JsonNode *node;

  filter->limit = READ_LIMIT_DEFAULT;
  if (object == NULL)
    return g_steal_pointer (&filter);

  if ((node = json_object_get_member (object, "type")) != NULL)
    {
      filter->types = g_ptr_array_new_with_free_func (g_free);
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        g_ptr_array_add (filter->types, g_strdup (json_node_get_string (node)));
      else if (JSON_NODE_HOLDS_ARRAY (node))
        for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
          {
            JsonNode *item = json_array_get_element (json_node_get_array (node), i);

            if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
              {
                filter->types->len = 0;
                break;
              }
            g_ptr_array_add (filter->types, g_strdup (json_node_get_string (item)));
          }
      if (filter->types->len == 0)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("type must be a string or a non-empty array of strings")));
          return NULL;
        }
    }
  if ((node = json_object_get_member (object, "since")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) ||
          (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE) ||
          json_node_get_double (node) < 0)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("since must be epoch milliseconds")));
          return NULL;
        }
      filter->since = json_node_get_double (node);
    }
  if ((node = json_object_get_member (object, "limit")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 1 || json_node_get_int (node) > STW_DIALOG_EVENTS_MAX)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("limit must be an integer from 1 to %d"),
                                                        STW_DIALOG_EVENTS_MAX));
          return NULL;
        }
      filter->limit = (guint) json_node_get_int (node);
    }
  if ((node = json_object_get_member (object, "clear")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("clear must be a boolean")));
          return NULL;
        }
      filter->clear = json_node_get_boolean (node);
    }
  return g_steal_pointer (&filter);
}

/* A type matches itself, and a module (`dialog`, `shell`, `clipboard`)
 * matches each of its methods. */
static gboolean
type_matches (Filter     *filter,
              const char *type)
{
  if (filter->types == NULL)
    return TRUE;
  for (guint i = 0; i < filter->types->len; i++)
    {
      const char *want = g_ptr_array_index (filter->types, i);
      gsize n = strlen (want);

      if (g_strcmp0 (want, type) == 0 || (type && strncmp (want, type, n) == 0 && type[n] == '.'))
        return TRUE;
    }
  return FALSE;
}

static gint
by_timestamp (gconstpointer a,
              gconstpointer b)
{
  gint64 ta = json_object_get_int_member (*(JsonObject **) a, "timestamp");
  gint64 tb = json_object_get_int_member (*(JsonObject **) b, "timestamp");

  return ta < tb ? -1 : ta > tb;
}

static JsonObject *
collect (StwDialogs *dialogs,
         Filter     *filter,
         gboolean    native)
{
  g_autoptr(GPtrArray) picked = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonObject *answer = json_object_new ();
  JsonArray *entries = json_array_new ();
  guint skip;

  for (GList *l = dialogs->events.head; l != NULL; l = l->next)
    {
      JsonObject *entry = l->data;

      if ((double) json_object_get_int_member (entry, "timestamp") >= filter->since &&
          type_matches (filter, stw_json_get_string (entry, "type")))
        g_ptr_array_add (picked, json_object_ref (entry));
    }
  /* Stable: drained native calls interleave with page dialogs by time. */
  g_ptr_array_sort (picked, by_timestamp);
  skip = picked->len > filter->limit ? picked->len - filter->limit : 0;
  for (guint i = skip; i < picked->len; i++)
    json_array_add_object_element (entries, json_object_ref (g_ptr_array_index (picked, i)));

  json_object_set_object_member (answer, "policy", policy_json (dialogs));
  json_object_set_array_member (answer, "entries", entries);
  json_object_set_int_member (answer, "count", json_array_get_length (entries));
  json_object_set_int_member (answer, "overflowed", (gint64) dialogs->overflowed);
  json_object_set_boolean_member (answer, "native", native);

  if (filter->clear)
    {
      g_queue_clear_full (&dialogs->events, (GDestroyNotify) json_object_unref);
      g_queue_init (&dialogs->events);
      dialogs->overflowed = 0;
    }
  return answer;
}

StwDialogLog *
_stw_dialogs_read (StwDialogs      *dialogs,
                   StwDialogFilter *filter,
                   gboolean         native)
{
  return dialog_log_new (collect (dialogs, filter, native));
}

/* What js/main-stubs.js drained: `{calls, dropped, stubs}`. */
void
_stw_dialogs_add_main_calls (StwDialogs *dialogs,
                             JsonObject *drained)
{
  JsonArray *calls = json_object_has_member (drained, "calls") ? json_object_get_array_member (drained, "calls") : NULL;

  dialogs->overflowed += (guint64) MAX (json_object_get_int_member_with_default (drained, "dropped", 0), 0);
  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonObject *call = json_array_get_object_element (calls, i);

      if (call != NULL && json_object_has_member (call, "timestamp"))
        {
          JsonObject *entry = json_object_new ();

          stw_json_object_copy_members (entry, call, NULL);
          json_object_set_int_member (entry, "timestamp", (gint64) json_object_get_double_member (call, "timestamp"));
          json_object_set_string_member (entry, "source", "main");
          push_event (dialogs, entry);
        }
    }
  _stw_dialogs_set_stub_names (dialogs, json_object_get_member (drained, "stubs"));
}

/* Whether the main process may hold stubbed calls to drain. */
gboolean
_stw_dialogs_get_stubs_used (StwDialogs *dialogs)
{
  return dialogs->stubs_used;
}

/* Checks @stubs names only methods js/main-stubs.js knows, and notes the
 * main process may hold calls from now on. */
gboolean
_stw_dialogs_use_stubs (StwDialogs  *dialogs,
                        JsonObject  *stubs,
                        GError     **error)
{
  g_autoptr(GList) members = json_object_get_members (stubs);

  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (stub_names, l->data))
      {
        g_autofree char *known = g_strjoinv (", ", (char **) stub_names);

        g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Cannot stub %s; the names are %s"),
                                                      (const char *) l->data, known));
        return FALSE;
      }
  dialogs->stubs_used = TRUE;
  return TRUE;
}

/* --- typed answers ---------------------------------------------------------- */

/* Takes @json. */
static StwDialogPolicy *
dialog_policy_new (JsonObject *json)
{
  StwDialogPolicy *self = g_new0 (StwDialogPolicy, 1);
  JsonArray *stubs = json_object_get_array_member (json, "stubs");
  guint n = json_array_get_length (stubs);

  g_atomic_ref_count_init (&self->ref_count);
  self->json = json;
  self->stubs = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    self->stubs[i] = g_strdup (json_array_get_string_element (stubs, i));
  return self;
}

/**
 * stw_dialog_policy_ref:
 * @self: a #StwDialogPolicy
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwDialogPolicy *
stw_dialog_policy_ref (StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_dialog_policy_unref:
 * @self: (transfer full): a #StwDialogPolicy
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_dialog_policy_unref (StwDialogPolicy *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->json);
  g_strfreev (self->stubs);
  g_free (self);
}

/**
 * stw_dialog_policy_get_action:
 * @self: a #StwDialogPolicy
 *
 * Gets what the policy does with a dialog whose type has no action of its
 * own.
 *
 * Returns: (transfer none): `accept` or `dismiss`
 *
 * Since: 1.0
 */
const char *
stw_dialog_policy_get_action (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->json, "action");
}

/**
 * stw_dialog_policy_get_action_for:
 * @self: a #StwDialogPolicy
 * @type: `alert`, `confirm`, `prompt` or `beforeunload`
 *
 * Gets what the policy does with a dialog of @type.
 *
 * Returns: (transfer none) (nullable): `accept` or `dismiss`, or %NULL
 *   for an unknown @type
 *
 * Since: 1.0
 */
const char *
stw_dialog_policy_get_action_for (const StwDialogPolicy *self,
                                  const char            *type)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (type != NULL, NULL);

  return stw_json_get_string (stw_json_get_object (self->json, "perType"), type);
}

/**
 * stw_dialog_policy_get_prompt_text:
 * @self: a #StwDialogPolicy
 *
 * Gets the text an accepted `prompt` answers.
 *
 * Returns: (transfer none) (nullable): the text, or %NULL for the
 *   prompt's own default
 *
 * Since: 1.0
 */
const char *
stw_dialog_policy_get_prompt_text (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->json, "promptText");
}

/**
 * stw_dialog_policy_is_one_shot:
 * @self: a #StwDialogPolicy
 *
 * Whether the policy answers one dialog only, and dismisses after.
 *
 * Returns: %TRUE for a one-shot policy
 *
 * Since: 1.0
 */
gboolean
stw_dialog_policy_is_one_shot (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->json, "oneShot", FALSE);
}

/**
 * stw_dialog_policy_get_stubs:
 * @self: a #StwDialogPolicy
 *
 * Gets the Electron methods stubbed in the main process
 * (`dialog.showOpenDialog`, `shell.openExternal`, …).
 *
 * Returns: (transfer none) (array zero-terminated=1): the methods' names
 *
 * Since: 1.0
 */
const char * const *
stw_dialog_policy_get_stubs (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char * const *) self->stubs;
}

/* The policy as [method@Stagewright.Session.set_dialog_policy] takes it and
 * `electron_dialog_handler` shows it: `{action, perType, promptText?,
 * oneShot, stubs}`. Registered as the type's JSON serialization, which the
 * tool calls through json_boxed_serialize(). */
static JsonObject *
dialog_policy_to_json (const StwDialogPolicy *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->json, NULL);
  return copy;
}

static JsonNode *
dialog_policy_serialize (gconstpointer boxed)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  /* The node takes the new object: json_node_init_object() would add a
   * reference of its own, and the object would outlive the node. */
  json_node_take_object (node, dialog_policy_to_json (boxed));
  return node;
}

/* Takes @json, as collect() made it. */
static StwDialogLog *
dialog_log_new (JsonObject *json)
{
  StwDialogLog *self = g_new0 (StwDialogLog, 1);
  JsonArray *entries = json_object_get_array_member (json, "entries");

  g_atomic_ref_count_init (&self->ref_count);
  self->json = json;
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_dialog_event_free);
  for (guint i = 0; i < json_array_get_length (entries); i++)
    g_ptr_array_add (self->events, _stw_dialog_event_new_from_entry (json_array_get_object_element (entries, i)));
  self->policy = dialog_policy_new (json_object_ref (json_object_get_object_member (json, "policy")));
  return self;
}

/**
 * stw_dialog_log_ref:
 * @self: a #StwDialogLog
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwDialogLog *
stw_dialog_log_ref (StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_dialog_log_unref:
 * @self: (transfer full): a #StwDialogLog
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_dialog_log_unref (StwDialogLog *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->json);
  g_ptr_array_unref (self->events);
  stw_dialog_policy_unref (self->policy);
  g_free (self);
}

/**
 * stw_dialog_log_get_n_events:
 * @self: a #StwDialogLog
 *
 * Gets how many events were picked.
 *
 * Returns: the number of events
 *
 * Since: 1.0
 */
guint
stw_dialog_log_get_n_events (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->events->len;
}

/**
 * stw_dialog_log_get_event:
 * @self: a #StwDialogLog
 * @index: a position, below [method@Stagewright.DialogLog.get_n_events]
 *
 * Gets an event, oldest first.
 *
 * Returns: (transfer none): the event
 *
 * Since: 1.0
 */
const StwDialogEvent *
stw_dialog_log_get_event (const StwDialogLog *self,
                          guint               index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->events->len, NULL);

  return g_ptr_array_index (self->events, index);
}

/**
 * stw_dialog_log_get_overflowed:
 * @self: a #StwDialogLog
 *
 * Gets how many older events the session dropped, as it keeps the newest
 * %STW_DIALOG_EVENTS_MAX.
 *
 * Returns: the number of dropped events
 *
 * Since: 1.0
 */
guint64
stw_dialog_log_get_overflowed (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return (guint64) json_object_get_int_member_with_default (self->json, "overflowed", 0);
}

/**
 * stw_dialog_log_get_policy:
 * @self: a #StwDialogLog
 *
 * Gets the policy that was in force when the events were read.
 *
 * Returns: (transfer none): the policy
 *
 * Since: 1.0
 */
StwDialogPolicy *
stw_dialog_log_get_policy (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->policy;
}

/**
 * stw_dialog_log_is_native:
 * @self: a #StwDialogLog
 *
 * Whether native stubs are available: the session reaches the main
 * process.
 *
 * Returns: %TRUE when Electron's methods can be stubbed
 *
 * Since: 1.0
 */
gboolean
stw_dialog_log_is_native (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->json, "native", FALSE);
}

/* The log as `electron_dialog_handler` answers it: `{policy, entries, count,
 * overflowed, native}`. Registered as the type's JSON serialization, which
 * the tool calls through json_boxed_serialize(). */
static JsonObject *
dialog_log_to_json (const StwDialogLog *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->json, NULL);
  return copy;
}

static JsonNode *
dialog_log_serialize (gconstpointer boxed)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, dialog_log_to_json (boxed));
  return node;
}
