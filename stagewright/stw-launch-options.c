/* stw-launch-options.c: what to launch, and how
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-launch-options-private.h"

/**
 * StwLaunchOptions:
 *
 * The options of [method@Stagewright.SessionManager.launch_async], one
 * property per field of the `electron_launch` tool: a typed equivalent of
 * its JSON arguments for C, Python and GJS callers.
 *
 * The object only holds values. Every check (paths, switches, environment
 * keys, the rules between fields) happens when the manager launches, so
 * the same rules apply whether the options came from JSON or from setters.
 *
 * Since: 1.0
 */
struct _StwLaunchOptions
{
  GObject     parent_instance;

  char       *executable_path;
  char       *main;
  char      **args;
  GPtrArray  *env_keys;     /* char*, in the order given */
  GPtrArray  *env_values;   /* char*, NULL: an entry that was not KEY=VALUE */
  char       *cwd;
  guint       timeout;
  guint       ready_timeout;
  gboolean    ready_timeout_set;
  gboolean    allow_multiple;
  char       *runtime;
  char       *credential_store;
  GPtrArray  *preloads;     /* char*: absolute paths, for -r */
  gboolean    pipe;
  JsonObject *plugin_options;
};

G_DEFINE_FINAL_TYPE (StwLaunchOptions, stw_launch_options, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_EXECUTABLE_PATH,
  PROP_MAIN,
  PROP_ARGS,
  PROP_ENV,
  PROP_CWD,
  PROP_TIMEOUT,
  PROP_READY_TIMEOUT,
  PROP_ALLOW_MULTIPLE,
  PROP_RUNTIME,
  PROP_CREDENTIAL_STORE,
  PROP_PIPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define DEFAULT_READY_TIMEOUT_MS 5000

static void
stw_launch_options_finalize (GObject *object)
{
  StwLaunchOptions *self = STW_LAUNCH_OPTIONS (object);

  g_free (self->executable_path);
  g_free (self->main);
  g_strfreev (self->args);
  g_ptr_array_unref (self->env_keys);
  g_ptr_array_unref (self->env_values);
  g_free (self->cwd);
  g_free (self->runtime);
  g_free (self->credential_store);
  g_clear_pointer (&self->plugin_options, json_object_unref);
  g_clear_pointer (&self->preloads, g_ptr_array_unref);
  G_OBJECT_CLASS (stw_launch_options_parent_class)->finalize (object);
}

static void
stw_launch_options_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  StwLaunchOptions *self = STW_LAUNCH_OPTIONS (object);

  switch (prop_id)
    {
    case PROP_EXECUTABLE_PATH: g_value_set_string (value, self->executable_path); break;
    case PROP_MAIN: g_value_set_string (value, self->main); break;
    case PROP_ARGS: g_value_set_boxed (value, self->args); break;
    case PROP_ENV: g_value_take_boxed (value, stw_launch_options_dup_env (self)); break;
    case PROP_CWD: g_value_set_string (value, self->cwd); break;
    case PROP_TIMEOUT: g_value_set_uint (value, self->timeout); break;
    case PROP_READY_TIMEOUT: g_value_set_uint (value, stw_launch_options_get_ready_timeout (self)); break;
    case PROP_ALLOW_MULTIPLE: g_value_set_boolean (value, self->allow_multiple); break;
    case PROP_RUNTIME: g_value_set_string (value, self->runtime); break;
    case PROP_CREDENTIAL_STORE: g_value_set_string (value, self->credential_store); break;
    case PROP_PIPE: g_value_set_boolean (value, self->pipe); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_launch_options_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  StwLaunchOptions *self = STW_LAUNCH_OPTIONS (object);

  switch (prop_id)
    {
    case PROP_EXECUTABLE_PATH: stw_launch_options_set_executable_path (self, g_value_get_string (value)); break;
    case PROP_MAIN: stw_launch_options_set_main (self, g_value_get_string (value)); break;
    case PROP_ARGS: stw_launch_options_set_args (self, g_value_get_boxed (value)); break;
    case PROP_ENV: stw_launch_options_set_env (self, g_value_get_boxed (value)); break;
    case PROP_CWD: stw_launch_options_set_cwd (self, g_value_get_string (value)); break;
    case PROP_TIMEOUT: stw_launch_options_set_timeout (self, g_value_get_uint (value)); break;
    case PROP_READY_TIMEOUT: stw_launch_options_set_ready_timeout (self, g_value_get_uint (value)); break;
    case PROP_ALLOW_MULTIPLE: stw_launch_options_set_allow_multiple (self, g_value_get_boolean (value)); break;
    case PROP_RUNTIME: stw_launch_options_set_runtime (self, g_value_get_string (value)); break;
    case PROP_CREDENTIAL_STORE: stw_launch_options_set_credential_store (self, g_value_get_string (value)); break;
    case PROP_PIPE: stw_launch_options_set_pipe (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_launch_options_class_init (StwLaunchOptionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = stw_launch_options_finalize;
  object_class->get_property = stw_launch_options_get_property;
  object_class->set_property = stw_launch_options_set_property;

  /**
   * StwLaunchOptions:executable-path:
   *
   * Absolute path of the Electron or Chromium binary (`executablePath`).
   * Without [property@Stagewright.LaunchOptions:main] it is a packaged app
   * or plain Chromium.
   *
   * Since: 1.0
   */
  properties[PROP_EXECUTABLE_PATH] = g_param_spec_string ("executable-path", NULL, NULL, NULL, flags);
  /**
   * StwLaunchOptions:main:
   *
   * Absolute path of the app directory or main script (`main`).
   *
   * Since: 1.0
   */
  properties[PROP_MAIN] = g_param_spec_string ("main", NULL, NULL, NULL, flags);
  /**
   * StwLaunchOptions:args:
   *
   * Arguments appended after the app (`args`). Switches that would make
   * the app run another program or open a debugger are refused.
   *
   * Since: 1.0
   */
  properties[PROP_ARGS] = g_param_spec_boxed ("args", NULL, NULL, G_TYPE_STRV, flags);
  /**
   * StwLaunchOptions:env:
   *
   * Extra environment of the app as `KEY=VALUE` entries (`env`).
   *
   * Since: 1.0
   */
  properties[PROP_ENV] = g_param_spec_boxed ("env", NULL, NULL, G_TYPE_STRV, flags);
  /**
   * StwLaunchOptions:cwd:
   *
   * Absolute working directory of the app (`cwd`).
   *
   * Since: 1.0
   */
  properties[PROP_CWD] = g_param_spec_string ("cwd", NULL, NULL, NULL, flags);
  /**
   * StwLaunchOptions:timeout:
   *
   * Milliseconds until the app's endpoints and first window must be
   * there (`timeoutMs`); 0 for the default (30 s).
   *
   * Since: 1.0
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint ("timeout", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwLaunchOptions:ready-timeout:
   *
   * Milliseconds to wait for meaningful content in the first window
   * (`readyTimeoutMs`, at most 60000; default 5000).
   *
   * Since: 1.0
   */
  properties[PROP_READY_TIMEOUT] = g_param_spec_uint ("ready-timeout", NULL, NULL, 0, 60000,
                                                      DEFAULT_READY_TIMEOUT_MS, flags);
  /**
   * StwLaunchOptions:allow-multiple:
   *
   * Whether the launch may add a session while others are live
   * (`allowMultiple`).
   *
   * Since: 1.0
   */
  properties[PROP_ALLOW_MULTIPLE] = g_param_spec_boolean ("allow-multiple", NULL, NULL, FALSE, flags);
  /**
   * StwLaunchOptions:runtime:
   *
   * `"project"`: run @main with the app root's own Electron (`runtime`);
   * needs a manager with an app root.
   *
   * Since: 1.0
   */
  properties[PROP_RUNTIME] = g_param_spec_string ("runtime", NULL, NULL, NULL, flags);
  /**
   * StwLaunchOptions:credential-store:
   *
   * `"testing"` (the default: `--password-store=basic`) or `"system"`,
   * for packaged launches only (`credentialStore`).
   *
   * Since: 1.0
   */
  properties[PROP_CREDENTIAL_STORE] = g_param_spec_string ("credential-store", NULL, NULL, NULL, flags);
  /**
   * StwLaunchOptions:pipe:
   *
   * Talk to plain Chromium over `--remote-debugging-pipe` instead of a
   * port (`pipe`); ignored with @main.
   *
   * Since: 1.0
   */
  properties[PROP_PIPE] = g_param_spec_boolean ("pipe", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_launch_options_init (StwLaunchOptions *self)
{
  self->env_keys = g_ptr_array_new_with_free_func (g_free);
  self->env_values = g_ptr_array_new_with_free_func (g_free);
}

/**
 * stw_launch_options_new:
 *
 * Creates launch options with every property at its default.
 *
 * Returns: (transfer full): empty launch options
 *
 * Since: 1.0
 */
StwLaunchOptions *
stw_launch_options_new (void)
{
  return g_object_new (STW_TYPE_LAUNCH_OPTIONS, NULL);
}

static GError *
bad_member (const char *member,
            const char *expected)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be %s"), member, expected);

  json_object_set_string_member (details, "argument", member);
  json_object_set_string_member (details, "rule", expected);
  stw_error_set_details (error, details);
  return error;
}

static gboolean
is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
is_boolean (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
}

static gboolean
get_uint (JsonNode *node,
          guint     max,
          guint    *out)
{
  gint64 value;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  value = json_node_get_int (node);
  /* Range first, then narrow: 4294967296 must not become 0. */
  if (value < 0 || value > (gint64) max)
    return FALSE;
  *out = (guint) value;
  return TRUE;
}

/**
 * stw_launch_options_new_from_json_object:
 * @object: the arguments of `electron_launch`
 * @error: `BAD_ARGUMENT` naming the member that has the wrong type
 *
 * Reads the JSON form of the options: `executablePath`, `main`, `args`,
 * `env`, `cwd`, `timeoutMs`, `readyTimeoutMs`, `allowMultiple`, `runtime`,
 * `credentialStore`, `pipe` and `plugins` (the
 * plugins' own options, see
 * [method@Stagewright.LaunchOptions.set_plugin_options]). Members with
 * another name are refused, like the tool's schema refuses them.
 *
 * Returns: (transfer full) (nullable): the options
 *
 * Since: 1.0
 */
StwLaunchOptions *
stw_launch_options_new_from_json_object (JsonObject  *object,
                                         GError     **error)
{
  g_autoptr(StwLaunchOptions) self = stw_launch_options_new ();
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (object != NULL, NULL);

  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (object, name);
      guint number;

      if (g_str_equal (name, "executablePath") || g_str_equal (name, "main") || g_str_equal (name, "cwd") ||
          g_str_equal (name, "runtime") || g_str_equal (name, "credentialStore"))
        {
          if (!is_string (node))
            {
              g_propagate_error (error, bad_member (name, "a string"));
              return NULL;
            }
          if (g_str_equal (name, "executablePath"))
            stw_launch_options_set_executable_path (self, json_node_get_string (node));
          else if (g_str_equal (name, "main"))
            stw_launch_options_set_main (self, json_node_get_string (node));
          else if (g_str_equal (name, "cwd"))
            stw_launch_options_set_cwd (self, json_node_get_string (node));
          else if (g_str_equal (name, "runtime"))
            stw_launch_options_set_runtime (self, json_node_get_string (node));
          else
            stw_launch_options_set_credential_store (self, json_node_get_string (node));
        }
      else if (g_str_equal (name, "allowMultiple") || g_str_equal (name, "pipe"))
        {
          if (!is_boolean (node))
            {
              g_propagate_error (error, bad_member (name, "a boolean"));
              return NULL;
            }
          if (g_str_equal (name, "allowMultiple"))
            self->allow_multiple = json_node_get_boolean (node);
          else
            self->pipe = json_node_get_boolean (node);
        }
      else if (g_str_equal (name, "plugins"))
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            {
              g_propagate_error (error, bad_member (name, "an object"));
              return NULL;
            }
          stw_launch_options_set_plugin_options (self, json_node_get_object (node));
        }
      else if (g_str_equal (name, "timeoutMs"))
        {
          if (!get_uint (node, 300000, &number) || number == 0)
            {
              g_propagate_error (error, bad_member (name, "an integer from 1 to 300000"));
              return NULL;
            }
          self->timeout = number;
        }
      else if (g_str_equal (name, "readyTimeoutMs"))
        {
          if (!get_uint (node, 60000, &number))
            {
              g_propagate_error (error, bad_member (name, "an integer from 0 to 60000"));
              return NULL;
            }
          stw_launch_options_set_ready_timeout (self, number);
        }
      else if (g_str_equal (name, "args"))
        {
          JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
          g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

          for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
            {
              JsonNode *element = json_array_get_element (array, i);
              if (!is_string (element))
                {
                  array = NULL;
                  break;
                }
              g_strv_builder_add (builder, json_node_get_string (element));
            }
          if (array == NULL)
            {
              g_propagate_error (error, bad_member (name, "an array of strings"));
              return NULL;
            }
          g_strfreev (self->args);
          self->args = g_strv_builder_end (builder);
        }
      else if (g_str_equal (name, "env"))
        {
          JsonObject *env = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
          g_autoptr(GList) keys = env ? json_object_get_members (env) : NULL;

          for (const GList *k = keys; k != NULL; k = k->next)
            if (!is_string (json_object_get_member (env, k->data)))
              env = NULL;
          if (env == NULL)
            {
              g_propagate_error (error, bad_member (name, "an object of strings"));
              return NULL;
            }
          for (const GList *k = keys; k != NULL; k = k->next)
            stw_launch_options_setenv (self, k->data, json_object_get_string_member (env, k->data));
        }
      else
        {
          g_autoptr(JsonObject) details = json_object_new ();
          GError *unknown = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Unknown launch option %s"), name);

          json_object_set_string_member (details, "argument", name);
          json_object_set_string_member (details, "rule", "unknown option");
          stw_error_set_details (unknown, details);
          g_propagate_error (error, unknown);
          return NULL;
        }
    }
  return g_steal_pointer (&self);
}

/**
 * stw_launch_options_new_from_json:
 * @json: (nullable): the options as a JSON object text, as the
 *   `electron_launch` tool takes them
 * @error: `BAD_ARGUMENT` when @json is no JSON object or a member has the
 *   wrong type
 *
 * Convenience for scripts: see
 * [ctor@Stagewright.LaunchOptions.new_from_json_object].
 *
 * Returns: (transfer full) (nullable): the options
 *
 * Since: 1.0
 */
StwLaunchOptions *
stw_launch_options_new_from_json (const char  *json,
                                  GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonObject) empty = NULL;

  if (json == NULL || *json == '\0')
    {
      empty = json_object_new ();
      return stw_launch_options_new_from_json_object (empty, error);
    }
  node = stw_json_parse (json, -1, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The options are not a JSON object")));
      return NULL;
    }
  return stw_launch_options_new_from_json_object (json_node_get_object (node), error);
}

/* g_set_str() is GLib 2.76. */
static gboolean
set_str (char       **field,
         const char  *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

#define DEFINE_STRING(field, prop)                                                \
  const char *                                                                    \
  stw_launch_options_get_##field (StwLaunchOptions *self)                         \
  {                                                                               \
    g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);                    \
    return self->field;                                                           \
  }                                                                               \
  void                                                                            \
  stw_launch_options_set_##field (StwLaunchOptions *self,                         \
                                  const char       *field)                        \
  {                                                                               \
    g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));                              \
    if (set_str (&self->field, field))                                             \
      g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);               \
  }

#define DEFINE_VALUE(type, field, prop)                                           \
  type                                                                            \
  stw_launch_options_get_##field (StwLaunchOptions *self)                         \
  {                                                                               \
    g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), 0);                       \
    return self->field;                                                           \
  }                                                                               \
  void                                                                            \
  stw_launch_options_set_##field (StwLaunchOptions *self,                         \
                                  type              field)                        \
  {                                                                               \
    g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));                              \
    if (self->field != field)                                                     \
      {                                                                           \
        self->field = field;                                                      \
        g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);             \
      }                                                                           \
  }

/**
 * stw_launch_options_get_executable_path:
 * @self: a #StwLaunchOptions
 *
 * Gets the Electron executable (or packaged app) to run.
 *
 * Returns: (nullable): the [property@Stagewright.LaunchOptions:executable-path]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_executable_path:
 * @self: a #StwLaunchOptions
 * @executable_path: (nullable): an absolute path
 *
 * Sets the [property@Stagewright.LaunchOptions:executable-path].
 *
 * Since: 1.0
 */
DEFINE_STRING (executable_path, PROP_EXECUTABLE_PATH)
/**
 * stw_launch_options_get_main:
 * @self: a #StwLaunchOptions
 *
 * Gets the main script or app directory the runtime runs.
 *
 * Returns: (nullable): the [property@Stagewright.LaunchOptions:main]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_main:
 * @self: a #StwLaunchOptions
 * @main: (nullable): an absolute path
 *
 * Sets the [property@Stagewright.LaunchOptions:main].
 *
 * Since: 1.0
 */
DEFINE_STRING (main, PROP_MAIN)
/**
 * stw_launch_options_get_cwd:
 * @self: a #StwLaunchOptions
 *
 * Gets the working directory of the app.
 *
 * Returns: (nullable): the [property@Stagewright.LaunchOptions:cwd]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_cwd:
 * @self: a #StwLaunchOptions
 * @cwd: (nullable): an absolute path
 *
 * Sets the [property@Stagewright.LaunchOptions:cwd].
 *
 * Since: 1.0
 */
DEFINE_STRING (cwd, PROP_CWD)
/**
 * stw_launch_options_get_runtime:
 * @self: a #StwLaunchOptions
 *
 * Gets which Electron runs the main script.
 *
 * Returns: (nullable): the [property@Stagewright.LaunchOptions:runtime]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_runtime:
 * @self: a #StwLaunchOptions
 * @runtime: (nullable): `"project"`
 *
 * Sets the [property@Stagewright.LaunchOptions:runtime].
 *
 * Since: 1.0
 */
DEFINE_STRING (runtime, PROP_RUNTIME)
/**
 * stw_launch_options_get_credential_store:
 * @self: a #StwLaunchOptions
 *
 * Gets the credential store a packaged app is started with.
 *
 * Returns: (nullable): the [property@Stagewright.LaunchOptions:credential-store]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_credential_store:
 * @self: a #StwLaunchOptions
 * @credential_store: (nullable): `"testing"` or `"system"`
 *
 * Sets the [property@Stagewright.LaunchOptions:credential-store].
 *
 * Since: 1.0
 */
DEFINE_STRING (credential_store, PROP_CREDENTIAL_STORE)
/**
 * stw_launch_options_get_timeout:
 * @self: a #StwLaunchOptions
 *
 * Gets how long the launch waits for the app's endpoints and first
 * window.
 *
 * Returns: the [property@Stagewright.LaunchOptions:timeout] in milliseconds
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_timeout:
 * @self: a #StwLaunchOptions
 * @timeout_ms: milliseconds, 0 for the default
 *
 * Sets the [property@Stagewright.LaunchOptions:timeout].
 *
 * Since: 1.0
 */
DEFINE_VALUE (guint, timeout, PROP_TIMEOUT)
/**
 * stw_launch_options_get_allow_multiple:
 * @self: a #StwLaunchOptions
 *
 * Gets whether a second session of the same app may be launched.
 *
 * Returns: the [property@Stagewright.LaunchOptions:allow-multiple]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_allow_multiple:
 * @self: a #StwLaunchOptions
 * @allow_multiple: whether other sessions may be live
 *
 * Sets the [property@Stagewright.LaunchOptions:allow-multiple].
 *
 * Since: 1.0
 */
DEFINE_VALUE (gboolean, allow_multiple, PROP_ALLOW_MULTIPLE)
/**
 * stw_launch_options_get_pipe:
 * @self: a #StwLaunchOptions
 *
 * Gets whether the DevTools protocol is spoken over a pipe instead of a
 * port.
 *
 * Returns: the [property@Stagewright.LaunchOptions:pipe]
 *
 * Since: 1.0
 */
/**
 * stw_launch_options_set_pipe:
 * @self: a #StwLaunchOptions
 * @pipe: whether to use `--remote-debugging-pipe`
 *
 * Sets the [property@Stagewright.LaunchOptions:pipe].
 *
 * Since: 1.0
 */
DEFINE_VALUE (gboolean, pipe, PROP_PIPE)

/**
 * stw_launch_options_get_ready_timeout:
 * @self: a #StwLaunchOptions
 *
 * Gets how long the launch waits for meaningful content in the first
 * window.
 *
 * Returns: the [property@Stagewright.LaunchOptions:ready-timeout] in milliseconds
 *
 * Since: 1.0
 */
guint
stw_launch_options_get_ready_timeout (StwLaunchOptions *self)
{
  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), 0);
  return self->ready_timeout_set ? self->ready_timeout : DEFAULT_READY_TIMEOUT_MS;
}

/**
 * stw_launch_options_set_ready_timeout:
 * @self: a #StwLaunchOptions
 * @ready_timeout_ms: milliseconds, at most 60000
 *
 * Sets the [property@Stagewright.LaunchOptions:ready-timeout].
 *
 * Since: 1.0
 */
void
stw_launch_options_set_ready_timeout (StwLaunchOptions *self,
                                      guint             ready_timeout_ms)
{
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));
  ready_timeout_ms = MIN (ready_timeout_ms, 60000);
  if (self->ready_timeout_set && self->ready_timeout == ready_timeout_ms)
    return;
  self->ready_timeout = ready_timeout_ms;
  self->ready_timeout_set = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY_TIMEOUT]);
}

/**
 * stw_launch_options_get_args:
 * @self: a #StwLaunchOptions
 *
 * Gets the extra command-line arguments given to the app.
 *
 * Returns: (nullable) (transfer none) (array zero-terminated=1): the
 *   [property@Stagewright.LaunchOptions:args]
 *
 * Since: 1.0
 */
const char * const *
stw_launch_options_get_args (StwLaunchOptions *self)
{
  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);
  return (const char * const *) self->args;
}

/**
 * stw_launch_options_set_args:
 * @self: a #StwLaunchOptions
 * @args: (nullable) (array zero-terminated=1): arguments after the app
 *
 * Sets the [property@Stagewright.LaunchOptions:args].
 *
 * Since: 1.0
 */
void
stw_launch_options_set_args (StwLaunchOptions   *self,
                             const char * const *args)
{
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));
  g_strfreev (self->args);
  self->args = g_strdupv ((char **) args);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ARGS]);
}

/**
 * stw_launch_options_dup_env:
 * @self: a #StwLaunchOptions
 *
 * Copies the extra environment of the app as a string array.
 *
 * Returns: (transfer full) (array zero-terminated=1): the
 *   [property@Stagewright.LaunchOptions:env] as `KEY=VALUE` entries
 *
 * Since: 1.0
 */
char **
stw_launch_options_dup_env (StwLaunchOptions *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);

  for (guint i = 0; i < self->env_keys->len; i++)
    {
      const char *value = g_ptr_array_index (self->env_values, i);
      g_autofree char *entry = value != NULL
                               ? g_strconcat (g_ptr_array_index (self->env_keys, i), "=", value, NULL)
                               : g_strdup (g_ptr_array_index (self->env_keys, i));
      g_strv_builder_add (builder, entry);
    }
  return g_strv_builder_end (builder);
}

static void
put_env (StwLaunchOptions *self,
         const char       *key,
         const char       *value)
{
  for (guint i = 0; i < self->env_keys->len; i++)
    if (g_str_equal (g_ptr_array_index (self->env_keys, i), key))
      {
        g_free (self->env_values->pdata[i]);
        self->env_values->pdata[i] = g_strdup (value);
        return;
      }
  g_ptr_array_add (self->env_keys, g_strdup (key));
  g_ptr_array_add (self->env_values, g_strdup (value));
}

/**
 * stw_launch_options_set_env:
 * @self: a #StwLaunchOptions
 * @env: (nullable) (array zero-terminated=1): `KEY=VALUE` entries
 *
 * Replaces the [property@Stagewright.LaunchOptions:env]. An entry without
 * `=` is kept as given and refused when the app is launched.
 *
 * Since: 1.0
 */
void
stw_launch_options_set_env (StwLaunchOptions   *self,
                            const char * const *env)
{
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));

  g_ptr_array_set_size (self->env_keys, 0);
  g_ptr_array_set_size (self->env_values, 0);
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      const char *equals = strchr (env[i], '=');
      g_autofree char *key = equals ? g_strndup (env[i], (gsize) (equals - env[i])) : g_strdup (env[i]);
      put_env (self, key, equals ? equals + 1 : NULL);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENV]);
}

/**
 * stw_launch_options_setenv:
 * @self: a #StwLaunchOptions
 * @key: a variable name
 * @value: its value
 *
 * Adds (or replaces) one variable of the
 * [property@Stagewright.LaunchOptions:env]. Keys are checked when the app
 * is launched: empty keys, keys with `=` and keys that change how the app
 * loads code are refused then.
 *
 * Since: 1.0
 */
void
stw_launch_options_setenv (StwLaunchOptions *self,
                           const char       *key,
                           const char       *value)
{
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));
  g_return_if_fail (key != NULL && value != NULL);

  put_env (self, key, value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENV]);
}

/* The manager's view of the environment: keys and values as given. */
void
_stw_launch_options_get_env (StwLaunchOptions  *self,
                             GPtrArray        **keys,
                             GPtrArray        **values)
{
  *keys = self->env_keys;
  *values = self->env_values;
}

/**
 * stw_launch_options_get_runtime_source:
 * @self: a #StwLaunchOptions
 *
 * Gets where the Electron runtime that will run the app comes from.
 *
 * Returns: where the runtime comes from, as `electron_launch` reports it:
 *   `"explicit"` (an executable path), `"project"` (the app root's own
 *   Electron) or `"default"` (discovered)
 *
 * Since: 1.0
 */
const char *
stw_launch_options_get_runtime_source (StwLaunchOptions *self)
{
  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);
  if (self->executable_path != NULL)
    return "explicit";
  return self->runtime != NULL ? "project" : "default";
}

/**
 * stw_launch_options_get_launch_mode:
 * @self: a #StwLaunchOptions
 *
 * Gets how the app will be started, derived from the properties set.
 *
 * Returns: `"development"` (an app run by its runtime, @main set) or
 *   `"packaged"` (an executable alone)
 *
 * Since: 1.0
 */
const char *
stw_launch_options_get_launch_mode (StwLaunchOptions *self)
{
  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);
  return self->main != NULL ? "development" : "packaged";
}

/**
 * stw_launch_options_get_plugin_options:
 * @self: a [class@Stagewright.LaunchOptions]
 *
 * Gets the plugins' launch options.
 *
 * Returns: (transfer none) (nullable): one member per plugin, or %NULL
 *
 * Since: 1.0
 */
JsonObject *
stw_launch_options_get_plugin_options (StwLaunchOptions *self)
{
  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);
  return self->plugin_options;
}

/**
 * stw_launch_options_set_plugin_options:
 * @self: a [class@Stagewright.LaunchOptions]
 * @plugin_options: (nullable): one member per plugin, named after it,
 *   following the schema the plugin declared with
 *   [method@Stagewright.Plugin.set_launch_schema]
 *
 * Sets the options the loaded plugins' launch hooks read (`plugins` in
 * `electron_launch`). A plugin gets only its own member, through
 * [method@Stagewright.PluginCompletion.get_launch_options].
 *
 * Since: 1.0
 */
void
stw_launch_options_set_plugin_options (StwLaunchOptions *self,
                                       JsonObject       *plugin_options)
{
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));

  if (plugin_options != NULL)
    json_object_ref (plugin_options);
  g_clear_pointer (&self->plugin_options, json_object_unref);
  self->plugin_options = plugin_options;
}

/**
 * stw_launch_options_add_preload:
 * @self: a [class@Stagewright.LaunchOptions]
 * @path: the absolute path of a CommonJS module
 *
 * Adds a module that Electron loads in the main process before the
 * app's main script: `-r @path` before the app path, which Electron's
 * default app honours only for a development launch
 * ([property@Stagewright.LaunchOptions:main]; a launch with preloads and
 * no main is refused with `BAD_ARGUMENT`). This is how a plugin's
 * before-main hook installs its own code (the native plugin's
 * `instrumentNative`); it has no JSON form, so an agent cannot give one,
 * and a `--require` or `-r` in the arguments stays refused.
 *
 * Since: 1.0
 */
void
stw_launch_options_add_preload (StwLaunchOptions *self,
                                const char       *path)
{
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (self));
  g_return_if_fail (path != NULL && g_path_is_absolute (path));

  if (self->preloads == NULL)
    self->preloads = g_ptr_array_new_null_terminated (1, g_free, TRUE);
  g_ptr_array_add (self->preloads, g_strdup (path));
}

/**
 * stw_launch_options_get_preloads:
 * @self: a [class@Stagewright.LaunchOptions]
 *
 * Gets the modules added with
 * [method@Stagewright.LaunchOptions.add_preload], in order.
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   paths, or %NULL when there is none
 *
 * Since: 1.0
 */
const char * const *
stw_launch_options_get_preloads (StwLaunchOptions *self)
{
  g_return_val_if_fail (STW_IS_LAUNCH_OPTIONS (self), NULL);

  return self->preloads ? (const char * const *) self->preloads->pdata : NULL;
}
