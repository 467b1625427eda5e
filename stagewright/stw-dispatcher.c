/* stw-dispatcher.c: validates, routes and bounds every tool call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-confine-private.h"
#include "stw-dispatcher-private.h"
#include "stw-enum-types.h"
#include "stw-envelope.h"
#include "stw-error-registry.h"
#include "stw-invocation-private.h"
#include "stw-js-guard-private.h"
#include "stw-json-private.h"
#include "stw-schema-private.h"
#include "stw-sync-private.h"
#include "stw-tool-provider-private.h"

/**
 * StwDispatcher:
 *
 * Holds the tools and runs every call the same way, whoever makes it (the
 * MCP server, a Python script, a C test harness):
 *
 * 1. the tool must be visible under the server's profile and eval policy
 *    (a hidden one answers `BAD_ARGUMENT` naming how to show it);
 * 2. the arguments are validated against the input schema agents are shown
 *    (`BAD_ARGUMENT` with field-addressed `details.issues`), and the
 *    schema's defaults are filled in;
 * 3. eval payloads pass the eval guard, and are audited on stderr by hash;
 * 4. the session the tool needs is resolved (see [enum@Stagewright.SessionRequirement])
 *    and handed over on the invocation;
 * 5. the tool runs, bounded by the operation backstop
 *    (`OPERATION_TIMEOUT`); slow calls are logged;
 * 6. the envelope gets its `_meta`.
 *
 * Tools arrive one by one ([method@Stagewright.Dispatcher.add_tool]) or as
 * a [class@Stagewright.ToolProvider] with the error codes they add
 * ([method@Stagewright.Dispatcher.add_provider]).
 *
 * It never crashes and never lets a raw error through: whatever happens,
 * the caller gets an envelope (or %G_IO_ERROR_CANCELLED when the caller
 * itself cancelled).
 *
 * Since: 1.0
 */

#define DEFAULT_OPERATION_TIMEOUT_MS 120000
#define SLOW_CALL_MS 1000

struct _StwDispatcher
{
  GObject           parent_instance;

  GHashTable       *tools;         /* name -> StwTool */
  GPtrArray        *providers;     /* StwToolProvider, held */
  StwToolProfile    profile;
  StwEvalTarget     allow_eval;
  guint             operation_timeout_ms;
  char             *app_root;
  char             *screenshot_dir;
  gint64            started_at_ms;
  JsonObject       *last_error;
  StwSessionManager *sessions;
  GMainContext     *context;       /* thread-default when made */
  gboolean          plugins_busy;  /* a plugin load or unload is under way */

  StwEvalGuardFunc  eval_guard;
  gpointer          eval_guard_data;
  GDestroyNotify    eval_guard_destroy;
};

G_DEFINE_FINAL_TYPE (StwDispatcher, stw_dispatcher, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TOOL_PROFILE,
  PROP_ALLOW_EVAL,
  PROP_OPERATION_TIMEOUT_MS,
  PROP_APP_ROOT,
  PROP_SCREENSHOT_DIR,
  N_PROPS
};

enum {
  TOOL_ADDED,
  TOOL_REMOVED,
  CALL_STARTED,
  CALL_FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
release_provider (StwToolProvider *provider)
{
  JsonObject *codes = stw_tool_provider_get_error_codes (provider);

  if (json_object_get_size (codes) > 0)
    stw_error_registry_unregister_plugin_codes (stw_error_registry_get_default (),
                                                stw_tool_provider_get_name (provider), codes);
  _stw_tool_provider_release (provider);
  g_object_unref (provider);
}

static void
stw_dispatcher_finalize (GObject *object)
{
  StwDispatcher *self = STW_DISPATCHER (object);

  /* A dispatcher going away gives its providers' error codes back. */
  g_clear_pointer (&self->providers, g_ptr_array_unref);
  g_clear_pointer (&self->tools, g_hash_table_unref);
  g_clear_pointer (&self->app_root, g_free);
  g_clear_pointer (&self->screenshot_dir, g_free);
  g_clear_pointer (&self->last_error, json_object_unref);
  g_clear_object (&self->sessions);
  g_clear_pointer (&self->context, g_main_context_unref);
  if (self->eval_guard_destroy != NULL)
    self->eval_guard_destroy (self->eval_guard_data);

  G_OBJECT_CLASS (stw_dispatcher_parent_class)->finalize (object);
}

static void
stw_dispatcher_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  StwDispatcher *self = STW_DISPATCHER (object);

  switch (prop_id)
    {
    case PROP_TOOL_PROFILE:
      g_value_set_enum (value, self->profile);
      break;
    case PROP_ALLOW_EVAL:
      g_value_set_flags (value, self->allow_eval);
      break;
    case PROP_OPERATION_TIMEOUT_MS:
      g_value_set_uint (value, self->operation_timeout_ms);
      break;
    case PROP_APP_ROOT:
      g_value_set_string (value, self->app_root);
      break;
    case PROP_SCREENSHOT_DIR:
      g_value_set_string (value, self->screenshot_dir);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_dispatcher_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  StwDispatcher *self = STW_DISPATCHER (object);

  switch (prop_id)
    {
    case PROP_TOOL_PROFILE:
      stw_dispatcher_set_tool_profile (self, g_value_get_enum (value));
      break;
    case PROP_ALLOW_EVAL:
      stw_dispatcher_set_allow_eval (self, g_value_get_flags (value));
      break;
    case PROP_OPERATION_TIMEOUT_MS:
      stw_dispatcher_set_operation_timeout_ms (self, g_value_get_uint (value));
      break;
    case PROP_APP_ROOT:
      stw_dispatcher_set_app_root (self, g_value_get_string (value));
      break;
    case PROP_SCREENSHOT_DIR:
      stw_dispatcher_set_screenshot_dir (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_dispatcher_class_init (StwDispatcherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = stw_dispatcher_finalize;
  object_class->get_property = stw_dispatcher_get_property;
  object_class->set_property = stw_dispatcher_set_property;

  /**
   * StwDispatcher:tool-profile:
   *
   * Which core tools are shown (`--tool-profile`).
   *
   * Since: 1.0
   */
  properties[PROP_TOOL_PROFILE] =
    g_param_spec_enum ("tool-profile", NULL, NULL, STW_TYPE_TOOL_PROFILE,
                       STW_TOOL_PROFILE_FULL, flags);

  /**
   * StwDispatcher:allow-eval:
   *
   * Where evaluation of agent code is allowed (`--allow-eval`); eval tools
   * for other targets are hidden.
   *
   * Since: 1.0
   */
  properties[PROP_ALLOW_EVAL] =
    g_param_spec_flags ("allow-eval", NULL, NULL, STW_TYPE_EVAL_TARGET,
                        STW_EVAL_TARGET_NONE, flags);

  /**
   * StwDispatcher:operation-timeout-ms:
   *
   * The backstop on every call, in milliseconds; 0 disables it.
   *
   * Since: 1.0
   */
  properties[PROP_OPERATION_TIMEOUT_MS] =
    g_param_spec_uint ("operation-timeout-ms", NULL, NULL, 0, G_MAXUINT,
                       DEFAULT_OPERATION_TIMEOUT_MS, flags);

  /**
   * StwDispatcher:app-root:
   *
   * The directory every path the tools read or write must lie in, if set.
   *
   * Since: 1.0
   */
  properties[PROP_APP_ROOT] =
    g_param_spec_string ("app-root", NULL, NULL, NULL, flags);

  /**
   * StwDispatcher:screenshot-dir:
   *
   * Where screenshots go when a call names no path.
   *
   * Since: 1.0
   */
  properties[PROP_SCREENSHOT_DIR] =
    g_param_spec_string ("screenshot-dir", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * StwDispatcher::tool-added:
   * @self: the dispatcher
   * @tool: the tool
   *
   * A tool was added (an MCP server announces that the tool list
   * changed).
   *
   * Since: 1.0
   */
  signals[TOOL_ADDED] = g_signal_new ("tool-added", G_TYPE_FROM_CLASS (klass),
                                      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 1, STW_TYPE_TOOL);

  /**
   * StwDispatcher::tool-removed:
   * @self: the dispatcher
   * @tool: the tool
   *
   * A tool was removed.
   *
   * Since: 1.0
   */
  signals[TOOL_REMOVED] = g_signal_new ("tool-removed", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, STW_TYPE_TOOL);

  /**
   * StwDispatcher::call-started:
   * @self: the dispatcher
   * @invocation: the call
   *
   * A call started: the seam tracing and auditing observe. A handler
   * may refuse the call by completing @invocation with an error
   * ([method@Stagewright.Invocation.return_error]); the tool then never
   * runs, and [signal@Stagewright.Dispatcher::call-finished] follows
   * with that error.
   *
   * Since: 1.0
   */
  signals[CALL_STARTED] = g_signal_new ("call-started", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, STW_TYPE_INVOCATION);

  /**
   * StwDispatcher::call-finished:
   * @self: the dispatcher
   * @invocation: the call
   * @envelope: the envelope returned
   *
   * A call finished with @envelope.
   *
   * Since: 1.0
   */
  signals[CALL_FINISHED] = g_signal_new ("call-finished", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, STW_TYPE_INVOCATION,
                                         JSON_TYPE_OBJECT);
}

static void
stw_dispatcher_init (StwDispatcher *self)
{
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->providers = g_ptr_array_new_with_free_func ((GDestroyNotify) release_provider);
  self->profile = STW_TOOL_PROFILE_FULL;
  self->operation_timeout_ms = DEFAULT_OPERATION_TIMEOUT_MS;
  self->started_at_ms = g_get_real_time () / 1000;
  self->context = g_main_context_ref_thread_default ();
  self->sessions = stw_session_manager_new ();
}

/**
 * stw_dispatcher_new:
 *
 * Creates a dispatcher with no tools, the `full` profile, no eval and the
 * default 120 s backstop.
 *
 * Returns: (transfer full): a new [class@Stagewright.Dispatcher]
 *
 * Since: 1.0
 */
StwDispatcher *
stw_dispatcher_new (void)
{
  return g_object_new (STW_TYPE_DISPATCHER, NULL);
}

static gboolean
valid_tool_name (const char *name)
{
  gsize len;

  if (name == NULL || !g_ascii_islower (name[0]))
    return FALSE;
  len = strlen (name);
  if (len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!(g_ascii_islower (name[i]) || g_ascii_isdigit (name[i]) || name[i] == '_'))
      return FALSE;
  return TRUE;
}

/* `type` may be any JSON value in a schema: ["object", "null"] is not an
 * object schema, and must not trip json-glib's string accessor. */
static gboolean
is_object_schema (JsonNode *schema)
{
  JsonNode *type;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return FALSE;
  type = json_object_get_member (json_node_get_object (schema), "type");
  return type != NULL && json_node_get_value_type (type) == G_TYPE_STRING &&
         g_strcmp0 (json_node_get_string (type), "object") == 0;
}

/* Whether the schema lists the argument @name with type string. */
static gboolean
offers_string (JsonNode   *schema,
               const char *name)
{
  JsonObject *object = json_node_get_object (schema);
  JsonNode *props = json_object_get_member (object, "properties");
  JsonNode *member;
  JsonNode *type;

  if (props == NULL || !JSON_NODE_HOLDS_OBJECT (props))
    return FALSE;
  member = json_object_get_member (json_node_get_object (props), name);
  if (member == NULL || !JSON_NODE_HOLDS_OBJECT (member))
    return FALSE;
  type = json_object_get_member (json_node_get_object (member), "type");
  return type != NULL && json_node_get_value_type (type) == G_TYPE_STRING &&
         g_strcmp0 (json_node_get_string (type), "string") == 0;
}

/* A tool that acts on a session must let the agent name one. */
static gboolean
offers_session_id (JsonNode *schema)
{
  return offers_string (schema, "sessionId");
}

/* What stw_dispatcher_add_tool() checks of the input schema: this
 * compiles it, if that was deferred. */
static gboolean
validate_tool_schema (StwTool  *tool,
                      GError  **error)
{
  const char *name = stw_tool_get_name (tool);
  JsonNode *schema;

  if (!_stw_schema_check (stw_tool_get_input_schema (tool), error))
    {
      g_prefix_error (error, "Tool “%s”: ", name);
      return FALSE;
    }

  schema = stw_schema_get_node (stw_tool_get_input_schema (tool));
  if (!is_object_schema (schema))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool “%s”: the input schema must have type “object”", name);
      return FALSE;
    }

  /* The dispatcher guards the code an eval tool runs: the tool says which
   * argument holds it, and the schema must offer that argument as a
   * string, so no payload reaches the tool unguarded. */
  if (stw_tool_get_code_argument (tool) != NULL &&
      !offers_string (schema, stw_tool_get_code_argument (tool)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool “%s”: its input schema needs its code argument “%s” as a string",
                   name, stw_tool_get_code_argument (tool));
      return FALSE;
    }

  if (stw_tool_get_session_requirement (tool) != STW_SESSION_REQUIREMENT_NONE &&
      !offers_session_id (schema))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool “%s” acts on a session: its input schema needs a “sessionId” string", name);
      return FALSE;
    }

  return TRUE;
}

/* Everything stw_dispatcher_add_tool() checks, without adding; the input
 * schema only when @check_schema (see
 * _stw_tool_provider_set_checked_by_tests()). */
static gboolean
validate_tool (StwDispatcher  *self,
               StwTool        *tool,
               gboolean        check_schema,
               GError        **error)
{
  const char *name;
  const char * const *codes;
  GEnumClass *op_class;
  gboolean op_valid;

  name = stw_tool_get_name (tool);
  if (!valid_tool_name (name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool name “%s” must match ^[a-z][a-z0-9_]*$ (at most 64 characters)",
                   name ? name : "(null)");
      return FALSE;
    }

  if (g_hash_table_contains (self->tools, name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "A tool named “%s” is already registered", name);
      return FALSE;
    }

  op_class = g_type_class_ref (STW_TYPE_OPERATION_TYPE);
  op_valid = g_enum_get_value (op_class, (int) stw_tool_get_operation_type (tool)) != NULL;
  g_type_class_unref (op_class);
  if (!op_valid)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool “%s” has an unknown operation type", name);
      return FALSE;
    }

  /* Another tool may name one too: it runs the server's own code there
   * (a plugin instrumenting the main process), so it needs the policy but
   * takes no code. */
  if (stw_tool_get_operation_type (tool) == STW_OPERATION_EVAL &&
      stw_tool_get_eval_target (tool) == STW_EVAL_TARGET_NONE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool “%s”: eval tools name an eval target", name);
      return FALSE;
    }

  if ((stw_tool_get_operation_type (tool) == STW_OPERATION_EVAL) !=
      (stw_tool_get_code_argument (tool) != NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tool “%s”: eval tools, and only they, name their code argument", name);
      return FALSE;
    }

  if (check_schema && !validate_tool_schema (tool, error))
    return FALSE;

  codes = stw_tool_get_error_codes (tool);
  for (guint i = 0; codes != NULL && codes[i] != NULL; i++)
    if (!stw_error_registry_contains (stw_error_registry_get_default (), codes[i]))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     "Tool “%s” declares the unregistered error code %s", name, codes[i]);
        return FALSE;
      }

  return TRUE;
}

static void
insert_tool (StwDispatcher *self,
             StwTool       *tool)
{
  g_hash_table_insert (self->tools, g_strdup (stw_tool_get_name (tool)), g_object_ref (tool));
  g_signal_emit (self, signals[TOOL_ADDED], 0, tool);
}

/**
 * stw_dispatcher_add_tool:
 * @self: a [class@Stagewright.Dispatcher]
 * @tool: the tool
 * @error: where to put a refusal
 *
 * Validates @tool (name pattern, operation type, eval target, an object
 * input schema that offers `sessionId` when the tool acts on a session and,
 * for an eval tool, its [property@Stagewright.Tool:code-argument] as a string,
 * registered error codes, a unique name) and adds it.
 *
 * Returns: %TRUE if the tool was added
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_add_tool (StwDispatcher  *self,
                         StwTool        *tool,
                         GError        **error)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);
  g_return_val_if_fail (STW_IS_TOOL (tool), FALSE);

  if (!validate_tool (self, tool, TRUE, error))
    return FALSE;

  insert_tool (self, tool);
  return TRUE;
}

/**
 * stw_dispatcher_add_provider:
 * @self: a [class@Stagewright.Dispatcher]
 * @provider: the provider
 * @error: where to put a refusal
 *
 * Adds every tool of @provider, and registers the error codes it adds in
 * the default [class@Stagewright.ErrorRegistry], all or nothing: when the
 * provider's name is taken or invalid, a code conflicts with a registered
 * one, or any tool fails the checks of
 * [method@Stagewright.Dispatcher.add_tool] (a name already taken
 * included), nothing of the provider is added or registered. Emits
 * [signal@Stagewright.Dispatcher::tool-added] for each tool.
 *
 * The provider is frozen until [method@Stagewright.Dispatcher.remove_provider].
 *
 * Returns: %TRUE if the provider was added
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_add_provider (StwDispatcher    *self,
                             StwToolProvider  *provider,
                             GError          **error)
{
  StwErrorRegistry *registry = stw_error_registry_get_default ();
  g_autoptr(GList) tools = NULL;
  JsonObject *codes;
  const char *name;
  gboolean registered = FALSE;
  gboolean check_schemas;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);
  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (provider), FALSE);

  name = stw_tool_provider_get_name (provider);
  if (!valid_tool_name (name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Provider name “%s” must match ^[a-z][a-z0-9_]*$ (at most 64 characters)",
                   name ? name : "(null)");
      return FALSE;
    }
  if (stw_dispatcher_lookup_provider (self, name) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "A provider named “%s” is already added", name);
      return FALSE;
    }

  /* The codes first: the tools' declared codes are checked against them. */
  codes = stw_tool_provider_get_error_codes (provider);
  if (json_object_get_size (codes) > 0)
    {
      if (!stw_error_registry_register_plugin_codes (registry, name, codes, error))
        {
          g_prefix_error (error, "Provider “%s”: ", name);
          return FALSE;
        }
      registered = TRUE;
    }

  tools = stw_tool_provider_list_tools (provider);
  check_schemas = !_stw_tool_provider_get_checked_by_tests (provider);
  for (const GList *l = tools; l != NULL; l = l->next)
    if (!validate_tool (self, l->data, check_schemas, error))
      {
        g_prefix_error (error, "Provider “%s”: ", name);
        if (registered)
          stw_error_registry_unregister_plugin_codes (registry, name, codes);
        return FALSE;
      }

  _stw_tool_provider_hold (provider);
  g_ptr_array_add (self->providers, g_object_ref (provider));
  for (const GList *l = tools; l != NULL; l = l->next)
    insert_tool (self, l->data);
  return TRUE;
}

/**
 * stw_dispatcher_remove_provider:
 * @self: a [class@Stagewright.Dispatcher]
 * @provider: a provider added to @self
 *
 * Removes the provider's tools (emitting
 * [signal@Stagewright.Dispatcher::tool-removed] for each one still there)
 * and unregisters its error codes. Calls already running finish.
 *
 * Returns: %TRUE if @provider was in @self
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_remove_provider (StwDispatcher   *self,
                                StwToolProvider *provider)
{
  g_autoptr(GList) tools = NULL;
  guint index;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);
  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (provider), FALSE);

  if (!g_ptr_array_find (self->providers, provider, &index))
    return FALSE;

  tools = stw_tool_provider_list_tools (provider);
  for (const GList *l = tools; l != NULL; l = l->next)
    {
      const char *name = stw_tool_get_name (l->data);

      /* Only its own: the caller may have removed a tool by hand. */
      if (g_hash_table_lookup (self->tools, name) == l->data)
        stw_dispatcher_remove_tool (self, name);
    }

  g_ptr_array_remove_index (self->providers, index);
  return TRUE;
}

/**
 * stw_dispatcher_lookup_provider:
 * @self: a [class@Stagewright.Dispatcher]
 * @name: a provider's name
 *
 * Looks up a tool provider added to @self by its name.
 *
 * Returns: (transfer none) (nullable): the provider of that name in @self
 *
 * Since: 1.0
 */
StwToolProvider *
stw_dispatcher_lookup_provider (StwDispatcher *self,
                                const char    *name)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  for (guint i = 0; name != NULL && i < self->providers->len; i++)
    {
      StwToolProvider *provider = g_ptr_array_index (self->providers, i);

      if (g_strcmp0 (stw_tool_provider_get_name (provider), name) == 0)
        return provider;
    }
  return NULL;
}

/**
 * stw_dispatcher_remove_tool:
 * @self: a [class@Stagewright.Dispatcher]
 * @name: the tool's name
 *
 * Removes the tool named @name, so that it is neither listed nor
 * callable.
 *
 * Returns: %TRUE if a tool was removed
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_remove_tool (StwDispatcher *self,
                            const char    *name)
{
  g_autoptr(StwTool) tool = NULL;
  gpointer key;
  gpointer value;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!g_hash_table_steal_extended (self->tools, name, &key, &value))
    return FALSE;

  g_free (key);
  tool = value;
  g_signal_emit (self, signals[TOOL_REMOVED], 0, tool);
  return TRUE;
}

/**
 * stw_dispatcher_lookup_tool:
 * @self: a [class@Stagewright.Dispatcher]
 * @name: a tool name
 *
 * Finds a registered tool, visible or not.
 *
 * Returns: (transfer none) (nullable): the tool
 *
 * Since: 1.0
 */
StwTool *
stw_dispatcher_lookup_tool (StwDispatcher *self,
                            const char    *name)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  if (name == NULL)
    return NULL;
  return g_hash_table_lookup (self->tools, name);
}

static gboolean
eval_allowed (StwDispatcher *self,
              StwTool       *tool)
{
  StwEvalTarget target = stw_tool_get_eval_target (tool);

  return (self->allow_eval & target) == target;
}

/**
 * stw_dispatcher_is_tool_visible:
 * @self: a [class@Stagewright.Dispatcher]
 * @tool: a registered tool
 *
 * Whether agents see @tool: eval tools only under an eval policy that
 * covers their target, other tools in the profiles they belong to
 * ([property@Stagewright.Tool:profiles]) and, when they name an
 * [property@Stagewright.Tool:eval-target], only under a policy that
 * covers it.
 *
 * Returns: %TRUE if the tool is listed and callable
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_is_tool_visible (StwDispatcher *self,
                                StwTool       *tool)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);
  g_return_val_if_fail (STW_IS_TOOL (tool), FALSE);

  if (stw_tool_get_operation_type (tool) == STW_OPERATION_EVAL)
    return eval_allowed (self, tool);
  return eval_allowed (self, tool) && stw_tool_is_in_profile (tool, self->profile);
}

static int
compare_tools (gconstpointer a,
               gconstpointer b)
{
  return strcmp (stw_tool_get_name ((StwTool *) a), stw_tool_get_name ((StwTool *) b));
}

/**
 * stw_dispatcher_list_tools:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Lists the tools of every provider that the current tool profile shows.
 *
 * Returns: (transfer container) (element-type StwTool): the visible tools,
 *   sorted by name
 *
 * Since: 1.0
 */
GList *
stw_dispatcher_list_tools (StwDispatcher *self)
{
  GList *visible = NULL;
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  g_hash_table_iter_init (&iter, self->tools);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (stw_dispatcher_is_tool_visible (self, value))
      visible = g_list_prepend (visible, value);

  return g_list_sort (visible, compare_tools);
}

/**
 * stw_dispatcher_create_invocation:
 * @self: a [class@Stagewright.Dispatcher]
 * @name: the tool to call
 * @arguments: (nullable): the arguments as the agent sent them
 * @error: where to put an unknown tool
 *
 * Prepares a call, for callers that want to watch it (its progress
 * signal) before [method@Stagewright.Dispatcher.invoke_async] runs it.
 *
 * Returns: (transfer full) (nullable): the invocation, or %NULL with
 *   %STW_ERROR_BAD_ARGUMENT when no tool has that name
 *
 * Since: 1.0
 */
StwInvocation *
stw_dispatcher_create_invocation (StwDispatcher  *self,
                                  const char     *name,
                                  JsonObject     *arguments,
                                  GError        **error)
{
  StwTool *tool;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  tool = stw_dispatcher_lookup_tool (self, name);
  if (tool == NULL)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT, _("Unknown tool")));
      return NULL;
    }

  return _stw_invocation_new (self, tool, arguments);
}

/* --- one call ------------------------------------------------------------ */

typedef struct
{
  StwDispatcher *dispatcher;
  StwInvocation *invocation;
  GCancellable  *cancellable;      /* the caller's */
  gulong         cancelled_id;
  GSource       *backstop;
  GSource       *cancel_source;
  gboolean       abandoned;        /* the tool was told at once */
} Call;

static void
call_free (gpointer data)
{
  Call *call = data;

  if (call->cancelled_id != 0)
    g_cancellable_disconnect (call->cancellable, call->cancelled_id);
  if (call->backstop != NULL)
    {
      g_source_destroy (call->backstop);
      g_source_unref (call->backstop);
    }
  if (call->cancel_source != NULL)
    {
      g_source_destroy (call->cancel_source);
      g_source_unref (call->cancel_source);
    }
  g_clear_object (&call->cancellable);
  g_clear_object (&call->invocation);
  g_clear_object (&call->dispatcher);
  g_free (call);
}

static void
record_last_error (StwDispatcher *self,
                   StwTool       *tool,
                   JsonObject    *envelope)
{
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *at = NULL;
  JsonObject *breadcrumb;

  if (stw_envelope_is_ok (envelope))
    return;

  now = g_date_time_new_now_utc ();
  at = g_date_time_format_iso8601 (now);

  breadcrumb = json_object_new ();
  json_object_set_string_member (breadcrumb, "code",
                                 json_object_get_string_member_with_default (envelope, "code",
                                                                             "INTERNAL_ERROR"));
  json_object_set_string_member (breadcrumb, "at", at);
  json_object_set_string_member (breadcrumb, "tool", stw_tool_get_name (tool));
  g_clear_pointer (&self->last_error, json_object_unref);
  self->last_error = breadcrumb;
}

static void
on_invocation_done (StwInvocation *invocation,
                    gpointer       user_data)
{
  g_autoptr(GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  StwDispatcher *self = call->dispatcher;
  JsonObject *envelope = stw_invocation_get_envelope (invocation);
  gint64 elapsed = stw_invocation_get_elapsed_ms (invocation);
  StwTool *tool = stw_invocation_get_tool (invocation);

  if (elapsed >= SLOW_CALL_MS)
    g_message ("Slow call: %s took %" G_GINT64_FORMAT " ms", stw_tool_get_name (tool), elapsed);

  record_last_error (self, tool, envelope);
  g_signal_emit (self, signals[CALL_FINISHED], 0, invocation, envelope);
  g_task_return_pointer (task, json_object_ref (envelope), (GDestroyNotify) json_object_unref);
}

static gboolean
on_backstop (gpointer user_data)
{
  GTask *task = user_data;
  Call *call = g_task_get_task_data (task);
  g_autoptr(StwInvocation) invocation = g_object_ref (call->invocation);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) details = json_object_new ();
  guint timeout_ms = call->dispatcher->operation_timeout_ms;

  g_clear_pointer (&call->backstop, g_source_unref);
  if (stw_invocation_is_completed (invocation))
    return G_SOURCE_REMOVE;

  error = stw_error_new_code (STW_ERROR_OPERATION_TIMEOUT,
                              _("%s did not finish within %u ms"),
                              stw_tool_get_name (stw_invocation_get_tool (invocation)),
                              timeout_ms);
  json_object_set_int_member (details, "timeout_ms", timeout_ms);
  stw_error_set_details (error, details);

  /* Answer first, then tell the tool to stop; a late answer is dropped.
   * Answering may complete the task and free @call: only @invocation,
   * held here, is used after it. */
  stw_invocation_return_error (invocation, error);
  g_cancellable_cancel (stw_invocation_get_cancellable (invocation));

  return G_SOURCE_REMOVE;
}

static gboolean
on_cancel_idle (gpointer user_data)
{
  GTask *task = user_data;
  Call *call = g_task_get_task_data (task);

  g_clear_pointer (&call->cancel_source, g_source_unref);
  if (!call->abandoned)
    {
      if (stw_invocation_is_completed (call->invocation))
        return G_SOURCE_REMOVE;
      _stw_invocation_abandon (call->invocation);
    }
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The call was cancelled");
  g_object_unref (task);  /* the reference on_invocation_done would have dropped */
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Call *call = g_task_get_task_data (task);
  GSource *source;

  /* May run in any thread; finish in the call's own context. */
  if (call->cancel_source != NULL)
    return;
  source = g_idle_source_new ();
  g_source_set_callback (source, on_cancel_idle, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
  call->cancel_source = source;

  /* In the call's own context, the tool learns now, not after whatever
   * else this iteration dispatches: a request read right behind the
   * cancel (a new electron_launch) must find the cancelled launch's slot
   * free. Its answer is dropped; the idle answers the caller. */
  if (!stw_invocation_is_completed (call->invocation) && g_main_context_is_owner (g_task_get_context (task)))
    {
      call->abandoned = TRUE;
      _stw_invocation_abandon (call->invocation);
    }
}

/* Every eval payload is audited by hash, never by content, and passes the
 * guard of stw-js-guard.c (a blocklist and structural rules on the tokens
 * of a JavaScript lexer) before any installed guard. The code is the
 * argument the tool declares (StwTool:code-argument), whatever its name:
 * registration refused eval tools that declare none. */
static gboolean
check_eval (StwDispatcher  *self,
            StwTool        *tool,
            JsonObject     *arguments,
            GError        **error)
{
  const char *argument = stw_tool_get_code_argument (tool);
  const char *code;

  /* Registration refuses such a tool; never run unguarded code. */
  if (argument == NULL)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_INTERNAL_ERROR,
                                                    _("The eval tool %s names no code argument"),
                                                    stw_tool_get_name (tool)));
      return FALSE;
    }

  /* Validation already made it a string when present; an absent optional
   * argument leaves nothing to run. */
  code = json_object_get_string_member_with_default (arguments, argument, NULL);
  if (code != NULL)
    {
      g_autofree char *hash = NULL;
      gsize length = strlen (code);

      if (!g_utf8_validate_len (code, length, NULL))
        {
          g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                                _("The code is not valid UTF-8 text")));
          return FALSE;
        }
      /* Bounded before any scan, as the contract caps eval code. */
      if (g_utf8_strlen (code, (gssize) length) > 100000)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                        _("The code is longer than 100000 characters")));
          return FALSE;
        }
      hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, code, (gssize) length);
      g_message ("eval audit: tool=%s code_length=%zu code_sha256=%s",
                 stw_tool_get_name (tool), length, hash);

      if (!_stw_js_guard_check (code, (gssize) length, hash, error))
        return FALSE;
    }

  if (self->eval_guard != NULL)
    return self->eval_guard (self, tool, arguments, self->eval_guard_data, error);
  return TRUE;
}

static const char *
eval_flag_for (StwEvalTarget target)
{
  switch ((guint) target)
    {
    case STW_EVAL_TARGET_MAIN:
      return "--allow-eval=main";
    case STW_EVAL_TARGET_RENDERER:
      return "--allow-eval=renderer";
    default:
      return "--allow-eval=all";
    }
}

/* A provider's tool that needs an eval policy is refused with the
 * provider's own `<provider>.EVAL_REQUIRED` when it registered one (the
 * ipc plugin does), so library callers, who see every tool, get a code
 * they can test for; otherwise with BAD_ARGUMENT, as the core eval tools. */
static char *
eval_required_code (StwDispatcher *self,
                    StwTool       *tool)
{
  for (guint i = 0; i < self->providers->len; i++)
    {
      StwToolProvider *provider = g_ptr_array_index (self->providers, i);
      g_autoptr(GList) tools = stw_tool_provider_list_tools (provider);
      g_autofree char *code = NULL;

      if (g_list_find (tools, tool) == NULL)
        continue;
      code = g_strconcat (stw_tool_provider_get_name (provider), ".EVAL_REQUIRED", NULL);
      if (stw_error_registry_contains (stw_error_registry_get_default (), code))
        return g_steal_pointer (&code);
      return NULL;
    }
  return NULL;
}

static GError *
hidden_tool_error (StwDispatcher *self,
                   StwTool       *tool)
{
  const char *name = stw_tool_get_name (tool);
  g_autofree char *action = NULL;
  GError *error;

  if (!eval_allowed (self, tool))
    {
      const char *flag = eval_flag_for (stw_tool_get_eval_target (tool));
      g_autofree char *code = eval_required_code (self, tool);

      if (code != NULL)
        error = stw_error_new (code, _("%s is disabled by the server's eval policy; it needs %s"),
                               name, flag);
      else
        error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                    _("%s is disabled by the server's eval policy; it needs %s"),
                                    name, flag);
      action = g_strdup_printf (_("Ask the operator to restart the server with %s"), flag);
    }
  else
    {
      static const StwToolProfile order[] = {
        STW_TOOL_PROFILE_ESSENTIAL, STW_TOOL_PROFILE_TESTING,
        STW_TOOL_PROFILE_DEBUG, STW_TOOL_PROFILE_FULL,
      };
      const char *profile = "full";

      for (guint i = 0; i < G_N_ELEMENTS (order); i++)
        if (stw_tool_is_in_profile (tool, order[i]))
          {
            profile = stw_tool_profile_to_string (order[i]);
            break;
          }

      error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                  _("%s is not in the “%s” tool profile; the “%s” profile has it"),
                                  name, stw_tool_profile_to_string (self->profile), profile);
      action = g_strdup_printf (_("Ask the operator to restart the server with --tool-profile=%s"),
                                profile);
    }

  stw_error_add_next_action (error, action);
  stw_error_set_hint (error, action);
  return error;
}

/* The contract's rules (StwSessionManager implements them): the call's
 * sessionId, else the only live session. */
static gboolean
resolve_session (StwDispatcher  *self,
                 StwInvocation  *invocation,
                 GError        **error)
{
  StwSessionRequirement requirement = stw_tool_get_session_requirement (stw_invocation_get_tool (invocation));
  JsonNode *member = json_object_get_member (stw_invocation_get_arguments (invocation), "sessionId");
  const char *session_id = NULL;
  StwSession *session;

  if (requirement == STW_SESSION_REQUIREMENT_NONE)
    return TRUE;

  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
      json_node_get_value_type (member) == G_TYPE_STRING)
    session_id = json_node_get_string (member);

  if (requirement == STW_SESSION_REQUIREMENT_OPTIONAL && session_id == NULL)
    {
      g_autoptr(GList) live = stw_session_manager_list_sessions (self->sessions);

      if (live == NULL)
        return TRUE;
    }

  session = stw_session_manager_resolve (self->sessions, session_id, error);
  if (session == NULL)
    return FALSE;
  _stw_invocation_set_session (invocation, session);
  return TRUE;
}

static GError *
schema_error (JsonArray *issues)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error;
  guint n = json_array_get_length (issues);
  JsonObject *first = n > 0 ? json_array_get_object_element (issues, 0) : NULL;
  const char *field = first ? json_object_get_string_member_with_default (first, "field", "") : "";
  const char *message = first ? json_object_get_string_member_with_default (first, "message", "") : "";

  if (n <= 1)
    error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Invalid argument %s: %s"),
                                *field ? field : _("(arguments)"), message);
  else
    error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Invalid argument %s: %s (and %u more)"),
                                *field ? field : _("(arguments)"), message, n - 1);

  json_object_set_array_member (details, "issues", json_array_ref (issues));
  stw_error_set_details (error, details);
  return error;
}

/**
 * stw_dispatcher_invoke_async:
 * @self: a [class@Stagewright.Dispatcher]
 * @invocation: a call from [method@Stagewright.Dispatcher.create_invocation]
 * @cancellable: (nullable): cancels the call (the caller then gets
 *   %G_IO_ERROR_CANCELLED and no envelope)
 * @callback: called with the envelope
 * @user_data: data for @callback
 *
 * Runs the call: visibility, validation, eval guard, session resolution,
 * the tool, the backstop. Completes in the thread-default main context of
 * the caller.
 *
 * Since: 1.0
 */
void
stw_dispatcher_invoke_async (StwDispatcher       *self,
                             StwInvocation       *invocation,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonArray) issues = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) raw = NULL;
  g_autoptr(JsonNode) filled = NULL;
  StwTool *tool;
  Call *call;

  g_return_if_fail (STW_IS_DISPATCHER (self));
  g_return_if_fail (STW_IS_INVOCATION (invocation));
  g_return_if_fail (!stw_invocation_is_completed (invocation));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_dispatcher_invoke_async);

  call = g_new0 (Call, 1);
  call->dispatcher = g_object_ref (self);
  call->invocation = g_object_ref (invocation);
  call->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  g_task_set_task_data (task, call, call_free);

  /* The invocation holds a task reference until it completes. */
  _stw_invocation_begin (invocation, on_invocation_done, g_object_ref (task));
  g_signal_emit (self, signals[CALL_STARTED], 0, invocation);
  /* A handler refused it (a plugin's budget): it ran no further. */
  if (stw_invocation_is_completed (invocation))
    return;

  if (cancellable != NULL)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          on_caller_cancelled (cancellable, task);
          return;
        }
      call->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                  task, NULL);
    }

  tool = stw_invocation_get_tool (invocation);

  if (!stw_dispatcher_is_tool_visible (self, tool))
    {
      g_autoptr(GError) hidden = hidden_tool_error (self, tool);
      stw_invocation_return_error (invocation, hidden);
      return;
    }

  raw = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (raw, stw_invocation_get_arguments (invocation));
  if (!_stw_schema_validate_arguments (stw_tool_get_input_schema (tool), raw, &issues))
    {
      g_autoptr(GError) invalid = schema_error (issues);
      stw_invocation_return_error (invocation, invalid);
      return;
    }

  filled = stw_schema_apply_defaults (stw_tool_get_input_schema (tool), raw);
  if (filled != NULL && JSON_NODE_HOLDS_OBJECT (filled))
    _stw_invocation_set_arguments (invocation, json_node_get_object (filled));

  if (stw_tool_get_operation_type (tool) == STW_OPERATION_EVAL &&
      !check_eval (self, tool, stw_invocation_get_arguments (invocation), &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }

  if (!resolve_session (self, invocation, &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }

  if (self->operation_timeout_ms > 0)
    {
      call->backstop = g_timeout_source_new (self->operation_timeout_ms);
      g_source_set_callback (call->backstop, on_backstop, task, NULL);
      g_source_attach (call->backstop, g_task_get_context (task));
    }

  g_object_ref (invocation);
  stw_tool_invoke (tool, invocation);
  g_object_unref (invocation);
}

/**
 * stw_dispatcher_invoke_finish:
 * @self: a [class@Stagewright.Dispatcher]
 * @result: the result given to the callback
 * @error: where to put %G_IO_ERROR_CANCELLED
 *
 * Finishes an operation started with
 * [method@Stagewright.Dispatcher.invoke_async].
 *
 * Returns: (transfer full): the envelope, or %NULL if the caller cancelled
 *
 * Since: 1.0
 */
JsonObject *
stw_dispatcher_invoke_finish (StwDispatcher  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_dispatcher_call_sync:
 * @self: a #StwDispatcher
 * @name: the tool to call
 * @arguments: (nullable): its arguments
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put an unknown tool or cancellation
 *
 * Calls a tool and waits for its envelope, for scripts and test harnesses.
 *
 * Like every blocking call of this library, it iterates the main context
 * that was thread-default when @self was made (the one its sessions'
 * sockets are attached to) until the call ends, so blocking and
 * asynchronous calls can be mixed in any order. Calling it from a thread
 * that cannot run that context is a programmer error.
 *
 * Returns: (transfer full) (nullable): the envelope
 *
 * Since: 1.0
 */
JsonObject *
stw_dispatcher_call_sync (StwDispatcher  *self,
                          const char     *name,
                          JsonObject     *arguments,
                          GCancellable   *cancellable,
                          GError        **error)
{
  g_autoptr(StwInvocation) invocation = NULL;
  JsonObject *envelope;
  StwSyncCall call;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;

  invocation = stw_dispatcher_create_invocation (self, name, arguments, error);
  if (invocation == NULL)
    {
      _stw_sync_call_clear (&call);
      return NULL;
    }

  stw_dispatcher_invoke_async (self, invocation, cancellable, _stw_sync_call_callback, &call);
  envelope = stw_dispatcher_invoke_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return envelope;
}

/**
 * stw_dispatcher_call_json_sync:
 * @self: a #StwDispatcher
 * @name: the tool to call
 * @arguments_json: (nullable): its arguments as the text of a JSON object
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put an unknown tool, unparsable arguments or cancellation
 *
 * [method@Stagewright.Dispatcher.call_sync] with JSON text in and out; the
 * same blocking-call policy applies.
 *
 * Returns: (transfer full) (nullable): the envelope as JSON text
 *
 * Since: 1.0
 */
char *
stw_dispatcher_call_json_sync (StwDispatcher  *self,
                               const char     *name,
                               const char     *arguments_json,
                               GCancellable   *cancellable,
                               GError        **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonObject) envelope = NULL;
  JsonObject *arguments = NULL;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  if (arguments_json != NULL && *arguments_json != '\0')
    {
      g_autoptr(GError) parse_error = NULL;

      node = stw_json_parse (arguments_json, -1, &parse_error);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                        _("The arguments are not a JSON object: %s"),
                                                        parse_error ? parse_error->message : _("wrong type")));
          return NULL;
        }
      arguments = json_node_get_object (node);
    }

  envelope = stw_dispatcher_call_sync (self, name, arguments, cancellable, error);
  if (envelope == NULL)
    return NULL;
  return stw_envelope_to_string (envelope);
}

/**
 * stw_dispatcher_set_eval_guard:
 * @self: a [class@Stagewright.Dispatcher]
 * @guard: (nullable) (scope notified) (closure user_data) (destroy destroy): the guard
 * @user_data: data for @guard
 * @destroy: frees @user_data
 *
 * Installs a guard every eval payload passes after the built-in one (a
 * keyword blocklist and structural rules applied to the tokens of a
 * JavaScript lexer, on the argument the tool names in
 * [property@Stagewright.Tool:code-argument]). Policies of an
 * application's own plug in here.
 *
 * Since: 1.0
 */
void
stw_dispatcher_set_eval_guard (StwDispatcher    *self,
                               StwEvalGuardFunc  guard,
                               gpointer          user_data,
                               GDestroyNotify    destroy)
{
  g_return_if_fail (STW_IS_DISPATCHER (self));

  if (self->eval_guard_destroy != NULL)
    self->eval_guard_destroy (self->eval_guard_data);
  self->eval_guard = guard;
  self->eval_guard_data = user_data;
  self->eval_guard_destroy = destroy;
}

/**
 * stw_dispatcher_get_tool_profile:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Gets the profile that decides which tools
 * [method@Stagewright.Dispatcher.list_tools] shows.
 *
 * Returns: the tool profile
 *
 * Since: 1.0
 */
StwToolProfile
stw_dispatcher_get_tool_profile (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), STW_TOOL_PROFILE_FULL);
  return self->profile;
}

/**
 * stw_dispatcher_set_tool_profile:
 * @self: a [class@Stagewright.Dispatcher]
 * @profile: the tool profile
 *
 * Sets the profile that decides which tools are listed and callable.
 *
 * Since: 1.0
 */
void
stw_dispatcher_set_tool_profile (StwDispatcher  *self,
                                 StwToolProfile  profile)
{
  g_return_if_fail (STW_IS_DISPATCHER (self));

  if (self->profile == profile)
    return;
  self->profile = profile;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOOL_PROFILE]);
}

/**
 * stw_dispatcher_get_allow_eval:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Gets where evaluation tools may run code, as set by
 * [method@Stagewright.Dispatcher.set_allow_eval].
 *
 * Returns: the eval policy
 *
 * Since: 1.0
 */
StwEvalTarget
stw_dispatcher_get_allow_eval (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), STW_EVAL_TARGET_NONE);
  return self->allow_eval;
}

/**
 * stw_dispatcher_set_allow_eval:
 * @self: a [class@Stagewright.Dispatcher]
 * @targets: where evaluation is allowed
 *
 * Sets where evaluation tools may run code. Calls of an evaluation tool
 * to a target not allowed fail with `EVAL_DISABLED`.
 *
 * Since: 1.0
 */
void
stw_dispatcher_set_allow_eval (StwDispatcher *self,
                               StwEvalTarget  targets)
{
  g_return_if_fail (STW_IS_DISPATCHER (self));

  if (self->allow_eval == targets)
    return;
  self->allow_eval = targets;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALLOW_EVAL]);
}

/**
 * stw_dispatcher_get_operation_timeout_ms:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Gets the backstop after which a tool call that has not answered fails
 * with `OPERATION_TIMEOUT`.
 *
 * Returns: the backstop in milliseconds, 0 when disabled
 *
 * Since: 1.0
 */
guint
stw_dispatcher_get_operation_timeout_ms (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), 0);
  return self->operation_timeout_ms;
}

/**
 * stw_dispatcher_set_operation_timeout_ms:
 * @self: a [class@Stagewright.Dispatcher]
 * @timeout_ms: the backstop in milliseconds, 0 to disable
 *
 * Sets the backstop after which a tool call that has not answered fails
 * with `OPERATION_TIMEOUT`.
 *
 * Since: 1.0
 */
void
stw_dispatcher_set_operation_timeout_ms (StwDispatcher *self,
                                         guint          timeout_ms)
{
  g_return_if_fail (STW_IS_DISPATCHER (self));

  if (self->operation_timeout_ms == timeout_ms)
    return;
  self->operation_timeout_ms = timeout_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPERATION_TIMEOUT_MS]);
}

/**
 * stw_dispatcher_get_app_root:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Gets the directory every path the tools read or write must lie in, if
 * one was set.
 *
 * Returns: (transfer none) (nullable): the app root
 *
 * Since: 1.0
 */
const char *
stw_dispatcher_get_app_root (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);
  return self->app_root;
}

/**
 * stw_dispatcher_set_app_root:
 * @self: a [class@Stagewright.Dispatcher]
 * @app_root: (nullable): an absolute directory
 *
 * Sets the directory every path the tools read or write must lie in;
 * %NULL lifts the confinement.
 *
 * Since: 1.0
 */
void
stw_dispatcher_set_app_root (StwDispatcher *self,
                             const char    *app_root)
{
  g_return_if_fail (STW_IS_DISPATCHER (self));

  if (g_strcmp0 (self->app_root, app_root) == 0)
    return;
  g_free (self->app_root);
  self->app_root = g_strdup (app_root);
  /* What the tools open later resolves beneath the directory this is now. */
  _stw_confine_hold_root (app_root);
  stw_session_manager_set_app_root (self->sessions, app_root);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_APP_ROOT]);
}

/**
 * stw_dispatcher_open_file:
 * @self: a [class@Stagewright.Dispatcher]
 * @path: (type filename): an absolute path
 * @flags: open(2) flags (`O_CLOEXEC` is added)
 * @mode: the mode of a file `O_CREAT` makes
 * @error: where to put `ABSOLUTE_PATH_REQUIRED`, `BAD_ARGUMENT` (outside
 *   the app root, or a symlink swapped in since the path was resolved;
 *   `details.argument` is `path`) or `FILE_NOT_FOUND`
 *
 * Opens a file the way the core tools open what they read, write or hand
 * to a page, for tools and plugins that do the same: with an app root
 * (see [method@Stagewright.Dispatcher.set_app_root]), @path is resolved,
 * checked to lie inside it, and opened beneath a descriptor of the root
 * held since the root was set (`openat2` with `RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS`, or a walk that follows no symlink where the
 * kernel lacks it), so a directory swapped for a symlink after the check
 * leads nowhere. Without one, @path may be anywhere but is still not
 * opened through a magic link (`/proc/self/fd/…`).
 *
 * Returns: a file descriptor the caller closes, or -1
 *
 * Since: 1.0
 */
int
stw_dispatcher_open_file (StwDispatcher  *self,
                          const char     *path,
                          int             flags,
                          int             mode,
                          GError        **error)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), -1);
  g_return_val_if_fail (path != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  return _stw_confine_open (self->app_root, path, flags, (mode_t) mode, "path", error);
}

/**
 * stw_dispatcher_write_file:
 * @self: a [class@Stagewright.Dispatcher]
 * @path: (type filename): an absolute path
 * @contents: what the file holds
 * @mode: the file's mode
 * @error: errors as [method@Stagewright.Dispatcher.open_file];
 *   `FILE_NOT_FOUND` when it cannot be written
 *
 * Writes @path whole — a new file in its directory, renamed over the old
 * one — through a descriptor of the directory opened as
 * [method@Stagewright.Dispatcher.open_file] opens: screenshots and other
 * artifacts never land outside the app root.
 *
 * Returns: %TRUE when written
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_write_file (StwDispatcher  *self,
                           const char     *path,
                           GBytes         *contents,
                           int             mode,
                           GError        **error)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);
  g_return_val_if_fail (path != NULL && contents != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return _stw_confine_write_file (self->app_root, path, contents, (mode_t) mode, error);
}

/**
 * stw_dispatcher_get_screenshot_dir:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Gets where screenshots go when a call names no path, if set.
 *
 * Returns: (transfer none) (nullable): the screenshot directory
 *
 * Since: 1.0
 */
const char *
stw_dispatcher_get_screenshot_dir (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);
  return self->screenshot_dir;
}

/**
 * stw_dispatcher_set_screenshot_dir:
 * @self: a [class@Stagewright.Dispatcher]
 * @screenshot_dir: (nullable): an absolute directory
 *
 * Sets where screenshots go when a call names no path.
 *
 * Since: 1.0
 */
void
stw_dispatcher_set_screenshot_dir (StwDispatcher *self,
                                   const char    *screenshot_dir)
{
  g_return_if_fail (STW_IS_DISPATCHER (self));

  if (g_strcmp0 (self->screenshot_dir, screenshot_dir) == 0)
    return;
  g_free (self->screenshot_dir);
  self->screenshot_dir = g_strdup (screenshot_dir);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCREENSHOT_DIR]);
}

/**
 * stw_dispatcher_get_started_at:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Gets the time the dispatcher was created.
 *
 * Returns: when the dispatcher was created, in milliseconds since the epoch
 *
 * Since: 1.0
 */
gint64
stw_dispatcher_get_started_at (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), 0);
  return self->started_at_ms;
}

/**
 * stw_dispatcher_get_last_error:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * The breadcrumb of the last failed call: `{code, at, tool}`, no
 * arguments or messages.
 *
 * Returns: (transfer none) (nullable): the breadcrumb
 *
 * Since: 1.0
 */
JsonObject *
stw_dispatcher_get_last_error (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);
  return self->last_error;
}

/**
 * stw_dispatcher_get_session_manager:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * The sessions the dispatcher's tools act on.
 *
 * Returns: (transfer none): the session manager
 *
 * Since: 1.0
 */
StwSessionManager *
stw_dispatcher_get_session_manager (StwDispatcher *self)
{
  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);
  return self->sessions;
}

GPtrArray *
_stw_dispatcher_get_providers (StwDispatcher *self)
{
  return self->providers;
}

GMainContext *
_stw_dispatcher_get_context (StwDispatcher *self)
{
  return self->context;
}

gboolean
_stw_dispatcher_get_plugins_busy (StwDispatcher *self)
{
  return self->plugins_busy;
}

void
_stw_dispatcher_set_plugins_busy (StwDispatcher *self,
                                  gboolean       busy)
{
  self->plugins_busy = busy;
}
