/* stw-soup.c: libsoup, opened when it is first needed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#define STW_SOUP_LINKED
#include "stw-soup-private.h"

#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include "stw-error-registry.h"

StwSoup _stw_soup;

static char *load_failure;

static gpointer
load_once (gpointer data G_GNUC_UNUSED)
{
  /* Resident: the table points into it for the life of the process. A
   * process that has libsoup already (a Python host using Soup) shares
   * its copy. */
  GModule *module = g_module_open (STW_SOUP_SONAME, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  StwSoup table = { 0 };

  if (module == NULL)
    {
      load_failure = g_strdup (g_module_error ());
      return NULL;
    }
#define STW_SOUP_RESOLVE(name) \
  if (!g_module_symbol (module, #name, (gpointer *) &table.name) || table.name == NULL) \
    { \
      load_failure = g_strdup_printf ("%s has no %s", STW_SOUP_SONAME, #name); \
      g_module_close (module); \
      return NULL; \
    }
  STW_SOUP_ENTRY_POINTS (STW_SOUP_RESOLVE)
#undef STW_SOUP_RESOLVE

  g_module_make_resident (module);
  _stw_soup = table;
  return GINT_TO_POINTER (TRUE);
}

/**
 * _stw_soup_load:
 * @error: `TRANSPORT_UNSUPPORTED` naming what is missing
 *
 * Opens libsoup and fills the table of its entry points, once per
 * process; every later call answers at once.
 *
 * Returns: whether libsoup can be called
 */
gboolean
_stw_soup_load (GError **error)
{
  static GOnce once = G_ONCE_INIT;

  if (g_once (&once, load_once, NULL) != NULL)
    return TRUE;

  {
    GError *failure = stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED, _("libsoup 3 cannot be loaded: %s"),
                                          load_failure);

    stw_error_set_hint (failure, _("Install libsoup 3 (Debian: libsoup-3.0-0); the HTTP transport and "
                                   "the connections to DevTools endpoints need it."));
    g_propagate_error (error, failure);
  }
  return FALSE;
}
