/* stw-screenshot-private.h: what a capture reads of its options, and how it
 * answers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-screenshot.h"

G_BEGIN_DECLS

struct _StwScreenshotOptions
{
  StwImageFormat format;
  int            quality;     /* -1: the browser's default */
  gboolean       has_clip;
  double         clip[4];     /* x, y, width, height (CSS pixels) */
  StwTarget     *target;      /* an element to crop to */
  gboolean       full_page;
  guint          max_width;   /* 0: no limit */
  guint          max_height;
};

StwScreenshot *_stw_screenshot_new (GBytes         *bytes,
                                    guint           width,
                                    guint           height,
                                    StwImageFormat  format,
                                    double          scale_factor);

G_END_DECLS
