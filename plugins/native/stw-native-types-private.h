/* stw-native-types-private.h: making the native plugin's typed results
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-native.h"

G_BEGIN_DECLS

/* Fills a new StwNativeMenuItem, StwNativeTray or StwNativeNotification
 * from its entry of the main-process answer. */
void        _stw_native_view_set (gpointer    view,
                                  JsonObject *json);
/* A GListModel of @type, one per object of @array (may be NULL). */
GListModel *_stw_native_list_new (GType       type,
                                  JsonArray  *array);

G_END_DECLS
