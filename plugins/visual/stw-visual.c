/* stw-visual.c: the visual plugin's API — screenshots against baselines
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 20's visual plugin (the reference's ADR-023). A baseline is two
 * files in the baseline directory: NAME.png and NAME.json (its size, the
 * environment it was taken in and what was captured). A capture also
 * leaves NAME.actual.png and NAME.actual.json, and a comparison
 * NAME.diff.png.
 *
 * Safety lives here, not in the tools, since C and Python callers skip
 * the tools:
 *   - a name is one plain file-name part, bounded (visual.PATH_INVALID);
 *   - every file is read and written through the dispatcher's confined
 *     open, so nothing is read or written outside --app-root, and
 *     directories are made one confined step at a time;
 *   - images are bounded (the config's maxPixels, checked on the PNG
 *     header before a pixel is allocated: visual.IMAGE_TOO_LARGE), and
 *     so are the files read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stw-visual-private.h"
#include "visual-image.h"

/* A baseline's metadata file is small; anything bigger is not ours. */
#define MAX_META_BYTES (64 * 1024)
/* A PNG of maxPixels pixels compresses to less than this. */
#define MAX_PNG_BYTES_PER_PIXEL 5

/* --- errors -------------------------------------------------------------- */

G_DEFINE_ENUM_TYPE (StwVisualError, stw_visual_error,
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_UNSUPPORTED, "unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_SURFACE_UNSUPPORTED, "surface-unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_INVALID_SELECTOR, "invalid-selector"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_UNSTABLE, "unstable"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_CAPTURE_FAILED, "capture-failed"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_IMAGE_TOO_LARGE, "image-too-large"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_PATH_INVALID, "path-invalid"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_BASELINE_NOT_FOUND, "baseline-not-found"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_BASELINE_INVALID, "baseline-invalid"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_ENV_MISMATCH, "env-mismatch"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_MISMATCH, "mismatch"),
                    G_DEFINE_ENUM_VALUE (STW_VISUAL_ERROR_WRITE_FAILED, "write-failed"))

/**
 * stw_visual_error_quark:
 *
 * The error domain of the visual plugin, `stw-visual-error-quark`, registered
 * with stw_error_register_domain() so that stw_error_new() makes its codes
 * in it.
 *
 * Returns: %STW_VISUAL_ERROR
 *
 * Since: 1.0
 */
GQuark
stw_visual_error_quark (void)
{
  return stw_error_register_domain ("visual", STW_TYPE_VISUAL_ERROR);
}

static GError *
visual_error (const char *code,
              const char *hint,
              JsonObject *details,
              const char *format,
              ...) G_GNUC_PRINTF (4, 5);

static GError *
visual_error (const char *code,
              const char *hint,
              JsonObject *details,
              const char *format,
              ...)
{
  g_autofree char *message = NULL;
  GError *error;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* The codes are registered while the plugin is loaded; a plugin used
   * outside any dispatcher still answers in its domain, which knows them. */
  if (stw_error_registry_contains (stw_error_registry_get_default (), code))
    error = stw_error_new_literal (code, message);
  else
    {
      g_autoptr(GEnumClass) codes = g_type_class_ref (STW_TYPE_VISUAL_ERROR);
      g_autofree char *nick = NULL;
      GEnumValue *value;

      g_return_val_if_fail (g_str_has_prefix (code, "visual."), NULL);
      nick = g_strdelimit (g_ascii_strdown (code + strlen ("visual."), -1), "_", '-');
      value = g_enum_get_value_by_nick (codes, nick);
      g_return_val_if_fail (value != NULL, NULL);
      error = g_error_new_literal (STW_VISUAL_ERROR, value->value, message);
    }
  if (hint != NULL)
    stw_error_set_hint (error, hint);
  if (details != NULL)
    stw_error_set_details (error, details);
  return error;
}

/* --- StwVisualCapture ---------------------------------------------------- */

/**
 * StwVisualCapture:
 *
 * A stable screenshot saved under a name, with the environment it was
 * taken in: the Chromium version (`Browser.getVersion`'s product), the
 * device scale factor, the viewport in CSS pixels and a fingerprint of
 * the fonts text resolves to (SHA-256 of text widths measured in the
 * generic and common families).
 *
 * Since: 1.0
 */
struct _StwVisualCapture
{
  GObject  parent_instance;

  char    *name;
  char    *path;
  char    *baseline_path;
  gboolean baseline_created;
  guint    width;
  guint    height;
  guint    attempts;
  char    *chromium_version;
  double   device_scale_factor;
  guint    viewport_width;
  guint    viewport_height;
  char    *fonts_fingerprint;
};

G_DEFINE_FINAL_TYPE (StwVisualCapture, stw_visual_capture, G_TYPE_OBJECT)

enum {
  CAPTURE_PROP_0,
  CAPTURE_PROP_NAME,
  CAPTURE_PROP_PATH,
  CAPTURE_PROP_BASELINE_PATH,
  CAPTURE_PROP_BASELINE_CREATED,
  CAPTURE_PROP_WIDTH,
  CAPTURE_PROP_HEIGHT,
  CAPTURE_PROP_ATTEMPTS,
  CAPTURE_PROP_CHROMIUM_VERSION,
  CAPTURE_PROP_DEVICE_SCALE_FACTOR,
  CAPTURE_PROP_VIEWPORT_WIDTH,
  CAPTURE_PROP_VIEWPORT_HEIGHT,
  CAPTURE_PROP_FONTS_FINGERPRINT,
  CAPTURE_N_PROPS
};

static GParamSpec *capture_props[CAPTURE_N_PROPS];

static void
stw_visual_capture_finalize (GObject *object)
{
  StwVisualCapture *self = STW_VISUAL_CAPTURE (object);

  g_free (self->name);
  g_free (self->path);
  g_free (self->baseline_path);
  g_free (self->chromium_version);
  g_free (self->fonts_fingerprint);
  G_OBJECT_CLASS (stw_visual_capture_parent_class)->finalize (object);
}

static void
stw_visual_capture_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  StwVisualCapture *self = STW_VISUAL_CAPTURE (object);

  switch (prop_id)
    {
    case CAPTURE_PROP_NAME: g_value_set_string (value, self->name); break;
    case CAPTURE_PROP_PATH: g_value_set_string (value, self->path); break;
    case CAPTURE_PROP_BASELINE_PATH: g_value_set_string (value, self->baseline_path); break;
    case CAPTURE_PROP_BASELINE_CREATED: g_value_set_boolean (value, self->baseline_created); break;
    case CAPTURE_PROP_WIDTH: g_value_set_uint (value, self->width); break;
    case CAPTURE_PROP_HEIGHT: g_value_set_uint (value, self->height); break;
    case CAPTURE_PROP_ATTEMPTS: g_value_set_uint (value, self->attempts); break;
    case CAPTURE_PROP_CHROMIUM_VERSION: g_value_set_string (value, self->chromium_version); break;
    case CAPTURE_PROP_DEVICE_SCALE_FACTOR: g_value_set_double (value, self->device_scale_factor); break;
    case CAPTURE_PROP_VIEWPORT_WIDTH: g_value_set_uint (value, self->viewport_width); break;
    case CAPTURE_PROP_VIEWPORT_HEIGHT: g_value_set_uint (value, self->viewport_height); break;
    case CAPTURE_PROP_FONTS_FINGERPRINT: g_value_set_string (value, self->fonts_fingerprint); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
stw_visual_capture_class_init (StwVisualCaptureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = stw_visual_capture_finalize;
  object_class->get_property = stw_visual_capture_get_property;

  /**
   * StwVisualCapture:name:
   *
   * The baseline's name.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, RO);
  /**
   * StwVisualCapture:path: (type filename)
   *
   * The image this capture wrote (`NAME.actual.png`; the baseline itself
   * for [method@StagewrightVisual.VisualPlugin.update_baseline_async]).
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, RO);
  /**
   * StwVisualCapture:baseline-path: (type filename)
   *
   * The baseline image, `NAME.png`.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_BASELINE_PATH] = g_param_spec_string ("baseline-path", NULL, NULL, NULL, RO);
  /**
   * StwVisualCapture:baseline-created:
   *
   * Whether this capture became the baseline (there was none).
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_BASELINE_CREATED] = g_param_spec_boolean ("baseline-created", NULL, NULL, FALSE, RO);
  /**
   * StwVisualCapture:width:
   *
   * The image's width in device pixels.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_WIDTH] = g_param_spec_uint ("width", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwVisualCapture:height:
   *
   * The image's height in device pixels.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_HEIGHT] = g_param_spec_uint ("height", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwVisualCapture:attempts:
   *
   * How many screenshots it took until two in a row agreed.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_ATTEMPTS] = g_param_spec_uint ("attempts", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwVisualCapture:chromium-version:
   *
   * The browser's product, e.g. `Chrome/120.0.6099.224`.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_CHROMIUM_VERSION] = g_param_spec_string ("chromium-version", NULL, NULL, NULL, RO);
  /**
   * StwVisualCapture:device-scale-factor:
   *
   * The page's `devicePixelRatio`.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_DEVICE_SCALE_FACTOR] = g_param_spec_double ("device-scale-factor", NULL, NULL,
                                                                         0, G_MAXDOUBLE, 1, RO);
  /**
   * StwVisualCapture:viewport-width:
   *
   * The viewport's width in CSS pixels.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_VIEWPORT_WIDTH] = g_param_spec_uint ("viewport-width", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwVisualCapture:viewport-height:
   *
   * The viewport's height in CSS pixels.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_VIEWPORT_HEIGHT] = g_param_spec_uint ("viewport-height", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwVisualCapture:fonts-fingerprint:
   *
   * `sha256:` and 16 hex digits: which fonts text resolves to.
   *
   * Since: 1.0
   */
  capture_props[CAPTURE_PROP_FONTS_FINGERPRINT] = g_param_spec_string ("fonts-fingerprint", NULL, NULL, NULL, RO);
  g_object_class_install_properties (object_class, CAPTURE_N_PROPS, capture_props);
}

static void
stw_visual_capture_init (StwVisualCapture *self)
{
}

/**
 * stw_visual_capture_get_name:
 * @self: a #StwVisualCapture
 *
 * Returns: the baseline's name
 *
 * Since: 1.0
 */
const char *
stw_visual_capture_get_name (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), NULL);
  return self->name;
}

/**
 * stw_visual_capture_get_path:
 * @self: a #StwVisualCapture
 *
 * Returns: (type filename): the image written
 *
 * Since: 1.0
 */
const char *
stw_visual_capture_get_path (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), NULL);
  return self->path;
}

/**
 * stw_visual_capture_get_baseline_path:
 * @self: a #StwVisualCapture
 *
 * Returns: (type filename): the baseline image
 *
 * Since: 1.0
 */
const char *
stw_visual_capture_get_baseline_path (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), NULL);
  return self->baseline_path;
}

/**
 * stw_visual_capture_get_baseline_created:
 * @self: a #StwVisualCapture
 *
 * Returns: whether this capture became the baseline
 *
 * Since: 1.0
 */
gboolean
stw_visual_capture_get_baseline_created (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), FALSE);
  return self->baseline_created;
}

/**
 * stw_visual_capture_get_width:
 * @self: a #StwVisualCapture
 *
 * Returns: the width in device pixels
 *
 * Since: 1.0
 */
guint
stw_visual_capture_get_width (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), 0);
  return self->width;
}

/**
 * stw_visual_capture_get_height:
 * @self: a #StwVisualCapture
 *
 * Returns: the height in device pixels
 *
 * Since: 1.0
 */
guint
stw_visual_capture_get_height (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), 0);
  return self->height;
}

/**
 * stw_visual_capture_get_attempts:
 * @self: a #StwVisualCapture
 *
 * Returns: the screenshots taken until two agreed
 *
 * Since: 1.0
 */
guint
stw_visual_capture_get_attempts (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), 0);
  return self->attempts;
}

/**
 * stw_visual_capture_get_chromium_version:
 * @self: a #StwVisualCapture
 *
 * Returns: the browser's product
 *
 * Since: 1.0
 */
const char *
stw_visual_capture_get_chromium_version (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), NULL);
  return self->chromium_version;
}

/**
 * stw_visual_capture_get_device_scale_factor:
 * @self: a #StwVisualCapture
 *
 * Returns: the device scale factor
 *
 * Since: 1.0
 */
double
stw_visual_capture_get_device_scale_factor (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), 0);
  return self->device_scale_factor;
}

/**
 * stw_visual_capture_get_viewport_width:
 * @self: a #StwVisualCapture
 *
 * Returns: the viewport's width in CSS pixels
 *
 * Since: 1.0
 */
guint
stw_visual_capture_get_viewport_width (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), 0);
  return self->viewport_width;
}

/**
 * stw_visual_capture_get_viewport_height:
 * @self: a #StwVisualCapture
 *
 * Returns: the viewport's height in CSS pixels
 *
 * Since: 1.0
 */
guint
stw_visual_capture_get_viewport_height (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), 0);
  return self->viewport_height;
}

/**
 * stw_visual_capture_get_fonts_fingerprint:
 * @self: a #StwVisualCapture
 *
 * Returns: the fonts fingerprint
 *
 * Since: 1.0
 */
const char *
stw_visual_capture_get_fonts_fingerprint (StwVisualCapture *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_CAPTURE (self), NULL);
  return self->fonts_fingerprint;
}

/* --- StwVisualComparison ------------------------------------------------- */

/**
 * StwVisualComparison:
 *
 * What comparing a fresh capture with its baseline found: how many pixels
 * differ (and how many more differ only by anti-aliasing, not counted),
 * how many were allowed, and the diff image written beside the baseline
 * (the baseline faded, mismatches red, anti-aliasing yellow).
 *
 * Since: 1.0
 */
struct _StwVisualComparison
{
  GObject  parent_instance;

  char    *name;
  gboolean passed;
  guint64  mismatched;
  guint64  anti_aliased;
  guint64  total;
  guint64  allowed;
  gboolean size_differs;
  char    *diff_path;
  char    *actual_path;
  char    *baseline_path;
};

G_DEFINE_FINAL_TYPE (StwVisualComparison, stw_visual_comparison, G_TYPE_OBJECT)

enum {
  COMPARISON_PROP_0,
  COMPARISON_PROP_NAME,
  COMPARISON_PROP_PASSED,
  COMPARISON_PROP_MISMATCHED_PIXELS,
  COMPARISON_PROP_ANTI_ALIASED_PIXELS,
  COMPARISON_PROP_TOTAL_PIXELS,
  COMPARISON_PROP_ALLOWED_PIXELS,
  COMPARISON_PROP_SIZE_DIFFERS,
  COMPARISON_PROP_DIFF_PATH,
  COMPARISON_PROP_ACTUAL_PATH,
  COMPARISON_PROP_BASELINE_PATH,
  COMPARISON_N_PROPS
};

static GParamSpec *comparison_props[COMPARISON_N_PROPS];

static void
stw_visual_comparison_finalize (GObject *object)
{
  StwVisualComparison *self = STW_VISUAL_COMPARISON (object);

  g_free (self->name);
  g_free (self->diff_path);
  g_free (self->actual_path);
  g_free (self->baseline_path);
  G_OBJECT_CLASS (stw_visual_comparison_parent_class)->finalize (object);
}

static void
stw_visual_comparison_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  StwVisualComparison *self = STW_VISUAL_COMPARISON (object);

  switch (prop_id)
    {
    case COMPARISON_PROP_NAME: g_value_set_string (value, self->name); break;
    case COMPARISON_PROP_PASSED: g_value_set_boolean (value, self->passed); break;
    case COMPARISON_PROP_MISMATCHED_PIXELS: g_value_set_uint64 (value, self->mismatched); break;
    case COMPARISON_PROP_ANTI_ALIASED_PIXELS: g_value_set_uint64 (value, self->anti_aliased); break;
    case COMPARISON_PROP_TOTAL_PIXELS: g_value_set_uint64 (value, self->total); break;
    case COMPARISON_PROP_ALLOWED_PIXELS: g_value_set_uint64 (value, self->allowed); break;
    case COMPARISON_PROP_SIZE_DIFFERS: g_value_set_boolean (value, self->size_differs); break;
    case COMPARISON_PROP_DIFF_PATH: g_value_set_string (value, self->diff_path); break;
    case COMPARISON_PROP_ACTUAL_PATH: g_value_set_string (value, self->actual_path); break;
    case COMPARISON_PROP_BASELINE_PATH: g_value_set_string (value, self->baseline_path); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_visual_comparison_class_init (StwVisualComparisonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = stw_visual_comparison_finalize;
  object_class->get_property = stw_visual_comparison_get_property;

  /**
   * StwVisualComparison:name:
   *
   * The baseline's name.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, RO);
  /**
   * StwVisualComparison:passed:
   *
   * Whether at most [property@StagewrightVisual.VisualComparison:allowed-pixels]
   * pixels differ and the sizes agree.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_PASSED] = g_param_spec_boolean ("passed", NULL, NULL, FALSE, RO);
  /**
   * StwVisualComparison:mismatched-pixels:
   *
   * Pixels that differ beyond the threshold, anti-aliasing aside.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_MISMATCHED_PIXELS] = g_param_spec_uint64 ("mismatched-pixels", NULL, NULL,
                                                                             0, G_MAXUINT64, 0, RO);
  /**
   * StwVisualComparison:anti-aliased-pixels:
   *
   * Pixels that differ only as anti-aliasing does (not counted).
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_ANTI_ALIASED_PIXELS] = g_param_spec_uint64 ("anti-aliased-pixels", NULL, NULL,
                                                                               0, G_MAXUINT64, 0, RO);
  /**
   * StwVisualComparison:total-pixels:
   *
   * Pixels compared (the larger of the two sizes when they differ).
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_TOTAL_PIXELS] = g_param_spec_uint64 ("total-pixels", NULL, NULL,
                                                                        0, G_MAXUINT64, 0, RO);
  /**
   * StwVisualComparison:allowed-pixels:
   *
   * The most mismatched pixels that still pass: the larger of
   * max_diff_pixels and max_diff_ratio × total.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_ALLOWED_PIXELS] = g_param_spec_uint64 ("allowed-pixels", NULL, NULL,
                                                                          0, G_MAXUINT64, 0, RO);
  /**
   * StwVisualComparison:size-differs:
   *
   * Whether the capture's size is not the baseline's (it never passes).
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_SIZE_DIFFERS] = g_param_spec_boolean ("size-differs", NULL, NULL, FALSE, RO);
  /**
   * StwVisualComparison:diff-path: (type filename)
   *
   * The diff image, `NAME.diff.png`.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_DIFF_PATH] = g_param_spec_string ("diff-path", NULL, NULL, NULL, RO);
  /**
   * StwVisualComparison:actual-path: (type filename)
   *
   * The fresh capture, `NAME.actual.png`.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_ACTUAL_PATH] = g_param_spec_string ("actual-path", NULL, NULL, NULL, RO);
  /**
   * StwVisualComparison:baseline-path: (type filename)
   *
   * The baseline image, `NAME.png`.
   *
   * Since: 1.0
   */
  comparison_props[COMPARISON_PROP_BASELINE_PATH] = g_param_spec_string ("baseline-path", NULL, NULL, NULL, RO);
  g_object_class_install_properties (object_class, COMPARISON_N_PROPS, comparison_props);
}

static void
stw_visual_comparison_init (StwVisualComparison *self)
{
}

/**
 * stw_visual_comparison_get_name:
 * @self: a #StwVisualComparison
 *
 * Returns: the baseline's name
 *
 * Since: 1.0
 */
const char *
stw_visual_comparison_get_name (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), NULL);
  return self->name;
}

/**
 * stw_visual_comparison_get_passed:
 * @self: a #StwVisualComparison
 *
 * Returns: whether the capture matched its baseline
 *
 * Since: 1.0
 */
gboolean
stw_visual_comparison_get_passed (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), FALSE);
  return self->passed;
}

/**
 * stw_visual_comparison_get_mismatched_pixels:
 * @self: a #StwVisualComparison
 *
 * Returns: the pixels that differ
 *
 * Since: 1.0
 */
guint64
stw_visual_comparison_get_mismatched_pixels (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), 0);
  return self->mismatched;
}

/**
 * stw_visual_comparison_get_anti_aliased_pixels:
 * @self: a #StwVisualComparison
 *
 * Returns: the pixels that differ only by anti-aliasing
 *
 * Since: 1.0
 */
guint64
stw_visual_comparison_get_anti_aliased_pixels (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), 0);
  return self->anti_aliased;
}

/**
 * stw_visual_comparison_get_total_pixels:
 * @self: a #StwVisualComparison
 *
 * Returns: the pixels compared
 *
 * Since: 1.0
 */
guint64
stw_visual_comparison_get_total_pixels (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), 0);
  return self->total;
}

/**
 * stw_visual_comparison_get_allowed_pixels:
 * @self: a #StwVisualComparison
 *
 * Returns: the most mismatched pixels that pass
 *
 * Since: 1.0
 */
guint64
stw_visual_comparison_get_allowed_pixels (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), 0);
  return self->allowed;
}

/**
 * stw_visual_comparison_get_mismatch_ratio:
 * @self: a #StwVisualComparison
 *
 * Returns: mismatched pixels over total pixels
 *
 * Since: 1.0
 */
double
stw_visual_comparison_get_mismatch_ratio (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), 0);
  return self->total > 0 ? (double) self->mismatched / (double) self->total : 0;
}

/**
 * stw_visual_comparison_get_size_differs:
 * @self: a #StwVisualComparison
 *
 * Returns: whether the sizes differ
 *
 * Since: 1.0
 */
gboolean
stw_visual_comparison_get_size_differs (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), FALSE);
  return self->size_differs;
}

/**
 * stw_visual_comparison_get_diff_path:
 * @self: a #StwVisualComparison
 *
 * Returns: (type filename): the diff image
 *
 * Since: 1.0
 */
const char *
stw_visual_comparison_get_diff_path (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), NULL);
  return self->diff_path;
}

/**
 * stw_visual_comparison_get_actual_path:
 * @self: a #StwVisualComparison
 *
 * Returns: (type filename): the fresh capture
 *
 * Since: 1.0
 */
const char *
stw_visual_comparison_get_actual_path (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), NULL);
  return self->actual_path;
}

/**
 * stw_visual_comparison_get_baseline_path:
 * @self: a #StwVisualComparison
 *
 * Returns: (type filename): the baseline image
 *
 * Since: 1.0
 */
const char *
stw_visual_comparison_get_baseline_path (StwVisualComparison *self)
{
  g_return_val_if_fail (STW_IS_VISUAL_COMPARISON (self), NULL);
  return self->baseline_path;
}

/* --- the plugin ---------------------------------------------------------- */

/**
 * StwVisualPlugin:
 *
 * The visual plugin: stable screenshots saved as named baselines, and
 * anti-aliasing-aware comparisons against them. Load it into a
 * dispatcher (`--plugin visual`, or
 * [method@Stagewright.Dispatcher.load_plugins_async]) before calling it:
 * its files go through the dispatcher's confined open.
 *
 * Since: 1.0
 */
struct _StwVisualPlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_FINAL_TYPE (StwVisualPlugin, stw_visual_plugin, STW_TYPE_PLUGIN)

static void
stw_visual_plugin_class_init (StwVisualPluginClass *klass)
{
  /* The domain exists before the plugin makes its first error, so that
   * stw_error_new() makes its codes in it. */
  stw_visual_error_quark ();
}

static void
stw_visual_plugin_init (StwVisualPlugin *self)
{
  _stw_visual_plugin_add_tools (self);
}

#define CONFIG_SCHEMA \
  "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" \
  "\"baselineDir\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,\"x-stagewright-safe\":true}," \
  "\"threshold\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"default\":0.1,\"x-stagewright-safe\":true}," \
  "\"maxDiffPixels\":{\"type\":\"integer\",\"minimum\":0,\"default\":0,\"x-stagewright-safe\":true}," \
  "\"maxDiffRatio\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"default\":0,\"x-stagewright-safe\":true}," \
  "\"maxPixels\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":67108864,\"default\":16777216,\"x-stagewright-safe\":true}," \
  "\"stableAttempts\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":20,\"default\":5,\"x-stagewright-safe\":true}," \
  "\"stableIntervalMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":5000,\"default\":100,\"x-stagewright-safe\":true}}}"

/**
 * stw_visual_plugin_new:
 *
 * Creates the visual plugin, as `--plugin visual` does.
 *
 * Returns: (transfer full): a new #StwVisualPlugin
 *
 * Since: 1.0
 */
StwVisualPlugin *
stw_visual_plugin_new (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (CONFIG_SCHEMA, NULL);

  return g_object_new (STW_TYPE_VISUAL_PLUGIN,
                       "name", "visual",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Visual baselines: stable screenshots compared anti-aliasing aware.",
                       "config-schema", config,
                       NULL);
}

static JsonObject *
config_of (StwVisualPlugin *self)
{
  return stw_plugin_get_config (STW_PLUGIN (self));
}

static double
config_double (StwVisualPlugin *self,
               const char      *member,
               double           fallback)
{
  JsonObject *config = config_of (self);

  return config != NULL ? json_object_get_double_member_with_default (config, member, fallback) : fallback;
}

static gint64
config_int (StwVisualPlugin *self,
            const char      *member,
            gint64           fallback)
{
  JsonObject *config = config_of (self);

  return config != NULL ? json_object_get_int_member_with_default (config, member, fallback) : fallback;
}

/**
 * stw_visual_plugin_dup_baseline_dir:
 * @self: a #StwVisualPlugin
 *
 * The directory of the baselines: the config's `baselineDir` (a relative
 * one beneath the app root, or beneath the current directory without
 * one), else `.stagewright/baselines` there.
 *
 * Returns: (transfer full) (type filename): the baseline directory
 *
 * Since: 1.0
 */
char *
stw_visual_plugin_dup_baseline_dir (StwVisualPlugin *self)
{
  StwDispatcher *dispatcher;
  JsonObject *config;
  const char *configured = NULL;
  const char *root = NULL;
  g_autofree char *cwd = NULL;

  g_return_val_if_fail (STW_IS_VISUAL_PLUGIN (self), NULL);

  dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  config = config_of (self);
  if (config != NULL)
    configured = json_object_get_string_member_with_default (config, "baselineDir", NULL);
  if (dispatcher != NULL)
    root = stw_dispatcher_get_app_root (dispatcher);
  if (root == NULL)
    root = cwd = g_get_current_dir ();
  if (configured != NULL && g_path_is_absolute (configured))
    return g_canonicalize_filename (configured, NULL);
  if (configured != NULL)
    return g_canonicalize_filename (configured, root);
  return g_build_filename (root, ".stagewright", "baselines", NULL);
}

/* --- names and files ----------------------------------------------------- */

/* A name is one plain part of a file name: letters, digits, `_`, `-` and
 * inner dots, never `..`, at most STW_VISUAL_MAX_NAME bytes, and not
 * ending in what the plugin's own files add (`.actual`, `.diff`). */
static gboolean
check_name (const char  *name,
            GError     **error)
{
  const char *why = NULL;
  gsize length = name ? strlen (name) : 0;

  if (length == 0)
    why = "it is empty";
  else if (length > STW_VISUAL_MAX_NAME)
    why = "it is too long";
  else if (name[0] == '.' || name[length - 1] == '.' || strstr (name, "..") != NULL)
    why = "it starts or ends with a dot, or holds `..`";
  else if (g_str_has_suffix (name, ".actual") || g_str_has_suffix (name, ".diff"))
    why = "it ends in .actual or .diff, which name the plugin's own files";
  else
    {
      for (const char *p = name; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.')
          {
            why = "it holds a character other than letters, digits, `_`, `-` and `.`";
            break;
          }
    }
  if (why != NULL)
    {
      g_autoptr(JsonObject) details = json_object_new ();

      json_object_set_string_member (details, "argument", "name");
      json_object_set_int_member (details, "maxLength", STW_VISUAL_MAX_NAME);
      g_propagate_error (error, visual_error ("visual.PATH_INVALID",
                                              "Use letters, digits, `_`, `-` and inner dots, at most 100 bytes",
                                              details, "The name is not a plain file name: %s", why));
      return FALSE;
    }
  return TRUE;
}

static char *
file_in (const char *dir,
         const char *name,
         const char *suffix)
{
  g_autofree char *base = g_strconcat (name, suffix, NULL);

  return g_build_filename (dir, base, NULL);
}

/* What the confined open refused, as the plugin's code. */
static GError *
file_error (GError     *cause,
            const char *code,
            const char *path)
{
  g_autoptr(GError) owned = cause;
  const char *core = stw_error_get_code_name (cause);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "path", path);
  if (g_strcmp0 (core, "BAD_ARGUMENT") == 0 || g_strcmp0 (core, "ABSOLUTE_PATH_REQUIRED") == 0)
    return visual_error ("visual.PATH_INVALID", "Keep baselineDir inside --app-root", details,
                         "%s", cause->message);
  return visual_error (code, NULL, details, "%s", cause->message);
}

/* Makes @dir and its missing parents, each with mkdirat() beneath a
 * descriptor of its parent that the confined open gave: no step leaves
 * the app root, whatever is swapped in meanwhile. */
static gboolean
make_dirs (StwDispatcher  *dispatcher,
           const char     *dir,
           GError        **error)
{
  g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *existing = g_strdup (dir);

  while (!g_file_test (existing, G_FILE_TEST_IS_DIR))
    {
      char *parent = g_path_get_dirname (existing);

      if (g_str_equal (parent, existing))
        {
          g_free (parent);
          break;
        }
      g_ptr_array_add (missing, g_steal_pointer (&existing));
      existing = parent;
    }
  for (guint i = missing->len; i > 0; i--)
    {
      const char *path = g_ptr_array_index (missing, i - 1);
      g_autofree char *parent = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (path);
      GError *local = NULL;
      int fd = stw_dispatcher_open_file (dispatcher, parent, O_PATH | O_DIRECTORY, 0, &local);

      if (fd < 0)
        {
          g_propagate_error (error, file_error (local, "visual.WRITE_FAILED", path));
          return FALSE;
        }
      if (mkdirat (fd, base, 0755) != 0 && errno != EEXIST)
        {
          int saved = errno;

          close (fd);
          g_propagate_error (error, visual_error ("visual.WRITE_FAILED", NULL, NULL, "Cannot create %s: %s",
                                                  path, g_strerror (saved)));
          return FALSE;
        }
      close (fd);
    }
  return TRUE;
}

static gboolean
write_file (StwDispatcher  *dispatcher,
            const char     *path,
            GBytes         *bytes,
            GError        **error)
{
  GError *local = NULL;

  if (stw_dispatcher_write_file (dispatcher, path, bytes, 0644, &local))
    return TRUE;
  g_propagate_error (error, file_error (local, "visual.WRITE_FAILED", path));
  return FALSE;
}

/* Reads @path through the confined open, at most @max bytes. %NULL with
 * no error when it does not exist. */
static GBytes *
read_file (StwDispatcher  *dispatcher,
           const char     *path,
           gsize           max,
           const char     *invalid_code,
           GError        **error)
{
  GError *local = NULL;
  struct stat st;
  g_autofree guint8 *data = NULL;
  gsize done = 0;
  int fd;

  fd = stw_dispatcher_open_file (dispatcher, path, O_RDONLY | O_NOFOLLOW, 0, &local);
  if (fd < 0)
    {
      if (g_strcmp0 (stw_error_get_code_name (local), "FILE_NOT_FOUND") == 0 && !g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_error_free (local);
          return NULL;
        }
      g_propagate_error (error, file_error (local, invalid_code, path));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (guint64) st.st_size > max)
    {
      g_autoptr(JsonObject) details = json_object_new ();

      close (fd);
      json_object_set_string_member (details, "path", path);
      json_object_set_int_member (details, "maxBytes", (gint64) max);
      g_propagate_error (error, visual_error (invalid_code, NULL, details,
                                              "%s is not a regular file of at most %" G_GSIZE_FORMAT " bytes",
                                              path, max));
      return NULL;
    }
  data = g_malloc (st.st_size > 0 ? (gsize) st.st_size : 1);
  while (done < (gsize) st.st_size)
    {
      gssize n = read (fd, data + done, (gsize) st.st_size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += (gsize) n;
    }
  close (fd);
  return g_bytes_new_take (g_steal_pointer (&data), done);
}

/* --- the environment ----------------------------------------------------- */

typedef struct
{
  char    *chromium;
  double   scale;
  guint    viewport_width;
  guint    viewport_height;
  char    *fonts;
} Environment;

static void
environment_clear (Environment *env)
{
  g_clear_pointer (&env->chromium, g_free);
  g_clear_pointer (&env->fonts, g_free);
}

static JsonObject *
environment_to_json (const Environment *env)
{
  JsonObject *object = json_object_new ();
  JsonObject *viewport = json_object_new ();

  json_object_set_string_member (object, "chromiumVersion", env->chromium);
  json_object_set_double_member (object, "deviceScaleFactor", env->scale);
  json_object_set_int_member (viewport, "width", env->viewport_width);
  json_object_set_int_member (viewport, "height", env->viewport_height);
  json_object_set_object_member (object, "viewport", viewport);
  json_object_set_string_member (object, "fontsFingerprint", env->fonts);
  return object;
}

static gboolean
environment_from_json (JsonObject  *object,
                       Environment *env)
{
  JsonObject *viewport;

  if (object == NULL ||
      !JSON_NODE_HOLDS_VALUE (json_object_get_member (object, "chromiumVersion")) ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "viewport")))
    return FALSE;
  viewport = json_object_get_object_member (object, "viewport");
  env->chromium = g_strdup (json_object_get_string_member_with_default (object, "chromiumVersion", ""));
  env->scale = json_object_get_double_member_with_default (object, "deviceScaleFactor", 0);
  env->viewport_width = (guint) CLAMP (json_object_get_int_member_with_default (viewport, "width", 0), 0, G_MAXUINT);
  env->viewport_height = (guint) CLAMP (json_object_get_int_member_with_default (viewport, "height", 0), 0, G_MAXUINT);
  env->fonts = g_strdup (json_object_get_string_member_with_default (object, "fontsFingerprint", ""));
  return env->chromium != NULL && env->fonts != NULL;
}

/* Measured in the isolated world, where the page's globals cannot lie:
 * the viewport, the scale factor, and text widths in the generic and
 * common families (which fonts they resolve to). */
static const char environment_js[] =
  "() => {"
  "  const ctx = document.createElement('canvas').getContext('2d');"
  "  const sample = 'mmmmmmmmmmlli WQ@#0123456789 \\u00c0\\u00e9\\u00ee\\u00f5 \\u4e2d\\u6587 \\u0627\\u0644';"
  "  const families = ['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui',"
  "    '\"Arial\"', '\"Helvetica\"', '\"Times New Roman\"', '\"Courier New\"', '\"DejaVu Sans\"',"
  "    '\"Liberation Sans\"', '\"Noto Sans\"', '\"Cantarell\"', '\"Ubuntu\"'];"
  "  const widths = families.map((f) => { ctx.font = '32px ' + f + ', monospace';"
  "    return f + '=' + ctx.measureText(sample).width.toFixed(3); });"
  "  return { width: innerWidth, height: innerHeight, scale: devicePixelRatio,"
  "           fonts: widths.join(';'), userAgent: navigator.userAgent };"
  "}";

/* --- the operations ------------------------------------------------------ */

typedef enum
{
  OP_CAPTURE,
  OP_EXPECT,
} Op;

typedef struct
{
  Op                     op;
  StwVisualPlugin       *plugin;
  StwDispatcher         *dispatcher;
  StwSession            *session;
  StwSurface            *surface;
  char                  *name;
  char                  *dir;
  StwScreenshotOptions  *options;
  JsonObject            *target;       /* what was captured, for NAME.json */
  Environment            env;
  guint                  attempts;
  guint                  max_attempts;
  guint                  interval_ms;
  GBytes                *previous;
  StwScreenshot         *shot;
  /* expect */
  double                 threshold;
  gint64                 max_diff_pixels;
  double                 max_diff_ratio;
  JsonObject            *baseline_meta;
  GBytes                *baseline_png;
  Environment            baseline_env;
} Job;

static void
job_free (Job *job)
{
  g_clear_object (&job->plugin);
  g_clear_object (&job->dispatcher);
  g_clear_object (&job->session);
  g_clear_object (&job->surface);
  g_free (job->name);
  g_free (job->dir);
  g_clear_pointer (&job->options, stw_screenshot_options_free);
  g_clear_pointer (&job->target, json_object_unref);
  environment_clear (&job->env);
  g_clear_pointer (&job->previous, g_bytes_unref);
  g_clear_object (&job->shot);
  g_clear_pointer (&job->baseline_meta, json_object_unref);
  g_clear_pointer (&job->baseline_png, g_bytes_unref);
  environment_clear (&job->baseline_env);
  g_free (job);
}

static guint64
max_pixels (StwVisualPlugin *plugin)
{
  return (guint64) config_int (plugin, "maxPixels", 16777216);
}

static GError *
too_large (guint    width,
           guint    height,
           guint64  max)
{
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_int_member (details, "width", width);
  json_object_set_int_member (details, "height", height);
  json_object_set_int_member (details, "maxPixels", (gint64) max);
  return visual_error ("visual.IMAGE_TOO_LARGE", "Capture an element (ref or selector) instead of the "
                       "whole page, or raise the config's maxPixels", details,
                       "The image is %u × %u pixels, more than the %" G_GUINT64_FORMAT " allowed",
                       width, height, max);
}

/* A failure of the core's screenshot, as the plugin's code. */
static GError *
capture_error (GError     *cause,
               JsonObject *target)
{
  g_autoptr(GError) owned = cause;
  const char *code = stw_error_get_code_name (cause);

  if (g_strcmp0 (code, "SURFACE_UNSUPPORTED") == 0)
    return visual_error ("visual.SURFACE_UNSUPPORTED", NULL, NULL, "%s", cause->message);
  if (g_strcmp0 (code, "TRANSPORT_UNSUPPORTED") == 0)
    return visual_error ("visual.UNSUPPORTED", NULL, NULL, "%s", cause->message);
  if (g_strcmp0 (code, "BAD_ARGUMENT") == 0 && target != NULL && json_object_has_member (target, "selector"))
    return visual_error ("visual.INVALID_SELECTOR", NULL, NULL, "%s", cause->message);
  /* Codes the agent acts on as it does for any tool: the app is gone, the
   * element is not there. */
  if (g_strcmp0 (code, "NOT_RUNNING") == 0 || g_strcmp0 (code, "SURFACE_CLOSED") == 0 ||
      g_strcmp0 (code, "REF_NOT_FOUND") == 0 || g_strcmp0 (code, "SELECTOR_NO_MATCH") == 0 ||
      g_strcmp0 (code, "STALE_REF") == 0)
    return g_steal_pointer (&owned);
  return visual_error ("visual.CAPTURE_FAILED", NULL, NULL, "The screenshot failed: %s", cause->message);
}

static void take_screenshot (GTask *task);
static void finish_capture (GTask *task);
static void finish_expect (GTask *task);

static gboolean
on_interval (gpointer user_data)
{
  take_screenshot (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_screenshot (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwScreenshot) shot = stw_surface_capture_screenshot_finish (STW_SURFACE (object), result, &error);
  GBytes *bytes;

  if (shot == NULL)
    {
      g_task_return_error (task, capture_error (g_steal_pointer (&error), job->target));
      return;
    }
  job->attempts++;
  if ((guint64) stw_screenshot_get_width (shot) * stw_screenshot_get_height (shot) > max_pixels (job->plugin))
    {
      g_task_return_error (task, too_large (stw_screenshot_get_width (shot), stw_screenshot_get_height (shot),
                                            max_pixels (job->plugin)));
      return;
    }

  /* Stable when two screenshots in a row are the same bytes: Chromium
   * encodes the same pixels the same way. */
  bytes = stw_screenshot_get_bytes (shot);
  if (job->previous != NULL && g_bytes_equal (job->previous, bytes))
    {
      job->shot = g_steal_pointer (&shot);
      if (job->op == OP_CAPTURE)
        finish_capture (task);
      else
        finish_expect (task);
      return;
    }
  if (job->attempts >= job->max_attempts)
    {
      g_autoptr(JsonObject) details = json_object_new ();

      json_object_set_int_member (details, "attempts", job->attempts);
      json_object_set_int_member (details, "intervalMs", job->interval_ms);
      g_task_return_error (task, visual_error ("visual.UNSTABLE", "Stop or hide what animates (a spinner, "
                                               "a caret, a transition) or capture another element, then retry",
                                               details, "No two of %u screenshots %u ms apart agreed: something "
                                               "on it still moves", job->attempts, job->interval_ms));
      return;
    }
  g_clear_pointer (&job->previous, g_bytes_unref);
  job->previous = g_bytes_ref (bytes);
  {
    GSource *source = g_timeout_source_new (job->interval_ms);

    g_source_set_callback (source, on_interval, g_object_ref (task), g_object_unref);
    g_source_attach (source, g_task_get_context (task));
    g_source_unref (source);
  }
}

static void
take_screenshot (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  if (g_task_return_error_if_cancelled (task))
    return;
  stw_surface_capture_screenshot_async (job->surface, job->options, g_task_get_cancellable (task),
                                        on_screenshot, g_object_ref (task));
}

static void
on_environment (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  JsonObject *measured = value && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  const char *fonts;

  if (measured == NULL)
    {
      g_task_return_error (task, visual_error ("visual.CAPTURE_FAILED", NULL, NULL,
                                               "Cannot read the page's environment: %s",
                                               error ? error->message : "no answer"));
      return;
    }
  job->env.viewport_width = (guint) CLAMP (json_object_get_int_member_with_default (measured, "width", 0), 0, G_MAXINT);
  job->env.viewport_height = (guint) CLAMP (json_object_get_int_member_with_default (measured, "height", 0), 0, G_MAXINT);
  job->env.scale = json_object_get_double_member_with_default (measured, "scale", 1);
  fonts = json_object_get_string_member_with_default (measured, "fonts", "");
  {
    g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, fonts, -1);

    job->env.fonts = g_strdup_printf ("sha256:%.16s", sum);
  }
  if (job->env.chromium == NULL)
    {
      const char *agent = json_object_get_string_member_with_default (measured, "userAgent", "");
      const char *chrome = strstr (agent, "Chrome/");

      job->env.chromium = chrome ? g_strndup (chrome, strcspn (chrome, " ")) : g_strdup ("unknown");
    }

  if (job->op == OP_EXPECT)
    {
      static const char * const fields[] = { "chromiumVersion", "deviceScaleFactor", "viewport", "fontsFingerprint" };
      gboolean differ[] = {
        g_strcmp0 (job->env.chromium, job->baseline_env.chromium) != 0,
        job->env.scale < job->baseline_env.scale || job->env.scale > job->baseline_env.scale,
        job->env.viewport_width != job->baseline_env.viewport_width ||
          job->env.viewport_height != job->baseline_env.viewport_height,
        g_strcmp0 (job->env.fonts, job->baseline_env.fonts) != 0,
      };
      g_autoptr(GString) joined = g_string_new (NULL);
      g_autoptr(JsonArray) list = json_array_new ();

      for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
        if (differ[i])
          {
            json_array_add_string_element (list, fields[i]);
            g_string_append_printf (joined, "%s%s", joined->len ? ", " : "", fields[i]);
          }
      if (json_array_get_length (list) > 0)
        {
          g_autoptr(JsonObject) details = json_object_new ();

          json_object_set_array_member (details, "differs", g_steal_pointer (&list));
          json_object_set_object_member (details, "baseline", environment_to_json (&job->baseline_env));
          json_object_set_object_member (details, "current", environment_to_json (&job->env));
          g_task_return_error (task, visual_error ("visual.ENV_MISMATCH", "Compare in the baseline's environment, "
                                                   "or capture and visual_update_baseline in this one",
                                                   details, "The baseline “%s” was taken in another environment "
                                                   "(%s differ): a comparison would fail falsely", job->name,
                                                   joined->str));
          return;
        }
    }

  take_screenshot (task);
}

static void
on_version (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = stw_surface_send_cdp_finish (STW_SURFACE (object), result, NULL);

  /* Without it (a target without the Browser domain), the user agent
   * the isolated world reads names the version. */
  if (answer != NULL && json_object_has_member (answer, "product"))
    job->env.chromium = g_strdup (json_object_get_string_member_with_default (answer, "product", NULL));
  stw_surface_call_isolated_async (job->surface, environment_js, NULL, g_task_get_cancellable (task),
                                   on_environment, g_object_ref (task));
}

static GTask *
start_job (StwVisualPlugin      *self,
           Op                    op,
           StwSession           *session,
           const char           *name,
           GCancellable         *cancellable,
           GAsyncReadyCallback   callback,
           gpointer              user_data,
           gpointer              tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Job *job = g_new0 (Job, 1);
  GError *error = NULL;

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  job->op = op;
  job->plugin = g_object_ref (self);
  job->name = g_strdup (name);
  job->max_attempts = (guint) config_int (self, "stableAttempts", 5);
  job->interval_ms = (guint) config_int (self, "stableIntervalMs", 100);

  if (!check_name (name, &error))
    {
      g_task_return_error (task, error);
      return task;
    }
  if (stw_plugin_get_dispatcher (STW_PLUGIN (self)) == NULL)
    {
      g_task_return_error (task, visual_error ("visual.UNSUPPORTED", "Load the plugin into a dispatcher first",
                                               NULL, "The visual plugin is not loaded"));
      return task;
    }
  job->dispatcher = g_object_ref (stw_plugin_get_dispatcher (STW_PLUGIN (self)));
  job->dir = stw_visual_plugin_dup_baseline_dir (self);
  if (session != NULL)
    {
      job->session = g_object_ref (session);
      if (stw_session_get_active_window (session) != NULL)
        job->surface = g_object_ref (stw_session_get_active_window (session));
    }
  return task;
}

/* Begins the capture once the job knows what to capture. */
static void
begin_capture (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  if (job->surface == NULL)
    {
      g_task_return_error (task, visual_error ("visual.UNSUPPORTED", "Launch or attach to an app first", NULL,
                                               "The session has no window to capture"));
      return;
    }
  stw_surface_send_cdp_async (job->surface, "Browser.getVersion", NULL, g_task_get_cancellable (task),
                              on_version, g_object_ref (task));
}

static GBytes *
meta_bytes (Job *job)
{
  g_autoptr(JsonObject) meta = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  char *text;

  json_object_set_int_member (meta, "version", 1);
  json_object_set_string_member (meta, "name", job->name);
  json_object_set_int_member (meta, "width", stw_screenshot_get_width (job->shot));
  json_object_set_int_member (meta, "height", stw_screenshot_get_height (job->shot));
  json_object_set_object_member (meta, "environment", environment_to_json (&job->env));
  json_object_set_object_member (meta, "target", json_object_ref (job->target));
  node = json_node_init_object (json_node_alloc (), meta);
  text = json_to_string (node, TRUE);
  return g_bytes_new_take (text, strlen (text));
}

static StwVisualCapture *
capture_new (Job        *job,
             const char *path,
             const char *baseline_path,
             gboolean    created)
{
  StwVisualCapture *capture = g_object_new (STW_TYPE_VISUAL_CAPTURE, NULL);

  capture->name = g_strdup (job->name);
  capture->path = g_strdup (path);
  capture->baseline_path = g_strdup (baseline_path);
  capture->baseline_created = created;
  capture->width = stw_screenshot_get_width (job->shot);
  capture->height = stw_screenshot_get_height (job->shot);
  capture->attempts = job->attempts;
  capture->chromium_version = g_strdup (job->env.chromium);
  capture->device_scale_factor = job->env.scale;
  capture->viewport_width = job->env.viewport_width;
  capture->viewport_height = job->env.viewport_height;
  capture->fonts_fingerprint = g_strdup (job->env.fonts);
  return capture;
}

/* Writes NAME.actual.png and NAME.actual.json. */
static gboolean
write_actual (Job     *job,
              GError **error)
{
  g_autofree char *png = file_in (job->dir, job->name, ".actual.png");
  g_autofree char *json = file_in (job->dir, job->name, ".actual.json");
  g_autoptr(GBytes) meta = meta_bytes (job);

  return make_dirs (job->dispatcher, job->dir, error) &&
         write_file (job->dispatcher, png, stw_screenshot_get_bytes (job->shot), error) &&
         write_file (job->dispatcher, json, meta, error);
}

static void
finish_capture (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autofree char *actual = file_in (job->dir, job->name, ".actual.png");
  g_autofree char *baseline = file_in (job->dir, job->name, ".png");
  g_autofree char *baseline_json = file_in (job->dir, job->name, ".json");
  g_autoptr(GBytes) existing = NULL;
  GError *error = NULL;
  gboolean created = FALSE;

  if (!write_actual (job, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* The first capture of a name is its baseline. */
  existing = read_file (job->dispatcher, baseline_json, MAX_META_BYTES, "visual.BASELINE_INVALID", &error);
  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (existing == NULL)
    {
      g_autoptr(GBytes) meta = meta_bytes (job);

      if (!write_file (job->dispatcher, baseline, stw_screenshot_get_bytes (job->shot), &error) ||
          !write_file (job->dispatcher, baseline_json, meta, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      created = TRUE;
    }
  g_task_return_pointer (task, capture_new (job, actual, baseline, created), g_object_unref);
}

/**
 * stw_visual_plugin_capture_async:
 * @self: a #StwVisualPlugin
 * @session: the session whose active window is captured
 * @name: the baseline's name: letters, digits, `_`, `-` and inner dots,
 *   at most %STW_VISUAL_MAX_NAME bytes
 * @target: (nullable): the element to capture (a ref or a selector); %NULL
 *   for the viewport
 * @full_page: the whole page rather than the viewport (without @target)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the capture is saved
 * @user_data: data for @callback
 *
 * Captures until two screenshots in a row agree (the config's
 * `stableAttempts`, `stableIntervalMs` apart), measures the environment,
 * and writes `NAME.actual.png` and `NAME.actual.json` in the baseline
 * directory; the first capture of a name also becomes its baseline
 * (`NAME.png`, `NAME.json`), which keeps what was captured so
 * [method@StagewrightVisual.VisualPlugin.expect_async] captures it again.
 *
 * Errors: `visual.PATH_INVALID` (the name, or a baseline directory outside
 * the app root), `visual.UNSTABLE`, `visual.IMAGE_TOO_LARGE`,
 * `visual.INVALID_SELECTOR`, `visual.SURFACE_UNSUPPORTED`,
 * `visual.UNSUPPORTED`, `visual.CAPTURE_FAILED`, `visual.WRITE_FAILED`,
 * and the core's `NOT_RUNNING`, `REF_NOT_FOUND`, `SELECTOR_NO_MATCH`.
 *
 * Since: 1.0
 */
void
stw_visual_plugin_capture_async (StwVisualPlugin     *self,
                                 StwSession          *session,
                                 const char          *name,
                                 const StwTarget     *target,
                                 gboolean             full_page,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  g_return_if_fail (STW_IS_VISUAL_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (name != NULL);

  task = start_job (self, OP_CAPTURE, session, name, cancellable, callback, user_data,
                    stw_visual_plugin_capture_async);
  if (g_task_had_error (task))
    return;
  job = g_task_get_task_data (task);
  job->options = stw_screenshot_options_new ();
  job->target = json_object_new ();
  if (target != NULL)
    {
      stw_screenshot_options_set_target (job->options, target);
      if (stw_target_get_selector (target) != NULL)
        json_object_set_string_member (job->target, "selector", stw_target_get_selector (target));
      else
        json_object_set_int_member (job->target, "ref", stw_target_get_ref (target));
    }
  else if (full_page)
    {
      stw_screenshot_options_set_full_page (job->options, TRUE);
      json_object_set_boolean_member (job->target, "fullPage", TRUE);
    }
  begin_capture (task);
}

/**
 * stw_visual_plugin_capture_finish:
 * @self: a #StwVisualPlugin
 * @result: the #GAsyncResult
 * @error: where to put the failure
 *
 * Finishes [method@StagewrightVisual.VisualPlugin.capture_async].
 *
 * Returns: (transfer full): the capture
 *
 * Since: 1.0
 */
StwVisualCapture *
stw_visual_plugin_capture_finish (StwVisualPlugin  *self,
                                  GAsyncResult     *result,
                                  GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_visual_plugin_capture_sync:
 * @self: a #StwVisualPlugin
 * @session: the session whose active window is captured
 * @name: the baseline's name
 * @target: (nullable): the element to capture; %NULL for the viewport
 * @full_page: the whole page rather than the viewport
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@StagewrightVisual.VisualPlugin.capture_async].
 *
 * Returns: (transfer full): the capture
 *
 * Since: 1.0
 */
StwVisualCapture *
stw_visual_plugin_capture_sync (StwVisualPlugin  *self,
                                StwSession       *session,
                                const char       *name,
                                const StwTarget  *target,
                                gboolean          full_page,
                                GCancellable     *cancellable,
                                GError          **error)
{
  StwSyncCall call;
  StwVisualCapture *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_visual_plugin_capture_async (self, session, name, target, full_page, cancellable,
                                   stw_sync_call_callback, &call);
  ret = stw_visual_plugin_capture_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

static GError *
baseline_invalid (const char *path,
                  const char *why)
{
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "path", path);
  return visual_error ("visual.BASELINE_INVALID", "Capture it again and adopt it with visual_update_baseline",
                       details, "The baseline %s is unusable: %s", path, why);
}

static void
finish_expect (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autofree char *baseline = file_in (job->dir, job->name, ".png");
  g_autofree char *actual = file_in (job->dir, job->name, ".actual.png");
  g_autofree char *diff_path = file_in (job->dir, job->name, ".diff.png");
  g_autoptr(VisualImage) expected = NULL;
  g_autoptr(VisualImage) current = NULL;
  g_autoptr(VisualImage) diff = NULL;
  g_autoptr(GBytes) diff_png = NULL;
  g_autoptr(GError) decode_error = NULL;
  StwVisualComparison *comparison;
  GError *error = NULL;
  VisualCounts counts;
  guint64 limit = max_pixels (job->plugin);
  guint width, height;
  double allowed_by_ratio;

  if (!write_actual (job, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  expected = _stw_visual_image_decode_png (g_bytes_get_data (job->baseline_png, NULL), g_bytes_get_size (job->baseline_png),
                                      limit, &decode_error);
  if (expected == NULL)
    {
      guint w = 0, h = 0;

      if (g_error_matches (decode_error, G_IO_ERROR, G_IO_ERROR_NO_SPACE) &&
          _stw_visual_image_png_size (g_bytes_get_data (job->baseline_png, NULL), g_bytes_get_size (job->baseline_png), &w, &h))
        g_task_return_error (task, too_large (w, h, limit));
      else
        g_task_return_error (task, baseline_invalid (baseline, decode_error->message));
      return;
    }
  g_clear_error (&decode_error);
  current = _stw_visual_image_decode_png (g_bytes_get_data (stw_screenshot_get_bytes (job->shot), NULL),
                                     g_bytes_get_size (stw_screenshot_get_bytes (job->shot)), limit, &decode_error);
  if (current == NULL)
    {
      g_task_return_error (task, visual_error ("visual.CAPTURE_FAILED", NULL, NULL, "Cannot read the screenshot: %s",
                                               decode_error->message));
      return;
    }

  width = MAX (expected->width, current->width);
  height = MAX (expected->height, current->height);
  if ((guint64) width * height > limit)
    {
      g_task_return_error (task, too_large (width, height, limit));
      return;
    }
  if (expected->width != width || expected->height != height)
    {
      VisualImage *padded = _stw_visual_image_pad (expected, width, height);

      _stw_visual_image_free (expected);
      expected = padded;
    }
  if (current->width != width || current->height != height)
    {
      VisualImage *padded = _stw_visual_image_pad (current, width, height);

      _stw_visual_image_free (current);
      current = padded;
    }
  diff = _stw_visual_image_new (width, height);
  counts = _stw_visual_image_compare (expected, current, job->threshold, FALSE, diff);
  diff_png = _stw_visual_image_encode_png (diff, &decode_error);
  if (diff_png == NULL)
    {
      g_task_return_error (task, visual_error ("visual.WRITE_FAILED", NULL, NULL, "%s", decode_error->message));
      return;
    }
  if (!write_file (job->dispatcher, diff_path, diff_png, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  comparison = g_object_new (STW_TYPE_VISUAL_COMPARISON, NULL);
  comparison->name = g_strdup (job->name);
  comparison->mismatched = counts.mismatched;
  comparison->anti_aliased = counts.anti_aliased;
  comparison->total = counts.total;
  allowed_by_ratio = job->max_diff_ratio * (double) counts.total;
  comparison->allowed = MAX ((guint64) job->max_diff_pixels, (guint64) allowed_by_ratio);
  comparison->size_differs = json_object_get_int_member_with_default (job->baseline_meta, "width", 0) !=
                             stw_screenshot_get_width (job->shot) ||
                             json_object_get_int_member_with_default (job->baseline_meta, "height", 0) !=
                             stw_screenshot_get_height (job->shot);
  comparison->passed = !comparison->size_differs && counts.mismatched <= comparison->allowed;
  comparison->diff_path = g_steal_pointer (&diff_path);
  comparison->actual_path = g_steal_pointer (&actual);
  comparison->baseline_path = g_steal_pointer (&baseline);
  g_task_return_pointer (task, comparison, g_object_unref);
}

/* Reads NAME.json and NAME.png (or the .actual pair), bounded. */
static gboolean
read_pair (Job         *job,
           const char  *suffix,
           JsonObject **meta_out,
           GBytes     **png_out,
           GError     **error)
{
  g_autofree char *json_suffix = g_strconcat (suffix, ".json", NULL);
  g_autofree char *png_suffix = g_strconcat (suffix, ".png", NULL);
  g_autofree char *json_path = file_in (job->dir, job->name, json_suffix);
  g_autofree char *png_path = file_in (job->dir, job->name, png_suffix);
  guint64 max_png = max_pixels (job->plugin) * MAX_PNG_BYTES_PER_PIXEL + 65536;
  g_autoptr(GBytes) meta_data = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  meta_data = read_file (job->dispatcher, json_path, MAX_META_BYTES, "visual.BASELINE_INVALID", error);
  if (meta_data == NULL && error != NULL && *error != NULL)
    return FALSE;
  png = meta_data ? read_file (job->dispatcher, png_path, (gsize) max_png, "visual.BASELINE_INVALID", error) : NULL;
  if (png == NULL)
    {
      if (error != NULL && *error != NULL)
        return FALSE;
      g_autoptr(JsonObject) details = json_object_new ();

      json_object_set_string_member (details, "name", job->name);
      json_object_set_string_member (details, "path", png_path);
      g_propagate_error (error, visual_error ("visual.BASELINE_NOT_FOUND",
                                              *suffix ? "Capture it first with visual_capture"
                                                      : "visual_capture makes the first capture of a name its baseline",
                                              details, "No %s named “%s” in %s", *suffix ? "capture" : "baseline",
                                              job->name, job->dir));
      return FALSE;
    }
  if (!json_parser_load_from_data (parser, g_bytes_get_data (meta_data, NULL), (gssize) g_bytes_get_size (meta_data), NULL) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_propagate_error (error, baseline_invalid (json_path, "not a JSON object"));
      return FALSE;
    }
  *meta_out = json_object_ref (json_node_get_object (root));
  *png_out = g_steal_pointer (&png);
  return TRUE;
}

/**
 * stw_visual_plugin_expect_async:
 * @self: a #StwVisualPlugin
 * @session: the session whose active window is captured
 * @name: the baseline's name
 * @threshold: how far two colours may be apart and match, 0 to 1; negative
 *   for the config's (default 0.1)
 * @max_diff_pixels: the mismatched pixels that still pass; negative for the
 *   config's (default 0)
 * @max_diff_ratio: the ratio of mismatched pixels that still passes, 0 to
 *   1; negative for the config's (default 0)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the comparison
 * @user_data: data for @callback
 *
 * Captures what the baseline captured, stable as
 * [method@StagewrightVisual.VisualPlugin.capture_async] does, and compares
 * it with the baseline: anti-aliasing aware, with a diff image written
 * beside it. A baseline taken in another environment (Chromium version,
 * device scale factor, viewport, fonts) is `visual.ENV_MISMATCH` rather
 * than a false failure.
 *
 * A capture that does not match is not an error: the comparison says
 * [property@StagewrightVisual.VisualComparison:passed] %FALSE (the tool
 * answers `visual.MISMATCH`).
 *
 * Errors: `visual.BASELINE_NOT_FOUND`, `visual.BASELINE_INVALID`,
 * `visual.ENV_MISMATCH`, besides those of capture_async.
 *
 * Since: 1.0
 */
void
stw_visual_plugin_expect_async (StwVisualPlugin     *self,
                                StwSession          *session,
                                const char          *name,
                                double               threshold,
                                gint64               max_diff_pixels,
                                double               max_diff_ratio,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  JsonObject *target;
  Job *job;

  g_return_if_fail (STW_IS_VISUAL_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (name != NULL);
  g_return_if_fail (threshold <= 1 && max_diff_ratio <= 1);

  task = start_job (self, OP_EXPECT, session, name, cancellable, callback, user_data,
                    stw_visual_plugin_expect_async);
  if (g_task_had_error (task))
    return;
  job = g_task_get_task_data (task);
  job->threshold = threshold >= 0 ? threshold : config_double (self, "threshold", 0.1);
  job->max_diff_pixels = max_diff_pixels >= 0 ? max_diff_pixels : config_int (self, "maxDiffPixels", 0);
  job->max_diff_ratio = max_diff_ratio >= 0 ? max_diff_ratio : config_double (self, "maxDiffRatio", 0);

  if (!read_pair (job, "", &job->baseline_meta, &job->baseline_png, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!environment_from_json (json_object_get_object_member (job->baseline_meta, "environment"), &job->baseline_env) ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (job->baseline_meta, "target")))
    {
      g_autofree char *path = file_in (job->dir, job->name, ".json");

      g_task_return_error (task, baseline_invalid (path, "no environment or target"));
      return;
    }

  /* The same region as the baseline. */
  target = json_object_get_object_member (job->baseline_meta, "target");
  job->target = json_object_ref (target);
  job->options = stw_screenshot_options_new ();
  if (json_object_has_member (target, "selector") || json_object_has_member (target, "ref"))
    {
      g_autoptr(StwTarget) element = stw_target_new_from_json (target, "ref", "selector", &error);

      if (element == NULL)
        {
          g_autofree char *path = file_in (job->dir, job->name, ".json");

          g_task_return_error (task, baseline_invalid (path, error ? error->message : "bad target"));
          g_clear_error (&error);
          return;
        }
      stw_screenshot_options_set_target (job->options, element);
    }
  else if (json_object_get_boolean_member_with_default (target, "fullPage", FALSE))
    stw_screenshot_options_set_full_page (job->options, TRUE);
  begin_capture (task);
}

/**
 * stw_visual_plugin_expect_finish:
 * @self: a #StwVisualPlugin
 * @result: the #GAsyncResult
 * @error: where to put the failure
 *
 * Finishes [method@StagewrightVisual.VisualPlugin.expect_async].
 *
 * Returns: (transfer full): the comparison
 *
 * Since: 1.0
 */
StwVisualComparison *
stw_visual_plugin_expect_finish (StwVisualPlugin  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_visual_plugin_expect_sync:
 * @self: a #StwVisualPlugin
 * @session: the session whose active window is captured
 * @name: the baseline's name
 * @threshold: as for [method@StagewrightVisual.VisualPlugin.expect_async]
 * @max_diff_pixels: as for [method@StagewrightVisual.VisualPlugin.expect_async]
 * @max_diff_ratio: as for [method@StagewrightVisual.VisualPlugin.expect_async]
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@StagewrightVisual.VisualPlugin.expect_async].
 *
 * Returns: (transfer full): the comparison
 *
 * Since: 1.0
 */
StwVisualComparison *
stw_visual_plugin_expect_sync (StwVisualPlugin  *self,
                               StwSession       *session,
                               const char       *name,
                               double            threshold,
                               gint64            max_diff_pixels,
                               double            max_diff_ratio,
                               GCancellable     *cancellable,
                               GError          **error)
{
  StwSyncCall call;
  StwVisualComparison *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_visual_plugin_expect_async (self, session, name, threshold, max_diff_pixels, max_diff_ratio, cancellable,
                                  stw_sync_call_callback, &call);
  ret = stw_visual_plugin_expect_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_visual_plugin_update_baseline_async:
 * @self: a #StwVisualPlugin
 * @name: the baseline's name
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the baseline is written
 * @user_data: data for @callback
 *
 * Makes the last capture of @name (`NAME.actual.png`, from
 * [method@StagewrightVisual.VisualPlugin.capture_async] or a comparison)
 * its baseline, environment included. The tool asks for `confirm: true`;
 * a library caller's call is its confirmation.
 *
 * Errors: `visual.PATH_INVALID`, `visual.BASELINE_NOT_FOUND` (no capture),
 * `visual.BASELINE_INVALID`, `visual.IMAGE_TOO_LARGE`, `visual.WRITE_FAILED`.
 *
 * Since: 1.0
 */
void
stw_visual_plugin_update_baseline_async (StwVisualPlugin     *self,
                                         const char          *name,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) meta = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GBytes) meta_out = NULL;
  g_autofree char *baseline = NULL;
  g_autofree char *baseline_json = NULL;
  g_autofree char *actual_json = NULL;
  g_autofree char *text = NULL;
  StwVisualCapture *capture;
  Environment env = { 0 };
  GError *error = NULL;
  guint width = 0, height = 0;
  Job *job;

  g_return_if_fail (STW_IS_VISUAL_PLUGIN (self));
  g_return_if_fail (name != NULL);

  task = start_job (self, OP_CAPTURE, NULL, name, cancellable, callback, user_data,
                    stw_visual_plugin_update_baseline_async);
  if (g_task_had_error (task))
    return;
  job = g_task_get_task_data (task);
  if (!read_pair (job, ".actual", &meta, &png, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  actual_json = file_in (job->dir, job->name, ".actual.json");
  if (!environment_from_json (json_object_get_object_member (meta, "environment"), &env) ||
      !_stw_visual_image_png_size (g_bytes_get_data (png, NULL), g_bytes_get_size (png), &width, &height))
    {
      environment_clear (&env);
      g_task_return_error (task, baseline_invalid (actual_json, "not a capture of the visual plugin"));
      return;
    }
  if ((guint64) width * height > max_pixels (self))
    {
      environment_clear (&env);
      g_task_return_error (task, too_large (width, height, max_pixels (self)));
      return;
    }

  baseline = file_in (job->dir, job->name, ".png");
  baseline_json = file_in (job->dir, job->name, ".json");
  /* Its own name, whatever the copy said. */
  json_object_set_string_member (meta, "name", job->name);
  node = json_node_init_object (json_node_alloc (), meta);
  text = json_to_string (node, TRUE);
  meta_out = g_bytes_new (text, strlen (text));
  if (!write_file (job->dispatcher, baseline, png, &error) ||
      !write_file (job->dispatcher, baseline_json, meta_out, &error))
    {
      environment_clear (&env);
      g_task_return_error (task, error);
      return;
    }

  capture = g_object_new (STW_TYPE_VISUAL_CAPTURE, NULL);
  capture->name = g_strdup (job->name);
  capture->path = g_strdup (baseline);
  capture->baseline_path = g_strdup (baseline);
  capture->baseline_created = TRUE;
  capture->width = width;
  capture->height = height;
  capture->chromium_version = g_steal_pointer (&env.chromium);
  capture->device_scale_factor = env.scale;
  capture->viewport_width = env.viewport_width;
  capture->viewport_height = env.viewport_height;
  capture->fonts_fingerprint = g_steal_pointer (&env.fonts);
  g_task_return_pointer (task, capture, g_object_unref);
}

/**
 * stw_visual_plugin_update_baseline_finish:
 * @self: a #StwVisualPlugin
 * @result: the #GAsyncResult
 * @error: where to put the failure
 *
 * Finishes [method@StagewrightVisual.VisualPlugin.update_baseline_async].
 *
 * Returns: (transfer full): the new baseline
 *
 * Since: 1.0
 */
StwVisualCapture *
stw_visual_plugin_update_baseline_finish (StwVisualPlugin  *self,
                                          GAsyncResult     *result,
                                          GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_visual_plugin_update_baseline_sync:
 * @self: a #StwVisualPlugin
 * @name: the baseline's name
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of
 * [method@StagewrightVisual.VisualPlugin.update_baseline_async]; it runs in
 * the context of the plugin's dispatcher.
 *
 * Returns: (transfer full): the new baseline
 *
 * Since: 1.0
 */
StwVisualCapture *
stw_visual_plugin_update_baseline_sync (StwVisualPlugin  *self,
                                        const char       *name,
                                        GCancellable     *cancellable,
                                        GError          **error)
{
  StwSyncCall call;
  StwVisualCapture *ret;

  if (!stw_sync_call_init (&call, self))
    return NULL;
  stw_visual_plugin_update_baseline_async (self, name, cancellable, stw_sync_call_callback, &call);
  ret = stw_visual_plugin_update_baseline_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
