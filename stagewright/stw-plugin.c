/* stw-plugin.c: a tool provider loaded at run time, with a lifecycle
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "stw-error-registry.h"
#include "stw-plugin-private.h"
#include "stw-version.h"

/**
 * StwPlugin:
 *
 * A [class@Stagewright.ToolProvider] that a dispatcher loads at run time:
 * it has a version, the Stagewright versions it accepts, an optional
 * configuration schema, and asynchronous [vfunc@Stagewright.Plugin.setup]
 * and [vfunc@Stagewright.Plugin.teardown].
 *
 * Its name matches `^[a-z][a-z0-9]*$` (`electron` is the core's). Its tools
 * have short names and are registered as `<plugin>_<tool>` (a tool named
 * `title` in the plugin `sample` is called as `sample_title`; a name that
 * already starts with `sample_` is kept). Its error codes are bare keys
 * (`NO_WINDOW`) registered as `<plugin>.CODE` (`sample.NO_WINDOW`), with
 * their HTTP status, retryability and hint, while the plugin is loaded; a
 * tool that lists a bare code of its plugin in
 * [property@Stagewright.Tool:error-codes] gets it namespaced too.
 *
 * Plugins are loaded explicitly, all or nothing, by
 * [method@Stagewright.Dispatcher.load_plugins_async] (by name or path, see
 * the “Writing a plugin” guide) or
 * [method@Stagewright.Dispatcher.add_plugins_async] (objects made by the
 * caller). Setup and teardown complete through a
 * [class@Stagewright.PluginCompletion], now or later, from C, Python or
 * JavaScript alike.
 *
 * Since: 1.0
 */

/**
 * StwPluginCompletion:
 *
 * How a plugin's setup or teardown says it is done:
 * [method@Stagewright.PluginCompletion.return_success] or
 * [method@Stagewright.PluginCompletion.return_error], exactly once, now or
 * later. It carries the plugin's validated configuration.
 *
 * Since: 1.0
 */

struct _StwPluginCompletion
{
  GObject                 parent_instance;
  StwPlugin              *plugin;
  StwDispatcher          *dispatcher;
  JsonObject             *config;
  StwPluginCompletionFunc func;
  gpointer                user_data;
  gboolean                completed;
  StwSession             *session;         /* hooks only */
  StwSurface             *surface;         /* the new-surface hook only */
  StwLaunchOptions       *launch;          /* launch hooks only */
  JsonObject             *launch_options;  /* the plugin's member of its `plugins` */
};

G_DEFINE_FINAL_TYPE (StwPluginCompletion, stw_plugin_completion, G_TYPE_OBJECT)

typedef struct
{
  char          *version;
  char          *core_versions;
  char          *description;
  char          *language;
  StwSchema     *config_schema;
  JsonObject    *config;
  StwDispatcher *dispatcher;    /* weak: set while loaded */
  gboolean       loaded;
  StwSchema     *launch_schema;
} StwPluginPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (StwPlugin, stw_plugin, STW_TYPE_TOOL_PROVIDER)

#define PRIV(self) ((StwPluginPrivate *) stw_plugin_get_instance_private (self))

enum {
  PROP_0,
  PROP_VERSION,
  PROP_CORE_VERSIONS,
  PROP_DESCRIPTION,
  PROP_LANGUAGE,
  PROP_CONFIG_SCHEMA,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  LOADED,
  UNLOADED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* --- StwPluginCompletion ------------------------------------------------- */

static void
stw_plugin_completion_finalize (GObject *object)
{
  StwPluginCompletion *self = STW_PLUGIN_COMPLETION (object);

  /* A plugin that lets go of its completion without returning (a Python
   * or JavaScript exception in setup does) has failed: fail closed rather
   * than wait for ever. */
  if (!self->completed && self->func != NULL)
    {
      StwPluginCompletionFunc func = self->func;
      g_autoptr(GError) error = stw_error_new_code_literal (STW_ERROR_PLUGIN_LOAD_FAILED,
                                                            _("it let go of its completion without returning"));

      self->completed = TRUE;
      self->func = NULL;
      func (self->plugin, error, self->user_data);
    }
  g_clear_object (&self->plugin);
  g_clear_object (&self->dispatcher);
  g_clear_pointer (&self->config, json_object_unref);
  g_clear_object (&self->session);
  g_clear_object (&self->surface);
  g_clear_object (&self->launch);
  g_clear_pointer (&self->launch_options, json_object_unref);

  G_OBJECT_CLASS (stw_plugin_completion_parent_class)->finalize (object);
}

static void
stw_plugin_completion_class_init (StwPluginCompletionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_plugin_completion_finalize;
}

static void
stw_plugin_completion_init (StwPluginCompletion *self)
{
}

StwPluginCompletion *
_stw_plugin_completion_new (StwPlugin               *plugin,
                            StwDispatcher           *dispatcher,
                            JsonObject              *config,
                            StwPluginCompletionFunc  func,
                            gpointer                 user_data)
{
  StwPluginCompletion *self = g_object_new (STW_TYPE_PLUGIN_COMPLETION, NULL);

  self->plugin = g_object_ref (plugin);
  self->dispatcher = dispatcher ? g_object_ref (dispatcher) : NULL;
  self->config = config ? json_object_ref (config) : json_object_new ();
  self->func = func;
  self->user_data = user_data;
  return self;
}

static void
complete (StwPluginCompletion *self,
          GError              *error)
{
  g_autoptr(StwPluginCompletion) hold = g_object_ref (self);
  StwPluginCompletionFunc func = self->func;

  self->completed = TRUE;
  self->func = NULL;
  if (func != NULL)
    func (self->plugin, error, self->user_data);
  g_clear_error (&error);
}

/**
 * stw_plugin_completion_get_plugin:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the plugin being set up or torn down.
 *
 * Returns: (transfer none): the plugin
 *
 * Since: 1.0
 */
StwPlugin *
stw_plugin_completion_get_plugin (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->plugin;
}

/**
 * stw_plugin_completion_get_dispatcher:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the dispatcher the plugin is loaded into (or unloaded from).
 *
 * Returns: (transfer none) (nullable): the dispatcher
 *
 * Since: 1.0
 */
StwDispatcher *
stw_plugin_completion_get_dispatcher (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->dispatcher;
}

/**
 * stw_plugin_completion_get_config:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the plugin's configuration, validated against its schema with the
 * schema's defaults filled in; an empty object when none was given.
 *
 * Returns: (transfer none): the configuration
 *
 * Since: 1.0
 */
JsonObject *
stw_plugin_completion_get_config (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->config;
}

void
_stw_plugin_completion_set_subject (StwPluginCompletion *self,
                                    StwSession          *session,
                                    StwSurface          *surface,
                                    StwLaunchOptions    *launch,
                                    JsonObject          *launch_options)
{
  g_set_object (&self->session, session);
  g_set_object (&self->surface, surface);
  g_set_object (&self->launch, launch);
  g_clear_pointer (&self->launch_options, json_object_unref);
  self->launch_options = launch_options ? json_object_ref (launch_options) : NULL;
}

void
_stw_plugin_completion_disarm (StwPluginCompletion *self)
{
  self->func = NULL;
}

/**
 * stw_plugin_completion_get_session:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the session a hook runs for: the app being launched (launch
 * hooks) or the one a new surface belongs to (the new-surface hook).
 *
 * Returns: (transfer none) (nullable): the session, %NULL in setup and
 *   teardown
 *
 * Since: 1.0
 */
StwSession *
stw_plugin_completion_get_session (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->session;
}

/**
 * stw_plugin_completion_get_surface:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the new window, frame or webview a
 * [vfunc@Stagewright.Plugin.surface_attached] hook runs for, or the new
 * worker a [vfunc@Stagewright.Plugin.worker_attached] hook runs for. It
 * is paused before its first script until every plugin's hook has
 * completed.
 *
 * Returns: (transfer none) (nullable): the surface or worker, %NULL
 *   outside those hooks
 *
 * Since: 1.0
 */
StwSurface *
stw_plugin_completion_get_surface (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->surface;
}

/**
 * stw_plugin_completion_get_launch:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the options of the launch a launch hook runs for. In
 * [vfunc@Stagewright.Plugin.before_main] the hook may still change them
 * (add `args` or `env`, for example a `NODE_OPTIONS=--require` preload
 * that runs before the app's main script); they are checked after every
 * hook ran, as if the caller had given them.
 *
 * Returns: (transfer none) (nullable): the launch options, %NULL outside
 *   launch hooks
 *
 * Since: 1.0
 */
StwLaunchOptions *
stw_plugin_completion_get_launch (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->launch;
}

/**
 * stw_plugin_completion_get_launch_options:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Gets the plugin's own launch options: the member named after the
 * plugin in `electron_launch`'s `plugins` object (see
 * [method@Stagewright.Plugin.set_launch_schema]), validated against the
 * plugin's launch schema.
 *
 * Returns: (transfer none) (nullable): the options, %NULL outside launch
 *   hooks or when the launch gave none
 *
 * Since: 1.0
 */
JsonObject *
stw_plugin_completion_get_launch_options (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), NULL);
  return self->launch_options;
}

/**
 * stw_plugin_completion_return_success:
 * @self: a [class@Stagewright.PluginCompletion] not yet completed
 *
 * Says the setup or teardown succeeded.
 *
 * Since: 1.0
 */
void
stw_plugin_completion_return_success (StwPluginCompletion *self)
{
  g_return_if_fail (STW_IS_PLUGIN_COMPLETION (self));
  g_return_if_fail (!self->completed);
  complete (self, NULL);
}

/**
 * stw_plugin_completion_return_error:
 * @self: a [class@Stagewright.PluginCompletion] not yet completed
 * @error: what went wrong; a [error@Stagewright.Error] keeps its code,
 *   any other becomes `PLUGIN_LOAD_FAILED` with its message
 *
 * Says the setup or teardown failed. A failed setup unloads every plugin
 * loaded by the same call.
 *
 * Since: 1.0
 */
void
stw_plugin_completion_return_error (StwPluginCompletion *self,
                                    const GError        *error)
{
  g_return_if_fail (STW_IS_PLUGIN_COMPLETION (self));
  g_return_if_fail (error != NULL);
  g_return_if_fail (!self->completed);

  if (stw_error_domain_is_registered (error->domain))
    complete (self, g_error_copy (error));
  else
    complete (self, stw_error_new_code_literal (STW_ERROR_PLUGIN_LOAD_FAILED, error->message));
}

/**
 * stw_plugin_completion_return_error_literal:
 * @self: a [class@Stagewright.PluginCompletion] not yet completed
 * @message: what went wrong
 *
 * Says the setup or teardown failed, with `PLUGIN_LOAD_FAILED` and
 * @message.
 *
 * Since: 1.0
 */
void
stw_plugin_completion_return_error_literal (StwPluginCompletion *self,
                                            const char          *message)
{
  g_return_if_fail (STW_IS_PLUGIN_COMPLETION (self));
  g_return_if_fail (message != NULL);
  g_return_if_fail (!self->completed);
  complete (self, stw_error_new_code_literal (STW_ERROR_PLUGIN_LOAD_FAILED, message));
}

/**
 * stw_plugin_completion_is_completed:
 * @self: a [class@Stagewright.PluginCompletion]
 *
 * Whether the completion was returned.
 *
 * Returns: %TRUE once a `return_*` method was called
 *
 * Since: 1.0
 */
gboolean
stw_plugin_completion_is_completed (StwPluginCompletion *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN_COMPLETION (self), FALSE);
  return self->completed;
}

/* --- StwPlugin ----------------------------------------------------------- */

static void
stw_plugin_real_setup (StwPlugin           *self,
                       StwPluginCompletion *completion)
{
  stw_plugin_completion_return_success (completion);
}

static void
stw_plugin_real_teardown (StwPlugin           *self,
                          StwPluginCompletion *completion)
{
  stw_plugin_completion_return_success (completion);
}

static void
stw_plugin_finalize (GObject *object)
{
  StwPluginPrivate *priv = PRIV (STW_PLUGIN (object));

  g_clear_pointer (&priv->version, g_free);
  g_clear_pointer (&priv->core_versions, g_free);
  g_clear_pointer (&priv->description, g_free);
  g_clear_pointer (&priv->language, g_free);
  g_clear_pointer (&priv->config_schema, stw_schema_unref);
  g_clear_pointer (&priv->config, json_object_unref);
  g_clear_pointer (&priv->launch_schema, stw_schema_unref);
  g_clear_weak_pointer (&priv->dispatcher);

  G_OBJECT_CLASS (stw_plugin_parent_class)->finalize (object);
}

static void
stw_plugin_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  StwPluginPrivate *priv = PRIV (STW_PLUGIN (object));

  switch (prop_id)
    {
    case PROP_VERSION:
      g_value_set_string (value, priv->version);
      break;
    case PROP_CORE_VERSIONS:
      g_value_set_string (value, priv->core_versions);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, priv->description);
      break;
    case PROP_LANGUAGE:
      g_value_set_string (value, priv->language);
      break;
    case PROP_CONFIG_SCHEMA:
      g_value_set_boxed (value, priv->config_schema);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
set_string (char         **field,
            const GValue  *value)
{
  if (value != NULL && g_value_get_string (value) != NULL)
    {
      g_free (*field);
      *field = g_value_dup_string (value);
    }
}

static void
stw_plugin_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  StwPluginPrivate *priv = PRIV (STW_PLUGIN (object));

  switch (prop_id)
    {
    case PROP_VERSION:
      set_string (&priv->version, value);
      break;
    case PROP_CORE_VERSIONS:
      set_string (&priv->core_versions, value);
      break;
    case PROP_DESCRIPTION:
      set_string (&priv->description, value);
      break;
    case PROP_LANGUAGE:
      set_string (&priv->language, value);
      break;
    case PROP_CONFIG_SCHEMA:
      g_clear_pointer (&priv->config_schema, stw_schema_unref);
      priv->config_schema = g_value_dup_boxed (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_plugin_class_init (StwPluginClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = stw_plugin_finalize;
  object_class->get_property = stw_plugin_get_property;
  object_class->set_property = stw_plugin_set_property;

  klass->setup = stw_plugin_real_setup;
  klass->teardown = stw_plugin_real_teardown;

  /**
   * StwPlugin:version:
   *
   * The plugin's own version, e.g. `"1.0.0"`. A plugin file's `Version`
   * fills it when the plugin leaves it unset, and must agree with it
   * otherwise.
   *
   * Since: 1.0
   */
  properties[PROP_VERSION] =
    g_param_spec_string ("version", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  /**
   * StwPlugin:core-versions:
   *
   * The Stagewright versions the plugin accepts: `*` (any), an exact
   * version (`1.0.0`, or `1.0` for every `1.0.x`), or `>=X.Y[.Z]`. Anything
   * else, or a version outside it, refuses the load with
   * `PLUGIN_VERSION_MISMATCH`.
   *
   * Since: 1.0
   */
  properties[PROP_CORE_VERSIONS] =
    g_param_spec_string ("core-versions", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  /**
   * StwPlugin:description:
   *
   * One sentence saying what the plugin adds.
   *
   * Since: 1.0
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  /**
   * StwPlugin:language:
   *
   * The language the plugin is written in (`c`, `python3`, `gjs`), as its
   * loader says; `c` unless set.
   *
   * Since: 1.0
   */
  properties[PROP_LANGUAGE] =
    g_param_spec_string ("language", NULL, NULL, "c",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  /**
   * StwPlugin:config-schema:
   *
   * The JSON Schema of the plugin's configuration, or %NULL when it takes
   * none. A property the schema marks `"x-stagewright-safe": true` is shown
   * in `electron_plugins`' `effectiveConfig`; no other is.
   *
   * Since: 1.0
   */
  properties[PROP_CONFIG_SCHEMA] =
    g_param_spec_boxed ("config-schema", NULL, NULL, STW_TYPE_SCHEMA,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * StwPlugin::loaded:
   * @self: the plugin
   *
   * Emitted when every plugin of the load that brought @self in is set up
   * and its tools are registered.
   *
   * Since: 1.0
   */
  signals[LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * StwPlugin::unloaded:
   * @self: the plugin
   *
   * Emitted when a loaded plugin was torn down and its tools and codes
   * unregistered.
   *
   * Since: 1.0
   */
  signals[UNLOADED] = g_signal_new ("unloaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
stw_plugin_init (StwPlugin *self)
{
}

/**
 * stw_plugin_get_version:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets [property@Stagewright.Plugin:version].
 *
 * Returns: (transfer none) (nullable): the plugin's version
 *
 * Since: 1.0
 */
const char *
stw_plugin_get_version (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->version;
}

/**
 * stw_plugin_get_core_versions:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets [property@Stagewright.Plugin:core-versions].
 *
 * Returns: (transfer none) (nullable): the accepted core versions
 *
 * Since: 1.0
 */
const char *
stw_plugin_get_core_versions (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->core_versions;
}

/**
 * stw_plugin_get_description:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets [property@Stagewright.Plugin:description].
 *
 * Returns: (transfer none) (nullable): the description
 *
 * Since: 1.0
 */
const char *
stw_plugin_get_description (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->description;
}

/**
 * stw_plugin_get_language:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets [property@Stagewright.Plugin:language].
 *
 * Returns: (transfer none): the language
 *
 * Since: 1.0
 */
const char *
stw_plugin_get_language (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->language ? PRIV (self)->language : "c";
}

/**
 * stw_plugin_get_config_schema:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets [property@Stagewright.Plugin:config-schema].
 *
 * Returns: (transfer none) (nullable): the schema
 *
 * Since: 1.0
 */
StwSchema *
stw_plugin_get_config_schema (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->config_schema;
}

/**
 * stw_plugin_set_launch_schema:
 * @self: a [class@Stagewright.Plugin], not loaded yet
 * @schema: (nullable): a JSON Schema for an object: the plugin's launch
 *   options
 *
 * Declares the options the plugin takes at launch. While the plugin is
 * loaded, `electron_launch`'s input schema has a `plugins` object whose
 * member named after the plugin follows @schema, so `tools/list` shows it
 * and the dispatcher validates it; the plugin's
 * [vfunc@Stagewright.Plugin.before_main] and
 * [vfunc@Stagewright.Plugin.app_ready] hooks read it with
 * [method@Stagewright.PluginCompletion.get_launch_options].
 *
 * Since: 1.0
 */
void
stw_plugin_set_launch_schema (StwPlugin *self,
                              StwSchema *schema)
{
  StwPluginPrivate *priv;

  g_return_if_fail (STW_IS_PLUGIN (self));
  priv = PRIV (self);
  g_return_if_fail (!priv->loaded);

  if (schema != NULL)
    stw_schema_ref (schema);
  g_clear_pointer (&priv->launch_schema, stw_schema_unref);
  priv->launch_schema = schema;
}

/**
 * stw_plugin_get_launch_schema:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets the schema [method@Stagewright.Plugin.set_launch_schema] set.
 *
 * Returns: (transfer none) (nullable): the schema of the plugin's launch
 *   options
 *
 * Since: 1.0
 */
StwSchema *
stw_plugin_get_launch_schema (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->launch_schema;
}

/**
 * stw_plugin_get_config:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets the configuration the plugin was loaded with (validated, defaults
 * filled in).
 *
 * Returns: (transfer none) (nullable): the configuration, %NULL unless
 *   loaded or loading
 *
 * Since: 1.0
 */
JsonObject *
stw_plugin_get_config (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->config;
}

/**
 * stw_plugin_dup_effective_config:
 * @self: a [class@Stagewright.Plugin]
 *
 * The members of the configuration that the schema marks safe to show
 * (`"x-stagewright-safe": true` on the property).
 *
 * Returns: (transfer full) (nullable): the safe part of the configuration,
 *   %NULL when the plugin has no schema or is not loaded
 *
 * Since: 1.0
 */
JsonObject *
stw_plugin_dup_effective_config (StwPlugin *self)
{
  StwPluginPrivate *priv;
  JsonNode *schema;
  JsonObject *props;
  JsonObject *out;
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);

  priv = PRIV (self);
  if (priv->config_schema == NULL || priv->config == NULL)
    return NULL;
  schema = stw_schema_get_node (priv->config_schema);
  if (!JSON_NODE_HOLDS_OBJECT (schema))
    return NULL;
  props = json_object_get_object_member (json_node_get_object (schema), "properties");
  if (props == NULL)
    return NULL;

  out = json_object_new ();
  members = json_object_get_members (priv->config);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *prop = json_object_get_member (props, l->data);

      if (prop != NULL && JSON_NODE_HOLDS_OBJECT (prop) &&
          json_object_get_boolean_member_with_default (json_node_get_object (prop),
                                                        "x-stagewright-safe", FALSE))
        json_object_set_member (out, l->data,
                                json_node_copy (json_object_get_member (priv->config, l->data)));
    }
  return out;
}

/**
 * stw_plugin_get_dispatcher:
 * @self: a [class@Stagewright.Plugin]
 *
 * Gets the dispatcher the plugin is loaded into.
 *
 * Returns: (transfer none) (nullable): the dispatcher, %NULL unless loaded
 *   or loading
 *
 * Since: 1.0
 */
StwDispatcher *
stw_plugin_get_dispatcher (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), NULL);
  return PRIV (self)->dispatcher;
}

/**
 * stw_plugin_is_loaded:
 * @self: a [class@Stagewright.Plugin]
 *
 * Whether the plugin is loaded (set up, its tools registered).
 *
 * Returns: %TRUE between [signal@Stagewright.Plugin::loaded] and
 *   [signal@Stagewright.Plugin::unloaded]
 *
 * Since: 1.0
 */
gboolean
stw_plugin_is_loaded (StwPlugin *self)
{
  g_return_val_if_fail (STW_IS_PLUGIN (self), FALSE);
  /* A dispatcher that went away took the plugin's tools with it. */
  return PRIV (self)->loaded && PRIV (self)->dispatcher != NULL;
}

/**
 * stw_plugin_get_core_version:
 *
 * The version of this Stagewright, as plugins' core versions are matched
 * against it.
 *
 * Returns: (transfer none): the version, e.g. `"0.4.0"`
 *
 * Since: 1.0
 */
const char *
stw_plugin_get_core_version (void)
{
  return STW_VERSION_S;
}

gboolean
_stw_plugin_name_is_valid (const char *name)
{
  if (name == NULL || !g_ascii_islower (name[0]) || strlen (name) > 32 || g_str_equal (name, "electron"))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

GError *
_stw_plugin_error_new (const char *code,
                       const char *plugin,
                       const char *reason)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error = stw_error_new (code, _("Plugin “%s”: %s"), plugin ? plugin : "(null)", reason);

  json_object_set_string_member (details, "plugin", plugin ? plugin : "");
  stw_error_set_details (error, details);
  return error;
}

/* Parses “X.Y[.Z]” into three numbers; FALSE on anything else. */
static gboolean
parse_version (const char *text,
               guint64     parts[3],
               guint      *n_parts)
{
  g_auto(GStrv) fields = NULL;
  guint n;

  if (text == NULL || *text == '\0')
    return FALSE;
  fields = g_strsplit (text, ".", -1);
  n = g_strv_length (fields);
  if (n < 2 || n > 3)
    return FALSE;
  parts[2] = 0;
  for (guint i = 0; i < n; i++)
    if (!g_ascii_string_to_unsigned (fields[i], 10, 0, G_MAXUINT32, &parts[i], NULL))
      return FALSE;
  *n_parts = n;
  return TRUE;
}

gboolean
_stw_plugin_version_accepts (const char  *range,
                             const char  *version,
                             GError     **error)
{
  guint64 want[3], have[3];
  guint n_want, n_have;
  const char *spec;
  g_autofree char *trimmed = NULL;
  gboolean at_least;
  gboolean ok = TRUE;

  if (range == NULL || !parse_version (version, have, &n_have))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("it names no accepted Stagewright versions"));
      return FALSE;
    }
  trimmed = g_strstrip (g_strdup (range));
  range = trimmed;
  if (g_str_equal (range, "*"))
    return TRUE;

  at_least = g_str_has_prefix (range, ">=");
  spec = at_least ? range + 2 : range;
  while (*spec == ' ')
    spec++;
  if (!parse_version (spec, want, &n_want))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("it accepts Stagewright “%s”, which is not “*”, a version or “>=X.Y”"), range);
      return FALSE;
    }

  if (at_least)
    {
      for (guint i = 0; i < 3; i++)
        if (have[i] != want[i])
          {
            ok = have[i] > want[i];
            break;
          }
    }
  else
    {
      for (guint i = 0; i < n_want; i++)
        ok = ok && have[i] == want[i];
    }

  if (!ok)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                 _("it needs Stagewright %s, this is %s"), range, version);
  return ok;
}

/**
 * stw_plugin_accepts_core_version:
 * @self: a [class@Stagewright.Plugin]
 * @version: (nullable): a Stagewright version; %NULL for this one
 *   ([func@Stagewright.Plugin.get_core_version])
 * @error: where to say why not
 *
 * Whether [property@Stagewright.Plugin:core-versions] accepts @version.
 *
 * Returns: %TRUE if it does; %FALSE with `PLUGIN_VERSION_MISMATCH` otherwise
 *
 * Since: 1.0
 */
gboolean
stw_plugin_accepts_core_version (StwPlugin   *self,
                                 const char  *version,
                                 GError     **error)
{
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (STW_IS_PLUGIN (self), FALSE);

  if (_stw_plugin_version_accepts (PRIV (self)->core_versions,
                                   version ? version : STW_VERSION_S, &local))
    return TRUE;
  g_propagate_error (error, _stw_plugin_error_new ("PLUGIN_VERSION_MISMATCH",
                                                   stw_tool_provider_get_name (STW_TOOL_PROVIDER (self)),
                                                   local->message));
  return FALSE;
}

void
_stw_plugin_set_state (StwPlugin     *self,
                       StwDispatcher *dispatcher,
                       JsonObject    *config,
                       gboolean       loaded)
{
  StwPluginPrivate *priv = PRIV (self);
  gboolean was_loaded = priv->loaded;

  g_set_weak_pointer (&priv->dispatcher, dispatcher);
  if (config != priv->config)
    {
      g_clear_pointer (&priv->config, json_object_unref);
      priv->config = config ? json_object_ref (config) : NULL;
    }
  priv->loaded = loaded;

  if (loaded && !was_loaded)
    g_signal_emit (self, signals[LOADED], 0);
  else if (!loaded && was_loaded)
    g_signal_emit (self, signals[UNLOADED], 0);
}

void
_stw_plugin_call_setup (StwPlugin           *self,
                        StwPluginCompletion *completion)
{
  STW_PLUGIN_GET_CLASS (self)->setup (self, completion);
}

void
_stw_plugin_call_teardown (StwPlugin           *self,
                           StwPluginCompletion *completion)
{
  STW_PLUGIN_GET_CLASS (self)->teardown (self, completion);
}
