/* test-plugin-error-domains.c: each first-party plugin's error domain
 * against the codes it registers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plugin's Stw<Name>Error enum is what Python and GJS see of its codes,
 * so it must match them exactly: every value is a code the plugin
 * registers, in the order it registers them, and every code it registers
 * in the dispatcher's registry is a value. An error made by wire name lands
 * in the plugin's domain with that value, and one made from the domain and
 * value (what a binding hands back) answers the wire name.
 */
#include <string.h>

#include <stw-a11y.h>
#include <stw-clock.h>
#include <stw-ipc.h>
#include <stw-native.h>
#include <stw-network.h>
#include <stw-production.h>
#include <stw-storage.h>
#include <stw-visual.h>

#include "stw-test-utils.h"

typedef struct
{
  const char *name;
  gpointer    (*plugin_new) (void);
  GType       (*code_type) (void);
  GQuark      (*domain) (void);
} PluginDomain;

static const PluginDomain plugins[] = {
  { "a11y", (gpointer (*) (void)) stw_a11y_plugin_new, stw_a11y_error_get_type, stw_a11y_error_quark },
  { "ipc", (gpointer (*) (void)) stw_ipc_plugin_new, stw_ipc_error_get_type, stw_ipc_error_quark },
  { "native", (gpointer (*) (void)) stw_native_plugin_new, stw_native_error_get_type, stw_native_error_quark },
  { "clock", (gpointer (*) (void)) stw_clock_plugin_new, stw_clock_error_get_type, stw_clock_error_quark },
  { "visual", (gpointer (*) (void)) stw_visual_plugin_new, stw_visual_error_get_type, stw_visual_error_quark },
  { "production", (gpointer (*) (void)) stw_production_plugin_new, stw_production_error_get_type, stw_production_error_quark },
  { "storage", (gpointer (*) (void)) stw_storage_plugin_new, stw_storage_error_get_type, stw_storage_error_quark },
  { "network", (gpointer (*) (void)) stw_network_plugin_new, stw_network_error_get_type, stw_network_error_quark },
};

/* The wire code of @value: its nick in upper case, dashes as underscores. */
static char *
wire_code (const char       *plugin,
           const GEnumValue *value)
{
  g_autofree char *bare = g_ascii_strup (value->value_nick, -1);

  return g_strconcat (plugin, ".", g_strdelimit (bare, "-", '_'), NULL);
}

static void
test_domain (gconstpointer data)
{
  const PluginDomain *p = data;
  g_autoptr(StwPlugin) plugin = p->plugin_new ();
  g_autoptr(GEnumClass) codes = g_type_class_ref (p->code_type ());
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GList) plugins_list = g_list_prepend (NULL, plugin);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) registered = NULL;
  g_autofree char *prefix = g_strconcat (p->name, ".", NULL);
  g_autofree char *quark_name = g_strdup_printf ("stw-%s-error-quark", p->name);
  JsonObject *provided = stw_tool_provider_get_error_codes (STW_TOOL_PROVIDER (plugin));
  g_autoptr(GList) provided_names = json_object_get_members (provided);
  GQuark domain = p->domain ();
  guint n_registered = 0;
  gboolean added;
  GList *l;

  /* Making the plugin registered its domain (its class_init). */
  g_assert_cmpstr (g_quark_to_string (domain), ==, quark_name);
  g_assert_true (stw_error_domain_is_registered (domain));
  g_assert_cmpuint (stw_error_register_domain (p->name, p->code_type ()), ==, domain);

  /* The values are the codes the plugin declares, in its order. */
  g_assert_cmpuint (codes->n_values, ==, g_list_length (provided_names));
  l = provided_names;
  for (guint i = 0; i < codes->n_values; i++, l = l->next)
    {
      g_autofree char *expected = g_strconcat (prefix, l->data, NULL);
      g_autofree char *code = wire_code (p->name, &codes->values[i]);

      g_assert_cmpint (codes->values[i].value, ==, i);
      g_assert_cmpstr (code, ==, expected);
    }

  added = stw_dispatcher_add_plugins_sync (dispatcher, plugins_list, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (added);

  /* Every value is a registered code, made in the domain by its name and
   * named from the domain alone. */
  for (guint i = 0; i < codes->n_values; i++)
    {
      g_autofree char *code = wire_code (p->name, &codes->values[i]);
      g_autoptr(GError) made = NULL;
      g_autoptr(GError) bound = NULL;

      g_assert_true (stw_error_registry_contains (stw_error_registry_get_default (), code));
      made = stw_error_new_literal (code, NULL);
      g_assert_error (made, domain, codes->values[i].value);
      g_assert_cmpstr (stw_error_get_code_name (made), ==, code);
      bound = g_error_new_literal (domain, codes->values[i].value, "from a binding");
      g_assert_cmpstr (stw_error_get_code_name (bound), ==, code);
    }

  /* Every code the plugin registered is a value. */
  registered = stw_error_registry_list_codes (stw_error_registry_get_default ());
  for (guint i = 0; registered[i] != NULL; i++)
    {
      g_autofree char *nick = NULL;

      if (!g_str_has_prefix (registered[i], prefix))
        continue;
      n_registered++;
      nick = g_ascii_strdown (registered[i] + strlen (prefix), -1);
      g_strdelimit (nick, "_", '-');
      if (g_enum_get_value_by_nick (codes, nick) == NULL)
        g_error ("%s is registered but has no value in %s", registered[i], g_type_name (p->code_type ()));
    }
  g_assert_cmpuint (n_registered, ==, codes->n_values);

  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
}

/* A visual plugin in no dispatcher, its codes registered by none: its
 * refusal is still in its domain, with its wire code. */
static void
test_visual_unloaded (void)
{
  g_autoptr(StwVisualPlugin) plugin = stw_visual_plugin_new ();
  g_autoptr(StwVisualCapture) updated = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "visual.UNSUPPORTED"));
  updated = stw_visual_plugin_update_baseline_sync (plugin, "label", NULL, &error);
  g_assert_null (updated);
  g_assert_error (error, STW_VISUAL_ERROR, STW_VISUAL_ERROR_UNSUPPORTED);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "visual.UNSUPPORTED");
}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (plugins); i++)
    {
      g_autofree char *path = g_strdup_printf ("/plugin-error-domains/%s", plugins[i].name);

      g_test_add_data_func (path, &plugins[i], test_domain);
    }

  g_test_add_func ("/plugin-error-domains/visual-unloaded", test_visual_unloaded);

  return g_test_run ();
}
