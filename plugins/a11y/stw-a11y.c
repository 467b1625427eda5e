/* stw-a11y.c: the a11y plugin's API — axe-core audits with a ref per finding
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 20's a11y plugin. axe-core (never vendored: the config's `engine`,
 * or node_modules/axe-core/axe.min.js under the server's working
 * directory, which `npm install axe-core` fills) is read once, bounded and
 * checked, and evaluated in each frame's isolated world — never the page's
 * main world, never as agent eval — beside the plugin's page-side half
 * (a11y-page.js). An audit runs axe.runPartial in the audited surface and
 * then in each frame axe asks for, depth first, finding each frame's
 * surface from its element through the DOM domain; axe.finishRun merges
 * the partial results in the top frame's isolated world, as
 * @axe-core/playwright does, instead of axe's cross-frame postMessage
 * protocol (turned off: the page could see and forge it). Every offending
 * element then gets a ref through stw_surface_bind_element_ref(), so an
 * agent acts on it at once.
 *
 * The page is hostile: it cannot reach the isolated world's globals, but
 * it can hang its renderer or grow its DOM, so the whole audit has a time
 * budget (`timeoutMs`), each frame's partial result and their sum a size
 * budget (`maxResultBytes`), the frames a count (`maxFrames`) and the
 * answer's nodes a cap per rule (`maxNodes`).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "a11y-private.h"

#define A11Y_PAGE_RESOURCE   "/org/stagewright/plugins/a11y/a11y-page.js"
#define A11Y_ENGINE_DEFAULT  "node_modules/axe-core/axe.min.js"
#define A11Y_ENGINE_MAX      (16 * 1024 * 1024)
#define A11Y_MAX_HTML        300
#define A11Y_MAX_RULES       200

GResource *a11y_get_resource (void);

/* --- results ------------------------------------------------------------- */

/**
 * StwA11yNode:
 *
 * One element that fails (or, for incomplete, may fail) a rule: its ref,
 * its selector path (one selector per frame from the audited surface down,
 * shadow-DOM steps joined by ` >>> `), its HTML (shortened) and axe's
 * summary of what to fix.
 */
struct _StwA11yNode
{
  gatomicrefcount  ref_count;
  StwElementRef   *element;
  GStrv            target;
  char            *html;
  char            *failure_summary;
  char            *impact;
};

G_DEFINE_BOXED_TYPE (StwA11yNode, stw_a11y_node, stw_a11y_node_ref, stw_a11y_node_unref)

/**
 * stw_a11y_node_ref:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer full): @self
 */
StwA11yNode *
stw_a11y_node_ref (StwA11yNode *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_a11y_node_unref:
 * @self: (transfer full): a #StwA11yNode
 */
void
stw_a11y_node_unref (StwA11yNode *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_pointer (&self->element, stw_element_ref_free);
  g_strfreev (self->target);
  g_free (self->html);
  g_free (self->failure_summary);
  g_free (self->impact);
  g_free (self);
}

/**
 * stw_a11y_node_get_element:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none) (nullable): the element's ref, %NULL when its
 *   document went before it could be given one
 */
const StwElementRef *
stw_a11y_node_get_element (StwA11yNode *self)
{
  return self->element;
}

/**
 * stw_a11y_node_get_target:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none) (array zero-terminated=1): the selector path
 */
const char * const *
stw_a11y_node_get_target (StwA11yNode *self)
{
  return (const char * const *) self->target;
}

/**
 * stw_a11y_node_get_html:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none): the element's HTML, shortened
 */
const char *
stw_a11y_node_get_html (StwA11yNode *self)
{
  return self->html;
}

/**
 * stw_a11y_node_get_failure_summary:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none): axe's summary of what to fix
 */
const char *
stw_a11y_node_get_failure_summary (StwA11yNode *self)
{
  return self->failure_summary;
}

/**
 * stw_a11y_node_get_impact:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none): `minor`, `moderate`, `serious`, `critical`
 *   or empty
 */
const char *
stw_a11y_node_get_impact (StwA11yNode *self)
{
  return self->impact;
}

/**
 * StwA11yViolation:
 *
 * One axe rule that failed, with the elements that fail it.
 */
struct _StwA11yViolation
{
  gatomicrefcount  ref_count;
  char            *id;
  char            *impact;
  char            *description;
  char            *help;
  char            *help_url;
  GStrv            tags;
  GPtrArray       *nodes;     /* StwA11yNode */
  guint            n_nodes;   /* before the cap */
};

G_DEFINE_BOXED_TYPE (StwA11yViolation, stw_a11y_violation, stw_a11y_violation_ref, stw_a11y_violation_unref)

/**
 * stw_a11y_violation_ref:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer full): @self
 */
StwA11yViolation *
stw_a11y_violation_ref (StwA11yViolation *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_a11y_violation_unref:
 * @self: (transfer full): a #StwA11yViolation
 */
void
stw_a11y_violation_unref (StwA11yViolation *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->id);
  g_free (self->impact);
  g_free (self->description);
  g_free (self->help);
  g_free (self->help_url);
  g_strfreev (self->tags);
  g_ptr_array_unref (self->nodes);
  g_free (self);
}

/**
 * stw_a11y_violation_get_id:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the axe rule's id, e.g. `image-alt`
 */
const char *
stw_a11y_violation_get_id (StwA11yViolation *self)
{
  return self->id;
}

/**
 * stw_a11y_violation_get_impact:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the worst impact among its nodes
 */
const char *
stw_a11y_violation_get_impact (StwA11yViolation *self)
{
  return self->impact;
}

/**
 * stw_a11y_violation_get_description:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): what the rule checks
 */
const char *
stw_a11y_violation_get_description (StwA11yViolation *self)
{
  return self->description;
}

/**
 * stw_a11y_violation_get_help:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the rule's one-line help
 */
const char *
stw_a11y_violation_get_help (StwA11yViolation *self)
{
  return self->help;
}

/**
 * stw_a11y_violation_get_help_url:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): where Deque explains the rule
 */
const char *
stw_a11y_violation_get_help_url (StwA11yViolation *self)
{
  return self->help_url;
}

/**
 * stw_a11y_violation_get_tags:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none) (array zero-terminated=1): the rule's tags
 *   (`wcag2a`, `wcag111`, `best-practice`, …)
 */
const char * const *
stw_a11y_violation_get_tags (StwA11yViolation *self)
{
  return (const char * const *) self->tags;
}

/**
 * stw_a11y_violation_get_nodes:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none) (element-type StwA11yNode): the failing
 *   elements, at most the config's `maxNodes`
 */
GPtrArray *
stw_a11y_violation_get_nodes (StwA11yViolation *self)
{
  return self->nodes;
}

/**
 * stw_a11y_violation_get_n_nodes:
 * @self: a #StwA11yViolation
 *
 * Returns: how many elements fail the rule, those past the cap included
 */
guint
stw_a11y_violation_get_n_nodes (StwA11yViolation *self)
{
  return self->n_nodes;
}

/**
 * StwA11yAudit:
 *
 * What an audit found: the violations grouped by rule, how many rules
 * need review (incomplete), passed or did not apply, and what the audit
 * could and could not see.
 */
struct _StwA11yAudit
{
  gatomicrefcount  ref_count;
  GPtrArray       *violations;  /* StwA11yViolation */
  guint            n_violations;
  guint            n_incomplete;
  guint            n_passes;
  guint            n_inapplicable;
  char            *engine_version;
  char            *surface_id;
  guint            n_frames;
  guint            n_frames_skipped;
  gboolean         truncated;
};

G_DEFINE_BOXED_TYPE (StwA11yAudit, stw_a11y_audit, stw_a11y_audit_ref, stw_a11y_audit_unref)

/**
 * stw_a11y_audit_ref:
 * @self: a #StwA11yAudit
 *
 * Returns: (transfer full): @self
 */
StwA11yAudit *
stw_a11y_audit_ref (StwA11yAudit *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_a11y_audit_unref:
 * @self: (transfer full): a #StwA11yAudit
 */
void
stw_a11y_audit_unref (StwA11yAudit *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_ptr_array_unref (self->violations);
  g_free (self->engine_version);
  g_free (self->surface_id);
  g_free (self);
}

/**
 * stw_a11y_audit_get_violations:
 * @self: a #StwA11yAudit
 *
 * Returns: (transfer none) (element-type StwA11yViolation): the rules that
 *   failed
 */
GPtrArray *
stw_a11y_audit_get_violations (StwA11yAudit *self)
{
  return self->violations;
}

/**
 * stw_a11y_audit_get_n_incomplete:
 * @self: a #StwA11yAudit
 *
 * Returns: how many rules need a person's review
 */
guint
stw_a11y_audit_get_n_incomplete (StwA11yAudit *self)
{
  return self->n_incomplete;
}

/**
 * stw_a11y_audit_get_n_passes:
 * @self: a #StwA11yAudit
 *
 * Returns: how many rules passed
 */
guint
stw_a11y_audit_get_n_passes (StwA11yAudit *self)
{
  return self->n_passes;
}

/**
 * stw_a11y_audit_get_n_inapplicable:
 * @self: a #StwA11yAudit
 *
 * Returns: how many rules found nothing to check
 */
guint
stw_a11y_audit_get_n_inapplicable (StwA11yAudit *self)
{
  return self->n_inapplicable;
}

/**
 * stw_a11y_audit_get_engine_version:
 * @self: a #StwA11yAudit
 *
 * Returns: (transfer none): the axe-core version that ran
 */
const char *
stw_a11y_audit_get_engine_version (StwA11yAudit *self)
{
  return self->engine_version;
}

/**
 * stw_a11y_audit_get_surface_id:
 * @self: a #StwA11yAudit
 *
 * Returns: (transfer none): the surface audited (its frames with it)
 */
const char *
stw_a11y_audit_get_surface_id (StwA11yAudit *self)
{
  return self->surface_id;
}

/**
 * stw_a11y_audit_get_n_frames:
 * @self: a #StwA11yAudit
 *
 * Returns: how many documents were audited, the surface's own included
 */
guint
stw_a11y_audit_get_n_frames (StwA11yAudit *self)
{
  return self->n_frames;
}

/**
 * stw_a11y_audit_get_n_frames_skipped:
 * @self: a #StwA11yAudit
 *
 * Returns: how many frames axe asked for could not be audited (gone, not
 *   reachable, past `maxFrames`, too large, or their audit failed)
 */
guint
stw_a11y_audit_get_n_frames_skipped (StwA11yAudit *self)
{
  return self->n_frames_skipped;
}

/**
 * stw_a11y_audit_get_truncated:
 * @self: a #StwA11yAudit
 *
 * Returns: whether rules or nodes past the caps were left out
 */
gboolean
stw_a11y_audit_get_truncated (StwA11yAudit *self)
{
  return self->truncated;
}

static JsonArray *
strv_to_json (const char * const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  return array;
}

/**
 * stw_a11y_audit_to_json:
 * @self: a #StwA11yAudit
 *
 * The answer of the `a11y_audit` tool (docs/reference/plugin-a11y.md).
 *
 * Returns: (transfer full): the audit as JSON (the wire form)
 */
JsonObject *
stw_a11y_audit_to_json (StwA11yAudit *self)
{
  JsonObject *object = json_object_new ();
  JsonArray *violations = json_array_new ();
  JsonObject *capabilities = json_object_new ();
  JsonArray *notes = json_array_new ();

  for (guint i = 0; i < self->violations->len; i++)
    {
      StwA11yViolation *violation = g_ptr_array_index (self->violations, i);
      JsonObject *item = json_object_new ();
      JsonArray *nodes = json_array_new ();

      json_object_set_string_member (item, "id", violation->id);
      json_object_set_string_member (item, "impact", violation->impact);
      json_object_set_string_member (item, "description", violation->description);
      json_object_set_string_member (item, "help", violation->help);
      json_object_set_string_member (item, "helpUrl", violation->help_url);
      json_object_set_array_member (item, "tags", strv_to_json ((const char * const *) violation->tags));
      json_object_set_int_member (item, "nodeCount", violation->n_nodes);
      for (guint j = 0; j < violation->nodes->len; j++)
        {
          StwA11yNode *node = g_ptr_array_index (violation->nodes, j);
          JsonObject *entry = json_object_new ();

          if (node->element != NULL)
            json_object_set_int_member (entry, "ref", stw_element_ref_get_ref (node->element));
          else
            json_object_set_null_member (entry, "ref");
          json_object_set_array_member (entry, "target", strv_to_json ((const char * const *) node->target));
          json_object_set_string_member (entry, "html", node->html);
          json_object_set_string_member (entry, "failureSummary", node->failure_summary);
          json_array_add_object_element (nodes, entry);
        }
      json_object_set_array_member (item, "nodes", nodes);
      json_array_add_object_element (violations, item);
    }

  json_object_set_string_member (object, "surface_id", self->surface_id);
  json_object_set_array_member (object, "violations", violations);
  json_object_set_int_member (object, "violationCount", self->n_violations);
  json_object_set_int_member (object, "incomplete", self->n_incomplete);
  json_object_set_int_member (object, "passes", self->n_passes);
  json_object_set_int_member (object, "inapplicable", self->n_inapplicable);
  json_object_set_boolean_member (object, "truncated", self->truncated);

  json_object_set_string_member (capabilities, "engine", "axe-core");
  json_object_set_string_member (capabilities, "version", self->engine_version);
  json_object_set_string_member (capabilities, "world", "isolated");
  json_object_set_int_member (capabilities, "frames", self->n_frames);
  json_object_set_int_member (capabilities, "framesSkipped", self->n_frames_skipped);
  json_object_set_boolean_member (capabilities, "closedShadowRoots", FALSE);
  json_array_add_string_element (notes, "axe builds its tree through shadowRoot: elements inside closed "
                                        "shadow roots are not audited");
  json_array_add_string_element (notes, "frames are audited one by one with axe.runPartial and merged with "
                                        "axe.finishRun; axe's cross-frame postMessage is off");
  json_object_set_array_member (capabilities, "notes", notes);
  json_object_set_object_member (object, "capabilities", capabilities);
  return object;
}

/* --- the plugin ---------------------------------------------------------- */

struct _StwA11yPlugin
{
  StwPlugin  parent_instance;
  char      *engine_path;   /* where the engine below was read from */
  GBytes    *engine;        /* read once, checked */
};

G_DEFINE_FINAL_TYPE (StwA11yPlugin, stw_a11y_plugin, STW_TYPE_PLUGIN)

static void
stw_a11y_plugin_finalize (GObject *object)
{
  StwA11yPlugin *self = STW_A11Y_PLUGIN (object);

  g_free (self->engine_path);
  g_clear_pointer (&self->engine, g_bytes_unref);
  G_OBJECT_CLASS (stw_a11y_plugin_parent_class)->finalize (object);
}

static void
stw_a11y_plugin_class_init (StwA11yPluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_a11y_plugin_finalize;
}

static void
stw_a11y_plugin_init (StwA11yPlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);

  stw_tool_provider_add_error_code (provider, "UNSUPPORTED", 501, FALSE,
                                    "No axe-core engine: run `npm install axe-core` in the server's working "
                                    "directory, or set the plugin's engine to an axe.min.js.", NULL);
  stw_tool_provider_add_error_code (provider, "INVALID_SELECTOR", 400, FALSE,
                                    "The scope's selector is not valid CSS.", NULL);
  stw_tool_provider_add_error_code (provider, "SCOPE_NOT_FOUND", 404, TRUE,
                                    "Nothing matches the scope; take a snapshot and use a ref from it.", NULL);
  stw_tool_provider_add_error_code (provider, "ENGINE_FAILED", 502, TRUE,
                                    "axe-core failed or did not finish in time; narrow the audit (ref, "
                                    "selector, rules) or retry.", NULL);
  _stw_a11y_plugin_add_tools (self);
}

/**
 * stw_a11y_plugin_new:
 *
 * Makes the a11y plugin, as `--plugin a11y` loads it.
 *
 * Returns: (transfer full): the plugin
 */
StwA11yPlugin *
stw_a11y_plugin_new (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"engine\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,\"x-stagewright-safe\":true},"
    "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1000,\"maximum\":110000,\"default\":30000,"
    "\"x-stagewright-safe\":true},"
    "\"maxNodes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":25,"
    "\"x-stagewright-safe\":true},"
    "\"maxFrames\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":256,\"default\":32,"
    "\"x-stagewright-safe\":true},"
    "\"maxResultBytes\":{\"type\":\"integer\",\"minimum\":65536,\"maximum\":268435456,"
    "\"default\":33554432,\"x-stagewright-safe\":true}}}", NULL);

  return g_object_new (STW_TYPE_A11Y_PLUGIN,
                       "name", "a11y",
                       "version", "0.1.0",
                       "description", "Audits the app's pages with axe-core; a ref for every finding.",
                       "config-schema", config,
                       NULL);
}

static gint64
config_int (StwA11yPlugin *self,
            const char    *member,
            gint64         fallback)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));

  return config != NULL ? json_object_get_int_member_with_default (config, member, fallback) : fallback;
}

/* --- the engine ---------------------------------------------------------- */

static GError *
unsupported (const char *path,
             const char *why)
{
  GError *error = stw_error_new ("a11y.UNSUPPORTED", "No usable axe-core engine at %s: %s", path, why);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "engine", path);
  stw_error_set_details (error, details);
  stw_error_set_hint (error, "Run `npm install axe-core` in the server's working directory (it fills "
                             A11Y_ENGINE_DEFAULT "), or point the plugin at an axe.min.js with "
                             "--plugin-config 'a11y={\"engine\":\"/path/to/axe.min.js\"}'");
  return error;
}

/* Reads the engine once: a regular file, at most 16 MiB, UTF-8, that
 * defines axe (window.axe and runPartial are in its text). A file that
 * is missing now may be installed later, so only success is kept. */
static GBytes *
load_engine (StwA11yPlugin  *self,
             GError        **error)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));
  const char *path = config != NULL ? json_object_get_string_member_with_default (config, "engine", NULL) : NULL;
  g_autofree char *data = NULL;
  struct stat st;
  gsize length = 0;
  int fd;

  if (path == NULL)
    path = A11Y_ENGINE_DEFAULT;
  if (self->engine != NULL && g_strcmp0 (self->engine_path, path) == 0)
    return g_bytes_ref (self->engine);

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      *error = unsupported (path, g_strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > A11Y_ENGINE_MAX)
    {
      close (fd);
      *error = unsupported (path, "not a regular file of at most 16 MiB");
      return NULL;
    }
  data = g_malloc ((gsize) st.st_size + 1);
  while (length < (gsize) st.st_size)
    {
      gssize n = read (fd, data + length, (gsize) st.st_size - length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      length += (gsize) n;
    }
  close (fd);
  data[length] = '\0';
  if (length != (gsize) st.st_size || !g_utf8_validate (data, length, NULL) ||
      strstr (data, "window.axe") == NULL || strstr (data, "runPartial") == NULL)
    {
      *error = unsupported (path, "it is not axe-core (it does not define axe.runPartial)");
      return NULL;
    }

  g_free (self->engine_path);
  self->engine_path = g_strdup (path);
  g_clear_pointer (&self->engine, g_bytes_unref);
  self->engine = g_bytes_new_take (g_steal_pointer (&data), length);
  return g_bytes_ref (self->engine);
}

/* --- an audit ------------------------------------------------------------ */

typedef struct
{
  StwSurface *surface;
  JsonNode   *context;        /* axe's context for this frame (null: all) */
  JsonNode   *partial;        /* its partial result (a string); NULL: skipped */
  JsonObject *handles;        /* in-frame selector → handle */
  JsonArray  *frame_keys;     /* the frames axe wants, by element key */
  JsonArray  *frame_contexts;
  gint64      world;
  guint       next_child;
  gboolean    injected;
} Frame;

static void
frame_free (Frame *frame)
{
  g_clear_object (&frame->surface);
  g_clear_pointer (&frame->context, json_node_unref);
  g_clear_pointer (&frame->partial, json_node_unref);
  g_clear_pointer (&frame->handles, json_object_unref);
  g_clear_pointer (&frame->frame_keys, json_array_unref);
  g_clear_pointer (&frame->frame_contexts, json_array_unref);
  g_free (frame);
}

typedef struct
{
  StwSession   *session;
  GBytes       *engine;
  StwTarget    *scope;
  gint64        scope_key;
  gint64        scope_world;
  JsonObject   *request;     /* {tags, rules}, then {options} from the top frame */
  GPtrArray    *frames;      /* Frame*, depth first (the order finishRun wants) */
  GArray       *stack;       /* indices of frames whose children are pending */
  GCancellable *cancellable; /* ours: the caller's and the time budget */
  GCancellable *caller;
  gulong        caller_handler;
  GSource      *timeout;
  gboolean      timed_out;
  gboolean      refreshed;
  guint         timeout_ms;
  guint         max_nodes;
  guint         max_frames;
  gsize         bytes_left;
  guint         skipped;
  char         *child_object;  /* the frame element being looked up */
  char         *child_frame;   /* and the frame it shows, while surfaces refresh */
  GTask        *task;          /* unowned: the chain of calls holds it */
  gboolean      done;          /* answered: what is still pending only ends */
} Audit;

static void
audit_free (Audit *audit)
{
  if (audit->caller_handler != 0)
    g_cancellable_disconnect (audit->caller, audit->caller_handler);
  if (audit->timeout != NULL)
    {
      g_source_destroy (audit->timeout);
      g_source_unref (audit->timeout);
    }
  g_clear_object (&audit->caller);
  g_clear_object (&audit->cancellable);
  g_clear_object (&audit->session);
  g_clear_pointer (&audit->engine, g_bytes_unref);
  g_clear_pointer (&audit->scope, stw_target_free);
  g_clear_pointer (&audit->request, json_object_unref);
  g_clear_pointer (&audit->frames, g_ptr_array_unref);
  g_clear_pointer (&audit->stack, g_array_unref);
  g_free (audit->child_object);
  g_free (audit->child_frame);
  g_free (audit);
}

static GError *
engine_failed (const char *message)
{
  GError *error = stw_error_new ("a11y.ENGINE_FAILED", "axe-core failed: %s", message);

  stw_error_set_hint (error, "Narrow the audit (ref, selector or rules) or retry; the page may be busy");
  return error;
}

/* Ends the audit with @error, saying the time budget ran out when that is
 * why our cancellable fired. */
static void
audit_fail (GTask  *task,
            GError *error)
{
  Audit *audit = g_task_get_task_data (task);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && audit->timed_out)
    {
      g_autoptr(JsonObject) details = json_object_new ();

      g_error_free (error);
      error = stw_error_new ("a11y.ENGINE_FAILED", "The audit did not finish in %u ms", audit->timeout_ms);
      json_object_set_int_member (details, "timeoutMs", audit->timeout_ms);
      stw_error_set_details (error, details);
      stw_error_set_hint (error, "The page may be hung or very large: narrow the audit (ref, selector, "
                                 "rules) or raise the plugin's timeoutMs");
    }
  if (!audit->done)
    {
      audit->done = TRUE;
      g_task_return_error (task, error);
    }
  else
    g_error_free (error);
  g_object_unref (task);
}

/* Whether the audit was answered already (its time ran out while a call
 * was pending, which a hung renderer never answers): the call that ends
 * now only lets go of the task. */
static gboolean
audit_abandoned (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);

  if (!audit->done)
    return FALSE;
  g_object_unref (task);
  return TRUE;
}

/* A failure of a page call: the surface's own (closed, not running) as
 * it is, the rest as the engine's. */
static GError *
page_call_error (GError *error)
{
  const char *code = stw_error_get_code_name (error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_strcmp0 (code, "NOT_RUNNING") == 0 || g_strcmp0 (code, "SURFACE_CLOSED") == 0)
    return error;
  {
    GError *failed = engine_failed (error->message);

    g_error_free (error);
    return failed;
  }
}

static gboolean
on_timeout (gpointer user_data)
{
  Audit *audit = user_data;

  audit->timed_out = TRUE;
  g_clear_pointer (&audit->timeout, g_source_unref);
  g_cancellable_cancel (audit->cancellable);
  /* A pending call may not end before the transport's own timeout: the
   * answer does not wait for it. */
  if (!audit->done)
    {
      g_object_ref (audit->task);
      audit_fail (audit->task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Timed out"));
    }
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *caller,
                     GCancellable *ours)
{
  g_cancellable_cancel (ours);
}

static void run_frame (GTask *task, Frame *frame);
static void audit_next (GTask *task);

static Frame *
frame_new (StwSurface *surface,
           JsonNode   *context)
{
  Frame *frame = g_new0 (Frame, 1);

  frame->surface = surface != NULL ? g_object_ref (surface) : NULL;
  frame->context = context != NULL ? json_node_copy (context) : json_node_new (JSON_NODE_NULL);
  return frame;
}

/* A frame axe asked for that cannot be audited: finishRun gets null for
 * it, and for nothing below it. */
static void
skip_frame (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);

  g_ptr_array_add (audit->frames, frame_new (NULL, NULL));
  audit->skipped++;
  audit_next (task);
}

static const char *
page_error_code (JsonObject *answer)
{
  JsonObject *failure = answer != NULL && json_object_has_member (answer, "error")
                        ? json_object_get_object_member (answer, "error") : NULL;

  return failure != NULL ? json_object_get_string_member_with_default (failure, "code", "ENGINE_FAILED") : NULL;
}

static const char *
page_error_message (JsonObject *answer)
{
  JsonObject *failure = json_object_get_object_member (answer, "error");

  return failure != NULL ? json_object_get_string_member_with_default (failure, "message", "") : "";
}

static void
on_injected (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  Frame *frame = g_ptr_array_index (audit->frames, audit->frames->len - 1);
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *answer;

  value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (value == NULL || answer == NULL || page_error_code (answer) != NULL)
    {
      if (audit->frames->len > 1 && !g_cancellable_is_cancelled (audit->cancellable))
        {
          g_clear_error (&error);
          g_clear_object (&frame->surface);
          audit->skipped++;
          audit_next (task);
          return;
        }
      audit_fail (task, error != NULL ? page_call_error (error)
                                      : engine_failed (answer ? page_error_message (answer)
                                                              : "the engine gave no answer"));
      return;
    }
  run_frame (task, frame);
}

/* Evaluates the engine and the plugin's page-side half in the frame's
 * isolated world, once per document. */
static void
inject (GTask *task,
        Frame *frame)
{
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GBytes) page = g_resource_lookup_data (a11y_get_resource (), A11Y_PAGE_RESOURCE,
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *function = NULL;

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (page != NULL);
  frame->injected = TRUE;
  function = g_strdup_printf ("function () {\n%.*s\n;\nreturn (%.*s)(globalThis.__stagewright, globalThis.axe);\n}",
                              (int) g_bytes_get_size (audit->engine),
                              (const char *) g_bytes_get_data (audit->engine, NULL),
                              (int) g_bytes_get_size (page), (const char *) g_bytes_get_data (page, NULL));
  stw_surface_call_isolated_async (frame->surface, function, NULL, audit->cancellable, on_injected, task);
}

static gboolean
holds (JsonObject   *object,
       const char   *member,
       JsonNodeType  type)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_TYPE (node) == type;
}

static void
on_frame_run (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  Frame *frame = g_ptr_array_index (audit->frames, audit->frames->len - 1);
  gboolean top = audit->frames->len == 1;
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *answer;
  const char *code;
  guint index;

  value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (answer != NULL && json_object_get_boolean_member_with_default (answer, "needsEngine", FALSE) &&
      !frame->injected)
    {
      inject (task, frame);
      return;
    }

  code = answer != NULL ? page_error_code (answer) : NULL;
  if (value == NULL || answer == NULL || code != NULL || !holds (answer, "partial", JSON_NODE_VALUE) ||
      !holds (answer, "handles", JSON_NODE_OBJECT) || !holds (answer, "frameKeys", JSON_NODE_ARRAY) ||
      !holds (answer, "frameContexts", JSON_NODE_ARRAY) || !holds (answer, "options", JSON_NODE_OBJECT))
    {
      if (!top && !g_cancellable_is_cancelled (audit->cancellable))
        {
          g_clear_error (&error);
          g_clear_object (&frame->surface);
          audit->skipped++;
          audit_next (task);
          return;
        }
      if (error != NULL)
        error = page_call_error (error);
      else if (g_strcmp0 (code, "SCOPE_NOT_FOUND") == 0)
        error = stw_error_new ("a11y.SCOPE_NOT_FOUND", "The audit's scope is gone: %s", page_error_message (answer));
      else if (g_strcmp0 (code, "BAD_ARGUMENT") == 0)
        error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", page_error_message (answer));
      else
        error = engine_failed (answer != NULL && code != NULL ? page_error_message (answer)
                                                              : "the engine gave no answer");
      audit_fail (task, error);
      return;
    }

  frame->partial = json_node_ref (json_object_get_member (answer, "partial"));
  if (json_node_get_string (frame->partial) == NULL ||
      strlen (json_node_get_string (frame->partial)) > audit->bytes_left)
    {
      /* The sum of the partial results is bounded too. */
      g_clear_pointer (&frame->partial, json_node_unref);
      if (!top)
        {
          g_clear_object (&frame->surface);
          audit->skipped++;
          audit_next (task);
          return;
        }
      audit_fail (task, engine_failed ("the result is larger than the plugin's maxResultBytes"));
      return;
    }
  audit->bytes_left -= strlen (json_node_get_string (frame->partial));
  frame->world = json_object_get_int_member_with_default (answer, "world", 0);
  frame->handles = json_object_ref (json_object_get_object_member (answer, "handles"));
  frame->frame_keys = json_array_ref (json_object_get_array_member (answer, "frameKeys"));
  frame->frame_contexts = json_array_ref (json_object_get_array_member (answer, "frameContexts"));
  if (top)
    {
      /* Every other frame runs with the options the top frame made. */
      JsonObject *request = json_object_new ();

      json_object_set_member (request, "options", json_node_copy (json_object_get_member (answer, "options")));
      g_clear_pointer (&audit->request, json_object_unref);
      audit->request = request;
    }
  index = audit->frames->len - 1;
  g_array_append_val (audit->stack, index);
  audit_next (task);
}

#define A11Y_RUN_FUNCTION \
  "(k, w, c, r, m) => { const S = globalThis.__stagewright; " \
  "return S && S.a11yPlugin ? S.a11yPlugin.run (k, w, c, r, m) : { needsEngine: true }; }"

static void
run_frame (GTask *task,
           Frame *frame)
{
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(JsonArray) args = json_array_new ();
  gboolean top = audit->frames->len == 1;

  json_array_add_int_element (args, top ? audit->scope_key : 0);
  json_array_add_int_element (args, top ? audit->scope_world : 0);
  json_array_add_element (args, json_node_copy (frame->context));
  json_array_add_object_element (args, json_object_ref (audit->request));
  json_array_add_int_element (args, (gint64) audit->bytes_left);
  stw_surface_call_isolated_async (frame->surface, A11Y_RUN_FUNCTION, args, audit->cancellable,
                                   on_frame_run, task);
}

static void
start_frame (GTask      *task,
             StwSurface *surface,
             JsonNode   *context)
{
  Audit *audit = g_task_get_task_data (task);
  Frame *frame = frame_new (surface, context);

  g_ptr_array_add (audit->frames, frame);
  run_frame (task, frame);
}

/* The surface showing the document of DevTools frame @frame_id. A frame
 * that went out of process may still be listed as the same-process frame
 * it was: the target of its own (its target id is the frame's) wins. */
static StwSurface *
surface_for_frame (StwSession *session,
                   const char *frame_id)
{
  GList *surfaces = stw_session_list_surfaces (session);
  StwSurface *found = NULL;

  for (GList *l = surfaces; l != NULL; l = l->next)
    {
      if (stw_surface_is_closed (l->data) || g_strcmp0 (stw_surface_get_frame_id (l->data), frame_id) != 0)
        continue;
      if (found == NULL || g_strcmp0 (stw_surface_get_target_id (l->data), frame_id) == 0)
        found = l->data;
    }
  if (found != NULL)
    g_object_ref (found);
  g_list_free (surfaces);
  return found;
}

static void
release_object (StwSurface *surface,
                const char *object_id)
{
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_string_member (params, "objectId", object_id);
  stw_surface_send_cdp_async (surface, "Runtime.releaseObject", params, NULL, NULL, NULL);
}

static void found_child (GTask *task, const char *frame_id);

static void
on_surfaces_refreshed (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const char *frame_id = audit->child_frame;

  stw_session_refresh_surfaces_finish (STW_SESSION (object), result, &error);
  if (audit_abandoned (task))
    return;
  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  found_child (task, frame_id);
}

static void
found_child (GTask      *task,
             const char *frame_id)
{
  Audit *audit = g_task_get_task_data (task);
  Frame *parent = g_ptr_array_index (audit->frames, g_array_index (audit->stack, guint, audit->stack->len - 1));
  g_autoptr(StwSurface) surface = frame_id != NULL ? surface_for_frame (audit->session, frame_id) : NULL;
  JsonNode *context;

  if (surface == NULL && frame_id != NULL && !audit->refreshed)
    {
      /* A same-process frame becomes a surface when the frame tree is read. */
      audit->refreshed = TRUE;
      g_free (audit->child_frame);
      audit->child_frame = g_strdup (frame_id);
      stw_session_refresh_surfaces_async (audit->session, audit->cancellable, on_surfaces_refreshed, task);
      return;
    }
  if (surface == NULL)
    {
      skip_frame (task);
      return;
    }
  context = json_array_get_element (parent->frame_contexts, parent->next_child - 1);
  start_frame (task, surface, context);
}

static void
on_owner_described (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  JsonObject *node = reply != NULL && json_object_has_member (reply, "node")
                     ? json_object_get_object_member (reply, "node") : NULL;
  g_autofree char *frame_id = NULL;

  release_object (STW_SURFACE (object), audit->child_object);
  if (audit_abandoned (task))
    return;
  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  frame_id = g_strdup (node != NULL ? json_object_get_string_member_with_default (node, "frameId", NULL) : NULL);
  found_child (task, frame_id);
}

static void
on_owner_object (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  JsonObject *remote = reply != NULL && json_object_has_member (reply, "result")
                       ? json_object_get_object_member (reply, "result") : NULL;
  const char *object_id = remote != NULL ? json_object_get_string_member_with_default (remote, "objectId", NULL) : NULL;
  g_autoptr(JsonObject) params = NULL;

  if (audit_abandoned (task))
    return;
  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  if (object_id == NULL)
    {
      skip_frame (task);
      return;
    }
  g_free (audit->child_object);
  audit->child_object = g_strdup (object_id);
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", object_id);
  stw_surface_send_cdp_async (STW_SURFACE (object), "DOM.describeNode", params, audit->cancellable,
                              on_owner_described, task);
}

/* Finds the surface of a frame axe asked for from its element's key in
 * the parent's isolated world: DOM.describeNode names the frame it shows
 * (an out-of-process frame's id is its target's), without guessing from
 * URLs or order. */
static void
find_child (GTask *task,
            Frame *parent,
            gint64 key)
{
  g_autoptr(JsonObject) params = json_object_new ();
  JsonArray *arguments = json_array_new ();
  JsonObject *argument = json_object_new ();
  Audit *audit = g_task_get_task_data (task);

  json_object_set_string_member (params, "functionDeclaration",
                                 "function (k) { return globalThis.__stagewright.element (k); }");
  json_object_set_int_member (params, "executionContextId", parent->world);
  json_object_set_int_member (argument, "value", key);
  json_array_add_object_element (arguments, argument);
  json_object_set_array_member (params, "arguments", arguments);
  stw_surface_send_cdp_async (parent->surface, "Runtime.callFunctionOn", params, audit->cancellable,
                              on_owner_object, task);
}

static void finish_run (GTask *task);

/* The next frame in depth-first order: the next child axe asked for of
 * the deepest frame that has one left, or the merge when none is left. */
static void
audit_next (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);

  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  while (audit->stack->len > 0)
    {
      Frame *parent = g_ptr_array_index (audit->frames, g_array_index (audit->stack, guint, audit->stack->len - 1));

      if (parent->next_child < json_array_get_length (parent->frame_keys))
        {
          gint64 key = json_array_get_int_element (parent->frame_keys, parent->next_child++);

          if (key <= 0 || audit->frames->len >= audit->max_frames)
            skip_frame (task);
          else
            find_child (task, parent, key);
          return;
        }
      g_array_set_size (audit->stack, audit->stack->len - 1);
    }
  finish_run (task);
}

static GStrv
json_strv (JsonObject *object,
           const char *member)
{
  JsonArray *array = json_object_has_member (object, member) ? json_object_get_array_member (object, member) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      const char *value = json_node_get_string (json_array_get_element (array, i));

      if (value != NULL)
        g_strv_builder_add (builder, value);
    }
  return g_strv_builder_end (builder);
}

static char *
json_string (JsonObject *object,
             const char *member)
{
  return g_strdup (json_object_get_string_member_with_default (object, member, ""));
}

static StwA11yNode *
node_new (Audit      *audit,
          JsonObject *item)
{
  StwA11yNode *node = g_new0 (StwA11yNode, 1);
  gint64 index = json_object_get_int_member_with_default (item, "frame", -1);
  JsonNode *handle = json_object_get_member (item, "handle");

  g_atomic_ref_count_init (&node->ref_count);
  node->target = json_strv (item, "target");
  node->html = json_string (item, "html");
  node->failure_summary = json_string (item, "failureSummary");
  node->impact = json_string (item, "impact");
  if (index >= 0 && index < audit->frames->len && handle != NULL && JSON_NODE_HOLDS_OBJECT (handle))
    {
      Frame *frame = g_ptr_array_index (audit->frames, index);

      /* Its document may have gone meanwhile: the node is kept, without a ref. */
      if (frame->surface != NULL)
        node->element = stw_surface_bind_element_ref (frame->surface, json_node_get_object (handle), NULL);
    }
  return node;
}

static StwA11yAudit *
audit_result_new (Audit      *audit,
                  JsonObject *answer)
{
  StwA11yAudit *result = g_new0 (StwA11yAudit, 1);
  JsonArray *violations = json_object_get_array_member (answer, "violations");
  Frame *top = g_ptr_array_index (audit->frames, 0);

  g_atomic_ref_count_init (&result->ref_count);
  result->violations = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_a11y_violation_unref);
  for (guint i = 0; violations != NULL && i < json_array_get_length (violations); i++)
    {
      JsonObject *item = json_array_get_object_element (violations, i);
      JsonArray *nodes = item != NULL ? json_object_get_array_member (item, "nodes") : NULL;
      StwA11yViolation *violation;

      if (item == NULL)
        continue;
      violation = g_new0 (StwA11yViolation, 1);
      g_atomic_ref_count_init (&violation->ref_count);
      violation->id = json_string (item, "id");
      violation->impact = json_string (item, "impact");
      violation->description = json_string (item, "description");
      violation->help = json_string (item, "help");
      violation->help_url = json_string (item, "helpUrl");
      violation->tags = json_strv (item, "tags");
      violation->n_nodes = json_object_get_int_member_with_default (item, "nodeCount", 0);
      violation->nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_a11y_node_unref);
      for (guint j = 0; nodes != NULL && j < json_array_get_length (nodes) && j < audit->max_nodes; j++)
        {
          JsonObject *node = json_array_get_object_element (nodes, j);

          if (node != NULL)
            g_ptr_array_add (violation->nodes, node_new (audit, node));
        }
      if (violation->nodes->len < violation->n_nodes)
        result->truncated = TRUE;
      g_ptr_array_add (result->violations, violation);
    }
  result->n_violations = json_object_get_int_member_with_default (answer, "violationCount", 0);
  if (result->n_violations > result->violations->len)
    result->truncated = TRUE;
  result->n_incomplete = json_object_get_int_member_with_default (answer, "incomplete", 0);
  result->n_passes = json_object_get_int_member_with_default (answer, "passes", 0);
  result->n_inapplicable = json_object_get_int_member_with_default (answer, "inapplicable", 0);
  result->engine_version = json_string (answer, "version");
  result->surface_id = g_strdup (stw_surface_get_id (top->surface));
  result->n_frames = audit->frames->len - audit->skipped;
  result->n_frames_skipped = audit->skipped;
  return result;
}

static void
on_finished (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *answer;

  value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (value == NULL || answer == NULL || page_error_code (answer) != NULL)
    {
      audit_fail (task, error != NULL ? page_call_error (error)
                                      : engine_failed (answer ? page_error_message (answer)
                                                              : "axe.finishRun gave no answer"));
      return;
    }
  audit->done = TRUE;
  g_task_return_pointer (task, audit_result_new (audit, answer), (GDestroyNotify) stw_a11y_audit_unref);
  g_object_unref (task);
}

#define A11Y_FINISH_FUNCTION \
  "(p, h, o, l) => globalThis.__stagewright.a11yPlugin.finish (p, h, o, l)"

/* Merges every frame's partial result in the top frame's isolated world:
 * the page's scripts cannot reach it, so it needs no blank page of its
 * own (@axe-core/playwright opens one because it runs in the main world). */
static void
finish_run (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);
  Frame *top = g_ptr_array_index (audit->frames, 0);
  g_autoptr(JsonArray) args = json_array_new ();
  JsonArray *partials = json_array_new ();
  JsonArray *handles = json_array_new ();
  JsonObject *limits = json_object_new ();

  for (guint i = 0; i < audit->frames->len; i++)
    {
      Frame *frame = g_ptr_array_index (audit->frames, i);

      if (frame->partial != NULL)
        {
          json_array_add_element (partials, json_node_ref (frame->partial));
          json_array_add_object_element (handles, json_object_ref (frame->handles));
        }
      else
        {
          json_array_add_null_element (partials);
          json_array_add_null_element (handles);
        }
    }
  json_object_set_int_member (limits, "maxNodes", audit->max_nodes);
  json_object_set_int_member (limits, "maxRules", A11Y_MAX_RULES);
  json_object_set_int_member (limits, "maxHtml", A11Y_MAX_HTML);
  json_array_add_array_element (args, partials);
  json_array_add_array_element (args, handles);
  json_array_add_element (args, json_node_copy (json_object_get_member (audit->request, "options")));
  json_array_add_object_element (args, limits);
  stw_surface_call_isolated_async (top->surface, A11Y_FINISH_FUNCTION, args, audit->cancellable, on_finished, task);
}

static void
on_scope_resolved (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(StwSurface) surface = NULL;
  g_autoptr(JsonObject) handle = NULL;
  GError *error = NULL;

  handle = stw_surface_resolve_element_finish (STW_SURFACE (object), result, &surface, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  if (handle == NULL)
    {
      const char *code = stw_error_get_code_name (error);
      GError *mapped = NULL;

      if (g_strcmp0 (code, "BAD_ARGUMENT") == 0)
        {
          mapped = stw_error_new ("a11y.INVALID_SELECTOR", "%s", error->message);
          stw_error_set_hint (mapped, "Give a valid CSS selector, or a ref from a snapshot");
        }
      else if (g_strcmp0 (code, "SELECTOR_NO_MATCH") == 0 || g_strcmp0 (code, "REF_NOT_FOUND") == 0)
        {
          mapped = stw_error_new ("a11y.SCOPE_NOT_FOUND", "%s", error->message);
          if (stw_error_get_details (error) != NULL)
            stw_error_set_details (mapped, stw_error_get_details (error));
          if (stw_error_get_similar_refs (error) != NULL)
            stw_error_set_similar_refs (mapped, stw_error_get_similar_refs (error));
        }
      if (mapped != NULL)
        {
          g_error_free (error);
          error = mapped;
        }
      audit_fail (task, error);
      return;
    }
  audit->scope_key = json_object_get_int_member_with_default (handle, "key", 0);
  audit->scope_world = json_object_get_int_member_with_default (handle, "world", 0);
  start_frame (task, surface, NULL);
}

/**
 * stw_a11y_plugin_audit_async:
 * @self: a #StwA11yPlugin
 * @session: the session whose active surface (and its frames) is audited
 * @scope: (nullable): the element whose subtree is audited (a ref, which
 *   may be in a frame, or a selector), %NULL for the whole surface
 * @tags: (nullable) (array zero-terminated=1): only the rules with one of
 *   these tags (`wcag2a`, `wcag2aa`, `best-practice`, …)
 * @rules: (nullable) (array zero-terminated=1): only these rules
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the audit
 * @user_data: data for @callback
 *
 * Runs axe-core on the session's active surface and the frames in it, in
 * their isolated worlds, and gives every offending element a ref.
 *
 * Fails with `a11y.UNSUPPORTED` (no engine), `a11y.INVALID_SELECTOR`,
 * `a11y.SCOPE_NOT_FOUND`, `a11y.ENGINE_FAILED` (axe failed, or the audit
 * ran past the config's `timeoutMs`), `BAD_ARGUMENT` (unknown rules or
 * tags), `NOT_RUNNING` or `SURFACE_CLOSED`.
 */
void
stw_a11y_plugin_audit_async (StwA11yPlugin       *self,
                             StwSession          *session,
                             const StwTarget     *scope,
                             const char * const  *tags,
                             const char * const  *rules,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;
  Audit *audit;
  GError *error = NULL;
  StwSurface *surface;
  g_autoptr(GBytes) engine = NULL;

  g_return_if_fail (STW_IS_A11Y_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_a11y_plugin_audit_async);

  engine = load_engine (self, &error);
  if (engine == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  surface = stw_session_is_running (session) ? stw_session_get_active_surface (session) : NULL;
  if (surface == NULL)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_NOT_RUNNING, "The app has no window to audit"));
      g_object_unref (task);
      return;
    }

  audit = g_new0 (Audit, 1);
  audit->session = g_object_ref (session);
  audit->engine = g_steal_pointer (&engine);
  audit->scope = scope != NULL ? stw_target_copy (scope) : NULL;
  audit->request = json_object_new ();
  json_object_set_array_member (audit->request, "tags", strv_to_json (tags));
  json_object_set_array_member (audit->request, "rules", strv_to_json (rules));
  audit->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_free);
  audit->stack = g_array_new (FALSE, FALSE, sizeof (guint));
  audit->timeout_ms = (guint) config_int (self, "timeoutMs", 30000);
  audit->max_nodes = (guint) config_int (self, "maxNodes", 25);
  audit->max_frames = (guint) config_int (self, "maxFrames", 32);
  audit->bytes_left = (gsize) config_int (self, "maxResultBytes", 32 * 1024 * 1024);
  audit->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      audit->caller = g_object_ref (cancellable);
      audit->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                     audit->cancellable, NULL);
    }
  /* The budget bounds a page that hangs its renderer: the pending call is
   * cancelled, and audit_free() removes the source if it has not fired. */
  audit->timeout = g_timeout_source_new (audit->timeout_ms);
  g_source_set_callback (audit->timeout, on_timeout, audit, NULL);
  g_source_attach (audit->timeout, g_main_context_get_thread_default ());
  g_task_set_task_data (task, audit, (GDestroyNotify) audit_free);
  audit->task = task;

  if (audit->scope != NULL)
    stw_surface_resolve_element_async (surface, audit->scope, audit->cancellable, on_scope_resolved, task);
  else
    start_frame (task, surface, NULL);
}

/**
 * stw_a11y_plugin_audit_finish:
 * @self: a #StwA11yPlugin
 * @result: the #GAsyncResult
 * @error: where to put the failure
 *
 * Finishes [method@StagewrightA11y.A11yPlugin.audit_async].
 *
 * Returns: (transfer full): the audit
 */
StwA11yAudit *
stw_a11y_plugin_audit_finish (StwA11yPlugin  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_a11y_plugin_audit_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
