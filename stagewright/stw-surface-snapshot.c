/* stw-surface-snapshot.c: snapshot, find and list, as surface methods
 *
 * One walk of the page-side module (js/a11y.js) per surface; the frames
 * and webviews of a window are walked too and placed inline at their
 * owner element. Closed shadow roots are found through the DOM domain on
 * the hosts the walker names, once per host, and handed to the page. The
 * entries then get their refs (stw-snapshot.c) and the answer takes the
 * tool's shape (reference §1.3, §4).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "stw-element-ref-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-snapshot-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

/* The answer as the job made it, shared with the tool's wire form. */
struct _StwSnapshot
{
  gatomicrefcount  ref_count;
  JsonObject      *answer;
};

static JsonNode *snapshot_serialize (gconstpointer boxed);
/* Its JSON (json_boxed_serialize()) is the wire form of its tool. */
G_DEFINE_BOXED_TYPE_WITH_CODE (StwSnapshot, stw_snapshot, stw_snapshot_ref, stw_snapshot_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, snapshot_serialize))

#define DEFAULT_MAX_ENTRIES 2000
#define HARD_MAX_ENTRIES    10000
#define MIN_BUDGET_TOKENS   50
/* How many times one snapshot looks for closed shadow roots inside the
 * ones it just found. */
#define CLOSED_ROUNDS       3

/* --- StwSnapshotOptions ---------------------------------------------------- */

struct _StwSnapshotOptions
{
  gboolean           interactive_only;
  guint              max_entries;
  StwSnapshotFormat  format;
  gboolean           since_last;
  StwDiffFormat      diff_format;
  guint              budget_tokens;
  StwTarget         *root;
};

G_DEFINE_BOXED_TYPE (StwSnapshotOptions, stw_snapshot_options,
                     stw_snapshot_options_copy, stw_snapshot_options_free)

/**
 * stw_snapshot_options_new:
 *
 * Creates snapshot options with the defaults.
 *
 * Returns: (transfer full): options for a full JSON snapshot of at most
 *   2,000 entries
 *
 * Since: 1.0
 */
StwSnapshotOptions *
stw_snapshot_options_new (void)
{
  StwSnapshotOptions *options = g_new0 (StwSnapshotOptions, 1);

  options->max_entries = DEFAULT_MAX_ENTRIES;
  return options;
}

/**
 * stw_snapshot_options_copy:
 * @options: options
 *
 * Copies snapshot options.
 *
 * Returns: (transfer full): a copy of @options
 *
 * Since: 1.0
 */
StwSnapshotOptions *
stw_snapshot_options_copy (const StwSnapshotOptions *options)
{
  StwSnapshotOptions *copy;

  g_return_val_if_fail (options != NULL, NULL);

  copy = g_memdup2 (options, sizeof *options);
  copy->root = options->root ? stw_target_copy (options->root) : NULL;
  return copy;
}

/**
 * stw_snapshot_options_free:
 * @options: (transfer full): options
 *
 * Frees snapshot options.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_free (StwSnapshotOptions *options)
{
  if (options == NULL)
    return;
  g_clear_pointer (&options->root, stw_target_free);
  g_free (options);
}

static GError *
bad_argument (const char *field,
              const char *message)
{
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s: %s", field, message);
  g_autoptr(JsonObject) details = json_object_new ();
  JsonArray *issues = json_array_new ();
  JsonObject *issue = json_object_new ();

  json_object_set_string_member (issue, "field", field);
  json_object_set_string_member (issue, "message", message);
  json_array_add_object_element (issues, issue);
  json_object_set_array_member (details, "issues", issues);
  stw_error_set_details (error, details);
  return error;
}

static gboolean
member_present (JsonObject *object,
                const char *member)
{
  return json_object_has_member (object, member) &&
         !JSON_NODE_HOLDS_NULL (json_object_get_member (object, member));
}

static gboolean
read_bool (JsonObject  *object,
           const char  *member,
           gboolean    *value,
           GError     **error)
{
  JsonNode *node;

  if (!member_present (object, member))
    return TRUE;
  node = json_object_get_member (object, member);
  if (json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      g_propagate_error (error, bad_argument (member, _("must be a boolean")));
      return FALSE;
    }
  *value = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
read_int (JsonObject  *object,
          const char  *member,
          gint64       min,
          gint64       max,
          gint64      *value,
          GError     **error)
{
  JsonNode *node;

  if (!member_present (object, member))
    return TRUE;
  node = json_object_get_member (object, member);
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < min || json_node_get_int (node) > max)
    {
      g_autofree char *message = max == G_MAXINT64
                                 ? g_strdup_printf (_("must be an integer >= %" PRId64), min)
                                 : g_strdup_printf (_("must be an integer in %" PRId64 "..%" PRId64), min, max);
      g_propagate_error (error, bad_argument (member, message));
      return FALSE;
    }
  *value = json_node_get_int (node);
  return TRUE;
}

static gboolean
read_choice (JsonObject         *object,
             const char         *member,
             const char * const *choices,
             int                *value,
             GError            **error)
{
  const char *text;

  if (!member_present (object, member))
    return TRUE;
  text = stw_json_get_string (object, member);
  for (int i = 0; text != NULL && choices[i] != NULL; i++)
    if (g_str_equal (text, choices[i]))
      {
        *value = i;
        return TRUE;
      }
  {
    g_autofree char *list = g_strjoinv ("|", (char **) choices);
    g_autofree char *message = g_strdup_printf (_("must be one of %s"), list);
    g_propagate_error (error, bad_argument (member, message));
  }
  return FALSE;
}

/**
 * stw_snapshot_options_new_from_json:
 * @object: the arguments of `electron_snapshot`
 * @error: return location for a `BAD_ARGUMENT` error
 *
 * Reads the snapshot tool's arguments: `since` (`"last"`),
 * `interactiveOnly`, `maxEntries` (1–10,000), `format` (`json`|`text`),
 * `diffFormat` (`compact`|`full`), `budgetTokens` (≥ 50) and `root` (a
 * ref, or a CSS selector). Other members are ignored.
 *
 * Without `format`, the tool answers text: what an agent that passes no
 * arguments can afford to read (a departure from the reference, whose
 * default is JSON). [ctor@Stagewright.SnapshotOptions.new] keeps JSON, the
 * form a program reads.
 *
 * Returns: (transfer full) (nullable): the options
 *
 * Since: 1.0
 */
StwSnapshotOptions *
stw_snapshot_options_new_from_json (JsonObject  *object,
                                    GError     **error)
{
  static const char * const since_choices[] = { "last", NULL };
  static const char * const format_choices[] = { "json", "text", NULL };   /* StwSnapshotFormat */
  static const char * const diff_choices[] = { "compact", "full", NULL };
  g_autoptr(StwSnapshotOptions) options = stw_snapshot_options_new ();
  gint64 max_entries = DEFAULT_MAX_ENTRIES, budget = 0;
  int since = -1, format = STW_SNAPSHOT_FORMAT_TEXT, diff_format = 0;

  g_return_val_if_fail (object != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!read_choice (object, "since", since_choices, &since, error) ||
      !read_bool (object, "interactiveOnly", &options->interactive_only, error) ||
      !read_int (object, "maxEntries", 1, HARD_MAX_ENTRIES, &max_entries, error) ||
      !read_choice (object, "format", format_choices, &format, error) ||
      !read_choice (object, "diffFormat", diff_choices, &diff_format, error) ||
      !read_int (object, "budgetTokens", MIN_BUDGET_TOKENS, G_MAXINT32, &budget, error))
    return NULL;

  if (member_present (object, "root"))
    {
      JsonNode *node = json_object_get_member (object, "root");

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
        {
          gint64 ref = json_node_get_int (node);

          if (ref < 1 || ref > G_MAXUINT32)
            {
              g_propagate_error (error, bad_argument ("root", _("a ref must be a positive integer")));
              return NULL;
            }
          options->root = stw_target_new_for_ref ((guint) ref);
        }
      else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
               *json_node_get_string (node) != '\0')
        options->root = stw_target_new_for_selector (json_node_get_string (node));
      else
        {
          g_propagate_error (error, bad_argument ("root", _("must be a ref or a non-empty CSS selector")));
          return NULL;
        }
    }

  options->since_last = since == 0;
  options->max_entries = (guint) max_entries;
  options->format = format;
  options->diff_format = diff_format;
  options->budget_tokens = (guint) budget;
  return g_steal_pointer (&options);
}

/**
 * stw_snapshot_options_set_interactive_only:
 * @options: options
 * @interactive_only: list only what an agent acts on
 *
 * Sets whether only the entries an agent acts on are listed.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_interactive_only (StwSnapshotOptions *options,
                                           gboolean            interactive_only)
{
  g_return_if_fail (options != NULL);
  options->interactive_only = !!interactive_only;
}

/**
 * stw_snapshot_options_get_interactive_only:
 * @options: options
 *
 * Gets whether only the entries an agent acts on are listed.
 *
 * Returns: whether only interactive entries are listed
 *
 * Since: 1.0
 */
gboolean
stw_snapshot_options_get_interactive_only (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, FALSE);
  return options->interactive_only;
}

/**
 * stw_snapshot_options_set_max_entries:
 * @options: options
 * @max_entries: how many entries at most (1–10,000)
 *
 * Sets how many entries the snapshot lists at most.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_max_entries (StwSnapshotOptions *options,
                                      guint               max_entries)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (max_entries >= 1 && max_entries <= HARD_MAX_ENTRIES);
  options->max_entries = max_entries;
}

/**
 * stw_snapshot_options_get_max_entries:
 * @options: options
 *
 * Gets how many entries the snapshot lists at most.
 *
 * Returns: how many entries at most
 *
 * Since: 1.0
 */
guint
stw_snapshot_options_get_max_entries (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, 0);
  return options->max_entries;
}

/**
 * stw_snapshot_options_set_format:
 * @options: options
 * @format: JSON entries or text lines
 *
 * Sets whether the snapshot answers JSON entries or text lines.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_format (StwSnapshotOptions *options,
                                 StwSnapshotFormat   format)
{
  g_return_if_fail (options != NULL);
  options->format = format;
}

/**
 * stw_snapshot_options_get_format:
 * @options: options
 *
 * Gets whether the snapshot answers JSON entries or text lines.
 *
 * Returns: the format
 *
 * Since: 1.0
 */
StwSnapshotFormat
stw_snapshot_options_get_format (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, STW_SNAPSHOT_FORMAT_JSON);
  return options->format;
}

/**
 * stw_snapshot_options_set_since_last:
 * @options: options
 * @since_last: answer what changed since the surface's last snapshot
 *
 * Sets whether the snapshot answers only what changed since the surface's
 * last snapshot.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_since_last (StwSnapshotOptions *options,
                                     gboolean            since_last)
{
  g_return_if_fail (options != NULL);
  options->since_last = !!since_last;
}

/**
 * stw_snapshot_options_get_since_last:
 * @options: options
 *
 * Gets whether the snapshot answers only what changed since the last one.
 *
 * Returns: whether a diff is asked for
 *
 * Since: 1.0
 */
gboolean
stw_snapshot_options_get_since_last (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, FALSE);
  return options->since_last;
}

/**
 * stw_snapshot_options_set_diff_format:
 * @options: options
 * @diff_format: how a JSON diff encodes changed entries
 *
 * Sets how a JSON diff encodes changed entries.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_diff_format (StwSnapshotOptions *options,
                                      StwDiffFormat       diff_format)
{
  g_return_if_fail (options != NULL);
  options->diff_format = diff_format;
}

/**
 * stw_snapshot_options_get_diff_format:
 * @options: options
 *
 * Gets how a JSON diff encodes changed entries.
 *
 * Returns: the diff format
 *
 * Since: 1.0
 */
StwDiffFormat
stw_snapshot_options_get_diff_format (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, STW_DIFF_FORMAT_COMPACT);
  return options->diff_format;
}

/**
 * stw_snapshot_options_set_budget_tokens:
 * @options: options
 * @budget_tokens: the most a diff may cost (characters / 4), at least 50;
 *   0 for no limit
 *
 * Sets the most a diff may cost.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_budget_tokens (StwSnapshotOptions *options,
                                        guint               budget_tokens)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (budget_tokens == 0 || budget_tokens >= MIN_BUDGET_TOKENS);
  options->budget_tokens = budget_tokens;
}

/**
 * stw_snapshot_options_get_budget_tokens:
 * @options: options
 *
 * Gets the most a diff may cost.
 *
 * Returns: the diff budget, 0 for none
 *
 * Since: 1.0
 */
guint
stw_snapshot_options_get_budget_tokens (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, 0);
  return options->budget_tokens;
}

/**
 * stw_snapshot_options_set_root:
 * @options: options
 * @root: (nullable): the element whose subtree is listed, %NULL for all
 *
 * Sets the element whose subtree is listed.
 *
 * Since: 1.0
 */
void
stw_snapshot_options_set_root (StwSnapshotOptions *options,
                               const StwTarget    *root)
{
  g_return_if_fail (options != NULL);
  g_clear_pointer (&options->root, stw_target_free);
  options->root = root ? stw_target_copy (root) : NULL;
}

/**
 * stw_snapshot_options_get_root:
 * @options: options
 *
 * Gets the element whose subtree is listed.
 *
 * Returns: (transfer none) (nullable): the subtree's root
 *
 * Since: 1.0
 */
const StwTarget *
stw_snapshot_options_get_root (const StwSnapshotOptions *options)
{
  g_return_val_if_fail (options != NULL, NULL);
  return options->root;
}

/* --- the last snapshot of a surface ---------------------------------------- */

typedef struct
{
  GPtrArray  *entries;    /* StwSnapEntry *, all of them, unfiltered */
  GHashTable *worlds;     /* surface id -> world id (gint64 *) */
  char       *url;
  gint64      origin;     /* the document's performance.timeOrigin (ms) */
} Baseline;

static void
baseline_free (Baseline *baseline)
{
  g_ptr_array_unref (baseline->entries);
  g_hash_table_unref (baseline->worlds);
  g_free (baseline->url);
  g_free (baseline);
}

/* What a surface remembers of its snapshots; the surface holds it. */
struct _StwSnapshotMemory
{
  Baseline   *last;        /* the last whole snapshot: the next diff's base */
  GHashTable *frame_ids;   /* "world key" of a frame owner → its frame id */
};

StwSnapshotMemory *
_stw_snapshot_memory_new (void)
{
  StwSnapshotMemory *memory = g_new0 (StwSnapshotMemory, 1);

  memory->frame_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return memory;
}

void
_stw_snapshot_memory_free (StwSnapshotMemory *memory)
{
  g_clear_pointer (&memory->last, baseline_free);
  g_hash_table_unref (memory->frame_ids);
  g_free (memory);
}

/* The frame owners' ids are a document's: another world, another map. */
void
_stw_snapshot_memory_forget_frames (StwSnapshotMemory *memory)
{
  g_hash_table_remove_all (memory->frame_ids);
}

/* --- walking ---------------------------------------------------------------- */

typedef enum
{
  MODE_SNAPSHOT,
  MODE_FIND,
  MODE_LIST,
} Mode;

typedef struct _Walk Walk;

struct _Walk
{
  StwSurface *surface;
  guint       depth;
  gint64      world_id;
  gint64      known_world;   /* the world whose ref keys went with the call */
  GPtrArray  *entries;       /* StwSnapEntry * */
  JsonObject *answer;        /* the walker's, for url, title, viewport */
  GHashTable *alive;         /* gint64 keys */
  GArray     *known;         /* gint64: the keys of live refs sent along */
  guint       rounds;
  guint       closed_found;
  GPtrArray  *children;      /* Walk *, each under entries[child->owner] */
  guint       owner;         /* index of the frame entry in the parent */
  guint       steps;         /* steps of the current phase still running */
  gboolean    elsewhere;     /* walked in another surface than asked: which
                              * refs are alive there is not known */
  gboolean    grouped;       /* remote objects were asked for in the job's
                              * object group, in this surface's session */
  void      (*then) (GTask *task, Walk *walk);
};

static void
walk_free (Walk *walk)
{
  g_clear_object (&walk->surface);
  g_clear_pointer (&walk->entries, g_ptr_array_unref);
  g_clear_pointer (&walk->answer, json_object_unref);
  g_clear_pointer (&walk->alive, g_hash_table_unref);
  g_clear_pointer (&walk->known, g_array_unref);
  g_clear_pointer (&walk->children, g_ptr_array_unref);
  g_free (walk);
}

static Walk *
walk_new (StwSurface *surface,
          guint       depth)
{
  Walk *walk = g_new0 (Walk, 1);

  walk->surface = g_object_ref (surface);
  walk->depth = depth;
  walk->children = g_ptr_array_new_with_free_func ((GDestroyNotify) walk_free);
  return walk;
}

typedef struct
{
  Mode                mode;
  StwSurfaceShared   *shared;     /* what the session handed down */
  StwTransport       *transport;
  StwSnapshotOptions *options;
  JsonObject         *filters;
  char               *selector;
  guint               limit;
  Walk               *top;
  guint               pending;
  GError             *error;
  gboolean            refreshed;
  char               *object_group;
  GPtrArray          *used_surfaces;   /* surfaces already placed under an owner */
} Job;

static void
job_free (Job *job)
{
  g_clear_pointer (&job->shared, _stw_surface_shared_unref);
  g_clear_object (&job->transport);
  g_clear_pointer (&job->options, stw_snapshot_options_free);
  g_clear_pointer (&job->filters, json_object_unref);
  g_free (job->selector);
  g_clear_pointer (&job->top, walk_free);
  g_clear_error (&job->error);
  g_free (job->object_group);
  g_ptr_array_unref (job->used_surfaces);
  g_free (job);
}

static void job_done (GTask *task);
static void walk_start (GTask *task, Walk *walk);

/* One outstanding piece of work ends; the last one finishes the job. */
static void
job_release (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  g_assert (job->pending > 0);
  if (--job->pending == 0)
    job_done (task);
  g_object_unref (task);
}

static void
job_hold (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  job->pending++;
  g_object_ref (task);
}

static void
job_fail (GTask  *task,
          GError *error)
{
  Job *job = g_task_get_task_data (task);

  if (job->error == NULL)
    job->error = error;
  else
    g_error_free (error);
}

/* A raw DevTools call in a walk's surface (its CDP session). */
typedef struct
{
  GTask  *task;
  Walk   *walk;
  gint64  key;
  char   *host_object;
  gboolean counted;     /* one of the walk's steps of the current phase */
} Step;

static Step *
step_new (GTask *task,
          Walk  *walk)
{
  Step *step = g_new0 (Step, 1);

  job_hold (task);
  step->task = task;
  step->walk = walk;
  return step;
}

/* A step ends; the last step of a walk's phase runs what comes next
 * while the job is still held. */
static void
step_finish (Step *step)
{
  GTask *task = step->task;
  Walk *walk = step->walk;

  if (step->counted && --walk->steps == 0 && walk->then != NULL)
    {
      void (*then) (GTask *, Walk *) = walk->then;

      walk->then = NULL;
      then (task, walk);
    }
  g_free (step->host_object);
  g_free (step);
  job_release (task);
}

static void
cdp (Step                *step,
     const char          *method,
     JsonObject          *params,
     GAsyncReadyCallback  callback)
{
  Job *job = g_task_get_task_data (step->task);

  stw_transport_call_async (job->transport, method, params, stw_surface_get_cdp_session_id (step->walk->surface),
                            0, g_task_get_cancellable (step->task), callback, step);
}

/* Asks for the element of a key as a remote object. */
static void
element_object (Step                *step,
                GAsyncReadyCallback  callback)
{
  Job *job = g_task_get_task_data (step->task);
  g_autoptr(JsonObject) params = json_object_new ();
  JsonArray *arguments = json_array_new ();
  JsonObject *argument = json_object_new ();

  json_object_set_string_member (params, "functionDeclaration",
                                 "function (k) { return globalThis.__stagewright.element (k); }");
  json_object_set_int_member (params, "executionContextId", step->walk->world_id);
  json_object_set_int_member (argument, "value", step->key);
  json_array_add_object_element (arguments, argument);
  json_object_set_array_member (params, "arguments", arguments);
  json_object_set_string_member (params, "objectGroup", job->object_group);
  step->walk->grouped = TRUE;
  cdp (step, "Runtime.callFunctionOn", params, callback);
}

static const char *
reply_object_id (JsonObject *reply,
                 const char *member)
{
  JsonObject *remote = reply && json_object_has_member (reply, member) &&
                       JSON_NODE_HOLDS_OBJECT (json_object_get_member (reply, member))
                       ? json_object_get_object_member (reply, member) : NULL;

  return stw_json_get_string (remote, "objectId");
}

/* --- closed shadow roots --------------------------------------------------- */

static void
on_closed_root_handed (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);

  if (reply != NULL && !json_object_has_member (reply, "exceptionDetails"))
    step->walk->closed_found++;
  step_finish (step);
}

static void
on_closed_root_resolved (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  const char *root = reply_object_id (reply, "object");
  g_autoptr(JsonObject) params = NULL;
  JsonArray *arguments;
  JsonObject *argument;

  if (root == NULL)
    {
      step_finish (step);
      return;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "functionDeclaration",
                                 "function (root) { globalThis.__stagewright.addClosedRoot (this, root); }");
  json_object_set_string_member (params, "objectId", step->host_object);
  arguments = json_array_new ();
  argument = json_object_new ();
  json_object_set_string_member (argument, "objectId", root);
  json_array_add_object_element (arguments, argument);
  json_object_set_array_member (params, "arguments", arguments);
  cdp (step, "Runtime.callFunctionOn", params, on_closed_root_handed);
}

static void
on_host_described (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Step *step = user_data;
  Job *job = g_task_get_task_data (step->task);
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  JsonObject *node = reply && json_object_has_member (reply, "node") ? json_object_get_object_member (reply, "node") : NULL;
  JsonArray *roots = node && json_object_has_member (node, "shadowRoots") &&
                     JSON_NODE_HOLDS_ARRAY (json_object_get_member (node, "shadowRoots"))
                     ? json_object_get_array_member (node, "shadowRoots") : NULL;

  for (guint i = 0; roots != NULL && i < json_array_get_length (roots); i++)
    {
      JsonObject *root = json_array_get_object_element (roots, i);
      g_autoptr(JsonObject) params = NULL;

      if (root == NULL || g_strcmp0 (stw_json_get_string (root, "shadowRootType"), "closed") != 0 ||
          json_object_get_int_member_with_default (root, "backendNodeId", 0) <= 0)
        continue;
      params = json_object_new ();
      json_object_set_int_member (params, "backendNodeId", json_object_get_int_member (root, "backendNodeId"));
      json_object_set_int_member (params, "executionContextId", step->walk->world_id);
      json_object_set_string_member (params, "objectGroup", job->object_group);
      step->walk->grouped = TRUE;
      cdp (step, "DOM.resolveNode", params, on_closed_root_resolved);
      return;
    }
  step_finish (step);
}

static void
on_host_object (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  const char *host = reply_object_id (reply, "result");
  g_autoptr(JsonObject) params = NULL;

  if (host == NULL)
    {
      step_finish (step);
      return;
    }
  step->host_object = g_strdup (host);
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", host);
  json_object_set_boolean_member (params, "pierce", TRUE);
  json_object_set_int_member (params, "depth", 1);
  cdp (step, "DOM.describeNode", params, on_host_described);
}

/* --- frames ---------------------------------------------------------------- */

static GHashTable *
frame_ids_of (StwSurface *surface)
{
  return _stw_surface_get_snapshot_memory (surface)->frame_ids;
}

static char *
owner_id (gint64 world_id,
          gint64 key)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, world_id, key);
}

static void
on_owner_described (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  JsonObject *node = reply && json_object_has_member (reply, "node") ? json_object_get_object_member (reply, "node") : NULL;
  const char *frame_id = stw_json_get_string (node, "frameId");

  /* A webview has no frame id of its own: "" says it was asked. */
  g_hash_table_replace (frame_ids_of (step->walk->surface), owner_id (step->walk->world_id, step->key),
                        g_strdup (frame_id ? frame_id : ""));
  step_finish (step);
}

static void
on_owner_object (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  const char *owner = reply_object_id (reply, "result");
  g_autoptr(JsonObject) params = NULL;

  if (owner == NULL)
    {
      step_finish (step);
      return;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", owner);
  cdp (step, "DOM.describeNode", params, on_owner_described);
}

/* The surface shown under a frame owner entry, or NULL. */
static StwSurface *
surface_for_owner (Job          *job,
                   Walk         *walk,
                   StwSnapEntry *entry)
{
  g_autofree char *id = owner_id (walk->world_id, entry->key);
  const char *frame_id = g_hash_table_lookup (frame_ids_of (walk->surface), id);
  g_autoptr(GList) surfaces = _stw_surface_shared_list (job->shared);
  gboolean webview = g_strcmp0 (entry->tag, "webview") == 0 || (frame_id != NULL && *frame_id == '\0');

  for (const GList *l = surfaces; l != NULL; l = l->next)
    {
      StwSurface *surface = l->data;

      if (stw_surface_is_closed (surface) || surface == walk->surface ||
          g_ptr_array_find (job->used_surfaces, surface, NULL))
        continue;
      if (frame_id != NULL && *frame_id != '\0' && g_strcmp0 (stw_surface_get_frame_id (surface), frame_id) == 0)
        return surface;
      /* A webview's guest: the next one of this page not placed yet. */
      if (webview && stw_surface_get_kind (surface) == STW_SURFACE_KIND_WEBVIEW &&
          g_strcmp0 (stw_surface_get_parent_id (surface), stw_surface_get_id (walk->surface)) == 0)
        return surface;
    }
  return NULL;
}

static void
start_children (GTask *task,
                Walk  *walk)
{
  Job *job = g_task_get_task_data (task);

  for (guint i = 0; i < walk->entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (walk->entries, i);
      StwSurface *surface;
      Walk *child;

      if (!(entry->flags & STW_SNAP_FRAME))
        continue;
      surface = surface_for_owner (job, walk, entry);
      if (surface == NULL)
        continue;
      g_ptr_array_add (job->used_surfaces, surface);
      g_free (entry->frame_surface_id);
      entry->frame_surface_id = g_strdup (stw_surface_get_id (surface));
      child = walk_new (surface, walk->depth + 1);
      child->owner = i;
      g_ptr_array_add (walk->children, child);
      walk_start (task, child);
    }
}

typedef struct
{
  GTask *task;
  Walk  *walk;
} Refresh;

static void
on_surfaces_refreshed (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Refresh *refresh = user_data;
  GTask *task = refresh->task;

  _stw_surface_shared_refresh_finish (result, NULL);
  start_children (task, refresh->walk);
  g_free (refresh);
  job_release (task);
}

/* Every frame owner's frame id is known (or could not be): place the
 * frames' surfaces, learning of new ones first when some are missing. */
static void
on_owners_known (GTask *task,
                 Walk  *walk)
{
  Job *job = g_task_get_task_data (task);

  if (!job->refreshed)
    {
      for (guint i = 0; i < walk->entries->len; i++)
        {
          StwSnapEntry *entry = g_ptr_array_index (walk->entries, i);

          if (entry->flags & STW_SNAP_FRAME && surface_for_owner (job, walk, entry) == NULL)
            {
              Refresh *refresh = g_new0 (Refresh, 1);

              job->refreshed = TRUE;
              job_hold (task);
              refresh->task = task;
              refresh->walk = walk;
              _stw_surface_shared_refresh_async (job->shared, g_task_get_cancellable (task),
                                                  on_surfaces_refreshed, refresh);
              return;
            }
        }
    }
  start_children (task, walk);
}

/* Learns the frame id of every frame owner not seen before (one
 * describeNode each, then cached per surface), then places the frames. */
static void
frames_phase (GTask *task,
              Walk  *walk)
{
  Job *job = g_task_get_task_data (task);
  GHashTable *ids = frame_ids_of (walk->surface);
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));

  /* A frame's snapshot is only the frame; a list is only the surface. */
  if (job->mode == MODE_LIST || stw_surface_get_kind (job->top->surface) == STW_SURFACE_KIND_FRAME)
    return;

  for (guint i = 0; i < walk->entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (walk->entries, i);
      g_autofree char *id = NULL;

      if (!(entry->flags & STW_SNAP_FRAME))
        continue;
      id = owner_id (walk->world_id, entry->key);
      if (!g_hash_table_contains (ids, id))
        g_array_append_val (keys, entry->key);
    }
  if (keys->len == 0)
    {
      on_owners_known (task, walk);
      return;
    }
  walk->then = on_owners_known;
  walk->steps = keys->len;
  for (guint i = 0; i < keys->len; i++)
    {
      Step *step = step_new (task, walk);

      step->counted = TRUE;
      step->key = g_array_index (keys, gint64, i);
      element_object (step, on_owner_object);
    }
}

static void
after_closed (GTask *task,
              Walk  *walk)
{
  if (walk->closed_found > 0 && walk->rounds < CLOSED_ROUNDS)
    {
      /* The walk missed what is inside them: once more. */
      walk->closed_found = 0;
      walk_start (task, walk);
    }
  else
    frames_phase (task, walk);
}

static void
look_for_closed_roots (GTask     *task,
                       Walk      *walk,
                       JsonArray *hosts)
{
  guint n = json_array_get_length (hosts);

  walk->closed_found = 0;
  walk->then = after_closed;
  walk->steps = n;
  for (guint i = 0; i < n; i++)
    {
      Step *step = step_new (task, walk);

      step->counted = TRUE;
      step->key = json_array_get_int_element (hosts, i);
      element_object (step, on_host_object);
    }
}

/* --- the walk itself ------------------------------------------------------- */

/* What a walk answered (or why not): entries, refs' keys still alive,
 * closed shadow root hosts to look at, then frames. */
static void
walked (Step     *step,
        JsonNode *value,
        gint64    world_id,
        GError   *error)
{
  GTask *task = step->task;
  Job *job = g_task_get_task_data (task);
  Walk *walk = step->walk;
  JsonObject *answer;
  JsonArray *hosts, *gone;

  if (value == NULL)
    {
      /* A frame that went while we looked is left out, not an error. */
      if (walk == job->top)
        job_fail (task, g_steal_pointer (&error));
      g_clear_error (&error);
      step_finish (step);
      return;
    }
  answer = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (answer == NULL)
    {
      if (walk == job->top)
        job_fail (task, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, "The page walker answered no object"));
      step_finish (step);
      return;
    }

  walk->world_id = world_id;
  g_clear_pointer (&walk->answer, json_object_unref);
  walk->answer = json_object_ref (answer);
  g_clear_pointer (&walk->entries, g_ptr_array_unref);
  walk->entries = _stw_snap_entries_from_walk (answer, stw_surface_get_id (walk->surface), world_id, walk->depth);
  g_clear_pointer (&walk->alive, g_hash_table_unref);
  if (!walk->elsewhere)
    walk->alive = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  /* The page answers which of the keys sent are gone (usually none);
   * the others are alive. Keys of another world are all gone. */
  gone = json_object_has_member (answer, "gone") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (answer, "gone"))
         ? json_object_get_array_member (answer, "gone") : NULL;
  if (walk->alive != NULL && walk->known_world == world_id && walk->known != NULL)
    {
      for (guint i = 0; i < walk->known->len; i++)
        {
          gint64 *key = g_new (gint64, 1);

          *key = g_array_index (walk->known, gint64, i);
          g_hash_table_add (walk->alive, key);
        }
      for (guint i = 0; gone != NULL && i < json_array_get_length (gone); i++)
        {
          gint64 key = json_array_get_int_element (gone, i);
          g_hash_table_remove (walk->alive, &key);
        }
    }

  hosts = json_object_has_member (answer, "hosts") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (answer, "hosts"))
          ? json_object_get_array_member (answer, "hosts") : NULL;
  if (hosts != NULL && json_array_get_length (hosts) > 0 && walk->rounds < CLOSED_ROUNDS)
    look_for_closed_roots (task, walk, hosts);
  else
    frames_phase (task, walk);
  step_finish (step);
}

static void
on_walked (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  gint64 world_id = 0;

  value = _stw_surface_call_page_finish (STW_SURFACE (object), result, &world_id, &error);
  walked (user_data, value, world_id, error);
}

/* A subtree: its root is resolved like any element op's target, so a ref
 * runs in its own surface (a frame shown inline, say), moves to the one
 * element that took its place, or fails with similar refs. */
static void
on_root_walked (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(StwSurface) acted_on = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
  if (answer != NULL)
    {
      value = json_node_init_object (json_node_alloc (), answer);
      if (acted_on != NULL && acted_on != step->walk->surface)
        {
          g_set_object (&step->walk->surface, acted_on);
          step->walk->elsewhere = TRUE;
        }
    }
  walked (step, value, acted_on ? _stw_surface_get_world_id (acted_on) : 0, error);
}

static void
walk_start (GTask *task,
            Walk  *walk)
{
  Job *job = g_task_get_task_data (task);
  StwRefTable *refs = _stw_surface_get_shared (job->top->surface)->refs;
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(GPtrArray) live = _stw_ref_table_list (refs, stw_surface_get_id (walk->surface));
  JsonArray *known = json_array_new ();
  Step *step = step_new (task, walk);

  /* Which of the elements refs name are still there, so a ref whose
   * element is there but not listed stays. */
  walk->known_world = _stw_surface_get_world_id (walk->surface);
  g_clear_pointer (&walk->known, g_array_unref);
  walk->known = g_array_sized_new (FALSE, FALSE, sizeof (gint64), live->len);
  for (guint i = 0; i < live->len; i++)
    {
      const StwRef *ref = g_ptr_array_index (live, i);

      if (ref->world_id == walk->known_world)
        {
          json_array_add_int_element (known, ref->key);
          g_array_append_val (walk->known, ref->key);
        }
    }
  json_object_set_array_member (args, "known", known);
  walk->rounds++;

  if (job->mode == MODE_LIST)
    {
      json_object_set_string_member (args, "selector", job->selector);
      json_object_set_int_member (args, "limit", job->limit);
    }
  else if (walk == job->top && job->options != NULL && job->options->root != NULL)
    {
      _stw_surface_element_op_async (walk->surface, job->options->root, "snapshotAt", args,
                                     g_task_get_cancellable (task), on_root_walked, step);
      return;
    }

  _stw_surface_call_page_async (walk->surface, job->mode == MODE_LIST ? "list" : "snapshot", args,
                                g_task_get_cancellable (task), on_walked, step);
}

/* --- answers --------------------------------------------------------------- */

/* Gives the entries of every walk (in @all, flattened) their refs. */
static void
reconcile_walk (Job       *job,
                Walk      *walk,
                GPtrArray *all)
{
  if (walk->entries == NULL)
    return;
  _stw_snapshot_reconcile (_stw_surface_get_shared (job->top->surface)->refs, stw_surface_get_id (walk->surface),
                           walk->world_id, all, walk->alive, job->mode == MODE_LIST);
  for (guint i = 0; i < walk->children->len; i++)
    reconcile_walk (job, g_ptr_array_index (walk->children, i), all);
}

/* What a full snapshot shows of @all, in order: @shown (entries of @all)
 * and whether entries were left out. */
static GPtrArray *
shown_entries (const StwSnapshotOptions *options,
               GPtrArray                *all,
               gboolean                 *truncated)
{
  GPtrArray *shown = g_ptr_array_new ();

  *truncated = FALSE;
  for (guint i = 0; i < all->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (all, i);

      if (options->interactive_only && !(entry->flags & STW_SNAP_INTERACTIVE))
        continue;
      if (shown->len >= options->max_entries)
        {
          *truncated = TRUE;
          break;
        }
      g_ptr_array_add (shown, entry);
    }
  return shown;
}

/* Entries of the last snapshot that had no ref then (a full snapshot
 * leaves out what it does not show) take the one their element has now, so
 * that the diff and `recently_changed` see the same element on both sides. */
static void
adopt_refs (StwRefTable *refs,
            GPtrArray   *entries)
{
  for (guint i = 0; i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);

      if (entry->ref == 0)
        entry->ref = _stw_ref_table_find (refs, entry->surface_id, entry->world_id, entry->key);
    }
}

/* The entries of a walk with its frames' inline, in document order; the
 * entries move to @all. */
static void
flatten (Walk      *walk,
         GPtrArray *all,
         Baseline  *baseline)
{
  gint64 *world;

  if (walk->entries == NULL)
    return;
  world = g_new (gint64, 1);
  *world = walk->world_id;
  g_hash_table_replace (baseline->worlds, g_strdup (stw_surface_get_id (walk->surface)), world);
  for (guint i = 0; i < walk->entries->len; i++)
    {
      g_ptr_array_add (all, g_ptr_array_index (walk->entries, i));
      for (guint j = 0; j < walk->children->len; j++)
        {
          Walk *child = g_ptr_array_index (walk->children, j);

          if (child->owner == i)
            flatten (child, all, baseline);
        }
    }
  g_ptr_array_set_free_func (walk->entries, NULL);
  g_ptr_array_set_size (walk->entries, 0);
}

/* Releases the remote objects the job asked for, in each session where
 * it asked for some: a page without frames or closed shadow roots costs
 * no message (and no renderer task ahead of the next call). */
static void
release_objects (Job  *job,
                 Walk *walk)
{
  if (walk->grouped)
    {
      g_autoptr(JsonObject) params = json_object_new ();

      json_object_set_string_member (params, "objectGroup", job->object_group);
      stw_transport_send_notification (job->transport, "Runtime.releaseObjectGroup", params,
                                       stw_surface_get_cdp_session_id (walk->surface));
    }
  for (guint i = 0; i < walk->children->len; i++)
    release_objects (job, g_ptr_array_index (walk->children, i));
}

static gboolean
reloaded_since (Baseline *baseline,
                Walk     *top,
                const char *url)
{
  gint64 *world;

  if (baseline == NULL)
    return FALSE;
  world = g_hash_table_lookup (baseline->worlds, stw_surface_get_id (top->surface));
  /* World ids repeat in another renderer process (a page left for another
   * site and loaded again): the document's time origin does not. */
  return world == NULL || *world != top->world_id || g_strcmp0 (baseline->url, url) != 0 ||
         baseline->origin != json_object_get_int_member_with_default (top->answer, "origin", 0);
}

static gboolean
answers_diff (Job      *job,
              Baseline *previous,
              gboolean  reloaded)
{
  return job->options->since_last && previous != NULL && !reloaded && job->options->root == NULL;
}

static JsonObject *
snapshot_answer (Job       *job,
                 GPtrArray *all,
                 GPtrArray *shown,
                 gboolean   truncated,
                 Baseline  *previous,
                 gboolean   reloaded)
{
  const StwSnapshotOptions *options = job->options;
  JsonObject *answer = json_object_new ();
  JsonObject *walked = job->top->answer;
  const char *surface_id = stw_surface_get_id (job->top->surface);
  const char *url = stw_json_get_string (walked, "url");
  const char *title = stw_json_get_string (walked, "title");
  JsonArray *viewport = json_object_has_member (walked, "viewport") ? json_object_get_array_member (walked, "viewport") : NULL;
  int width = viewport ? (int) json_array_get_int_element (viewport, 0) : 0;
  int height = viewport ? (int) json_array_get_int_element (viewport, 1) : 0;

  if (answers_diff (job, previous, reloaded))
    {
      g_autofree char *text = NULL;
      JsonObject *diff = _stw_snapshot_diff (previous->entries, all, options->diff_format, options->budget_tokens,
                                             options->format == STW_SNAPSHOT_FORMAT_TEXT ? &text : NULL, &truncated);

      json_object_set_string_member (answer, "kind", "diff");
      json_object_set_string_member (answer, "surface_id", surface_id);
      if (text != NULL)
        {
          json_object_set_string_member (answer, "format", "text");
          json_object_set_string_member (answer, "diff_text", text);
          json_object_unref (diff);
        }
      else
        {
          json_object_set_string_member (answer, "diff_format",
                                         options->diff_format == STW_DIFF_FORMAT_FULL ? "full" : "compact");
          json_object_set_object_member (answer, "diff", diff);
        }
      json_object_set_boolean_member (answer, "renderer_reloaded", FALSE);
      json_object_set_boolean_member (answer, "truncated", truncated);
      return answer;
    }

  json_object_set_string_member (answer, "kind", "full");
  json_object_set_string_member (answer, "surface_id", surface_id);
  if (options->format == STW_SNAPSHOT_FORMAT_TEXT)
    {
      g_autofree char *text = _stw_snapshot_render_text (title, url, width, height, shown);

      json_object_set_string_member (answer, "format", "text");
      json_object_set_string_member (answer, "snapshot_text", text);
      json_object_set_int_member (answer, "entry_count", shown->len);
    }
  else
    {
      JsonObject *snapshot = json_object_new ();
      JsonArray *entries = json_array_sized_new (shown->len);
      JsonObject *meta = json_object_new ();
      JsonObject *size = json_object_new ();

      for (guint i = 0; i < shown->len; i++)
        json_array_add_object_element (entries, _stw_snapshot_entry_json (g_ptr_array_index (shown, i)));
      json_object_set_int_member (snapshot, "schemaVersion", 1);
      json_object_set_array_member (snapshot, "entries", entries);
      json_object_set_int_member (size, "width", width);
      json_object_set_int_member (size, "height", height);
      json_object_set_object_member (meta, "viewport", size);
      json_object_set_string_member (meta, "url", url ?: "");
      json_object_set_string_member (meta, "title", title ?: "");
      json_object_set_int_member (meta, "navigation_started_at_ms",
                                  json_object_get_int_member_with_default (walked, "origin", 0));
      json_object_set_string_member (meta, "diff_baseline", "full");
      json_object_set_boolean_member (meta, "renderer_reloaded_since_last_snapshot", reloaded);
      json_object_set_object_member (snapshot, "meta", meta);
      json_object_set_object_member (answer, "snapshot", snapshot);
    }
  json_object_set_boolean_member (answer, "renderer_reloaded", reloaded);
  json_object_set_boolean_member (answer, "truncated", truncated);
  return answer;
}

static JsonObject *
match_json (const StwSnapEntry *entry,
            gboolean            with_tag)
{
  JsonObject *match = json_object_new ();
  JsonObject *bbox = json_object_new ();

  if (entry->ref != 0)
    json_object_set_int_member (match, "ref", entry->ref);
  else
    json_object_set_null_member (match, "ref");
  if (with_tag && entry->tag != NULL)
    json_object_set_string_member (match, "tag", entry->tag);
  json_object_set_string_member (match, "role", entry->flags & STW_SNAP_FRAME ? "frame" : entry->role);
  json_object_set_string_member (match, "name", entry->name);
  json_object_set_int_member (bbox, "x", entry->x);
  json_object_set_int_member (bbox, "y", entry->y);
  json_object_set_int_member (bbox, "w", entry->w);
  json_object_set_int_member (bbox, "h", entry->h);
  json_object_set_object_member (match, "bbox", bbox);
  json_object_set_string_member (match, "surface_id", entry->surface_id);
  return match;
}

static gboolean
name_matches (const char *name,
              const char *contains,
              const char *exact)
{
  g_autofree char *folded = NULL;

  if (contains == NULL && exact == NULL)
    return TRUE;
  folded = g_utf8_casefold (name, -1);
  if (exact != NULL)
    return g_str_equal (folded, exact);
  return strstr (folded, contains) != NULL;
}

static JsonObject *
find_answer (Job       *job,
             GPtrArray *all,
             gboolean   reloaded)
{
  JsonObject *filters = job->filters;
  const char *role = stw_json_get_string (filters, "role");
  g_autofree char *contains = stw_json_get_string (filters, "name_contains")
                              ? g_utf8_casefold (stw_json_get_string (filters, "name_contains"), -1) : NULL;
  g_autofree char *exact = stw_json_get_string (filters, "name_exact")
                           ? g_utf8_casefold (stw_json_get_string (filters, "name_exact"), -1) : NULL;
  gboolean check_visible = member_present (filters, "visible");
  gboolean visible = check_visible && json_object_get_boolean_member (filters, "visible");
  gboolean check_enabled = member_present (filters, "enabled");
  gboolean enabled = check_enabled && json_object_get_boolean_member (filters, "enabled");
  gboolean check_interactive = member_present (filters, "interactive");
  gboolean interactive = check_interactive && json_object_get_boolean_member (filters, "interactive");
  gint64 limit = json_object_get_int_member_with_default (filters, "limit", 0);
  JsonObject *answer = json_object_new ();
  JsonArray *matches = json_array_new ();
  guint count = 0;

  for (guint i = 0; i < all->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (all, i);
      const char *entry_role = entry->flags & STW_SNAP_FRAME ? "frame" : entry->role;

      if (role != NULL && g_strcmp0 (entry_role, role) != 0)
        continue;
      if (!name_matches (entry->name, contains, exact))
        continue;
      if (check_visible && visible != !(entry->flags & STW_SNAP_HIDDEN))
        continue;
      if (check_enabled && enabled != !(entry->flags & STW_SNAP_DISABLED))
        continue;
      if (check_interactive && interactive != !!(entry->flags & STW_SNAP_INTERACTIVE))
        continue;
      count++;
      if (limit > 0 && json_array_get_length (matches) >= limit)
        continue;
      json_array_add_object_element (matches, match_json (entry, FALSE));
    }
  json_object_set_string_member (answer, "surface_id", stw_surface_get_id (job->top->surface));
  json_object_set_int_member (answer, "count", count);
  json_object_set_int_member (answer, "truncated", count - json_array_get_length (matches));
  json_object_set_array_member (answer, "matches", matches);
  json_object_set_boolean_member (answer, "renderer_reloaded", reloaded);
  return answer;
}

static JsonObject *
list_answer (Job       *job,
             GPtrArray *all)
{
  JsonObject *answer = json_object_new ();
  JsonArray *matches = json_array_new ();
  gint64 total = json_object_get_int_member_with_default (job->top->answer, "total", all->len);

  for (guint i = 0; i < all->len; i++)
    json_array_add_object_element (matches, match_json (g_ptr_array_index (all, i), TRUE));
  json_object_set_string_member (answer, "surface_id", stw_surface_get_id (job->top->surface));
  json_object_set_int_member (answer, "count", total);
  json_object_set_int_member (answer, "truncated", total - (gint64) all->len);
  json_object_set_array_member (answer, "matches", matches);
  return answer;
}

static void
job_done (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) shown = NULL;
  Baseline *previous, *baseline;
  StwSnapshotMemory *memory;
  gboolean reloaded, truncated = FALSE;
  JsonObject *answer;

  release_objects (job, job->top);
  if (job->error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&job->error));
      return;
    }
  if (job->top->entries == NULL || job->top->answer == NULL)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, "The page was not walked"));
      return;
    }

  all = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  baseline = g_new0 (Baseline, 1);
  baseline->worlds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  baseline->url = g_strdup (stw_json_get_string (job->top->answer, "url"));
  baseline->origin = json_object_get_int_member_with_default (job->top->answer, "origin", 0);
  flatten (job->top, all, baseline);
  baseline->entries = g_ptr_array_ref (all);

  if (job->mode == MODE_LIST)
    {
      reconcile_walk (job, job->top, all);
      baseline_free (baseline);
      g_task_return_pointer (task, list_answer (job, all), (GDestroyNotify) json_object_unref);
      return;
    }

  memory = _stw_surface_get_snapshot_memory (job->top->surface);
  previous = memory->last;
  reloaded = reloaded_since (previous, job->top, baseline->url);

  /* A full snapshot gives new refs only to what it shows: maxEntries 10
   * on a page of 20,000 buttons makes at most 10 refs, not 20,000. */
  if (job->mode == MODE_SNAPSHOT && !answers_diff (job, previous, reloaded))
    {
      shown = shown_entries (job->options, all, &truncated);
      for (guint i = 0; i < all->len; i++)
        ((StwSnapEntry *) g_ptr_array_index (all, i))->unlisted = TRUE;
      for (guint i = 0; i < shown->len; i++)
        ((StwSnapEntry *) g_ptr_array_index (shown, i))->unlisted = FALSE;
    }
  reconcile_walk (job, job->top, all);
  if (previous != NULL && !reloaded)
    {
      adopt_refs (_stw_surface_get_shared (job->top->surface)->refs, previous->entries);
      _stw_snapshot_mark_changed (previous->entries, all);
    }

  if (job->mode == MODE_FIND)
    answer = find_answer (job, all, reloaded);
  else
    answer = snapshot_answer (job, all, shown, truncated, previous, reloaded);

  /* Only a snapshot of the whole surface is the next diff's baseline: a
   * subtree is not, and neither is a find (the agent did not read what it
   * left out; the reference lets a find move the baseline, we do not).
   * This frees @previous. */
  if (job->mode == MODE_SNAPSHOT && job->options->root == NULL)
    {
      g_clear_pointer (&memory->last, baseline_free);
      memory->last = baseline;
    }
  else
    baseline_free (baseline);
  g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
}

static GTask *
job_start (StwSurface          *self,
           Mode                 mode,
           gpointer             source_tag,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data,
           Job                **out)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  StwSurfaceShared *shared = _stw_surface_get_shared (self);
  StwTransport *transport = _stw_surface_get_transport (self);
  Job *job;

  g_task_set_source_tag (task, source_tag);
  if (!shared->alive || !shared->running)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return NULL;
    }
  if (stw_surface_is_closed (self))
    {
      GError *error = stw_error_new_code (STW_ERROR_SURFACE_CLOSED, _("Surface %s has closed"), stw_surface_get_id (self));

      stw_error_add_next_action (error, "electron_surfaces_list()");
      g_task_return_error (task, error);
      g_object_unref (task);
      return NULL;
    }
  if (transport == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED, _("This session has no renderer connection")));
      g_object_unref (task);
      return NULL;
    }

  job = g_new0 (Job, 1);
  job->mode = mode;
  job->shared = _stw_surface_shared_ref (shared);
  job->transport = g_object_ref (transport);
  job->object_group = g_strdup_printf ("stw-snapshot-%p", (void *) job);
  job->used_surfaces = g_ptr_array_new ();
  job->top = walk_new (self, 0);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  *out = job;
  return task;
}

/* Starts the top walk; the task's own reference goes to the job's hold. */
static void
job_run (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  job_hold (task);
  walk_start (task, job->top);
  job_release (task);
  g_object_unref (task);
}

/**
 * stw_surface_snapshot_async:
 * @self: a #StwSurface
 * @options: (nullable): what to list and how; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the snapshot is ready
 * @user_data: data for @callback
 *
 * Lists what an agent sees and can act on in the surface: roles, names,
 * values and states as Chromium computes them, each element that can be
 * acted on or read with a ref of the session. A window's frames and
 * webviews are listed inline under their owner element; open and closed
 * shadow roots under their host. The answer has the shape of the
 * `electron_snapshot` tool's result (a full snapshot, or with
 * `since_last` the changes since the surface's last one).
 *
 * Since: 1.0
 */
void
stw_surface_snapshot_async (StwSurface               *self,
                            const StwSnapshotOptions *options,
                            GCancellable             *cancellable,
                            GAsyncReadyCallback       callback,
                            gpointer                  user_data)
{
  Job *job = NULL;
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));

  task = job_start (self, MODE_SNAPSHOT, stw_surface_snapshot_async, cancellable, callback, user_data, &job);
  if (task == NULL)
    return;
  job->options = options ? stw_snapshot_options_copy (options) : stw_snapshot_options_new ();

  if (job->options->root != NULL && stw_target_get_ref (job->options->root) != 0)
    {
      StwRefTable *refs = _stw_surface_get_shared (job->top->surface)->refs;
      guint number = stw_target_get_ref (job->options->root);
      const StwRef *ref = _stw_ref_table_lookup (refs, number);

      if (ref == NULL || ref->gone)
        {
          GError *error = stw_error_new_code (STW_ERROR_REF_NOT_FOUND,
                                              ref != NULL ? _("The element of ref %u is gone")
                                              : _stw_ref_table_was_issued (refs, number)
                                              ? _("Ref %u is gone: the session keeps only its most recent refs")
                                              : _("Ref %u was never given in this session"), number);
          if (ref != NULL && ref->gone)
            {
              g_autoptr(JsonArray) similar = _stw_ref_table_similar (refs, ref, 5);
              if (json_array_get_length (similar) > 0)
                stw_error_set_similar_refs (error, similar);
            }
          stw_error_add_next_action (error, "electron_snapshot()");
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
    }
  job_run (task);
}

/**
 * stw_surface_snapshot_finish:
 * @self: a #StwSurface
 * @result: the #GAsyncResult
 * @error: return location for an error
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.snapshot_async].
 *
 * Returns: (transfer full): the snapshot
 *
 * Since: 1.0
 */
StwSnapshot *
stw_surface_snapshot_finish (StwSurface    *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  JsonObject *answer;
  StwSnapshot *snapshot;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_snapshot_async, NULL);

  answer = g_task_propagate_pointer (G_TASK (result), error);
  if (answer == NULL)
    return NULL;
  snapshot = g_new0 (StwSnapshot, 1);
  g_atomic_ref_count_init (&snapshot->ref_count);
  snapshot->answer = answer;
  return snapshot;
}

/* --- StwSnapshot ------------------------------------------------------------ */

/**
 * stw_snapshot_ref:
 * @self: a #StwSnapshot
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwSnapshot *
stw_snapshot_ref (StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_snapshot_unref:
 * @self: (transfer full): a #StwSnapshot
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_snapshot_unref (StwSnapshot *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->answer);
  g_free (self);
}

/**
 * stw_snapshot_is_diff:
 * @self: a #StwSnapshot
 *
 * Whether @self holds the changes since the surface's last snapshot
 * rather than a full one (asked with `since_last`, and answered when a
 * previous snapshot exists and the renderer did not reload).
 *
 * Returns: %TRUE for a diff
 *
 * Since: 1.0
 */
gboolean
stw_snapshot_is_diff (const StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return g_strcmp0 (stw_json_get_string (self->answer, "kind"), "diff") == 0;
}

/**
 * stw_snapshot_get_surface_id:
 * @self: a #StwSnapshot
 *
 * Gets the surface the snapshot is of.
 *
 * Returns: (transfer none): the surface id
 *
 * Since: 1.0
 */
const char *
stw_snapshot_get_surface_id (const StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->answer, "surface_id");
}

/**
 * stw_snapshot_get_text:
 * @self: a #StwSnapshot
 *
 * Gets the snapshot, or the diff, as text: one line per element with its
 * ref, role, name and states.
 *
 * Returns: (transfer none) (nullable): the text, or %NULL when the
 *   snapshot was asked as JSON (%STW_SNAPSHOT_FORMAT_JSON)
 *
 * Since: 1.0
 */
const char *
stw_snapshot_get_text (const StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->answer, stw_snapshot_is_diff (self) ? "diff_text" : "snapshot_text");
}

/**
 * stw_snapshot_get_entry_count:
 * @self: a #StwSnapshot
 *
 * Gets how many elements a full snapshot lists (each with its ref).
 *
 * Returns: the number of entries, 0 for a diff
 *
 * Since: 1.0
 */
guint
stw_snapshot_get_entry_count (const StwSnapshot *self)
{
  JsonArray *entries;

  g_return_val_if_fail (self != NULL, 0);

  if (json_object_has_member (self->answer, "entry_count"))
    return (guint) json_object_get_int_member (self->answer, "entry_count");
  entries = stw_snapshot_get_entries (self);
  return entries ? json_array_get_length (entries) : 0;
}

/**
 * stw_snapshot_get_entries:
 * @self: a #StwSnapshot
 *
 * Gets a full JSON snapshot's entries: one object per element, with its
 * `ref`, `role`, `name`, `depth` and whatever states, value and
 * attributes it has (docs/page-ops.md). Open by nature, so JSON.
 *
 * Returns: (transfer none) (nullable): the entries, or %NULL for a text
 *   snapshot or a diff
 *
 * Since: 1.0
 */
JsonArray *
stw_snapshot_get_entries (const StwSnapshot *self)
{
  JsonObject *snapshot;

  g_return_val_if_fail (self != NULL, NULL);

  snapshot = stw_json_get_object (self->answer, "snapshot");
  if (snapshot == NULL || !json_object_has_member (snapshot, "entries"))
    return NULL;
  return json_object_get_array_member (snapshot, "entries");
}

/**
 * stw_snapshot_get_diff:
 * @self: a #StwSnapshot
 *
 * Gets a JSON diff: the entries added, removed and changed since the last
 * snapshot. Open by nature, so JSON.
 *
 * Returns: (transfer none) (nullable): the diff, or %NULL for a full
 *   snapshot or a text diff
 *
 * Since: 1.0
 */
JsonObject *
stw_snapshot_get_diff (const StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_object (self->answer, "diff");
}

/**
 * stw_snapshot_is_truncated:
 * @self: a #StwSnapshot
 *
 * Whether entries were left out to stay within the entry or token budget.
 *
 * Returns: %TRUE when entries were left out
 *
 * Since: 1.0
 */
gboolean
stw_snapshot_is_truncated (const StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->answer, "truncated", FALSE);
}

/**
 * stw_snapshot_get_renderer_reloaded:
 * @self: a #StwSnapshot
 *
 * Whether the renderer reloaded since the surface's last snapshot, so
 * every earlier ref of the surface is gone.
 *
 * Returns: %TRUE when the renderer reloaded
 *
 * Since: 1.0
 */
gboolean
stw_snapshot_get_renderer_reloaded (const StwSnapshot *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->answer, "renderer_reloaded", FALSE);
}

/* The snapshot as the `electron_snapshot` tool answers it (without the
 * envelope). Registered as the type's JSON serialization, which the tool
 * calls through json_boxed_serialize(). */
static JsonObject *
snapshot_to_json (const StwSnapshot *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->answer, NULL);
  return copy;
}

static JsonNode *
snapshot_serialize (gconstpointer boxed)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, snapshot_to_json (boxed));
  return node;
}

/**
 * stw_surface_snapshot_sync:
 * @self: a #StwSurface
 * @options: (nullable): what to list and how
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * The blocking form of [method@Stagewright.Surface.snapshot_async].
 *
 * Returns: (transfer full): the snapshot
 *
 * Since: 1.0
 */
StwSnapshot *
stw_surface_snapshot_sync (StwSurface               *self,
                           const StwSnapshotOptions *options,
                           GCancellable             *cancellable,
                           GError                  **error)
{
  StwSyncCall call;
  StwSnapshot *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_snapshot_async (self, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_snapshot_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

static gboolean
check_filters (JsonObject  *filters,
               GError     **error)
{
  static const char * const known[] = { "role", "name_contains", "name_exact", "visible", "enabled",
                                        "interactive", "limit", "sessionId", NULL };
  g_autoptr(GList) members = json_object_get_members (filters);
  gboolean flag;
  gint64 limit;

  for (const GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      {
        g_propagate_error (error, bad_argument (l->data, _("unknown filter")));
        return FALSE;
      }
  for (guint i = 0; i < 3; i++)
    {
      const char *member = known[i];

      if (member_present (filters, member) &&
          (json_node_get_value_type (json_object_get_member (filters, member)) != G_TYPE_STRING))
        {
          g_propagate_error (error, bad_argument (member, _("must be a string")));
          return FALSE;
        }
    }
  if (member_present (filters, "name_contains") && member_present (filters, "name_exact"))
    {
      g_propagate_error (error, bad_argument ("name_exact", _("give name_contains or name_exact, not both")));
      return FALSE;
    }
  return read_bool (filters, "visible", &flag, error) &&
         read_bool (filters, "enabled", &flag, error) &&
         read_bool (filters, "interactive", &flag, error) &&
         read_int (filters, "limit", 1, G_MAXINT32, &limit, error);
}

/**
 * stw_surface_find_async:
 * @self: a #StwSurface
 * @filters: (nullable): `role` (exact), `name_contains` or `name_exact`
 *   (case-insensitive), `visible`, `enabled`, `interactive` (booleans, all
 *   AND-ed) and `limit` (≥ 1)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Finds entries of a fresh snapshot of the surface (frames inline, refs
 * as the snapshot gives them). Answers a [struct@Stagewright.ElementList]
 * of the matches (at most `limit`), with the true count.
 *
 * Since: 1.0
 */
void
stw_surface_find_async (StwSurface          *self,
                        JsonObject          *filters,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GError) error = NULL;
  Job *job = NULL;
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));

  task = job_start (self, MODE_FIND, stw_surface_find_async, cancellable, callback, user_data, &job);
  if (task == NULL)
    return;
  job->filters = filters ? json_object_ref (filters) : json_object_new ();
  if (!check_filters (job->filters, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  job_run (task);
}

/**
 * stw_surface_find_finish:
 * @self: a #StwSurface
 * @result: the #GAsyncResult
 * @error: return location for an error
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.find_async].
 *
 * Returns: (transfer full): the matches
 *
 * Since: 1.0
 */
StwElementList *
stw_surface_find_finish (StwSurface    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_find_async, NULL);

  answer = g_task_propagate_pointer (G_TASK (result), error);
  return answer != NULL ? _stw_element_list_new_from_json (answer) : NULL;
}

/**
 * stw_surface_find_sync:
 * @self: a #StwSurface
 * @filters: (nullable): the filters
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * The blocking form of [method@Stagewright.Surface.find_async].
 *
 * Returns: (transfer full): the matches
 *
 * Since: 1.0
 */
StwElementList *
stw_surface_find_sync (StwSurface    *self,
                       JsonObject    *filters,
                       GCancellable  *cancellable,
                       GError       **error)
{
  StwSyncCall call;
  StwElementList *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_find_async (self, filters, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_find_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_list_elements_async:
 * @self: a #StwSurface
 * @selector: a CSS selector, matched in the document and its shadow roots
 * @limit: how many elements at most (0: all)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Lists the elements matching @selector, each with a ref of the session
 * and its tag name, as a [struct@Stagewright.ElementList]. An invalid
 * selector is `BAD_ARGUMENT`.
 *
 * Since: 1.0
 */
void
stw_surface_list_elements_async (StwSurface          *self,
                                 const char          *selector,
                                 guint                limit,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  Job *job = NULL;
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (selector != NULL);

  task = job_start (self, MODE_LIST, stw_surface_list_elements_async, cancellable, callback, user_data, &job);
  if (task == NULL)
    return;
  if (*selector == '\0')
    {
      g_task_return_error (task, bad_argument ("selector", _("must be a non-empty CSS selector")));
      g_object_unref (task);
      return;
    }
  job->selector = g_strdup (selector);
  job->limit = limit;
  job_run (task);
}

/**
 * stw_surface_list_elements_finish:
 * @self: a #StwSurface
 * @result: the #GAsyncResult
 * @error: return location for an error
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.list_elements_async].
 *
 * Returns: (transfer full): the elements
 *
 * Since: 1.0
 */
StwElementList *
stw_surface_list_elements_finish (StwSurface    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_list_elements_async, NULL);

  answer = g_task_propagate_pointer (G_TASK (result), error);
  return answer != NULL ? _stw_element_list_new_from_json (answer) : NULL;
}

/**
 * stw_surface_list_elements_sync:
 * @self: a #StwSurface
 * @selector: a CSS selector
 * @limit: how many elements at most (0: all)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * The blocking form of [method@Stagewright.Surface.list_elements_async].
 *
 * Returns: (transfer full): the elements
 *
 * Since: 1.0
 */
StwElementList *
stw_surface_list_elements_sync (StwSurface    *self,
                                const char    *selector,
                                guint          limit,
                                GCancellable  *cancellable,
                                GError       **error)
{
  StwSyncCall call;
  StwElementList *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_list_elements_async (self, selector, limit, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_list_elements_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* The last snapshot is this file's: other files drop it through here. */
void
_stw_surface_forget_last_snapshot (StwSurface *self)
{
  g_clear_pointer (&_stw_surface_get_snapshot_memory (self)->last, baseline_free);
}
