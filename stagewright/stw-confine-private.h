/* stw-confine-private.h: what the server lets a launched app touch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

char       *_stw_confine_path        (const char          *root,
                                      const char          *base_dir,
                                      const char          *path,
                                      const char          *argument,
                                      GError             **error);
gboolean    _stw_confine_args        (const char          *root,
                                      const char          *base_dir,
                                      const char * const  *args,
                                      GError             **error);
const char *_stw_confine_env_rule    (const char          *key,
                                      const char          *value);
gboolean    _stw_confine_env         (const char          *root,
                                      const char          *base_dir,
                                      GPtrArray           *keys,
                                      GPtrArray           *values,
                                      GError             **error);


G_END_DECLS
