/* stw-read-private.h: where a frame's viewport lies in its window's
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-surface-private.h"

G_BEGIN_DECLS

/* The offset of @self's viewport in the viewport of its root surface (the
 * window or webview holding it, itself when it is one): the sum, over each
 * frame up to the root, of its owner element's content box in the parent
 * frame's viewport (docs/page-ops.md, "Coordinates and input"). The
 * finish function answers the root (transfer full). */
void        _stw_surface_frame_offset_async  (StwSurface          *self,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
StwSurface *_stw_surface_frame_offset_finish (StwSurface    *self,
                                              GAsyncResult  *result,
                                              double        *x,
                                              double        *y,
                                              GError       **error);

G_END_DECLS
