/* stw-tool-provider.c: a named set of tools and the error codes they add
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-tool-provider-private.h"

/**
 * StwToolProvider:
 *
 * How tools arrive in a dispatcher: a named set of tools plus the error
 * codes they add. The core `electron_*` tools are one provider, each plugin
 * is another, and a Python or JavaScript script can make its own:
 *
 * ```python
 * import gi
 * gi.require_version('Stagewright', '1.0')
 * from gi.repository import Stagewright
 *
 * class Greet(Stagewright.Tool):
 *     def do_invoke(self, invocation):
 *         invocation.return_error_literal('demo.NO_GREETING', 'Nobody said hello yet')
 *
 * provider = Stagewright.ToolProvider(name='demo')
 * provider.add_error_code('NO_GREETING', 404, False, 'Say hello first.')
 * provider.add_tool(Greet(name='demo_greet', error_codes=['demo.NO_GREETING']))
 * dispatcher = Stagewright.Dispatcher()
 * dispatcher.add_provider(provider)
 * assert dispatcher.lookup_tool('demo_greet') is not None
 * ```
 *
 * The error codes a provider adds are namespaced by its name
 * (`demo.NO_GREETING` above) and live in the
 * [class@Stagewright.ErrorRegistry] while the provider is in a dispatcher:
 * [method@Stagewright.Dispatcher.add_provider] registers them and adds the
 * tools, all or nothing; [method@Stagewright.Dispatcher.remove_provider]
 * takes both away again. A provider is filled before it is added; while
 * it is in a dispatcher it is frozen.
 *
 * The class is derivable, so a subclass (in C, Python or JavaScript) can
 * fill itself at construction; it has no virtual method a binding would
 * have to implement.
 *
 * Since: 1.0
 */

typedef struct
{
  char       *name;
  GPtrArray  *tools;         /* StwTool, in the order added */
  GHashTable *tool_names;    /* its tools' names (borrowed from them) */
  JsonObject *error_codes;   /* BARE_CODE -> {http, retryable, hint} */
  guint       use_count;     /* dispatchers it is in */
  gboolean    checked_by_tests;
} StwToolProviderPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (StwToolProvider, stw_tool_provider, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define PRIV(self) ((StwToolProviderPrivate *) stw_tool_provider_get_instance_private (self))

static void
stw_tool_provider_finalize (GObject *object)
{
  StwToolProviderPrivate *priv = PRIV (STW_TOOL_PROVIDER (object));

  g_clear_pointer (&priv->name, g_free);
  g_clear_pointer (&priv->tool_names, g_hash_table_unref);
  g_clear_pointer (&priv->tools, g_ptr_array_unref);
  g_clear_pointer (&priv->error_codes, json_object_unref);

  G_OBJECT_CLASS (stw_tool_provider_parent_class)->finalize (object);
}

static void
stw_tool_provider_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  StwToolProviderPrivate *priv = PRIV (STW_TOOL_PROVIDER (object));

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_tool_provider_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  StwToolProviderPrivate *priv = PRIV (STW_TOOL_PROVIDER (object));

  switch (prop_id)
    {
    case PROP_NAME:
      priv->name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_tool_provider_class_init (StwToolProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = stw_tool_provider_finalize;
  object_class->get_property = stw_tool_provider_get_property;
  object_class->set_property = stw_tool_provider_set_property;

  /**
   * StwToolProvider:name:
   *
   * The provider's name, matching `^[a-z][a-z0-9_]*$`: unique among the
   * providers of a dispatcher, and the namespace of its error codes
   * (`<name>.CODE`). `electron` is the core tools' provider.
   *
   * Since: 1.0
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_tool_provider_init (StwToolProvider *self)
{
  StwToolProviderPrivate *priv = PRIV (self);

  priv->tools = g_ptr_array_new_with_free_func (g_object_unref);
  priv->tool_names = g_hash_table_new (g_str_hash, g_str_equal);
  priv->error_codes = json_object_new ();
}

/**
 * stw_tool_provider_new:
 * @name: the provider's name, e.g. `"demo"`
 *
 * Creates an empty provider; fill it with
 * [method@Stagewright.ToolProvider.add_tool] and
 * [method@Stagewright.ToolProvider.add_error_code].
 *
 * Returns: (transfer full): a new [class@Stagewright.ToolProvider]
 *
 * Since: 1.0
 */
StwToolProvider *
stw_tool_provider_new (const char *name)
{
  return g_object_new (STW_TYPE_TOOL_PROVIDER, "name", name, NULL);
}

/**
 * stw_tool_provider_get_name:
 * @self: a [class@Stagewright.ToolProvider]
 *
 * Gets the name of the provider.
 *
 * Returns: (transfer none) (nullable): the provider's name
 *
 * Since: 1.0
 */
const char *
stw_tool_provider_get_name (StwToolProvider *self)
{
  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (self), NULL);
  return PRIV (self)->name;
}

/**
 * stw_tool_provider_add_tool:
 * @self: a [class@Stagewright.ToolProvider] that is in no dispatcher
 * @tool: the tool
 * @error: where to put a refusal
 *
 * Adds @tool to the provider. The tool itself is validated when the
 * provider joins a dispatcher ([method@Stagewright.Dispatcher.add_provider]).
 *
 * Returns: %TRUE if the tool was added, %FALSE with %G_IO_ERROR_EXISTS when
 *   the provider already has a tool of that name
 *
 * Since: 1.0
 */
gboolean
stw_tool_provider_add_tool (StwToolProvider  *self,
                            StwTool          *tool,
                            GError          **error)
{
  StwToolProviderPrivate *priv;
  const char *name;

  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (self), FALSE);
  g_return_val_if_fail (STW_IS_TOOL (tool), FALSE);
  g_return_val_if_fail (!stw_tool_provider_is_in_use (self), FALSE);

  priv = PRIV (self);
  name = stw_tool_get_name (tool);
  /* A nameless tool is refused when the provider joins a dispatcher. */
  if (name != NULL && g_hash_table_contains (priv->tool_names, name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("The provider already has a tool named “%s”"), name);
      return FALSE;
    }

  g_ptr_array_add (priv->tools, g_object_ref (tool));
  if (name != NULL)
    g_hash_table_add (priv->tool_names, (gpointer) name);
  return TRUE;
}

/**
 * stw_tool_provider_add_error_code:
 * @self: a [class@Stagewright.ToolProvider] that is in no dispatcher
 * @code: the bare code in UPPER_SNAKE case, e.g. `"NO_GREETING"`; tools
 *   declare and return it as `<name>.NO_GREETING`
 * @http: the HTTP status an agent sees with it (100–599)
 * @retryable: whether retrying the same call can succeed
 * @hint: what the agent should do about it
 * @error: where to put a refusal
 *
 * Adds an error code the provider's tools return. Its form is checked when
 * the provider joins a dispatcher, by the
 * [class@Stagewright.ErrorRegistry]'s rules.
 *
 * Returns: %TRUE if the code was added, %FALSE with %G_IO_ERROR_EXISTS when
 *   the provider already has that code
 *
 * Since: 1.0
 */
gboolean
stw_tool_provider_add_error_code (StwToolProvider  *self,
                                  const char       *code,
                                  guint             http,
                                  gboolean          retryable,
                                  const char       *hint,
                                  GError          **error)
{
  StwToolProviderPrivate *priv;
  JsonObject *spec;

  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (self), FALSE);
  g_return_val_if_fail (code != NULL, FALSE);
  g_return_val_if_fail (hint != NULL, FALSE);
  g_return_val_if_fail (!stw_tool_provider_is_in_use (self), FALSE);

  priv = PRIV (self);
  if (json_object_has_member (priv->error_codes, code))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("The provider already has the error code “%s”"), code);
      return FALSE;
    }

  spec = json_object_new ();
  json_object_set_int_member (spec, "http", http);
  json_object_set_boolean_member (spec, "retryable", retryable);
  json_object_set_string_member (spec, "hint", hint);
  json_object_set_object_member (priv->error_codes, code, spec);
  return TRUE;
}

/**
 * stw_tool_provider_list_tools:
 * @self: a [class@Stagewright.ToolProvider]
 *
 * Lists the tools of the provider.
 *
 * Returns: (transfer container) (element-type StwTool): the tools, in the
 *   order they were added
 *
 * Since: 1.0
 */
GList *
stw_tool_provider_list_tools (StwToolProvider *self)
{
  StwToolProviderPrivate *priv;
  GList *list = NULL;

  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (self), NULL);

  priv = PRIV (self);
  for (guint i = priv->tools->len; i > 0; i--)
    list = g_list_prepend (list, g_ptr_array_index (priv->tools, i - 1));
  return list;
}

/**
 * stw_tool_provider_get_error_codes:
 * @self: a [class@Stagewright.ToolProvider]
 *
 * The provider's error codes in the form
 * [method@Stagewright.ErrorRegistry.register_plugin_codes] takes:
 * `{ "BARE_CODE": { "http": 404, "retryable": false, "hint": "…" } }`.
 *
 * Returns: (transfer none): the error codes
 *
 * Since: 1.0
 */
JsonObject *
stw_tool_provider_get_error_codes (StwToolProvider *self)
{
  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (self), NULL);
  return PRIV (self)->error_codes;
}

/**
 * stw_tool_provider_is_in_use:
 * @self: a [class@Stagewright.ToolProvider]
 *
 * Whether the provider is in a dispatcher, and so cannot change.
 *
 * Returns: %TRUE while a dispatcher holds the provider
 *
 * Since: 1.0
 */
gboolean
stw_tool_provider_is_in_use (StwToolProvider *self)
{
  g_return_val_if_fail (STW_IS_TOOL_PROVIDER (self), FALSE);
  return PRIV (self)->use_count > 0;
}

void
_stw_tool_provider_hold (StwToolProvider *self)
{
  PRIV (self)->use_count++;
}

void
_stw_tool_provider_set_checked_by_tests (StwToolProvider *self)
{
  PRIV (self)->checked_by_tests = TRUE;
}

gboolean
_stw_tool_provider_get_checked_by_tests (StwToolProvider *self)
{
  return PRIV (self)->checked_by_tests;
}

void
_stw_tool_provider_release (StwToolProvider *self)
{
  g_return_if_fail (PRIV (self)->use_count > 0);
  PRIV (self)->use_count--;
}
