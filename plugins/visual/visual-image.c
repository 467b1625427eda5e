/* visual-image.c: RGBA images, PNG in and out, and their comparison
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Decoding takes hostile input (a baseline anyone could have written into
 * the baseline directory): the size is read from the header and bounded
 * before a pixel is allocated, libpng's errors come back through setjmp
 * with everything freed, and its ancillary chunks are capped.
 *
 * The comparison is the one the pixelmatch library describes (Mapbox,
 * ISC; written here from its description, not its source): pixels differ
 * when their distance in the YIQ colour space, weighted as Kotsarenko and
 * Ramos propose ("Measuring perceived color difference using YIQ NTSC
 * transmission color space in mobile applications", 2010), exceeds
 * threshold² of the largest possible distance; a differing pixel is
 * anti-aliasing, not a change, when among its eight neighbours it has
 * both a darker and a brighter one, at most two of equal brightness, and
 * the darkest or the brightest of them sits in a flat area (three or more
 * identical neighbours) in both images — the signature of an edge drawn
 * a subpixel off (Vysniauskas, "Anti-aliased pixel and intensity slope
 * detector", 2009).
 */
#include "config.h"

#include <gio/gio.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <string.h>

#include "visual-image.h"

/* The largest YIQ distance: between black and white. */
#define MAX_YIQ_DELTA 35215.0

/* Ancillary chunks (iCCP, zTXt, …) are not wanted: none may make libpng
 * allocate more than this. */
#define MAX_CHUNK_BYTES (1024 * 1024)

VisualImage *
_stw_visual_image_new (guint width,
                       guint height)
{
  VisualImage *image = g_new0 (VisualImage, 1);

  image->width = width;
  image->height = height;
  image->pixels = g_malloc0_n ((gsize) width * height, 4);
  return image;
}

void
_stw_visual_image_free (VisualImage *image)
{
  if (image == NULL)
    return;
  g_free (image->pixels);
  g_free (image);
}

static guint32
read_be32 (const guint8 *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

/* The size a PNG's header declares, read without libpng: the signature,
 * then the IHDR chunk, which must come first. */
gboolean
_stw_visual_image_png_size (const guint8 *data,
                            gsize         size,
                            guint        *width,
                            guint        *height)
{
  if (size < 24 || png_sig_cmp (data, 0, 8) != 0 || memcmp (data + 12, "IHDR", 4) != 0)
    return FALSE;
  *width = read_be32 (data + 16);
  *height = read_be32 (data + 20);
  return TRUE;
}

typedef struct
{
  const guint8 *data;
  gsize         size;
  gsize         offset;
} Reader;

static void
read_data (png_structp png,
           png_bytep   out,
           png_size_t  length)
{
  Reader *reader = png_get_io_ptr (png);

  if (length > reader->size - reader->offset)
    png_error (png, "truncated");
  memcpy (out, reader->data + reader->offset, length);
  reader->offset += length;
}

/* libpng's error handler: keep the message, unwind to the setjmp. */
static void
on_png_error (png_structp     png,
              png_const_charp message)
{
  char *kept = png_get_error_ptr (png);

  g_strlcpy (kept, message, 128);
  png_longjmp (png, 1);
}

static void
on_png_warning (png_structp     png,
                png_const_charp message)
{
}

/* Decodes @data (a PNG of any colour type and depth) to 8-bit RGBA.
 * G_IO_ERROR_NO_SPACE when it has more than @max_pixels pixels (found
 * before any pixel is allocated), G_IO_ERROR_INVALID_DATA when it is not
 * a PNG libpng reads. */
VisualImage *
_stw_visual_image_decode_png (const guint8  *data,
                              gsize          size,
                              guint64        max_pixels,
                              GError       **error)
{
  Reader reader = { data, size, 0 };
  char message[128] = "";
  png_structp png;
  png_infop info;
  /* Set after the setjmp and freed by its handler: volatile, or the
   * longjmp may restore stale values. */
  VisualImage *volatile image = NULL;
  png_bytep *volatile rows = NULL;
  png_uint_32 width, height;
  int depth, colour, interlace;
  guint declared_width, declared_height;

  if (!_stw_visual_image_png_size (data, size, &declared_width, &declared_height))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Not a PNG image");
      return NULL;
    }
  if (declared_width == 0 || declared_height == 0 ||
      declared_width > VISUAL_IMAGE_MAX_SIDE || declared_height > VISUAL_IMAGE_MAX_SIDE ||
      (guint64) declared_width * declared_height > max_pixels)
    {
      g_set_error (error, G_IO_ERROR, declared_width == 0 || declared_height == 0 ? G_IO_ERROR_INVALID_DATA : G_IO_ERROR_NO_SPACE,
                   "The image is %u × %u pixels; at most %" G_GUINT64_FORMAT " pixels (and %u a side) are read",
                   declared_width, declared_height, max_pixels, (guint) VISUAL_IMAGE_MAX_SIDE);
      return NULL;
    }

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, message, on_png_error, on_png_warning);
  if (png == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "libpng could not start");
      return NULL;
    }
  info = png_create_info_struct (png);
  if (info == NULL)
    {
      png_destroy_read_struct (&png, NULL, NULL);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "libpng could not start");
      return NULL;
    }
  if (setjmp (png_jmpbuf (png)))
    {
      png_destroy_read_struct (&png, &info, NULL);
      g_free (rows);
      _stw_visual_image_free (image);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Not a PNG image libpng reads: %s",
                   *message ? message : "out of memory");
      return NULL;
    }

  png_set_read_fn (png, &reader, read_data);
  png_set_user_limits (png, VISUAL_IMAGE_MAX_SIDE, VISUAL_IMAGE_MAX_SIDE);
  png_set_chunk_cache_max (png, 128);
  png_set_chunk_malloc_max (png, MAX_CHUNK_BYTES);
  png_read_info (png, info);
  png_get_IHDR (png, info, &width, &height, &depth, &colour, &interlace, NULL, NULL);
  /* The header read above is the one libpng read: checked again all the
   * same, since the pixels are allocated from these. */
  if (width != declared_width || height != declared_height)
    png_error (png, "inconsistent header");

  png_set_expand (png);  /* palette to RGB, low depths to 8 bits, tRNS to alpha */
  png_set_strip_16 (png);
  png_set_gray_to_rgb (png);
  if ((colour & PNG_COLOR_MASK_ALPHA) == 0 && !png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_add_alpha (png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling (png);
  png_read_update_info (png, info);
  if (png_get_rowbytes (png, info) != (png_size_t) width * 4)
    png_error (png, "unexpected row size");

  image = _stw_visual_image_new (width, height);
  rows = g_new (png_bytep, height);
  for (guint y = 0; y < height; y++)
    rows[y] = image->pixels + (gsize) y * width * 4;
  png_read_image (png, rows);
  png_read_end (png, NULL);

  png_destroy_read_struct (&png, &info, NULL);
  g_free (rows);
  return image;
}

static void
write_data (png_structp png,
            png_bytep   data,
            png_size_t  length)
{
  g_byte_array_append (png_get_io_ptr (png), data, (guint) length);
}

static void
flush_data (png_structp png)
{
}

GBytes *
_stw_visual_image_encode_png (const VisualImage  *image,
                              GError            **error)
{
  char message[128] = "";
  GByteArray *volatile out = g_byte_array_new ();
  png_bytep *volatile rows = NULL;
  png_structp png;
  png_infop info;

  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, message, on_png_error, on_png_warning);
  info = png ? png_create_info_struct (png) : NULL;
  if (info == NULL)
    {
      png_destroy_write_struct (&png, NULL);
      g_byte_array_unref (out);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "libpng could not start");
      return NULL;
    }
  if (setjmp (png_jmpbuf (png)))
    {
      png_destroy_write_struct (&png, &info);
      g_free (rows);
      g_byte_array_unref (out);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot encode the PNG: %s",
                   *message ? message : "out of memory");
      return NULL;
    }
  png_set_write_fn (png, out, write_data, flush_data);
  /* Diffs are mostly flat: a fast level loses little. */
  png_set_compression_level (png, 3);
  png_set_IHDR (png, info, image->width, image->height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  rows = g_new (png_bytep, image->height);
  for (guint y = 0; y < image->height; y++)
    rows[y] = image->pixels + (gsize) y * image->width * 4;
  png_write_image (png, rows);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  g_free (rows);
  return g_byte_array_free_to_bytes (out);
}

/* @image on a transparent canvas of @width × @height (each at least the
 * image's): images of two sizes compare over the larger. */
VisualImage *
_stw_visual_image_pad (const VisualImage *image,
                       guint              width,
                       guint              height)
{
  VisualImage *padded = _stw_visual_image_new (width, height);

  for (guint y = 0; y < image->height; y++)
    memcpy (padded->pixels + (gsize) y * width * 4, image->pixels + (gsize) y * image->width * 4,
            (gsize) image->width * 4);
  return padded;
}

/* --- the comparison ------------------------------------------------------ */

/* A channel of a translucent pixel as seen over white. */
static inline double
over_white (double channel,
            double alpha)
{
  return 255.0 + (channel - 255.0) * alpha;
}

static inline double
luma (double r, double g, double b)
{
  return r * 0.29889531 + g * 0.58662247 + b * 0.11448223;
}

static inline double
in_phase (double r, double g, double b)
{
  return r * 0.59597799 - g * 0.27417610 - b * 0.32180189;
}

static inline double
quadrature (double r, double g, double b)
{
  return r * 0.21147017 - g * 0.52261711 + b * 0.31114694;
}

/* The YIQ distance of two RGBA pixels, negative when the second is the
 * brighter; with @luma_only, the signed difference of brightness alone. */
static double
colour_delta (const guint8 *p,
              const guint8 *q,
              gboolean      luma_only)
{
  double r1 = p[0], g1 = p[1], b1 = p[2];
  double r2 = q[0], g2 = q[1], b2 = q[2];
  double y1, y2, dy, di, dq, delta;

  if (p[3] < 255)
    {
      double a = p[3] / 255.0;

      r1 = over_white (r1, a);
      g1 = over_white (g1, a);
      b1 = over_white (b1, a);
    }
  if (q[3] < 255)
    {
      double a = q[3] / 255.0;

      r2 = over_white (r2, a);
      g2 = over_white (g2, a);
      b2 = over_white (b2, a);
    }

  y1 = luma (r1, g1, b1);
  y2 = luma (r2, g2, b2);
  dy = y1 - y2;
  if (luma_only)
    return dy;
  di = in_phase (r1, g1, b1) - in_phase (r2, g2, b2);
  dq = quadrature (r1, g1, b1) - quadrature (r2, g2, b2);
  delta = 0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq;
  return y1 > y2 ? -delta : delta;
}

static inline const guint8 *
pixel_at (const VisualImage *image,
          guint              x,
          guint              y)
{
  return image->pixels + ((gsize) y * image->width + x) * 4;
}

/* The neighbourhood of (x, y), clipped to the image. */
typedef struct
{
  guint x0, y0, x1, y1;
  gboolean on_edge;
} Around;

static Around
around (const VisualImage *image,
        guint              x,
        guint              y)
{
  Around a;

  a.x0 = x > 0 ? x - 1 : 0;
  a.y0 = y > 0 ? y - 1 : 0;
  a.x1 = x + 1 < image->width ? x + 1 : x;
  a.y1 = y + 1 < image->height ? y + 1 : y;
  a.on_edge = x == a.x0 || x == a.x1 || y == a.y0 || y == a.y1;
  return a;
}

/* Whether (x, y) sits in a flat area: more than two of its neighbours are
 * identical to it (a pixel on the image's edge counts one already). */
static gboolean
in_flat_area (const VisualImage *image,
              guint              x,
              guint              y)
{
  Around a = around (image, x, y);
  const guint8 *centre = pixel_at (image, x, y);
  guint same = a.on_edge ? 1 : 0;

  for (guint ny = a.y0; ny <= a.y1; ny++)
    for (guint nx = a.x0; nx <= a.x1; nx++)
      {
        if (nx == x && ny == y)
          continue;
        if (memcmp (centre, pixel_at (image, nx, ny), 4) == 0 && ++same > 2)
          return TRUE;
      }
  return FALSE;
}

/* Whether (x, y) of @image looks like anti-aliasing against @other (see
 * the top of the file). */
static gboolean
anti_aliased (const VisualImage *image,
              const VisualImage *other,
              guint              x,
              guint              y)
{
  Around a = around (image, x, y);
  const guint8 *centre = pixel_at (image, x, y);
  guint same = a.on_edge ? 1 : 0;
  double darkest = 0, brightest = 0;
  guint dark_x = 0, dark_y = 0, bright_x = 0, bright_y = 0;

  for (guint ny = a.y0; ny <= a.y1; ny++)
    for (guint nx = a.x0; nx <= a.x1; nx++)
      {
        double delta;

        if (nx == x && ny == y)
          continue;
        delta = colour_delta (centre, pixel_at (image, nx, ny), TRUE);
        if (delta == 0)
          {
            if (++same > 2)
              return FALSE;
          }
        else if (delta < darkest)
          {
            darkest = delta;
            dark_x = nx;
            dark_y = ny;
          }
        else if (delta > brightest)
          {
            brightest = delta;
            bright_x = nx;
            bright_y = ny;
          }
      }

  /* An edge has a neighbour on either side of the pixel's brightness. */
  if (darkest == 0 || brightest == 0)
    return FALSE;
  return (in_flat_area (image, dark_x, dark_y) && in_flat_area (other, dark_x, dark_y)) ||
         (in_flat_area (image, bright_x, bright_y) && in_flat_area (other, bright_x, bright_y));
}

static inline void
paint (VisualImage *diff,
       guint        x,
       guint        y,
       guint8       r,
       guint8       g,
       guint8       b)
{
  guint8 *p = diff->pixels + ((gsize) y * diff->width + x) * 4;

  p[0] = r;
  p[1] = g;
  p[2] = b;
  p[3] = 255;
}

/* Compares two images of the same size. @threshold (0 to 1) is how far
 * apart two colours may be and still match; anti-aliased pixels are
 * counted apart (or as mismatches with @include_anti_aliased). @diff, of
 * the same size when given, shows the expected image faded, mismatches in
 * red and anti-aliasing in yellow. */
VisualCounts
_stw_visual_image_compare (const VisualImage *expected,
                           const VisualImage *actual,
                           double             threshold,
                           gboolean           include_anti_aliased,
                           VisualImage       *diff)
{
  VisualCounts counts = { 0, 0, (guint64) expected->width * expected->height };
  double max_delta = MAX_YIQ_DELTA * threshold * threshold;

  g_return_val_if_fail (expected->width == actual->width && expected->height == actual->height, counts);
  g_return_val_if_fail (diff == NULL || (diff->width == expected->width && diff->height == expected->height), counts);

  for (guint y = 0; y < expected->height; y++)
    for (guint x = 0; x < expected->width; x++)
      {
        const guint8 *p = pixel_at (expected, x, y);
        const guint8 *q = pixel_at (actual, x, y);

        if (memcmp (p, q, 4) != 0 && fabs (colour_delta (p, q, FALSE)) > max_delta)
          {
            if (!include_anti_aliased &&
                (anti_aliased (expected, actual, x, y) || anti_aliased (actual, expected, x, y)))
              {
                counts.anti_aliased++;
                if (diff != NULL)
                  paint (diff, x, y, 255, 255, 0);
              }
            else
              {
                counts.mismatched++;
                if (diff != NULL)
                  paint (diff, x, y, 255, 0, 0);
              }
          }
        else if (diff != NULL)
          {
            double a = p[3] / 255.0;
            double faded = over_white (luma (over_white (p[0], a), over_white (p[1], a), over_white (p[2], a)), 0.1);
            guint8 v = (guint8) CLAMP (faded, 0, 255);

            paint (diff, x, y, v, v, v);
          }
      }
  return counts;
}
