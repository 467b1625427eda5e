/* stw-tool.c: one agent-facing tool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-enum-types.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-tool.h"
#include "stw-tool-private.h"

/**
 * StwTool:
 *
 * A tool an agent can call: its name, description, input schema and
 * operation type, and one virtual method, [vfunc@Stagewright.Tool.invoke], that
 * receives a [class@Stagewright.Invocation] and completes it later. Tools are written in C
 * (the core families), or in Python and JavaScript through GObject
 * Introspection (`do_invoke`, `vfunc_invoke`).
 *
 * All metadata is construct-only: a dispatcher validates it once, when the
 * tool is added, so a bad tool fails at start-up and never at an agent's
 * call (the core tools' schemas are checked by a test instead, and
 * compiled when first used). The description an agent sees also lists the error codes the tool
 * declares, with their retryability (see [method@Stagewright.Tool.dup_agent_description]).
 *
 * Since: 1.0
 */

typedef struct
{
  char              *name;
  char              *title;
  char              *description;
  StwSchema         *input_schema;
  StwSchema         *output_schema;
  StwOperationType   operation_type;
  StwEvalTarget      eval_target;
  char              *code_argument;
  char             **error_codes;
  gboolean           destructive_hint;
  gboolean           idempotent_hint;
  StwToolProfileFlags profiles;
  StwSessionRequirement session_requirement;
} StwToolPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (StwTool, stw_tool, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_TITLE,
  PROP_DESCRIPTION,
  PROP_INPUT_SCHEMA,
  PROP_OUTPUT_SCHEMA,
  PROP_OPERATION_TYPE,
  PROP_EVAL_TARGET,
  PROP_CODE_ARGUMENT,
  PROP_ERROR_CODES,
  PROP_DESTRUCTIVE_HINT,
  PROP_IDEMPOTENT_HINT,
  PROP_PROFILES,
  PROP_SESSION_REQUIREMENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char empty_object_schema[] =
  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}";

static void
stw_tool_constructed (GObject *object)
{
  StwTool *self = STW_TOOL (object);
  StwToolPrivate *priv = stw_tool_get_instance_private (self);

  G_OBJECT_CLASS (stw_tool_parent_class)->constructed (object);

  if (priv->input_schema == NULL)
    priv->input_schema = stw_schema_new_from_string (empty_object_schema, NULL);
}

static void
stw_tool_finalize (GObject *object)
{
  StwTool *self = STW_TOOL (object);
  StwToolPrivate *priv = stw_tool_get_instance_private (self);

  g_clear_pointer (&priv->name, g_free);
  g_clear_pointer (&priv->title, g_free);
  g_clear_pointer (&priv->description, g_free);
  g_clear_pointer (&priv->code_argument, g_free);
  g_clear_pointer (&priv->input_schema, stw_schema_unref);
  g_clear_pointer (&priv->output_schema, stw_schema_unref);
  g_clear_pointer (&priv->error_codes, g_strfreev);

  G_OBJECT_CLASS (stw_tool_parent_class)->finalize (object);
}

static void
stw_tool_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  StwTool *self = STW_TOOL (object);
  StwToolPrivate *priv = stw_tool_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    case PROP_TITLE:
      g_value_set_string (value, priv->title);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, priv->description);
      break;
    case PROP_INPUT_SCHEMA:
      g_value_set_boxed (value, priv->input_schema);
      break;
    case PROP_OUTPUT_SCHEMA:
      g_value_set_boxed (value, priv->output_schema);
      break;
    case PROP_OPERATION_TYPE:
      g_value_set_enum (value, priv->operation_type);
      break;
    case PROP_EVAL_TARGET:
      g_value_set_flags (value, priv->eval_target);
      break;
    case PROP_CODE_ARGUMENT:
      g_value_set_string (value, priv->code_argument);
      break;
    case PROP_ERROR_CODES:
      g_value_set_boxed (value, priv->error_codes);
      break;
    case PROP_DESTRUCTIVE_HINT:
      g_value_set_boolean (value, priv->destructive_hint);
      break;
    case PROP_IDEMPOTENT_HINT:
      g_value_set_boolean (value, priv->idempotent_hint);
      break;
    case PROP_PROFILES:
      g_value_set_flags (value, priv->profiles);
      break;
    case PROP_SESSION_REQUIREMENT:
      g_value_set_enum (value, priv->session_requirement);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The properties' values, set directly once the object exists: only the
 * input schema goes through g_object_new(), so constructed() sees it. A
 * tool type made this way must not read its other properties in its own
 * constructed(). */
StwTool *
_stw_tool_new_with_init (GType        tool_type,
                         StwToolInit *init)
{
  StwTool *self;
  StwToolPrivate *priv;

  g_return_val_if_fail (g_type_is_a (tool_type, STW_TYPE_TOOL), NULL);

  if (init->input_schema != NULL)
    self = g_object_new (tool_type, "input-schema", init->input_schema, NULL);
  else
    self = g_object_new (tool_type, NULL);

  priv = stw_tool_get_instance_private (self);
  priv->name = g_strdup (init->name);
  priv->title = g_strdup (init->title);
  priv->description = g_strdup (init->description);
  priv->operation_type = init->operation_type;
  priv->eval_target = init->eval_target;
  priv->code_argument = g_strdup (init->code_argument);
  priv->error_codes = g_steal_pointer (&init->error_codes);
  priv->destructive_hint = init->destructive_hint;
  priv->idempotent_hint = init->idempotent_hint;
  priv->profiles = init->profiles;
  priv->session_requirement = init->session_requirement;

  return self;
}

static void
stw_tool_set_property (GObject      *object,
                       guint         prop_id,
                       const GValue *value,
                       GParamSpec   *pspec)
{
  StwTool *self = STW_TOOL (object);
  StwToolPrivate *priv = stw_tool_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      priv->name = g_value_dup_string (value);
      break;
    case PROP_TITLE:
      priv->title = g_value_dup_string (value);
      break;
    case PROP_DESCRIPTION:
      priv->description = g_value_dup_string (value);
      break;
    case PROP_INPUT_SCHEMA:
      priv->input_schema = g_value_dup_boxed (value);
      break;
    case PROP_OUTPUT_SCHEMA:
      priv->output_schema = g_value_dup_boxed (value);
      break;
    case PROP_OPERATION_TYPE:
      priv->operation_type = g_value_get_enum (value);
      break;
    case PROP_EVAL_TARGET:
      priv->eval_target = g_value_get_flags (value);
      break;
    case PROP_CODE_ARGUMENT:
      priv->code_argument = g_value_dup_string (value);
      break;
    case PROP_ERROR_CODES:
      priv->error_codes = g_value_dup_boxed (value);
      break;
    case PROP_DESTRUCTIVE_HINT:
      priv->destructive_hint = g_value_get_boolean (value);
      break;
    case PROP_IDEMPOTENT_HINT:
      priv->idempotent_hint = g_value_get_boolean (value);
      break;
    case PROP_PROFILES:
      priv->profiles = g_value_get_flags (value);
      break;
    case PROP_SESSION_REQUIREMENT:
      priv->session_requirement = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static StwToolUnimplementedFunc unimplemented_func;

void
_stw_tool_set_unimplemented_func (StwToolUnimplementedFunc func)
{
  unimplemented_func = func;
}

/* The default invoke: NOT_IMPLEMENTED, through what the invocation's class
 * handed down. So a direct stw_tool_invoke() and a subclass chaining up
 * both get an answer, never a call left open. */
static void
stw_tool_real_invoke (StwTool       *self,
                      StwInvocation *invocation)
{
  g_return_if_fail (unimplemented_func != NULL);
  unimplemented_func (self, G_OBJECT (invocation));
}

static void
stw_tool_class_init (StwToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->constructed = stw_tool_constructed;
  object_class->finalize = stw_tool_finalize;
  object_class->get_property = stw_tool_get_property;
  object_class->set_property = stw_tool_set_property;
  klass->invoke = stw_tool_real_invoke;

  /**
   * StwTool:name:
   *
   * The name agents call, matching `^[a-z][a-z0-9_]*$`.
   *
   * Since: 1.0
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);

  /**
   * StwTool:title:
   *
   * A short human title.
   *
   * Since: 1.0
   */
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);

  /**
   * StwTool:description:
   *
   * What the tool does, its options and what it returns.
   *
   * Since: 1.0
   */
  properties[PROP_DESCRIPTION] = g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * StwTool:input-schema:
   *
   * The JSON Schema of the arguments (`type: object`); what `tools/list`
   * shows is exactly what calls are validated against.
   *
   * Since: 1.0
   */
  properties[PROP_INPUT_SCHEMA] = g_param_spec_boxed ("input-schema", NULL, NULL,
                                                      STW_TYPE_SCHEMA, flags);

  /**
   * StwTool:output-schema:
   *
   * The JSON Schema of a successful result, if the tool publishes one.
   *
   * Since: 1.0
   */
  properties[PROP_OUTPUT_SCHEMA] = g_param_spec_boxed ("output-schema", NULL, NULL,
                                                       STW_TYPE_SCHEMA, flags);

  /**
   * StwTool:operation-type:
   *
   * The internal operation type that routes the call.
   *
   * Since: 1.0
   */
  properties[PROP_OPERATION_TYPE] = g_param_spec_enum ("operation-type", NULL, NULL,
                                                       STW_TYPE_OPERATION_TYPE,
                                                       STW_OPERATION_COMMAND, flags);

  /**
   * StwTool:eval-target:
   *
   * For eval tools, where the code runs; the tool is hidden unless the
   * server's eval policy allows every target it names. Another tool may
   * name targets too (a plugin's tool that runs the server's own code in
   * the main process): it is hidden the same way, and a call is refused
   * with its provider's `<provider>.EVAL_REQUIRED` when that code is
   * registered, else with `BAD_ARGUMENT`, naming the flag either way.
   *
   * Since: 1.0
   */
  properties[PROP_EVAL_TARGET] = g_param_spec_flags ("eval-target", NULL, NULL,
                                                     STW_TYPE_EVAL_TARGET,
                                                     STW_EVAL_TARGET_NONE, flags);

  /**
   * StwTool:code-argument:
   *
   * For eval tools, the name of the argument that holds the code to run.
   * The dispatcher guards and audits exactly this argument, whatever it is
   * called, so an eval tool must name it: the dispatcher refuses an eval
   * tool without one, or whose input schema does not offer it as a string.
   * Other tools leave it unset.
   *
   * Since: 1.0
   */
  properties[PROP_CODE_ARGUMENT] = g_param_spec_string ("code-argument", NULL, NULL,
                                                        NULL, flags);

  /**
   * StwTool:error-codes:
   *
   * The registered codes the tool can return (besides `BAD_ARGUMENT`,
   * `OPERATION_TIMEOUT` and `INTERNAL_ERROR`, which every call can).
   *
   * Since: 1.0
   */
  properties[PROP_ERROR_CODES] = g_param_spec_boxed ("error-codes", NULL, NULL,
                                                     G_TYPE_STRV, flags);

  /**
   * StwTool:destructive-hint:
   *
   * Whether the tool may destroy state (MCP `destructiveHint`).
   *
   * Since: 1.0
   */
  properties[PROP_DESTRUCTIVE_HINT] = g_param_spec_boolean ("destructive-hint", NULL, NULL,
                                                            FALSE, flags);

  /**
   * StwTool:idempotent-hint:
   *
   * Whether repeating the call has no further effect (MCP `idempotentHint`).
   *
   * Since: 1.0
   */
  properties[PROP_IDEMPOTENT_HINT] = g_param_spec_boolean ("idempotent-hint", NULL, NULL,
                                                           FALSE, flags);

  /**
   * StwTool:profiles:
   *
   * The tool profiles (`--tool-profile`) that show the tool. Eval tools
   * follow the eval policy instead; tools the profiles do not govern keep
   * the default, every profile.
   *
   * Since: 1.0
   */
  properties[PROP_PROFILES] = g_param_spec_flags ("profiles", NULL, NULL,
                                                  STW_TYPE_TOOL_PROFILE_FLAGS,
                                                  STW_TOOL_PROFILE_FLAGS_ALL, flags);

  /**
   * StwTool:session-requirement:
   *
   * Whether the tool acts on a session. For tools that do, the dispatcher
   * resolves the session before invoking them (see [enum@Stagewright.SessionRequirement])
   * and their input schema must offer a `sessionId` string.
   *
   * Since: 1.0
   */
  properties[PROP_SESSION_REQUIREMENT] = g_param_spec_enum ("session-requirement", NULL, NULL,
                                                            STW_TYPE_SESSION_REQUIREMENT,
                                                            STW_SESSION_REQUIREMENT_NONE, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_tool_init (StwTool *self)
{
  StwToolPrivate *priv = stw_tool_get_instance_private (self);

  priv->profiles = STW_TOOL_PROFILE_FLAGS_ALL;
}

#define PRIV(self) ((StwToolPrivate *) stw_tool_get_instance_private (self))

/**
 * stw_tool_get_name:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the name the tool is called by.
 *
 * Returns: (transfer none) (nullable): the name
 *
 * Since: 1.0
 */
const char *
stw_tool_get_name (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return PRIV (self)->name;
}

/**
 * stw_tool_get_title:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the human-readable title of the tool.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 1.0
 */
const char *
stw_tool_get_title (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return PRIV (self)->title;
}

/**
 * stw_tool_get_description:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the description the tool is listed with.
 *
 * Returns: (transfer none) (nullable): the description as given
 *
 * Since: 1.0
 */
const char *
stw_tool_get_description (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return PRIV (self)->description;
}

/* Whether the tool takes an element as `ref` or `selector`. */
static gboolean
takes_element_argument (StwTool *self)
{
  JsonNode *schema = stw_schema_get_node (PRIV (self)->input_schema);
  JsonObject *object = schema && JSON_NODE_HOLDS_OBJECT (schema) ? json_node_get_object (schema) : NULL;
  JsonNode *members = object ? json_object_get_member (object, "properties") : NULL;

  if (members == NULL || !JSON_NODE_HOLDS_OBJECT (members))
    return FALSE;
  return json_object_has_member (json_node_get_object (members), "ref") &&
         json_object_has_member (json_node_get_object (members), "selector");
}

/**
 * stw_tool_dup_agent_description:
 * @self: a [class@Stagewright.Tool]
 *
 * The description an agent sees: the tool's own, then its error codes,
 * e.g. `Errors: CDP_DISCONNECTED, CDP_TIMEOUT.` Whether a failure is worth
 * retrying is said where it happens, by the envelope's `retryable`.
 *
 * The codes every tool of a kind can answer are said once, in the server's
 * instructions, not in each tool: `BAD_ARGUMENT` (any tool), `NOT_RUNNING`
 * and `CDP_TIMEOUT` (a tool that acts on a session), `REF_NOT_FOUND` and
 * `SELECTOR_NO_MATCH` (a tool that takes an element as `ref` or `selector`).
 *
 * Returns: (transfer full): the description
 *
 * Since: 1.0
 */
char *
stw_tool_dup_agent_description (StwTool *self)
{
  StwToolPrivate *priv;
  GString *text;

  g_return_val_if_fail (STW_IS_TOOL (self), NULL);

  priv = PRIV (self);
  text = g_string_new (priv->description ? priv->description : "");

  if (priv->error_codes != NULL && priv->error_codes[0] != NULL)
    {
      gboolean first = TRUE;
      gboolean takes_element = takes_element_argument (self);

      for (guint i = 0; priv->error_codes[i] != NULL; i++)
        {
          if (g_str_equal (priv->error_codes[i], "BAD_ARGUMENT") ||
              ((g_str_equal (priv->error_codes[i], "NOT_RUNNING") ||
                g_str_equal (priv->error_codes[i], "CDP_TIMEOUT")) &&
               priv->session_requirement == STW_SESSION_REQUIREMENT_REQUIRED) ||
              (takes_element && (g_str_equal (priv->error_codes[i], "REF_NOT_FOUND") ||
                                 g_str_equal (priv->error_codes[i], "SELECTOR_NO_MATCH"))))
            continue;
          if (first)
            g_string_append (text, text->len > 0 ? " Errors: " : "Errors: ");
          else
            g_string_append (text, ", ");
          first = FALSE;
          g_string_append (text, priv->error_codes[i]);
        }
      if (!first)
        g_string_append_c (text, '.');
    }

  return g_string_free (text, FALSE);
}

/**
 * stw_tool_get_input_schema:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the JSON Schema the tool's arguments are validated against.
 *
 * Returns: (transfer none): the input schema
 *
 * Since: 1.0
 */
StwSchema *
stw_tool_get_input_schema (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return PRIV (self)->input_schema;
}

/**
 * stw_tool_get_output_schema:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the JSON Schema of the tool's structured answer, if it declares
 * one.
 *
 * Returns: (transfer none) (nullable): the output schema
 *
 * Since: 1.0
 */
StwSchema *
stw_tool_get_output_schema (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return PRIV (self)->output_schema;
}

/**
 * stw_tool_get_operation_type:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the kind of operation the tool performs.
 *
 * Returns: the operation type
 *
 * Since: 1.0
 */
StwOperationType
stw_tool_get_operation_type (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), STW_OPERATION_COMMAND);
  return PRIV (self)->operation_type;
}

/**
 * stw_tool_get_eval_target:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets where the tool evaluates code, which the dispatcher checks against
 * its eval policy.
 *
 * Returns: the eval target
 *
 * Since: 1.0
 */
StwEvalTarget
stw_tool_get_eval_target (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), STW_EVAL_TARGET_NONE);
  return PRIV (self)->eval_target;
}

/**
 * stw_tool_get_code_argument:
 * @self: a [class@Stagewright.Tool]
 *
 * The argument an eval tool takes its code from (see
 * [property@Stagewright.Tool:code-argument]).
 *
 * Returns: (transfer none) (nullable): the argument's name, or %NULL for a
 *   tool that runs no code
 *
 * Since: 1.0
 */
const char *
stw_tool_get_code_argument (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return PRIV (self)->code_argument;
}

/**
 * stw_tool_get_error_codes:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the registry codes the tool declares it can fail with.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the declared codes
 *
 * Since: 1.0
 */
const char * const *
stw_tool_get_error_codes (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), NULL);
  return (const char * const *) PRIV (self)->error_codes;
}

/**
 * stw_tool_get_read_only_hint:
 * @self: a [class@Stagewright.Tool]
 *
 * Read-only follows from the operation type: queries, window info, logs and
 * screenshots change nothing.
 *
 * Returns: the MCP `readOnlyHint`
 *
 * Since: 1.0
 */
gboolean
stw_tool_get_read_only_hint (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), FALSE);

  switch (PRIV (self)->operation_type)
    {
    case STW_OPERATION_QUERY:
    case STW_OPERATION_WINDOW_INFO:
    case STW_OPERATION_LOGS:
    case STW_OPERATION_SCREENSHOT:
      return TRUE;
    case STW_OPERATION_COMMAND:
    case STW_OPERATION_EVAL:
    case STW_OPERATION_DIALOG:
    default:
      return FALSE;
    }
}

/**
 * stw_tool_get_destructive_hint:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets whether the tool may destroy state (the MCP `destructiveHint`
 * annotation).
 *
 * Returns: the MCP `destructiveHint`
 *
 * Since: 1.0
 */
gboolean
stw_tool_get_destructive_hint (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), FALSE);
  return PRIV (self)->destructive_hint;
}

/**
 * stw_tool_get_idempotent_hint:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets whether calling the tool twice has the effect of calling it once
 * (the MCP `idempotentHint` annotation).
 *
 * Returns: the MCP `idempotentHint`
 *
 * Since: 1.0
 */
gboolean
stw_tool_get_idempotent_hint (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), FALSE);
  return PRIV (self)->idempotent_hint;
}

/**
 * stw_tool_get_open_world_hint:
 * @self: a [class@Stagewright.Tool]
 *
 * Whether the tool may reach an open world (MCP `openWorldHint`). Every
 * tool drives an app or a browser that can show and fetch content from
 * anywhere, so what a tool returns may come from outside the operator's
 * control: hosts should treat it as they treat any open-world result.
 *
 * Returns: the MCP `openWorldHint`, always %TRUE (MCP's default, so the
 *   listing leaves it unsaid)
 *
 * Since: 1.0
 */
gboolean
stw_tool_get_open_world_hint (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), TRUE);
  return TRUE;
}

/**
 * stw_tool_get_profiles:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets the tool profiles the tool is listed in.
 *
 * Returns: the profiles that show the tool
 *
 * Since: 1.0
 */
StwToolProfileFlags
stw_tool_get_profiles (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), STW_TOOL_PROFILE_FLAGS_ALL);
  return PRIV (self)->profiles;
}

/**
 * stw_tool_is_in_profile:
 * @self: a [class@Stagewright.Tool]
 * @profile: a tool profile
 *
 * Whether @profile shows the tool, by its [property@Stagewright.Tool:profiles].
 * The eval policy, which governs eval tools, is the dispatcher's business
 * (see [method@Stagewright.Dispatcher.is_tool_visible]).
 *
 * Returns: %TRUE if the tool belongs to @profile
 *
 * Since: 1.0
 */
gboolean
stw_tool_is_in_profile (StwTool        *self,
                        StwToolProfile  profile)
{
  g_return_val_if_fail (STW_IS_TOOL (self), FALSE);
  g_return_val_if_fail ((guint) profile <= STW_TOOL_PROFILE_FULL, FALSE);

  return (PRIV (self)->profiles & (1u << profile)) != 0;
}

/**
 * stw_tool_get_session_requirement:
 * @self: a [class@Stagewright.Tool]
 *
 * Gets whether the tool needs a session.
 *
 * Returns: whether the tool acts on a session
 *
 * Since: 1.0
 */
StwSessionRequirement
stw_tool_get_session_requirement (StwTool *self)
{
  g_return_val_if_fail (STW_IS_TOOL (self), STW_SESSION_REQUIREMENT_NONE);
  return PRIV (self)->session_requirement;
}

/* Keywords the listing leaves out: bounds and defaults the dispatcher
 * enforces and explains in its BAD_ARGUMENT answer, and the refusal of
 * unlisted arguments (the instructions say that once). */
static gboolean
listing_omits (const char *keyword,
               JsonNode   *value)
{
  static const char * const bounds[] = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
    "minItems", "maxItems", "minProperties", "maxProperties", "default", NULL
  };

  if (g_strv_contains (bounds, keyword))
    return TRUE;
  return g_str_equal (keyword, "additionalProperties") && JSON_NODE_HOLDS_VALUE (value) &&
         json_node_get_value_type (value) == G_TYPE_BOOLEAN && !json_node_get_boolean (value);
}

static JsonNode *listed_schema_node (JsonNode *node, guint depth);

/* A map of names to schemas ("properties", "$defs"): names are kept
 * whatever they are called, their schemas are listed. */
static JsonNode *
listed_schema_map (JsonNode *node,
                   guint     depth)
{
  JsonObject *listed;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return json_node_copy (node);
  listed = json_object_new ();
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &name, &member))
    json_object_set_member (listed, name, listed_schema_node (member, depth + 1));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, listed);
  return node;
}

/* The schema @node as tools/list shows it, a new tree: json_node_copy()
 * would share the objects the dispatcher validates with. */
static JsonNode *
listed_schema_node (JsonNode *node,
                    guint     depth)
{
  JsonObject *listed;
  JsonObjectIter iter;
  const char *keyword;
  JsonNode *value;
  JsonNode *copy;

  /* Schemas are ours and shallow; the bound is a guard, not a limit. */
  if (!JSON_NODE_HOLDS_OBJECT (node) || depth > 32)
    return json_node_copy (node);

  listed = json_object_new ();
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &keyword, &value))
    {
      if (listing_omits (keyword, value))
        continue;
      if (g_str_equal (keyword, "properties") || g_str_equal (keyword, "$defs"))
        copy = listed_schema_map (value, depth);
      else if (g_str_equal (keyword, "items") || g_str_equal (keyword, "additionalProperties"))
        copy = listed_schema_node (value, depth + 1);
      else if ((g_str_equal (keyword, "anyOf") || g_str_equal (keyword, "oneOf") ||
                g_str_equal (keyword, "allOf")) && JSON_NODE_HOLDS_ARRAY (value))
        {
          JsonArray *alternatives = json_node_get_array (value);
          JsonArray *array = json_array_sized_new (json_array_get_length (alternatives));

          for (guint i = 0; i < json_array_get_length (alternatives); i++)
            json_array_add_element (array, listed_schema_node (json_array_get_element (alternatives, i), depth + 1));
          copy = json_node_init_array (json_node_alloc (), array);
          json_array_unref (array);
        }
      else
        copy = json_node_copy (value);
      json_object_set_member (listed, keyword, copy);
    }
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, listed);
  return node;
}

/* The input schema as tools/list shows it: what an agent needs to form a
 * call (names, types, enums, what is required), read by every agent on
 * every session, so nothing more. The dispatcher validates with the full
 * schema and names the bound a call broke. */
static JsonNode *
listed_schema (StwSchema *schema)
{
  return listed_schema_node (stw_schema_get_node (schema), 0);
}

/**
 * stw_tool_to_manifest:
 * @self: a [class@Stagewright.Tool]
 *
 * The tool as `tools/list` shows it in the full profile: `name`, `title`,
 * `description`, `inputSchema`, `outputSchema`, `annotations`. See
 * [method@Stagewright.Tool.to_manifest_for_profile].
 *
 * Returns: (transfer full): the manifest entry
 *
 * Since: 1.0
 */
JsonObject *
stw_tool_to_manifest (StwTool *self)
{
  return stw_tool_to_manifest_for_profile (self, STW_TOOL_PROFILE_FULL);
}

/**
 * stw_tool_to_manifest_for_profile:
 * @self: a [class@Stagewright.Tool]
 * @profile: the profile the listing is for
 *
 * The tool as `tools/list` shows it under @profile: `name`, `title`,
 * `description`, `inputSchema`, `outputSchema`, `annotations`.
 *
 * Every character is read by every agent on every session, so the entry
 * says only what forms a call: bounds and defaults the dispatcher
 * enforces are left to its `BAD_ARGUMENT` answer, and MCP's default
 * annotations are left unsaid. The essential profile drives one app at a
 * time with the defaults, so its listing leaves out the arguments that only
 * matter when several run (`sessionId`, `allowMultiple`: the only live
 * session is implied), those that tune what has a sound default (launch's
 * pipe, runtime, credential store and readiness bound; a screenshot's
 * window choice, clip, quality, directory and inline size; a snapshot's diff form and budget; a click's button and count;
 * regex flags; `force`), and each tool's error list: every failure still
 * answers its code, hint and `retryable`. The tool still takes every
 * argument, and the other profiles list them all.
 *
 * Returns: (transfer full): the manifest entry
 *
 * Since: 1.0
 */
JsonObject *
stw_tool_to_manifest_for_profile (StwTool        *self,
                                  StwToolProfile  profile)
{
  g_autofree char *description = NULL;
  StwToolPrivate *priv;
  JsonObject *manifest;
  JsonObject *annotations;
  JsonNode *schema;

  g_return_val_if_fail (STW_IS_TOOL (self), NULL);

  priv = PRIV (self);
  description = profile == STW_TOOL_PROFILE_ESSENTIAL
                  ? g_strdup (priv->description ? priv->description : "")
                  : stw_tool_dup_agent_description (self);
  manifest = json_object_new ();
  json_object_set_string_member (manifest, "name", priv->name);
  if (priv->title != NULL)
    json_object_set_string_member (manifest, "title", priv->title);
  json_object_set_string_member (manifest, "description", description);

  schema = listed_schema (priv->input_schema);
  if (profile == STW_TOOL_PROFILE_ESSENTIAL)
    {
      static const char * const unlisted[] = {
        "sessionId", "allowMultiple",
        "pipe", "runtime", "credentialStore", "readyTimeoutMs",
        "windowId", "windowIndex", "windowTitle", "clip", "quality", "dir", "maxWidth", "maxHeight",
        "diffFormat", "budgetTokens", "force", "button", "clickCount", "flags",
      };
      JsonObject *members = json_object_get_object_member (json_node_get_object (schema), "properties");

      for (guint i = 0; members != NULL && i < G_N_ELEMENTS (unlisted); i++)
        if (json_object_has_member (members, unlisted[i]))
          json_object_remove_member (members, unlisted[i]);
    }
  json_object_set_member (manifest, "inputSchema", schema);
  if (priv->output_schema != NULL)
    json_object_set_member (manifest, "outputSchema",
                            json_node_copy (stw_schema_get_node (priv->output_schema)));

  /* The title is said once (top level); MCP's defaults are left unsaid:
   * readOnlyHint false, destructiveHint true (meaningful only for a tool
   * that is not read-only), idempotentHint false (likewise) and
   * openWorldHint true (see stw_tool_get_open_world_hint()). */
  annotations = json_object_new ();
  if (stw_tool_get_read_only_hint (self))
    json_object_set_boolean_member (annotations, "readOnlyHint", TRUE);
  else
    {
      if (!priv->destructive_hint)
        json_object_set_boolean_member (annotations, "destructiveHint", FALSE);
      if (priv->idempotent_hint)
        json_object_set_boolean_member (annotations, "idempotentHint", TRUE);
    }
  if (json_object_get_size (annotations) > 0)
    json_object_set_object_member (manifest, "annotations", annotations);
  else
    json_object_unref (annotations);

  return manifest;
}

/**
 * stw_tool_invoke:
 * @self: a [class@Stagewright.Tool]
 * @invocation: the call
 *
 * Runs the tool's [vfunc@Stagewright.Tool.invoke]. Callers normally go through a
 * [class@Stagewright.Dispatcher], which validates and bounds the call first.
 *
 * Since: 1.0
 */
void
stw_tool_invoke (StwTool       *self,
                 StwInvocation *invocation)
{
  g_return_if_fail (STW_IS_TOOL (self));
  /* Only the type's name is known here: invocations sit above tools. */
  g_return_if_fail (G_IS_OBJECT (invocation));
  g_return_if_fail (STW_TOOL_GET_CLASS (self)->invoke != NULL);

  STW_TOOL_GET_CLASS (self)->invoke (self, invocation);
}

void
_stw_tool_qualify (StwTool    *tool,
                   const char *prefix,
                   JsonObject *codes)
{
  StwToolPrivate *priv = PRIV (tool);
  g_autofree char *start = g_strconcat (prefix, "_", NULL);

  if (priv->name != NULL && !g_str_has_prefix (priv->name, start))
    {
      char *name = g_strconcat (start, priv->name, NULL);

      g_free (priv->name);
      priv->name = name;
      g_object_notify_by_pspec (G_OBJECT (tool), properties[PROP_NAME]);
    }

  for (guint i = 0; priv->error_codes != NULL && priv->error_codes[i] != NULL; i++)
    if (strchr (priv->error_codes[i], '.') == NULL &&
        json_object_has_member (codes, priv->error_codes[i]))
      {
        char *code = g_strconcat (prefix, ".", priv->error_codes[i], NULL);

        g_free (priv->error_codes[i]);
        priv->error_codes[i] = code;
      }
}

/* The plugin engine widens electron_launch's schema with the loaded
 * plugins' launch options (stw-plugin-hooks.c). */
void
_stw_tool_set_input_schema (StwTool   *tool,
                            StwSchema *schema)
{
  StwToolPrivate *priv = PRIV (tool);

  stw_schema_ref (schema);
  g_clear_pointer (&priv->input_schema, stw_schema_unref);
  priv->input_schema = schema;
  g_object_notify_by_pspec (G_OBJECT (tool), properties[PROP_INPUT_SCHEMA]);
}
