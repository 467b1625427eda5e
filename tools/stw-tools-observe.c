/* stw-tools-observe.c: electron_screenshot
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "stw-core-tools.h"
#include "stw-error-registry.h"

/* The default bound of an inline image, in pixels per side. */
#define INLINE_MAX_SIDE 1280

typedef struct
{
  StwInvocation *invocation;
  char          *path;
  char          *format;
  gboolean       inline_image;
} Screenshot;

static void
screenshot_free (Screenshot *shot)
{
  g_object_unref (shot->invocation);
  g_free (shot->path);
  g_free (shot->format);
  g_free (shot);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Screenshot, screenshot_free)

static void
on_captured (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(Screenshot) shot = user_data;
  g_autoptr(StwScreenshot) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  GBytes *bytes;

  image = stw_surface_capture_screenshot_finish (STW_SURFACE (object), result, &error);
  if (image == NULL)
    {
      stw_invocation_return_error (shot->invocation, error);
      return;
    }
  bytes = stw_screenshot_get_bytes (image);
  /* Written beneath the app root held from start: a directory swapped for
   * a symlink since the path was checked leads nowhere. */
  if (!stw_dispatcher_write_file (stw_invocation_get_dispatcher (shot->invocation), shot->path, bytes, 0644, &error))
    {
      stw_invocation_return_error (shot->invocation, error);
      return;
    }

  json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (shot->invocation));
  json_object_set_string_member (payload, "path", shot->path);
  json_object_set_int_member (payload, "bytes", (gint64) g_bytes_get_size (bytes));
  json_object_set_string_member (payload, "format", shot->format);
  json_object_set_int_member (payload, "width", stw_screenshot_get_width (image));
  json_object_set_int_member (payload, "height", stw_screenshot_get_height (image));
  if (shot->inline_image)
    stw_invocation_add_image (shot->invocation, bytes, stw_screenshot_get_mime_type (image));
  stw_invocation_return_value (shot->invocation, payload);
}

/* windowId > windowTitle > windowIndex, else the active window. */
static StwSurface *
pick_window (StwSession  *session,
             JsonObject  *args,
             GError     **error)
{
  const char *id = json_object_get_string_member_with_default (args, "windowId", NULL);
  const char *title = json_object_get_string_member_with_default (args, "windowTitle", NULL);
  gint64 index = json_object_get_int_member_with_default (args, "windowIndex", -1);

  if (json_object_has_member (args, "windowIndex") && index < 0)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("windowIndex must not be negative")));
      return NULL;
    }
  if (id == NULL && title == NULL && index < 0 && stw_session_get_active_window (session) != NULL)
    return stw_session_get_active_window (session);

  return stw_session_find_window (session, id, title, (int) MIN (index, G_MAXINT), error);
}

static void
screenshot (StwInvocation *invocation,
            gboolean       refreshed)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  JsonObject *args = stw_invocation_get_arguments (invocation);
  const char *format = json_object_get_string_member_with_default (args, "format", "png");
  g_autoptr(GError) error = NULL;
  g_autoptr(Screenshot) shot = NULL;
  g_autoptr(StwScreenshotOptions) options = NULL;
  g_autofree char *file = NULL;
  StwSession *session;
  StwSurface *window;
  StwSurface *active;
  gboolean inline_image;

  file = stw_screenshot_resolve_path (stw_dispatcher_get_app_root (dispatcher),
                                      stw_dispatcher_get_screenshot_dir (dispatcher),
                                      json_object_get_string_member_with_default (args, "path", NULL),
                                      json_object_get_string_member_with_default (args, "dir", NULL),
                                      g_str_equal (format, "jpeg") ? STW_IMAGE_FORMAT_JPEG : STW_IMAGE_FORMAT_PNG,
                                      &error);
  if (file == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  options = stw_screenshot_options_new_from_json (args, &error);
  if (options == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  inline_image = json_object_get_boolean_member_with_default (args, "inline", FALSE);
  /* What an agent reads inline is bounded unless it says otherwise. */
  if (inline_image && !stw_screenshot_options_get_max_size (options, NULL, NULL))
    stw_screenshot_options_set_max_size (options, INLINE_MAX_SIDE, INLINE_MAX_SIDE);

  session = stw_invocation_get_session (invocation);
  active = stw_session_get_active_surface (session);
  if (stw_screenshot_options_get_selector (options) != NULL && active != NULL)
    window = active;   /* a selector is looked up where the agent looks */
  else if ((window = pick_window (session, args, &error)) == NULL)
    {
      /* A title or window the page made a moment ago may not be known yet
       * (they arrive as events): read the targets once and look again. */
      if (!refreshed && g_error_matches (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND))
        {
          stw_tools_refresh_then (invocation, screenshot);
          return;
        }
      stw_invocation_return_error (invocation, error);
      return;
    }

  shot = g_new0 (Screenshot, 1);
  shot->invocation = g_object_ref (invocation);
  shot->format = g_strdup (format);
  shot->path = g_steal_pointer (&file);
  shot->inline_image = inline_image;

  stw_surface_capture_screenshot_async (window, options, stw_invocation_get_cancellable (invocation),
                                        on_captured, g_steal_pointer (&shot));
}

static void
screenshot_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  screenshot (invocation, FALSE);
}

static const StwToolSpec observe_specs[] = {
  {
    .name = "electron_screenshot",
    .description = "PNG/JPEG of the window, full page, clip or element (any frame) to path|dir; inline adds "
                   "the image, fit in maxWidth x maxHeight. Bounded by 10 s (fullPage: 30 s). "
                   "Returns {path, width, height}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      STW_SCHEMA_SESSION_ID ","
      "\"ref\":{\"type\":\"integer\"},"
      "\"selector\":{\"type\":\"string\"},"
      "\"fullPage\":{\"type\":\"boolean\"},"
      "\"clip\":{\"type\":\"object\"},"
      "\"format\":{\"enum\":[\"png\",\"jpeg\"]},"
      "\"quality\":{\"type\":\"integer\"},"
      "\"path\":{\"type\":\"string\"},"
      "\"dir\":{\"type\":\"string\"},"
      "\"inline\":{\"type\":\"boolean\"},"
      "\"maxWidth\":{\"type\":\"integer\"},"
      "\"maxHeight\":{\"type\":\"integer\"},"
      "\"windowId\":{\"type\":\"string\"},"
      "\"windowTitle\":{\"type\":\"string\"},"
      "\"windowIndex\":{\"type\":\"integer\"}}}",
    .operation_type = STW_OPERATION_SCREENSHOT,
    .errors = "REF_NOT_FOUND SELECTOR_NO_MATCH BAD_ARGUMENT ABSOLUTE_PATH_REQUIRED FILE_NOT_FOUND NOT_RUNNING",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = screenshot_invoke,
  },
};

void
stw_core_tools_add_observe (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, observe_specs, G_N_ELEMENTS (observe_specs));
}
