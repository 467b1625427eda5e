/* visual-image.h: RGBA images, PNG in and out, and their comparison
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Private to the visual plugin (its tests and fuzz target compile it in).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Neither side of a decoded image may exceed this, whatever the pixel
 * budget: libpng's own limit, set explicitly. */
#define VISUAL_IMAGE_MAX_SIDE 65535

typedef struct
{
  guint   width;
  guint   height;
  guint8 *pixels;   /* width × height × 4 bytes, RGBA, 8 bits each */
} VisualImage;

typedef struct
{
  guint64 mismatched;    /* pixels that differ beyond the threshold */
  guint64 anti_aliased;  /* pixels that differ but are anti-aliasing */
  guint64 total;         /* pixels compared */
} VisualCounts;

VisualImage  *_stw_visual_image_new        (guint               width,
                                           guint               height);
void          _stw_visual_image_free       (VisualImage        *image);
gboolean      _stw_visual_image_png_size   (const guint8       *data,
                                           gsize               size,
                                           guint              *width,
                                           guint              *height);
VisualImage  *_stw_visual_image_decode_png (const guint8       *data,
                                           gsize               size,
                                           guint64             max_pixels,
                                           GError            **error);
GBytes       *_stw_visual_image_encode_png (const VisualImage  *image,
                                           GError            **error);
VisualImage  *_stw_visual_image_pad        (const VisualImage  *image,
                                           guint               width,
                                           guint               height);
VisualCounts  _stw_visual_image_compare    (const VisualImage  *expected,
                                           const VisualImage  *actual,
                                           double              threshold,
                                           gboolean            include_anti_aliased,
                                           VisualImage        *diff);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (VisualImage, _stw_visual_image_free)

G_END_DECLS
