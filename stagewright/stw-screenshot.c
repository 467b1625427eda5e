/* stw-screenshot.c: screenshots, what they capture and where they go
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The capture itself is a page operation of StwSurface (stw-surface.c);
 * this file holds what it is asked for (StwScreenshotOptions), what it
 * answers (StwScreenshot) and the rule of where a screenshot file goes.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

#include "stw-confine-private.h"
#include "stw-enum-types.h"
#include "stw-error-registry.h"
#include "stw-screenshot-private.h"
/* _stw_path_is_inside(), until it moves to stw-confine.c (issue 18 item 6). */

/* --- StwScreenshotOptions ------------------------------------------------ */

G_DEFINE_BOXED_TYPE (StwScreenshotOptions, stw_screenshot_options,
                     stw_screenshot_options_copy, stw_screenshot_options_free)

/**
 * stw_screenshot_options_new:
 *
 * Options for the visible viewport, as PNG.
 *
 * Returns: (transfer full): new options
 *
 * Since: 1.0
 */
StwScreenshotOptions *
stw_screenshot_options_new (void)
{
  StwScreenshotOptions *options = g_new0 (StwScreenshotOptions, 1);

  options->format = STW_IMAGE_FORMAT_PNG;
  options->quality = -1;
  return options;
}

/**
 * stw_screenshot_options_copy:
 * @options: a #StwScreenshotOptions
 *
 * Copies screenshot options.
 *
 * Returns: (transfer full): a copy of @options
 *
 * Since: 1.0
 */
StwScreenshotOptions *
stw_screenshot_options_copy (const StwScreenshotOptions *options)
{
  StwScreenshotOptions *copy;

  g_return_val_if_fail (options != NULL, NULL);

  copy = g_memdup2 (options, sizeof *options);
  copy->target = options->target ? stw_target_copy (options->target) : NULL;
  return copy;
}

/**
 * stw_screenshot_options_free:
 * @options: (transfer full): a #StwScreenshotOptions
 *
 * Frees @options.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_free (StwScreenshotOptions *options)
{
  if (options == NULL)
    return;
  g_clear_pointer (&options->target, stw_target_free);
  g_free (options);
}

/**
 * stw_screenshot_options_set_format:
 * @options: a #StwScreenshotOptions
 * @format: the encoding
 *
 * Sets the encoding (PNG by default).
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_format (StwScreenshotOptions *options,
                                   StwImageFormat        format)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (format == STW_IMAGE_FORMAT_PNG || format == STW_IMAGE_FORMAT_JPEG);
  options->format = format;
}

/**
 * stw_screenshot_options_get_format:
 * @options: a #StwScreenshotOptions
 *
 * Gets the image encoding of the screenshot.
 *
 * Returns: the encoding
 *
 * Since: 1.0
 */
StwImageFormat
stw_screenshot_options_get_format (const StwScreenshotOptions *options)
{
  g_return_val_if_fail (options != NULL, STW_IMAGE_FORMAT_PNG);
  return options->format;
}

/**
 * stw_screenshot_options_set_quality:
 * @options: a #StwScreenshotOptions
 * @quality: 0…100, or -1 for the browser's default; JPEG only
 *
 * Sets the JPEG quality.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_quality (StwScreenshotOptions *options,
                                    int                   quality)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (quality >= -1 && quality <= 100);
  options->quality = quality;
}

/**
 * stw_screenshot_options_get_quality:
 * @options: a #StwScreenshotOptions
 *
 * Gets the JPEG quality of the screenshot.
 *
 * Returns: the JPEG quality, or -1 for the browser's default
 *
 * Since: 1.0
 */
int
stw_screenshot_options_get_quality (const StwScreenshotOptions *options)
{
  g_return_val_if_fail (options != NULL, -1);
  return options->quality;
}

/**
 * stw_screenshot_options_set_clip:
 * @options: a #StwScreenshotOptions
 * @x: left edge, CSS pixels from the viewport's
 * @y: top edge
 * @width: width (> 0)
 * @height: height (> 0)
 *
 * Captures only this rectangle of the page (CSS pixels of the document,
 * not of the viewport). A clip, a target and a full page exclude each
 * other; the last one set wins.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_clip (StwScreenshotOptions *options,
                                 double                x,
                                 double                y,
                                 double                width,
                                 double                height)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (width > 0 && height > 0);

  options->has_clip = TRUE;
  options->clip[0] = x;
  options->clip[1] = y;
  options->clip[2] = width;
  options->clip[3] = height;
  g_clear_pointer (&options->target, stw_target_free);
  options->full_page = FALSE;
}

/**
 * stw_screenshot_options_get_clip:
 * @options: a #StwScreenshotOptions
 * @x: (out) (optional): the left edge
 * @y: (out) (optional): the top edge
 * @width: (out) (optional): the width
 * @height: (out) (optional): the height
 *
 * Gets the rectangle, in CSS pixels, the screenshot is cropped to.
 *
 * Returns: whether a clip is set
 *
 * Since: 1.0
 */
gboolean
stw_screenshot_options_get_clip (const StwScreenshotOptions *options,
                                 double                     *x,
                                 double                     *y,
                                 double                     *width,
                                 double                     *height)
{
  g_return_val_if_fail (options != NULL, FALSE);

  if (x != NULL)
    *x = options->clip[0];
  if (y != NULL)
    *y = options->clip[1];
  if (width != NULL)
    *width = options->clip[2];
  if (height != NULL)
    *height = options->clip[3];
  return options->has_clip;
}

/**
 * stw_screenshot_options_set_selector:
 * @options: a #StwScreenshotOptions
 * @selector: (nullable): a CSS selector
 *
 * Crops the capture to the first element matching @selector (in the
 * document or its shadow roots), scrolled into view first; the same as
 * [method@Stagewright.ScreenshotOptions.set_target] with a selector.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_selector (StwScreenshotOptions *options,
                                     const char           *selector)
{
  g_autoptr(StwTarget) target = NULL;

  g_return_if_fail (options != NULL);

  if (selector != NULL)
    target = stw_target_new_for_selector (selector);
  stw_screenshot_options_set_target (options, target);
}

/**
 * stw_screenshot_options_get_selector:
 * @options: a #StwScreenshotOptions
 *
 * Gets the CSS selector of the element the screenshot is cropped to.
 *
 * Returns: (transfer none) (nullable): the element's selector, when the
 *   target is one
 *
 * Since: 1.0
 */
const char *
stw_screenshot_options_get_selector (const StwScreenshotOptions *options)
{
  g_return_val_if_fail (options != NULL, NULL);
  return options->target ? stw_target_get_selector (options->target) : NULL;
}

/**
 * stw_screenshot_options_set_target:
 * @options: a #StwScreenshotOptions
 * @target: (nullable): the element to crop to: a ref (of any surface of
 *   the session — frames and webviews too) or a selector (in the surface
 *   captured)
 *
 * Crops the capture to one element, scrolled into view first. An element
 * in a frame is captured through the window (or webview) that holds the
 * frame.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_target (StwScreenshotOptions *options,
                                   const StwTarget      *target)
{
  g_return_if_fail (options != NULL);

  g_clear_pointer (&options->target, stw_target_free);
  if (target != NULL)
    {
      options->target = stw_target_copy (target);
      options->has_clip = FALSE;
      options->full_page = FALSE;
    }
}

/**
 * stw_screenshot_options_get_target:
 * @options: a #StwScreenshotOptions
 *
 * Gets the element the screenshot is cropped to.
 *
 * Returns: (transfer none) (nullable): the element to crop to
 *
 * Since: 1.0
 */
const StwTarget *
stw_screenshot_options_get_target (const StwScreenshotOptions *options)
{
  g_return_val_if_fail (options != NULL, NULL);
  return options->target;
}

/**
 * stw_screenshot_options_set_max_size:
 * @options: a #StwScreenshotOptions
 * @max_width: the widest image wanted, in pixels; 0 for no limit
 * @max_height: the tallest image wanted, in pixels; 0 for no limit
 *
 * Bounds the image: a larger capture is scaled down (by the browser, as it
 * renders) to fit, keeping its aspect ratio.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_max_size (StwScreenshotOptions *options,
                                     guint                 max_width,
                                     guint                 max_height)
{
  g_return_if_fail (options != NULL);

  options->max_width = max_width;
  options->max_height = max_height;
}

/**
 * stw_screenshot_options_get_max_size:
 * @options: a #StwScreenshotOptions
 * @max_width: (out) (optional): the widest image wanted, 0 for no limit
 * @max_height: (out) (optional): the tallest, 0 for no limit
 *
 * Gets the size the image is scaled down to fit in.
 *
 * Returns: whether the image is bounded
 *
 * Since: 1.0
 */
gboolean
stw_screenshot_options_get_max_size (const StwScreenshotOptions *options,
                                     guint                      *max_width,
                                     guint                      *max_height)
{
  g_return_val_if_fail (options != NULL, FALSE);

  if (max_width != NULL)
    *max_width = options->max_width;
  if (max_height != NULL)
    *max_height = options->max_height;
  return options->max_width > 0 || options->max_height > 0;
}

/**
 * stw_screenshot_options_set_full_page:
 * @options: a #StwScreenshotOptions
 * @full_page: whether to capture the whole scrollable page
 *
 * Captures the whole page rather than the viewport.
 *
 * Since: 1.0
 */
void
stw_screenshot_options_set_full_page (StwScreenshotOptions *options,
                                      gboolean              full_page)
{
  g_return_if_fail (options != NULL);

  options->full_page = !!full_page;
  if (full_page)
    {
      options->has_clip = FALSE;
      g_clear_pointer (&options->target, stw_target_free);
    }
}

/**
 * stw_screenshot_options_get_full_page:
 * @options: a #StwScreenshotOptions
 *
 * Gets whether the whole scrollable page is captured rather than the
 * viewport.
 *
 * Returns: whether the whole page is captured
 *
 * Since: 1.0
 */
gboolean
stw_screenshot_options_get_full_page (const StwScreenshotOptions *options)
{
  g_return_val_if_fail (options != NULL, FALSE);
  return options->full_page;
}

/**
 * stw_screenshot_options_new_from_json:
 * @object: `{format?: "png"|"jpeg", quality?, fullPage?, clip?: {x, y,
 *   width, height}, ref?, selector?, maxWidth?, maxHeight?}` (the
 *   `electron_screenshot` arguments; other members are ignored)
 * @error: `BAD_ARGUMENT` when a member has the wrong type or value, or
 *   when an element (ref or selector) is combined with a clip or a full
 *   page
 *
 * Reads options from JSON.
 *
 * Returns: (transfer full) (nullable): the options
 *
 * Since: 1.0
 */
StwScreenshotOptions *
stw_screenshot_options_new_from_json (JsonObject  *object,
                                      GError     **error)
{
  g_autoptr(StwScreenshotOptions) options = stw_screenshot_options_new ();
  JsonNode *node;

  g_return_val_if_fail (object != NULL, NULL);

#define BAD(field, ...) \
  G_STMT_START { \
    GError *bad = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, __VA_ARGS__); \
    g_autoptr(JsonObject) details = json_object_new (); \
    json_object_set_string_member (details, "field", field); \
    stw_error_set_details (bad, details); \
    g_propagate_error (error, bad); \
    return NULL; \
  } G_STMT_END

  if ((node = json_object_get_member (object, "format")) != NULL)
    {
      const char *format = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
                           ? json_node_get_string (node) : NULL;
      if (g_strcmp0 (format, "png") == 0)
        options->format = STW_IMAGE_FORMAT_PNG;
      else if (g_strcmp0 (format, "jpeg") == 0)
        options->format = STW_IMAGE_FORMAT_JPEG;
      else
        BAD ("format", _("format must be png or jpeg"));
    }
  if ((node = json_object_get_member (object, "quality")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 0 || json_node_get_int (node) > 100)
        BAD ("quality", _("quality must be an integer from 0 to 100"));
      options->quality = (int) json_node_get_int (node);
    }
  {
    g_autoptr(GError) bad_target = NULL;
    const char *field = json_object_has_member (object, "ref") ? "ref" : "selector";

    options->target = stw_target_new_from_json (object, "ref", "selector", &bad_target);
    if (bad_target != NULL)
      BAD (field, "%s", bad_target->message);
    if (options->target != NULL &&
        (json_object_has_member (object, "fullPage") || json_object_has_member (object, "clip")))
      BAD (field, _("fullPage and clip apply to window captures, not element crops"));
  }
  for (guint i = 0; i < 2; i++)
    {
      const char *name = i == 0 ? "maxWidth" : "maxHeight";

      if ((node = json_object_get_member (object, name)) == NULL)
        continue;
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 1 || json_node_get_int (node) > STW_SCREENSHOT_MAX_SIDE)
        BAD (name, _("%s must be an integer from 1 to %d"), name, STW_SCREENSHOT_MAX_SIDE);
      if (i == 0)
        options->max_width = (guint) json_node_get_int (node);
      else
        options->max_height = (guint) json_node_get_int (node);
    }
  if ((node = json_object_get_member (object, "fullPage")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        BAD ("fullPage", _("fullPage must be a boolean"));
      options->full_page = json_node_get_boolean (node);
    }
  if ((node = json_object_get_member (object, "clip")) != NULL)
    {
      static const char *const names[] = { "x", "y", "width", "height" };
      JsonObject *clip = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      if (clip == NULL)
        BAD ("clip", _("clip must be an object {x, y, width, height}"));
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          JsonNode *member = json_object_get_member (clip, names[i]);
          GType type = member && JSON_NODE_HOLDS_VALUE (member) ? json_node_get_value_type (member) : G_TYPE_INVALID;

          if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
            BAD ("clip", _("clip needs numbers x, y, width and height"));
          options->clip[i] = json_node_get_double (member);
        }
      if (options->clip[2] <= 0 || options->clip[3] <= 0)
        BAD ("clip", _("clip width and height must be positive"));
      if (options->clip[0] < 0 || options->clip[1] < 0)
        BAD ("clip", _("clip x and y must not be negative"));
      options->has_clip = TRUE;
      options->full_page = FALSE;
    }
#undef BAD

  return g_steal_pointer (&options);
}

/**
 * stw_image_get_size:
 * @image: an encoded image
 * @width: (out) (optional): its width in pixels
 * @height: (out) (optional): its height in pixels
 *
 * Reads the dimensions from a PNG (IHDR) or JPEG (SOF*n*) header.
 *
 * Returns: %TRUE when @image starts like a PNG or a JPEG and its size
 *   could be read
 *
 * Since: 1.0
 */
gboolean
stw_image_get_size (GBytes *image,
                    guint  *width,
                    guint  *height)
{
  const guchar *data;
  gsize length = 0;
  guint w = 0, h = 0;
  gboolean found = FALSE;

  g_return_val_if_fail (image != NULL, FALSE);

  data = g_bytes_get_data (image, &length);
  if (length >= 24 && memcmp (data, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp (data + 12, "IHDR", 4) == 0)
    {
      w = (guint) data[16] << 24 | (guint) data[17] << 16 | (guint) data[18] << 8 | data[19];
      h = (guint) data[20] << 24 | (guint) data[21] << 16 | (guint) data[22] << 8 | data[23];
      found = TRUE;
    }
  else if (length >= 4 && data[0] == 0xFF && data[1] == 0xD8)
    {
      gsize i = 2;

      while (!found && i + 9 < length && data[i] == 0xFF)
        {
          guint marker = data[i + 1];
          guint segment = (guint) data[i + 2] << 8 | data[i + 3];

          if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)
            {
              h = (guint) data[i + 5] << 8 | data[i + 6];
              w = (guint) data[i + 7] << 8 | data[i + 8];
              found = TRUE;
            }
          i += 2 + segment;
        }
    }
  if (found && width != NULL)
    *width = w;
  if (found && height != NULL)
    *height = h;
  return found;
}

/* --- where screenshots go -------------------------------------------------- */

/* BAD_ARGUMENT for a path outside the app root, naming the argument. */
static GError *
outside_root_error (const char *argument,
                    const char *app_root)
{
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The screenshot %s lies outside the server's --app-root"), argument);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "argument", argument);
  json_object_set_string_member (details, "rule", "inside --app-root, symlinks resolved");
  json_object_set_string_member (details, "app_root", app_root);
  stw_error_set_details (error, details);
  return error;
}

/**
 * stw_screenshot_resolve_path:
 * @app_root: (nullable): the directory every file must lie in (the
 *   server's `--app-root`)
 * @screenshot_dir: (nullable): the configured screenshot directory (the
 *   server's `--screenshot-dir`)
 * @path: (nullable): an absolute file path the caller asked for
 * @dir: (nullable): an absolute directory the caller asked for
 * @format: the encoding, for the file name's extension
 * @error: `BAD_ARGUMENT` (both @path and @dir, or a path outside
 *   @app_root once symlinks are resolved, with `details` naming the
 *   argument), `ABSOLUTE_PATH_REQUIRED` or `FILE_NOT_FOUND` (the directory
 *   does not exist or cannot be made)
 *
 * Decides where a screenshot is written, by the rule of
 * `electron_screenshot`: @path, else a new file in @dir, else in
 * @screenshot_dir, else in `<app-root>/.stagewright/screenshots` (made
 * with mode 0700) when there is an app root, else in the temporary
 * directory. With an app root, nothing lies outside it.
 *
 * Returns: (transfer full) (type filename) (nullable): the file to write
 *
 * Since: 1.0
 */
char *
stw_screenshot_resolve_path (const char      *app_root,
                             const char      *screenshot_dir,
                             const char      *path,
                             const char      *dir,
                             StwImageFormat   format,
                             GError         **error)
{
  g_autofree char *file = NULL;
  g_autofree char *parent = NULL;
  const char *argument = path ? "path" : dir ? "dir" : "screenshot_dir";

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (path != NULL && dir != NULL)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT, _("Give path or dir, not both")));
      return NULL;
    }
  if ((path != NULL && !g_path_is_absolute (path)) || (dir != NULL && !g_path_is_absolute (dir)))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_ABSOLUTE_PATH_REQUIRED, NULL));
      return NULL;
    }

  if (path != NULL)
    {
      g_autofree char *lower = g_ascii_strdown (path, -1);
      gboolean fits = format == STW_IMAGE_FORMAT_JPEG
                      ? g_str_has_suffix (lower, ".jpg") || g_str_has_suffix (lower, ".jpeg")
                      : g_str_has_suffix (lower, ".png");

      /* A careless path must not turn the app's index.html or main.js
       * into an image: the name says what the file holds. */
      if (!fits)
        {
          GError *refused = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The file name must end in %s for a %s screenshot"),
                                                format == STW_IMAGE_FORMAT_JPEG ? ".jpg or .jpeg" : ".png",
                                                format == STW_IMAGE_FORMAT_JPEG ? "JPEG" : "PNG");
          g_autoptr(JsonObject) details = json_object_new ();

          json_object_set_string_member (details, "argument", "path");
          json_object_set_string_member (details, "rule", "the extension matches format");
          stw_error_set_details (refused, details);
          g_propagate_error (error, refused);
          return NULL;
        }
      file = g_strdup (path);
    }
  else
    {
      g_autofree char *uuid = g_uuid_string_random ();
      g_autofree char *name = g_strdup_printf ("stagewright-%s.%s", uuid,
                                               format == STW_IMAGE_FORMAT_JPEG ? "jpg" : "png");
      g_autofree char *base = NULL;
      int made;

      if (dir != NULL)
        base = g_strdup (dir);
      else if (screenshot_dir != NULL)
        base = g_strdup (screenshot_dir);
      else if (app_root != NULL)
        {
          /* Never the shared temporary directory when there is a root. */
          base = g_build_filename (app_root, ".stagewright", "screenshots", NULL);
          argument = "default directory";
          /* Made beneath the root, following no symlink swapped in. */
          made = _stw_confine_make_dirs (app_root, base, 0700, error);
          if (made < 0)
            return NULL;
          close (made);
        }
      else
        base = g_strdup (g_get_tmp_dir ());
      file = g_build_filename (base, name, NULL);
    }

  parent = g_path_get_dirname (file);
  if (app_root != NULL && !_stw_path_is_inside (parent, app_root))
    {
      g_propagate_error (error, outside_root_error (argument, app_root));
      return NULL;
    }
  if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_FILE_NOT_FOUND, _("The directory does not exist")));
      return NULL;
    }
  return g_steal_pointer (&file);
}

/* --- StwScreenshot ------------------------------------------------------- */

/**
 * StwScreenshot:
 *
 * What a capture answers: the encoded image with its size in pixels, its
 * format, the surface's device scale factor when the capture measured it,
 * and the file it was saved to, once it was.
 *
 * The width and height are the image's own (read from its PNG or JPEG
 * header): a capture of W × H CSS pixels at scale factor S is W·S × H·S
 * pixels, less when a maximum size scaled it down.
 *
 * Since: 1.0
 */
struct _StwScreenshot
{
  GObject         parent_instance;

  GBytes         *bytes;
  guint           width;
  guint           height;
  StwImageFormat  format;
  double          scale_factor;
  char           *path;
};

G_DEFINE_FINAL_TYPE (StwScreenshot, stw_screenshot, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_BYTES,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_FORMAT,
  PROP_SCALE_FACTOR,
  PROP_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
stw_screenshot_finalize (GObject *object)
{
  StwScreenshot *self = STW_SCREENSHOT (object);

  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_pointer (&self->path, g_free);

  G_OBJECT_CLASS (stw_screenshot_parent_class)->finalize (object);
}

static void
stw_screenshot_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  StwScreenshot *self = STW_SCREENSHOT (object);

  switch (prop_id)
    {
    case PROP_BYTES:
      g_value_set_boxed (value, self->bytes);
      break;
    case PROP_WIDTH:
      g_value_set_uint (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_uint (value, self->height);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_SCALE_FACTOR:
      g_value_set_double (value, self->scale_factor);
      break;
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_screenshot_class_init (StwScreenshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = stw_screenshot_finalize;
  object_class->get_property = stw_screenshot_get_property;

  /**
   * StwScreenshot:bytes:
   *
   * The encoded image.
   *
   * Since: 1.0
   */
  properties[PROP_BYTES] = g_param_spec_boxed ("bytes", NULL, NULL, G_TYPE_BYTES, flags);

  /**
   * StwScreenshot:width:
   *
   * The image's width in pixels.
   *
   * Since: 1.0
   */
  properties[PROP_WIDTH] = g_param_spec_uint ("width", NULL, NULL, 0, G_MAXUINT, 0, flags);

  /**
   * StwScreenshot:height:
   *
   * The image's height in pixels.
   *
   * Since: 1.0
   */
  properties[PROP_HEIGHT] = g_param_spec_uint ("height", NULL, NULL, 0, G_MAXUINT, 0, flags);

  /**
   * StwScreenshot:format:
   *
   * How the image is encoded.
   *
   * Since: 1.0
   */
  properties[PROP_FORMAT] = g_param_spec_enum ("format", NULL, NULL, STW_TYPE_IMAGE_FORMAT,
                                               STW_IMAGE_FORMAT_PNG, flags);

  /**
   * StwScreenshot:scale-factor:
   *
   * The surface's device pixels per CSS pixel, as the page's layout
   * metrics reported it during the capture; 0 when the capture did not
   * measure the page (a plain viewport capture does not).
   *
   * Since: 1.0
   */
  properties[PROP_SCALE_FACTOR] = g_param_spec_double ("scale-factor", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);

  /**
   * StwScreenshot:path:
   *
   * The file the image was saved to by
   * [method@Stagewright.Screenshot.save], or %NULL.
   *
   * Since: 1.0
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_screenshot_init (StwScreenshot *self)
{
}

StwScreenshot *
_stw_screenshot_new (GBytes         *bytes,
                     guint           width,
                     guint           height,
                     StwImageFormat  format,
                     double          scale_factor)
{
  StwScreenshot *self = g_object_new (STW_TYPE_SCREENSHOT, NULL);

  self->bytes = g_bytes_ref (bytes);
  self->width = width;
  self->height = height;
  self->format = format;
  self->scale_factor = scale_factor > 0 ? scale_factor : 0;
  return self;
}

/**
 * stw_screenshot_new_from_bytes:
 * @bytes: an encoded PNG or JPEG image
 * @error: `BAD_ARGUMENT` when @bytes is neither a PNG nor a JPEG whose
 *   size can be read
 *
 * Wraps an image as a screenshot: its format and size read from its
 * header, its scale factor unknown (0).
 *
 * Returns: (transfer full) (nullable): a new #StwScreenshot
 *
 * Since: 1.0
 */
StwScreenshot *
stw_screenshot_new_from_bytes (GBytes  *bytes,
                               GError **error)
{
  guint width = 0, height = 0;
  const guchar *data;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!stw_image_get_size (bytes, &width, &height))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("The image is neither a PNG nor a JPEG")));
      return NULL;
    }
  data = g_bytes_get_data (bytes, NULL);
  return _stw_screenshot_new (bytes, width, height,
                              data[0] == 0xFF ? STW_IMAGE_FORMAT_JPEG : STW_IMAGE_FORMAT_PNG, 0);
}

/**
 * stw_screenshot_get_bytes:
 * @self: a #StwScreenshot
 *
 * Gets the encoded image.
 *
 * Returns: (transfer none): the PNG or JPEG bytes
 *
 * Since: 1.0
 */
GBytes *
stw_screenshot_get_bytes (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), NULL);
  return self->bytes;
}

/**
 * stw_screenshot_get_width:
 * @self: a #StwScreenshot
 *
 * Gets the image's width.
 *
 * Returns: the width in pixels
 *
 * Since: 1.0
 */
guint
stw_screenshot_get_width (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), 0);
  return self->width;
}

/**
 * stw_screenshot_get_height:
 * @self: a #StwScreenshot
 *
 * Gets the image's height.
 *
 * Returns: the height in pixels
 *
 * Since: 1.0
 */
guint
stw_screenshot_get_height (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), 0);
  return self->height;
}

/**
 * stw_screenshot_get_format:
 * @self: a #StwScreenshot
 *
 * Gets how the image is encoded.
 *
 * Returns: the format
 *
 * Since: 1.0
 */
StwImageFormat
stw_screenshot_get_format (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), STW_IMAGE_FORMAT_PNG);
  return self->format;
}

/**
 * stw_screenshot_get_mime_type:
 * @self: a #StwScreenshot
 *
 * Gets the image's media type.
 *
 * Returns: `image/png` or `image/jpeg`
 *
 * Since: 1.0
 */
const char *
stw_screenshot_get_mime_type (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), NULL);
  return self->format == STW_IMAGE_FORMAT_JPEG ? "image/jpeg" : "image/png";
}

/**
 * stw_screenshot_get_scale_factor:
 * @self: a #StwScreenshot
 *
 * Gets the surface's device pixels per CSS pixel, when the capture
 * measured them (see #StwScreenshot:scale-factor).
 *
 * Returns: the scale factor, or 0 when unknown
 *
 * Since: 1.0
 */
double
stw_screenshot_get_scale_factor (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), 0);
  return self->scale_factor;
}

/**
 * stw_screenshot_get_path:
 * @self: a #StwScreenshot
 *
 * Gets the file the image was last saved to.
 *
 * Returns: (nullable) (type filename): the path, or %NULL when it was not
 *   saved
 *
 * Since: 1.0
 */
const char *
stw_screenshot_get_path (StwScreenshot *self)
{
  g_return_val_if_fail (STW_IS_SCREENSHOT (self), NULL);
  return self->path;
}

/**
 * stw_screenshot_save:
 * @self: a #StwScreenshot
 * @path: (type filename): the file to write
 * @error: where to put the failure (a #GFileError)
 *
 * Writes the encoded image to @path (mode 0644, replacing it atomically)
 * and records it as #StwScreenshot:path. The server's
 * `electron_screenshot` writes through
 * [method@Stagewright.Dispatcher.write_file] instead, which keeps the file
 * inside `--app-root`; this call is for scripts and test harnesses.
 *
 * Returns: %TRUE when the file was written
 *
 * Since: 1.0
 */
gboolean
stw_screenshot_save (StwScreenshot  *self,
                     const char     *path,
                     GError        **error)
{
  gsize length = 0;
  const char *data;

  g_return_val_if_fail (STW_IS_SCREENSHOT (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  data = g_bytes_get_data (self->bytes, &length);
  if (!g_file_set_contents_full (path, data, (gssize) length, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
    return FALSE;
  if (g_strcmp0 (self->path, path) != 0)
    {
      g_free (self->path);
      self->path = g_strdup (path);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PATH]);
    }
  return TRUE;
}
