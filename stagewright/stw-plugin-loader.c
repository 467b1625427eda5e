/* stw-plugin-loader.c: NAME.plugin files, the C loader and the language loaders
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "stw-error-registry.h"
#include "stw-process-private.h"
#include "stw-plugin-loader-private.h"
#include "stw-plugin-private.h"

/* A plugin is asked for by name or by the absolute path of its
 * `NAME.plugin` key file (libpeas's format, group [Plugin]). A name is
 * looked up as `DIR/NAME.plugin` in each directory of
 * STAGEWRIGHT_PLUGIN_PATH, then in the installed plugin directory; nothing
 * is ever scanned. The module sits beside the key file: `libMODULE.so` for
 * C (Loader absent or `c`), `MODULE.py` or a package directory for
 * `python3`, `MODULE.js` for `gjs`. */

#define GROUP "Plugin"

static char *
find_by_name (const char  *name,
              GError     **error)
{
  const char *env = g_getenv ("STAGEWRIGHT_PLUGIN_PATH");
  g_autoptr(GStrvBuilder) dirs = g_strv_builder_new ();
  g_auto(GStrv) searched = NULL;
  g_autofree char *file = g_strconcat (name, ".plugin", NULL);
  g_autofree char *list = NULL;
  g_autofree char *reason = NULL;

  if (env != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);

      for (guint i = 0; parts[i] != NULL; i++)
        if (parts[i][0] != '\0')
          g_strv_builder_add (dirs, parts[i]);
    }
  g_strv_builder_add (dirs, STW_PLUGINDIR);
  searched = g_strv_builder_end (dirs);

  for (guint i = 0; searched[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (searched[i], file, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }

  list = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, searched);
  reason = g_strdup_printf (_("no %s in %s"), file, list);
  *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
  return NULL;
}

/* Opens a C plugin's module and takes the plugin its entry point makes.
 * The module is never closed: the types it registered cannot go. */
static StwPlugin *
load_c_module (const char  *name,
               const char  *dir,
               const char  *module_name,
               GError     **error)
{
  g_autofree char *file = g_strconcat ("lib", module_name, ".so", NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  void *module;
  StwPluginModuleFunc entry;
  StwPlugin *plugin;

  /* dlopen rather than GModule: libgmodule would be one more library for
   * every start of the server to map, plugins or not. */
  module = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (module == NULL)
    {
      g_autofree char *reason = g_strdup_printf (_("cannot load its module: %s"), dlerror ());

      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
      return NULL;
    }
  entry = (StwPluginModuleFunc) dlsym (module, STW_PLUGIN_MODULE_ENTRY);
  if (entry == NULL)
    {
      g_autofree char *reason = g_strdup_printf (_("its module %s exports no %s()"), path,
                                                 STW_PLUGIN_MODULE_ENTRY);

      dlclose (module);
      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
      return NULL;
    }

  plugin = entry ();
  if (!STW_IS_PLUGIN (plugin))
    {
      g_autofree char *reason = g_strdup_printf (_("%s() returned no StwPlugin"), STW_PLUGIN_MODULE_ENTRY);

      if (G_IS_OBJECT (plugin))
        g_object_unref (plugin);
      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
      return NULL;
    }
  return plugin;
}

/* A language's loader module: $STAGEWRIGHT_LOADER_DIR, else the build
 * tree's when this code runs from the build tree (the tests), else the
 * installed one. */
static char *
find_loader (const char *loader)
{
  const char *env = g_getenv ("STAGEWRIGHT_LOADER_DIR");
  g_autofree char *file = g_strconcat ("lib", loader, "loader.so", NULL);
  Dl_info info;

  if (env != NULL && *env != '\0')
    return g_build_filename (env, file, NULL);
  if ((dladdr ((void *) find_loader, &info) != 0 && _stw_in_build_tree (info.dli_fname)) ||
      _stw_in_build_tree ("/proc/self/exe"))
    return g_build_filename (STW_ABS_BUILDDIR, "stagewright", "loaders", ".libs", file, NULL);
  return g_build_filename (STW_LOADERDIR, file, NULL);
}

/* Opens the loader of a Python or JavaScript plugin (once: dlopen hands
 * back the same module) and has it import the plugin. Loaders are opened
 * RTLD_GLOBAL: the interpreters' own extension modules (PyGObject's _gi)
 * resolve libpython's symbols in the global scope. Never closed: an
 * interpreter cannot be unloaded. */
static StwPlugin *
load_with_loader (const char    *name,
                  const char    *loader,
                  const char    *dir,
                  const char    *module_name,
                  GMainContext  *context,
                  GError       **error)
{
  g_autofree char *path = find_loader (loader);
  g_autoptr(GError) local = NULL;
  StwLoaderModuleFunc entry;
  StwPlugin *plugin;
  void *module;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *reason = g_strdup_printf (_("the %s loader is not installed (no %s)"), loader, path);

      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
      return NULL;
    }
  module = dlopen (path, RTLD_NOW | RTLD_GLOBAL);
  entry = module != NULL ? (StwLoaderModuleFunc) dlsym (module, STW_LOADER_MODULE_ENTRY) : NULL;
  if (entry == NULL)
    {
      g_autofree char *reason = g_strdup_printf (_("cannot load the %s loader: %s"), loader, dlerror ());

      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
      return NULL;
    }

  plugin = entry (module_name, dir, context, &local);
  if (plugin == NULL)
    {
      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name,
                                      local != NULL ? local->message : _("its loader returned no plugin"));
      return NULL;
    }
  if (!STW_IS_PLUGIN (plugin))
    {
      g_autofree char *reason = g_strdup_printf (_("its %s module made no Stagewright.Plugin"), loader);

      g_object_unref (plugin);
      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", name, reason);
      return NULL;
    }
  return plugin;
}

/* The plugin file is the authority on what it describes: the object fills
 * what it left unset from it, and must agree with what it set. */
static gboolean
reconcile (StwPlugin   *plugin,
           const char  *module_name,
           const char  *property,
           const char  *value,
           GError     **error)
{
  g_autofree char *have = NULL;

  if (value == NULL)
    return TRUE;
  g_object_get (plugin, property, &have, NULL);
  if (have == NULL)
    {
      g_object_set (plugin, property, value, NULL);
      return TRUE;
    }
  if (g_str_equal (have, value))
    return TRUE;
  {
    g_autofree char *reason = g_strdup_printf (_("its plugin file says %s “%s”, its module “%s”"),
                                               property, value, have);

    *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", module_name, reason);
  }
  return FALSE;
}

StwPlugin *
_stw_plugin_loader_load (const char    *spec,
                         GMainContext  *context,
                         GError       **error)
{
  g_autoptr(GKeyFile) keys = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autoptr(StwPlugin) plugin = NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *module_name = NULL;
  g_autofree char *loader = NULL;
  g_autofree char *version = NULL;
  g_autofree char *core = NULL;
  g_autofree char *description = NULL;
  const char *label = spec;

  g_return_val_if_fail (spec != NULL, NULL);

  if (strchr (spec, '/') != NULL)
    {
      if (!g_path_is_absolute (spec) || !g_str_has_suffix (spec, ".plugin"))
        {
          *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", spec,
                                          _("a plugin is a name or the absolute path of a .plugin file"));
          return NULL;
        }
      path = g_strdup (spec);
    }
  else if (!_stw_plugin_name_is_valid (spec))
    {
      *error = _stw_plugin_error_new ("PLUGIN_LOAD_FAILED", spec,
                                      _("a plugin's name matches ^[a-z][a-z0-9]*$ and is not “electron”"));
      return NULL;
    }
  else if ((path = find_by_name (spec, error)) == NULL)
    return NULL;

  if (!g_key_file_load_from_file (keys, path, G_KEY_FILE_NONE, &local))
    {
      g_autofree char *reason = g_strdup_printf (_("cannot read %s: %s"), path, local->message);

      *error = _stw_plugin_error_new (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                                      ? "PLUGIN_LOAD_FAILED" : "PLUGIN_MANIFEST_INVALID", label, reason);
      return NULL;
    }

  module_name = g_key_file_get_string (keys, GROUP, "Module", NULL);
  if (!_stw_plugin_name_is_valid (module_name))
    {
      g_autofree char *reason = g_strdup_printf (_("%s: [Plugin] Module must match ^[a-z][a-z0-9]*$ "
                                                   "and not be “electron”"), path);

      *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", label, reason);
      return NULL;
    }
  if (strchr (spec, '/') == NULL && !g_str_equal (module_name, spec))
    {
      g_autofree char *reason = g_strdup_printf (_("%s names the module “%s”"), path, module_name);

      *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", label, reason);
      return NULL;
    }
  label = module_name;

  version = g_key_file_get_string (keys, GROUP, "Version", NULL);
  core = g_key_file_get_string (keys, GROUP, "X-Stagewright-Core", NULL);
  if (version == NULL || *version == '\0' || core == NULL || *core == '\0')
    {
      g_autofree char *reason = g_strdup_printf (_("%s lacks [Plugin] %s"), path,
                                                 version == NULL || *version == '\0'
                                                 ? "Version" : "X-Stagewright-Core");

      *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", label, reason);
      return NULL;
    }
  if (!_stw_plugin_version_accepts (core, stw_plugin_get_core_version (), &local))
    {
      *error = _stw_plugin_error_new (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED)
                                      ? "PLUGIN_VERSION_MISMATCH" : "PLUGIN_MANIFEST_INVALID",
                                      label, local->message);
      return NULL;
    }

  loader = g_key_file_get_string (keys, GROUP, "Loader", NULL);
  if (loader != NULL && (g_str_equal (loader, "c") || g_str_equal (loader, "C")))
    g_clear_pointer (&loader, g_free);
  if (loader != NULL && !g_str_equal (loader, "python3") && !g_str_equal (loader, "gjs"))
    {
      g_autofree char *reason = g_strdup_printf (_("%s names the unknown loader “%s”"), path, loader);

      *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", label, reason);
      return NULL;
    }

  dir = g_path_get_dirname (path);
  if (loader != NULL)
    plugin = load_with_loader (label, loader, dir, module_name, context, error);
  else
    plugin = load_c_module (label, dir, module_name, error);
  if (plugin == NULL)
    return NULL;

  if (g_strcmp0 (stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)), module_name) != 0)
    {
      g_autofree char *reason = g_strdup_printf (_("its module makes a plugin named “%s”"),
                                                 stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)));

      *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", label, reason);
      return NULL;
    }
  description = g_key_file_get_locale_string (keys, GROUP, "Description", NULL, NULL);
  if (!reconcile (plugin, label, "version", version, error) ||
      !reconcile (plugin, label, "core-versions", core, error))
    return NULL;
  if (stw_plugin_get_description (plugin) == NULL && description != NULL)
    g_object_set (plugin, "description", description, NULL);
  g_object_set (plugin, "language", loader != NULL ? loader : "c", NULL);

  return g_steal_pointer (&plugin);
}
