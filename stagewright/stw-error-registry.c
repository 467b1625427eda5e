/* stw-error-registry.c: the agent-facing error codes and rich errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-error-registry.h"

/**
 * StwErrorRegistry:
 *
 * The registry of error codes an agent can see: the 35 core codes of the
 * contract, each with its HTTP status, whether a retry can help and a hint,
 * and the namespaced codes plugins register at run time (`<plugin>.CODE`).
 *
 * Plugin registration is atomic and fails closed: a batch whose every code
 * is well formed and either new or identical to what is registered is
 * added whole (identical codes gain a reference); anything else refuses the
 * whole batch. Unregistering drops one reference per code.
 */

typedef struct
{
  const char *name;
  guint       http;
  gboolean    retryable;
  const char *hint;
} CoreCode;

/* Indexed by StwError; the order is the contract's and must not change. */
static const CoreCode core_codes[] = {
  { "NOT_RUNNING", 409, FALSE, N_("No app is running. Launch or attach first (electron_launch, electron_attach).") },
  { "ALREADY_RUNNING", 409, FALSE, N_("An app is already running, or the session limit is reached. Stop one first, or pass allowMultiple.") },
  { "LAUNCH_TIMEOUT", 408, TRUE, N_("The app's first window never became ready. Check how long its main process takes to start.") },
  { "LAUNCH_FAILED", 500, FALSE, N_("The app failed to start or exited before it could be driven. Check the path, its configuration and its log.") },
  { "FUSES_BLOCK_LAUNCH", 409, FALSE, N_("The binary disables the Node inspector fuse. Use a packaged CDP launch, attach over CDP, or a development build.") },
  { "SINGLE_INSTANCE_LOCK", 409, FALSE, N_("Another instance of the app holds its single-instance lock. Stop it first.") },
  { "BAD_ARGUMENT", 400, FALSE, N_("Check the arguments against the tool's input schema; details.issues lists each problem.") },
  { "FILE_NOT_FOUND", 404, FALSE, N_("The path does not exist or cannot be read.") },
  { "ABSOLUTE_PATH_REQUIRED", 400, FALSE, N_("Give an absolute path.") },
  { "REF_NOT_FOUND", 404, FALSE, N_("The ref is unknown or stale. Take a snapshot first and use a ref from it.") },
  { "SURFACE_NOT_FOUND", 404, FALSE, N_("No surface has that id. List surfaces and pick a returned id.") },
  { "SURFACE_CLOSED", 409, FALSE, N_("That surface closed or detached. List surfaces and pick a live one.") },
  { "SURFACE_UNSUPPORTED", 501, FALSE, N_("That surface cannot do this operation on this transport.") },
  { "SELECTOR_NO_MATCH", 404, FALSE, N_("No element matched. Check that the element is in the DOM.") },
  { "ELEMENT_NOT_VISIBLE", 409, TRUE, N_("The element is not visible yet. Wait until it is visible, then retry.") },
  { "ELEMENT_DISABLED", 409, FALSE, N_("The element is disabled. Change the app's state first.") },
  { "TYPE_NO_EFFECT", 422, FALSE, N_("The target swallowed the input (a hidden editor textarea?). Use electron_type_into_editor on the content area.") },
  { "WAIT_TIMEOUT", 408, TRUE, N_("The condition was not met in time. Raise timeoutMs or check the condition.") },
  { "EXPECTATION_FAILED", 417, TRUE, N_("The expectation was not met; details hold the expected and the actual value.") },
  { "TRANSPORT_UNSUPPORTED", 501, FALSE, N_("The session's transport lacks this capability.") },
  { "CDP_DISCONNECTED", 503, TRUE, N_("The DevTools connection dropped or the endpoint is unreachable.") },
  { "CDP_TIMEOUT", 408, TRUE, N_("A DevTools method or connection did not answer in time; the target may be busy or hung.") },
  { "INJECT_FAILED", 500, TRUE, N_("Could not open the inspector in that process, or it belongs to another process. Try electron_attach.") },
  { "PLUGIN_LOAD_FAILED", 500, FALSE, N_("The plugin module could not be loaded.") },
  { "PLUGIN_VERSION_MISMATCH", 409, FALSE, N_("The plugin needs a different Stagewright version.") },
  { "PLUGIN_MANIFEST_INVALID", 500, FALSE, N_("The plugin does not describe itself validly.") },
  { "PLUGIN_CONFIG_INVALID", 400, FALSE, N_("The plugin configuration failed its schema; details.issues lists each problem.") },
  { "EVAL_SYNTAX_ERROR", 400, FALSE, N_("Fix the JavaScript syntax of the evaluated code.") },
  { "EVAL_RUNTIME_ERROR", 500, FALSE, N_("The evaluated code threw an exception.") },
  { "EVAL_TIMEOUT", 408, TRUE, N_("The evaluation exceeded its time budget.") },
  { "EVAL_BLOCKED_KEYWORD", 400, FALSE, N_("Remove the blocked keyword from the evaluated code.") },
  { "EVAL_BLOCKED_CONSTRUCT", 400, FALSE, N_("Remove the blocked construct; prefer the granular tools.") },
  { "OPERATION_TIMEOUT", 408, TRUE, N_("The call exceeded the server's operation timeout; the app is likely hung. Retry, or raise --operation-timeout-ms.") },
  { "NOT_IMPLEMENTED", 501, FALSE, N_("This transport or plugin does not implement that yet.") },
  { "INTERNAL_ERROR", 500, FALSE, N_("A bug in Stagewright. Please report it with the server's log.") },
};

G_STATIC_ASSERT (G_N_ELEMENTS (core_codes) == STW_ERROR_INTERNAL_ERROR + 1);

/* --- rich errors -------------------------------------------------------- */

typedef struct
{
  char       *code_name;      /* plugin codes only */
  char       *hint;
  JsonObject *details;
  char      **next_actions;
  JsonArray  *similar_refs;
} StwErrorPrivate;

static void
stw_error_private_init (StwErrorPrivate *priv)
{
  memset (priv, 0, sizeof *priv);
}

static void
stw_error_private_copy (const StwErrorPrivate *src,
                        StwErrorPrivate       *dest)
{
  if (src == NULL || dest == NULL)
    return;
  dest->code_name = g_strdup (src->code_name);
  dest->hint = g_strdup (src->hint);
  dest->details = src->details ? json_object_ref (src->details) : NULL;
  dest->next_actions = g_strdupv (src->next_actions);
  dest->similar_refs = src->similar_refs ? json_array_ref (src->similar_refs) : NULL;
}

static void
stw_error_private_clear (StwErrorPrivate *priv)
{
  /* G_DEFINE_EXTENDED_ERROR hands these functions what its lookup found,
   * which optimised builds cannot prove non-NULL (-Wnull-dereference). */
  if (priv == NULL)
    return;
  g_clear_pointer (&priv->code_name, g_free);
  g_clear_pointer (&priv->hint, g_free);
  g_clear_pointer (&priv->details, json_object_unref);
  g_clear_pointer (&priv->next_actions, g_strfreev);
  g_clear_pointer (&priv->similar_refs, json_array_unref);
}

/* Every domain whose errors reach agents (%STW_ERROR and each plugin's own,
 * stw_error_register_domain()) carries the same private part, so hints,
 * details and refs work alike in all of them. This is what
 * G_DEFINE_EXTENDED_ERROR() writes for one domain, shared by many. */
static inline StwErrorPrivate *
error_private (const GError *error)
{
  const gsize sa = 2 * sizeof (gsize);
  const gsize as = (sizeof (StwErrorPrivate) + (sa - 1)) & -sa;

  return (StwErrorPrivate *) (((guint8 *) error) - as);
}

static void
error_private_init (GError *error)
{
  stw_error_private_init (error_private (error));
}

static void
error_private_copy (const GError *src_error,
                    GError       *dest_error)
{
  stw_error_private_copy (error_private (src_error), error_private (dest_error));
}

static void
error_private_clear (GError *error)
{
  stw_error_private_clear (error_private (error));
}

GQuark
stw_error_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_error_domain_register_static ("StwError", sizeof (StwErrorPrivate),
                                                               error_private_init,
                                                               error_private_copy,
                                                               error_private_clear));
  return (GQuark) quark;
}

/* --- plugin error domains ----------------------------------------------- */

typedef struct
{
  char       *plugin;
  GQuark      quark;
  GType       code_type;
  GHashTable *names;   /* enum value -> interned wire name `<plugin>.CODE` */
} Domain;

static GMutex domains_lock;
static GHashTable *domains_by_quark;   /* GQuark -> Domain; never freed */
static GHashTable *domains_by_plugin;  /* plugin name -> Domain */

static Domain *
domain_for_quark (GQuark quark)
{
  Domain *domain = NULL;

  g_mutex_lock (&domains_lock);
  if (domains_by_quark != NULL)
    domain = g_hash_table_lookup (domains_by_quark, GUINT_TO_POINTER (quark));
  g_mutex_unlock (&domains_lock);
  return domain;
}

/* The plugin domain and enum value of a wire name such as `ipc.EVAL_REQUIRED`. */
static gboolean
domain_code_for_name (const char  *code_name,
                      GQuark      *quark,
                      int         *code)
{
  const char *dot = strchr (code_name, '.');
  g_autofree char *plugin = NULL;
  gboolean found = FALSE;
  Domain *domain;

  if (dot == NULL)
    return FALSE;
  plugin = g_strndup (code_name, dot - code_name);

  g_mutex_lock (&domains_lock);
  domain = domains_by_plugin ? g_hash_table_lookup (domains_by_plugin, plugin) : NULL;
  if (domain != NULL)
    {
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, domain->names);
      while (!found && g_hash_table_iter_next (&iter, &key, &value))
        if (g_str_equal (value, code_name))
          {
            *quark = domain->quark;
            *code = GPOINTER_TO_INT (key);
            found = TRUE;
          }
    }
  g_mutex_unlock (&domains_lock);
  return found;
}

/**
 * stw_error_register_domain:
 * @plugin: the plugin's name, e.g. `"ipc"` (lowercase; `electron` is reserved)
 * @code_type: a #GEnum type with one value per code of @plugin
 *
 * Gives @plugin an error domain of its own, `stw-<plugin>-error-quark`,
 * whose codes are the values of @code_type: the value whose nick is
 * `eval-required` is the wire code `<plugin>.EVAL_REQUIRED`. Errors in it
 * carry hints, details and refs as %STW_ERROR's do;
 * stw_error_get_code_name() answers their wire code; and
 * stw_error_new_literal() with such a wire code makes the error in this
 * domain. Unlike a code in the error's private data, the domain and the
 * value survive a language binding: Python's
 * `GLib.Error.matches (StagewrightIpc.error_quark (), StagewrightIpc.Error.EVAL_REQUIRED)`.
 *
 * A plugin's `stw_<plugin>_error_quark()` returns this. Registering again
 * with the same type answers the same quark; the wire codes themselves
 * are still registered with stw_error_registry_register_plugin_codes().
 * The domain lasts as long as the process, so @code_type must stay loaded.
 *
 * Returns: the domain, or 0 if @plugin or @code_type is invalid or @plugin
 *   already has a domain with another type
 *
 * Since: 1.0
 */
GQuark
stw_error_register_domain (const char *plugin,
                           GType       code_type)
{
  g_autoptr(GEnumClass) klass = NULL;
  g_autofree char *quark_name = NULL;
  Domain *domain;
  GQuark quark;

  g_return_val_if_fail (plugin != NULL && g_ascii_islower (*plugin), 0);
  g_return_val_if_fail (!g_str_equal (plugin, "electron"), 0);
  g_return_val_if_fail (G_TYPE_IS_ENUM (code_type), 0);

  for (const char *p = plugin; *p; p++)
    g_return_val_if_fail (g_ascii_islower (*p) || g_ascii_isdigit (*p) || *p == '_', 0);

  g_mutex_lock (&domains_lock);
  if (domains_by_plugin == NULL)
    {
      domains_by_plugin = g_hash_table_new (g_str_hash, g_str_equal);
      domains_by_quark = g_hash_table_new (NULL, NULL);
    }
  domain = g_hash_table_lookup (domains_by_plugin, plugin);
  if (domain != NULL)
    {
      quark = domain->code_type == code_type ? domain->quark : 0;
      g_mutex_unlock (&domains_lock);
      if (quark == 0)
        g_critical ("Plugin %s already has an error domain with type %s", plugin,
                    g_type_name (domain->code_type));
      return quark;
    }

  klass = g_type_class_ref (code_type);
  domain = g_new0 (Domain, 1);
  domain->plugin = g_strdup (plugin);
  domain->code_type = code_type;
  domain->names = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < klass->n_values; i++)
    {
      g_autofree char *bare = g_ascii_strup (klass->values[i].value_nick, -1);
      g_autofree char *name = NULL;

      g_strdelimit (bare, "-", '_');
      name = g_strconcat (plugin, ".", bare, NULL);
      g_hash_table_insert (domain->names, GINT_TO_POINTER (klass->values[i].value),
                           (gpointer) g_intern_string (name));
    }

  quark_name = g_strdup_printf ("stw-%s-error-quark", plugin);
  domain->quark = g_error_domain_register (quark_name, sizeof (StwErrorPrivate),
                                           error_private_init,
                                           error_private_copy,
                                           error_private_clear);
  g_hash_table_insert (domains_by_plugin, domain->plugin, domain);
  g_hash_table_insert (domains_by_quark, GUINT_TO_POINTER (domain->quark), domain);
  quark = domain->quark;
  g_mutex_unlock (&domains_lock);

  return quark;
}

/**
 * stw_error_domain_is_registered:
 * @domain: an error domain
 *
 * Checks whether errors in @domain reach agents with their own code:
 * %STW_ERROR and each domain of stw_error_register_domain(). Errors in
 * other domains are `INTERNAL_ERROR` to an agent.
 *
 * Returns: %TRUE for %STW_ERROR and the plugins' domains
 *
 * Since: 1.0
 */
gboolean
stw_error_domain_is_registered (GQuark domain)
{
  return domain != 0 && (domain == STW_ERROR || domain_for_quark (domain) != NULL);
}

/**
 * stw_error_code_to_string:
 * @code: a core #StwError
 *
 * Gets the wire name of a core error code.
 *
 * Returns: (transfer none): the wire name of @code, e.g. `"NOT_RUNNING"`
 *
 * Since: 1.0
 */
const char *
stw_error_code_to_string (StwError code)
{
  if ((guint) code < G_N_ELEMENTS (core_codes))
    return core_codes[code].name;
  return "INTERNAL_ERROR";
}

/**
 * stw_error_code_from_string:
 * @code_name: a wire name such as `"NOT_RUNNING"`
 * @code: (out) (optional): the matching core code
 *
 * Parses the wire name of a core error code.
 *
 * Returns: %TRUE if @code_name is a core code
 *
 * Since: 1.0
 */
gboolean
stw_error_code_from_string (const char *code_name,
                            StwError   *code)
{
  static GHashTable *by_name;  /* name -> index + 1; made once, never freed */
  gpointer found;

  g_return_val_if_fail (code_name != NULL, FALSE);

  /* Every tool's declared codes are checked at start and every error is
   * made from a code: a walk over the whole table each time was 4 % of a
   * cold start. */
  if (g_once_init_enter (&by_name))
    {
      GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < G_N_ELEMENTS (core_codes); i++)
        g_hash_table_insert (table, (gpointer) core_codes[i].name, GUINT_TO_POINTER (i + 1));
      g_once_init_leave (&by_name, table);
    }

  found = g_hash_table_lookup (by_name, code_name);
  if (found == NULL)
    return FALSE;
  if (code != NULL)
    *code = (StwError) (GPOINTER_TO_UINT (found) - 1);
  return TRUE;
}

/**
 * stw_error_new_literal:
 * @code_name: a registered code, core (`"NOT_RUNNING"`) or plugin (`"trace.NOT_RECORDING"`)
 * @message: (nullable): a human message; %NULL uses the code's hint
 *
 * Creates an error for a wire code: in %STW_ERROR for a core code; in the
 * plugin's domain for a code of a plugin that registered one
 * (stw_error_register_domain()); otherwise %STW_ERROR_PLUGIN with the code's
 * name inside. A code the registry does not know is a programmer error: it becomes
 * `INTERNAL_ERROR` with a critical warning, so an agent never sees an
 * unregistered code.
 *
 * Returns: (transfer full): a new #GError
 *
 * Since: 1.0
 */
GError *
stw_error_new_literal (const char *code_name,
                       const char *message)
{
  StwErrorRegistry *registry = stw_error_registry_get_default ();
  const char *hint = NULL;
  StwError code;
  GQuark domain;
  int plugin_code;
  GError *error;
  StwErrorPrivate *priv;

  g_return_val_if_fail (code_name != NULL, NULL);

  if (!stw_error_registry_lookup (registry, code_name, NULL, NULL, &hint))
    {
      g_critical ("Error code %s is not registered", code_name);
      return g_error_new (STW_ERROR, STW_ERROR_INTERNAL_ERROR,
                          "Unregistered error code %s: %s", code_name,
                          message ? message : "");
    }

  if (message == NULL)
    message = hint;

  if (stw_error_code_from_string (code_name, &code))
    return g_error_new_literal (STW_ERROR, code, message);

  if (domain_code_for_name (code_name, &domain, &plugin_code))
    return g_error_new_literal (domain, plugin_code, message);

  error = g_error_new_literal (STW_ERROR, STW_ERROR_PLUGIN, message);
  priv = error_private (error);
  if (priv != NULL)
    priv->code_name = g_strdup (code_name);
  return error;
}

/**
 * stw_error_new: (skip)
 * @code_name: a registered code
 * @format: printf-style format of the human message
 * @...: arguments for @format
 *
 * Like stw_error_new_literal() with a formatted message.
 *
 * Returns: (transfer full): a new #GError
 *
 * Since: 1.0
 */
GError *
stw_error_new (const char *code_name,
               const char *format,
               ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  return stw_error_new_literal (code_name, message);
}

/**
 * stw_error_new_code_literal:
 * @code: a core code (not %STW_ERROR_PLUGIN)
 * @message: (nullable): a human message; %NULL uses the code's hint
 *
 * Creates an error in the %STW_ERROR domain by its enum value, so a
 * misspelt code fails to compile. Plugin codes, which have no value of
 * their own, use stw_error_new_literal() with their name.
 *
 * Returns: (transfer full): a new #GError
 *
 * Since: 1.0
 */
GError *
stw_error_new_code_literal (StwError    code,
                            const char *message)
{
  const char *hint = NULL;

  g_return_val_if_fail (code != STW_ERROR_PLUGIN, NULL);
  g_return_val_if_fail (stw_error_code_to_string (code) != NULL, NULL);

  if (message == NULL)
    stw_error_registry_lookup (stw_error_registry_get_default (), stw_error_code_to_string (code), NULL, NULL,
                               &hint);
  return g_error_new_literal (STW_ERROR, code, message ? message : hint);
}

/**
 * stw_error_new_code: (skip)
 * @code: a core code (not %STW_ERROR_PLUGIN)
 * @format: printf-style format of the human message
 * @...: arguments for @format
 *
 * Like stw_error_new_code_literal() with a formatted message.
 *
 * Returns: (transfer full): a new #GError
 *
 * Since: 1.0
 */
GError *
stw_error_new_code (StwError    code,
                    const char *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  return stw_error_new_code_literal (code, message);
}

/**
 * stw_set_error: (skip)
 * @error: (nullable): where to put the error
 * @code: a core code (not %STW_ERROR_PLUGIN)
 * @hint: (nullable): a hint for this occurrence, replacing the registry's
 * @details: (nullable): the error's details (referenced)
 * @format: printf-style format of the human message
 * @...: arguments for @format
 *
 * Sets @error to a core error by its enum value, with its hint and
 * details: what g_set_error() is for other domains.
 *
 * Since: 1.0
 */
void
stw_set_error (GError     **error,
               StwError     code,
               const char  *hint,
               JsonObject  *details,
               const char  *format,
               ...)
{
  g_autofree char *message = NULL;
  GError *made;
  va_list args;

  if (error == NULL)
    return;
  g_return_if_fail (*error == NULL);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  made = stw_error_new_code_literal (code, message);
  if (made == NULL)
    return;
  if (hint != NULL)
    stw_error_set_hint (made, hint);
  if (details != NULL)
    stw_error_set_details (made, details);
  *error = made;
}

static StwErrorPrivate *
get_private (const GError *error)
{
  if (error == NULL || !stw_error_domain_is_registered (error->domain))
    return NULL;
  return error_private (error);
}

/**
 * stw_error_get_code_name:
 * @error: any #GError
 *
 * The wire code of @error. Errors outside %STW_ERROR have no agent-facing
 * meaning and are `INTERNAL_ERROR`.
 *
 * Returns: (transfer none): the wire code
 *
 * Since: 1.0
 */
const char *
stw_error_get_code_name (const GError *error)
{
  StwErrorPrivate *priv = get_private (error);

  g_return_val_if_fail (error != NULL, "INTERNAL_ERROR");

  if (priv == NULL)
    return "INTERNAL_ERROR";
  if (error->domain != STW_ERROR)
    {
      Domain *domain = domain_for_quark (error->domain);
      const char *name = domain ? g_hash_table_lookup (domain->names, GINT_TO_POINTER (error->code)) : NULL;

      return name ? name : "INTERNAL_ERROR";
    }
  if (error->code == STW_ERROR_PLUGIN)
    return priv->code_name ? priv->code_name : "INTERNAL_ERROR";
  return stw_error_code_to_string ((StwError) error->code);
}

/**
 * stw_error_set_hint:
 * @error: an error in %STW_ERROR
 * @hint: (nullable): a hint for this occurrence, replacing the registry's
 *
 * Language bindings pass a copy of the error, so this has no effect
 * there: Python and JavaScript tools use stw_invocation_return_error_json().
 *
 * Since: 1.0
 */
void
stw_error_set_hint (GError     *error,
                    const char *hint)
{
  StwErrorPrivate *priv = get_private (error);

  g_return_if_fail (priv != NULL);
  g_free (priv->hint);
  priv->hint = g_strdup (hint);
}

/**
 * stw_error_get_hint:
 * @error: any #GError
 *
 * Gets the hint for @error: the one given when it was raised, or the
 * registry's default for its code.
 *
 * Returns: (transfer none): the occurrence's hint or the registry's
 *
 * Since: 1.0
 */
const char *
stw_error_get_hint (const GError *error)
{
  StwErrorPrivate *priv = get_private (error);
  const char *hint = NULL;

  if (priv != NULL && priv->hint != NULL)
    return priv->hint;
  stw_error_registry_lookup (stw_error_registry_get_default (),
                             stw_error_get_code_name (error), NULL, NULL, &hint);
  return hint;
}

/**
 * stw_error_set_details:
 * @error: an error in %STW_ERROR
 * @details: (nullable): machine-readable details
 *
 * Language bindings pass a copy of the error, so this has no effect
 * there: Python and JavaScript tools use stw_invocation_return_error_json().
 *
 * Since: 1.0
 */
void
stw_error_set_details (GError     *error,
                       JsonObject *details)
{
  StwErrorPrivate *priv = get_private (error);

  g_return_if_fail (priv != NULL);
  g_clear_pointer (&priv->details, json_object_unref);
  if (details != NULL)
    priv->details = json_object_ref (details);
}

/**
 * stw_error_get_details:
 * @error: any #GError
 *
 * Gets the machine-readable details attached to @error, if any.
 *
 * Returns: (transfer none) (nullable): the details
 *
 * Since: 1.0
 */
JsonObject *
stw_error_get_details (const GError *error)
{
  StwErrorPrivate *priv = get_private (error);

  return priv ? priv->details : NULL;
}

/**
 * stw_error_add_next_action:
 * @error: an error in %STW_ERROR
 * @action: a suggested next call, e.g. `"electron_snapshot()"`
 *
 * Language bindings pass a copy of the error, so this has no effect
 * there: Python and JavaScript tools use stw_invocation_return_error_json().
 *
 * Since: 1.0
 */
void
stw_error_add_next_action (GError     *error,
                           const char *action)
{
  StwErrorPrivate *priv = get_private (error);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_if_fail (priv != NULL);
  g_return_if_fail (action != NULL);

  if (priv->next_actions != NULL)
    g_strv_builder_addv (builder, (const char **) priv->next_actions);
  g_strv_builder_add (builder, action);
  g_strfreev (priv->next_actions);
  priv->next_actions = g_strv_builder_end (builder);
}

/**
 * stw_error_get_next_actions:
 * @error: any #GError
 *
 * Gets the tool calls suggested to recover from @error, if any.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the next actions
 *
 * Since: 1.0
 */
const char * const *
stw_error_get_next_actions (const GError *error)
{
  StwErrorPrivate *priv = get_private (error);

  return priv ? (const char * const *) priv->next_actions : NULL;
}

/**
 * stw_error_set_similar_refs:
 * @error: an error in %STW_ERROR
 * @similar_refs: (nullable): `[{ref, role, name}]`, at most five are shown
 *
 * Language bindings pass a copy of the error, so this has no effect
 * there: Python and JavaScript tools use stw_invocation_return_error_json().
 *
 * Since: 1.0
 */
void
stw_error_set_similar_refs (GError    *error,
                            JsonArray *similar_refs)
{
  StwErrorPrivate *priv = get_private (error);

  g_return_if_fail (priv != NULL);
  g_clear_pointer (&priv->similar_refs, json_array_unref);
  if (similar_refs != NULL)
    priv->similar_refs = json_array_ref (similar_refs);
}

/**
 * stw_error_get_similar_refs:
 * @error: any #GError
 *
 * Gets the refs that resemble the one @error failed to find, if any.
 *
 * Returns: (transfer none) (nullable): the similar refs
 *
 * Since: 1.0
 */
JsonArray *
stw_error_get_similar_refs (const GError *error)
{
  StwErrorPrivate *priv = get_private (error);

  return priv ? priv->similar_refs : NULL;
}

/* --- the registry -------------------------------------------------------- */

typedef struct
{
  guint       http;
  gboolean    retryable;
  const char *hint;   /* interned: a hint handed out outlives the code */
  guint       refs;   /* 0 for core codes, which never go away */
} Entry;

struct _StwErrorRegistry
{
  GObject     parent_instance;
  GMutex      mutex;
  GHashTable *entries;  /* code name -> Entry (plugin codes only) */
};

G_DEFINE_FINAL_TYPE (StwErrorRegistry, stw_error_registry, G_TYPE_OBJECT)

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  if (entry == NULL)
    return;
  g_free (entry);
}

static void
stw_error_registry_finalize (GObject *object)
{
  StwErrorRegistry *self = STW_ERROR_REGISTRY (object);

  g_hash_table_unref (self->entries);
  g_mutex_clear (&self->mutex);
  G_OBJECT_CLASS (stw_error_registry_parent_class)->finalize (object);
}

static void
stw_error_registry_class_init (StwErrorRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_error_registry_finalize;
}

static void
stw_error_registry_init (StwErrorRegistry *self)
{
  g_mutex_init (&self->mutex);
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
}

/**
 * stw_error_registry_get_default:
 *
 * The process-wide registry: error codes are a contract of the process,
 * shared by every dispatcher in it.
 *
 * Returns: (transfer none): the registry
 *
 * Since: 1.0
 */
StwErrorRegistry *
stw_error_registry_get_default (void)
{
  static StwErrorRegistry *registry;

  if (g_once_init_enter (&registry))
    g_once_init_leave (&registry, g_object_new (STW_TYPE_ERROR_REGISTRY, NULL));
  return registry;
}

/**
 * stw_error_registry_lookup:
 * @self: the registry
 * @code_name: a wire code
 * @http: (out) (optional): the HTTP status that matches the code
 * @retryable: (out) (optional): whether retrying the same call can help
 * @hint: (out) (optional) (transfer none): the default hint
 *
 * Looks up what the registry knows of @code_name: its HTTP status,
 * whether it is retryable and its default hint.
 *
 * Returns: %TRUE if the code is registered
 *
 * Since: 1.0
 */
gboolean
stw_error_registry_lookup (StwErrorRegistry  *self,
                           const char        *code_name,
                           guint             *http,
                           gboolean          *retryable,
                           const char       **hint)
{
  StwError code;
  Entry *entry;

  g_return_val_if_fail (STW_IS_ERROR_REGISTRY (self), FALSE);
  g_return_val_if_fail (code_name != NULL, FALSE);

  if (stw_error_code_from_string (code_name, &code))
    {
      if (http)
        *http = core_codes[code].http;
      if (retryable)
        *retryable = core_codes[code].retryable;
      if (hint)
        *hint = _(core_codes[code].hint);
      return TRUE;
    }

  g_mutex_lock (&self->mutex);
  entry = g_hash_table_lookup (self->entries, code_name);
  if (entry != NULL)
    {
      if (http)
        *http = entry->http;
      if (retryable)
        *retryable = entry->retryable;
      if (hint)
        *hint = entry->hint;
    }
  g_mutex_unlock (&self->mutex);

  return entry != NULL;
}

/**
 * stw_error_registry_contains:
 * @self: the registry
 * @code_name: a wire code
 *
 * Checks whether @code_name is a core code or one a plugin registered.
 *
 * Returns: %TRUE if the code is registered
 *
 * Since: 1.0
 */
gboolean
stw_error_registry_contains (StwErrorRegistry *self,
                             const char       *code_name)
{
  return stw_error_registry_lookup (self, code_name, NULL, NULL, NULL);
}

/* g_ptr_array_sort() hands the comparator pointers to the elements. */
static int
compare_code_names (gconstpointer a,
                    gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * stw_error_registry_list_codes:
 * @self: the registry
 *
 * Lists every registered wire code.
 *
 * Returns: (transfer full) (array zero-terminated=1): every registered
 *   code, core first, then plugin codes sorted
 *
 * Since: 1.0
 */
char **
stw_error_registry_list_codes (StwErrorRegistry *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GPtrArray) plugin_codes = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (STW_IS_ERROR_REGISTRY (self), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (core_codes); i++)
    g_strv_builder_add (builder, core_codes[i].name);

  g_mutex_lock (&self->mutex);
  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (plugin_codes, g_strdup (key));
  g_mutex_unlock (&self->mutex);

  g_ptr_array_sort (plugin_codes, compare_code_names);
  for (guint i = 0; i < plugin_codes->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (plugin_codes, i));

  return g_strv_builder_end (builder);
}

static gboolean
is_identifier (const char *s,
               gboolean    upper)
{
  if (s == NULL || !(upper ? g_ascii_isupper (*s) : g_ascii_islower (*s)))
    return FALSE;
  for (const char *p = s; *p; p++)
    if (!(g_ascii_isdigit (*p) || *p == '_' ||
          (upper ? g_ascii_isupper (*p) : g_ascii_islower (*p))))
      return FALSE;
  return TRUE;
}

/**
 * stw_error_registry_register_plugin_codes:
 * @self: the registry
 * @plugin: the plugin's name, e.g. `"trace"` (`electron` is reserved)
 * @codes: `{ "BARE_CODE": { "http": 409, "retryable": false, "hint": "…" } }`
 * @error: where to put a refusal
 *
 * Registers @plugin's codes as `<plugin>.BARE_CODE`, all or nothing.
 *
 * Returns: %TRUE if every code is now registered
 *
 * Since: 1.0
 */
gboolean
stw_error_registry_register_plugin_codes (StwErrorRegistry  *self,
                                          const char        *plugin,
                                          JsonObject        *codes,
                                          GError           **error)
{
  g_autoptr(GList) members = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (entry_free);

  g_return_val_if_fail (STW_IS_ERROR_REGISTRY (self), FALSE);
  g_return_val_if_fail (codes != NULL, FALSE);

  if (!is_identifier (plugin, FALSE) || g_str_equal (plugin, "electron"))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_PLUGIN_MANIFEST_INVALID,
                                                    _("Invalid or reserved plugin name “%s”"),
                                                    plugin ? plugin : "(null)"));
      return FALSE;
    }

  members = json_object_get_members (codes);

  /* Validate the whole batch before touching the table. */
  g_mutex_lock (&self->mutex);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *bare = l->data;
      JsonNode *spec_node = json_object_get_member (codes, bare);
      JsonObject *spec = JSON_NODE_HOLDS_OBJECT (spec_node) ? json_node_get_object (spec_node) : NULL;
      JsonNode *http_node = spec ? json_object_get_member (spec, "http") : NULL;
      JsonNode *retry_node = spec ? json_object_get_member (spec, "retryable") : NULL;
      JsonNode *hint_node = spec ? json_object_get_member (spec, "hint") : NULL;
      g_autofree char *name = g_strconcat (plugin, ".", bare, NULL);
      Entry *existing;
      Entry *entry;

      if (!is_identifier (bare, TRUE) ||
          http_node == NULL || json_node_get_value_type (http_node) != G_TYPE_INT64 ||
          json_node_get_int (http_node) < 100 || json_node_get_int (http_node) > 599 ||
          retry_node == NULL || json_node_get_value_type (retry_node) != G_TYPE_BOOLEAN ||
          hint_node == NULL || json_node_get_value_type (hint_node) != G_TYPE_STRING ||
          *json_node_get_string (hint_node) == '\0')
        {
          g_mutex_unlock (&self->mutex);
          g_propagate_error (error, stw_error_new_code (STW_ERROR_PLUGIN_MANIFEST_INVALID,
                                                        _("Plugin error code “%s” needs an UPPER_SNAKE name, an http status, a retryable flag and a hint"),
                                                        name));
          return FALSE;
        }

      entry = g_new0 (Entry, 1);
      entry->http = (guint) json_node_get_int (http_node);
      entry->retryable = json_node_get_boolean (retry_node);
      entry->hint = g_intern_string (json_node_get_string (hint_node));

      existing = g_hash_table_lookup (self->entries, name);
      if (existing != NULL &&
          (existing->http != entry->http || existing->retryable != entry->retryable ||
           g_strcmp0 (existing->hint, entry->hint) != 0))
        {
          entry_free (entry);
          g_mutex_unlock (&self->mutex);
          g_propagate_error (error, stw_error_new_code (STW_ERROR_PLUGIN_MANIFEST_INVALID,
                                                        _("Error code “%s” is already registered differently"),
                                                        name));
          return FALSE;
        }

      g_ptr_array_add (names, g_steal_pointer (&name));
      g_ptr_array_add (entries, entry);
    }

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      Entry *entry = g_steal_pointer (&entries->pdata[i]);
      Entry *existing = g_hash_table_lookup (self->entries, name);

      if (existing != NULL)
        {
          existing->refs++;
          entry_free (entry);
        }
      else
        {
          entry->refs = 1;
          g_hash_table_insert (self->entries, g_strdup (name), entry);
        }
    }
  g_mutex_unlock (&self->mutex);

  return TRUE;
}

/**
 * stw_error_registry_unregister_plugin_codes:
 * @self: the registry
 * @plugin: the plugin's name
 * @codes: the same object given to stw_error_registry_register_plugin_codes()
 *
 * Drops one reference to each of @plugin's codes; a code goes away with
 * its last reference.
 *
 * Since: 1.0
 */
void
stw_error_registry_unregister_plugin_codes (StwErrorRegistry *self,
                                            const char       *plugin,
                                            JsonObject       *codes)
{
  g_autoptr(GList) members = NULL;

  g_return_if_fail (STW_IS_ERROR_REGISTRY (self));
  g_return_if_fail (plugin != NULL);
  g_return_if_fail (codes != NULL);

  members = json_object_get_members (codes);

  g_mutex_lock (&self->mutex);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      g_autofree char *name = g_strconcat (plugin, ".", (const char *) l->data, NULL);
      Entry *entry = g_hash_table_lookup (self->entries, name);

      if (entry != NULL && --entry->refs == 0)
        g_hash_table_remove (self->entries, name);
    }
  g_mutex_unlock (&self->mutex);
}
