/* stw-runtime.c: what the library finds at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-runtime.h"
#include "stw-soup-private.h"

/**
 * stw_dup_libsoup_version:
 * @error: `TRANSPORT_UNSUPPORTED`, with a hint saying what to install,
 *   when libsoup 3 cannot be loaded
 *
 * Loads libsoup 3 if it is not loaded yet and gives its version. The
 * library does not link libsoup: it opens it when first needed (the
 * Streamable HTTP transport and the connections to DevTools endpoints use
 * it), so a program that reports its environment (`electron_doctor`)
 * asks here whether it can be opened.
 *
 * Returns: (transfer full) (nullable): the version, `major.minor.micro`
 *
 * Since: 1.0
 */
char *
stw_dup_libsoup_version (GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!_stw_soup_load (error))
    return NULL;
  return g_strdup_printf ("%u.%u.%u", soup_get_major_version (), soup_get_minor_version (), soup_get_micro_version ());
}
