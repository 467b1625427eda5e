/* stw-loader-gjs.c: the loader of JavaScript plugins (libgjsloader.so)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Embeds GJS through its public C API. GJS allows one GjsContext per
 * process: in a GJS host the host's is shared; otherwise one is made on
 * the dispatcher's main context (its promise jobs run there) the first
 * time a JavaScript plugin is asked for, and kept for the life of the
 * process (JS objects, their GTypes and modules never go; JS cannot run
 * during finalization, which is why a plugin's teardown is an explicit
 * call). bootstrap.js, built into this module, imports NAME.js beside the
 * .plugin file as an ES module and reports the plugin — or the reason it
 * failed — back explicitly (see bootstrap.js): gjs_context_eval() of a
 * rejected import() still succeeds.
 */
#include "config.h"

#include <gjs/gjs.h>
#include <glib/gi18n-lib.h>

#include "stagewright.h"
#include "stw-plugin-loader-private.h"

#include "stw-loader-gjs-bootstrap.h"

#define REPORT_TIMEOUT_S 60

StwPlugin *stw_loader_module_load (const char    *module,
                                   const char    *dir,
                                   GMainContext  *context,
                                   GError       **error);

static GjsContext *js;          /* ours or the host's, never released */
static gboolean    js_owned;    /* made here: the server's rules apply */

typedef struct
{
  StwPlugin *plugin;            /* what the bootstrap reported */
  gboolean   timed_out;
} Report;

/* items-changed of a GListStore of StwPlugin holding one, while a plugin
 * loads: the bootstrap's report. */
static gboolean
on_report (GSignalInvocationHint *hint,
           guint                  n_values,
           const GValue          *values,
           gpointer               user_data)
{
  Report *report = user_data;
  GObject *object = n_values > 0 ? g_value_get_object (&values[0]) : NULL;

  if (report->plugin == NULL && G_IS_LIST_STORE (object) &&
      g_list_model_get_item_type (G_LIST_MODEL (object)) == STW_TYPE_PLUGIN &&
      g_list_model_get_n_items (G_LIST_MODEL (object)) == 1)
    report->plugin = g_list_model_get_item (G_LIST_MODEL (object), 0);
  return TRUE;
}

static gboolean
on_timeout (gpointer user_data)
{
  Report *report = user_data;

  report->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
ensure_context (GMainContext  *context,
                GError       **error)
{
  int status = 0;

  if (js != NULL)
    return TRUE;

  js = gjs_context_get_current ();
  if (js != NULL)
    g_object_ref (js);  /* a GJS host: its context, its rules */
  else
    {
      /* GJS's promise-job source attaches to the thread-default context
       * of this moment: the dispatcher's. */
      g_main_context_push_thread_default (context);
      js = gjs_context_new ();
      g_main_context_pop_thread_default (context);
      js_owned = TRUE;
    }

  if (!gjs_context_eval (js, stw_loader_gjs_bootstrap, -1, "stagewright-plugin-bootstrap.js", &status, error))
    {
      g_prefix_error (error, _("the JavaScript plugin bootstrap failed: "));
      return FALSE;
    }
  return TRUE;
}

/**
 * stw_loader_module_load: (skip)
 *
 * The loader's entry point (%STW_LOADER_MODULE_ENTRY).
 */
StwPlugin *
stw_loader_module_load (const char    *module,
                        const char    *dir,
                        GMainContext  *context,
                        GError       **error)
{
  g_autofree char *file = g_strconcat (module, ".js", NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *uri = NULL;
  g_autofree char *uri_literal = NULL;
  g_autofree char *script = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GSource) timeout = NULL;
  Report report = { NULL, FALSE };
  gulong hook;
  guint items_changed;
  int status = 0;
  gboolean evaluated;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("no %s in %s"), file, dir);
      return NULL;
    }
  if (!ensure_context (context, error))
    return NULL;

  uri = g_filename_to_uri (path, NULL, error);
  if (uri == NULL)
    return NULL;
  node = json_node_init_string (json_node_alloc (), uri);
  uri_literal = json_to_string (node, FALSE);
  script = g_strdup_printf ("__stagewrightLoader.load(%s, %s);", uri_literal, js_owned ? "true" : "false");

  items_changed = g_signal_lookup ("items-changed", G_TYPE_LIST_MODEL);
  hook = g_signal_add_emission_hook (items_changed, 0, on_report, &report, NULL);
  g_main_context_push_thread_default (context);
  evaluated = gjs_context_eval (js, script, -1, "stagewright-plugin-load.js", &status, error);
  /* The import settles on the main context; a module whose top-level
   * await never settles fails after a while rather than never. */
  timeout = g_timeout_source_new_seconds (REPORT_TIMEOUT_S);
  g_source_set_callback (timeout, on_timeout, &report, NULL);
  g_source_attach (timeout, context);
  while (evaluated && report.plugin == NULL && !report.timed_out)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timeout);
  g_main_context_pop_thread_default (context);
  g_signal_remove_emission_hook (items_changed, hook);

  if (!evaluated)
    {
      g_clear_object (&report.plugin);
      return NULL;
    }
  if (report.plugin == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                   _("its module did not finish loading within %d s"), REPORT_TIMEOUT_S);
      return NULL;
    }
  if (stw_tool_provider_get_name (STW_TOOL_PROVIDER (report.plugin)) == NULL)
    {
      /* The bootstrap's report of a failure: the reason, in the description. */
      const char *reason = stw_plugin_get_description (report.plugin);

      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           reason != NULL ? reason : _("its module failed to load"));
      g_clear_object (&report.plugin);
      return NULL;
    }
  gjs_context_maybe_gc (js);
  return report.plugin;
}
