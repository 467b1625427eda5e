/* stw-launch-options-private.h: what the session manager reads of launch options
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-launch-options.h"

G_BEGIN_DECLS

void _stw_launch_options_get_env (StwLaunchOptions  *self,
                                  GPtrArray        **keys,
                                  GPtrArray        **values);

G_END_DECLS
