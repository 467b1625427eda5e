/* fuzz-png.c: fuzz target for the visual plugin's PNG decoder
 *
 * The input is a PNG file (a baseline anyone may have written into the
 * baseline directory). Oracles besides "no crash, no leak": a decoded
 * image is at most 4096 pixels (the budget given), its size is the one
 * its header declares; a header over the budget is refused as too large
 * before decoding; and what was decoded, encoded again, decodes to the
 * same pixels.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "fuzz.h"
#include "visual-image.h"

#define BUDGET 4096

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(VisualImage) image = NULL;
  g_autoptr(VisualImage) again = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GError) error = NULL;
  guint width = 0, height = 0;
  gboolean has_header;

  fuzz_init ();

  has_header = _stw_visual_image_png_size (data, size, &width, &height);
  image = _stw_visual_image_decode_png (data, size, BUDGET, &error);
  if (image == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == G_IO_ERROR);
      if (has_header && width > 0 && height > 0 && (guint64) width * height > BUDGET)
        g_assert_cmpint (error->code, ==, G_IO_ERROR_NO_SPACE);
      else
        g_assert_cmpint (error->code, ==, G_IO_ERROR_INVALID_DATA);
      return 0;
    }

  g_assert_true (has_header);
  g_assert_cmpuint (image->width, ==, width);
  g_assert_cmpuint (image->height, ==, height);
  g_assert_cmpuint ((guint64) width * height, <=, BUDGET);

  png = _stw_visual_image_encode_png (image, &error);
  g_assert_no_error (error);
  again = _stw_visual_image_decode_png (g_bytes_get_data (png, NULL), g_bytes_get_size (png), BUDGET, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (again->pixels, (gsize) width * height * 4, image->pixels, (gsize) width * height * 4);
  return 0;
}
