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
#include "stw-session-private.h"

typedef struct
{
  StwInvocation *invocation;
  char          *path;
  char          *format;
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

/* Dimensions from the image header: PNG IHDR, or a JPEG SOFn marker. */
static gboolean
image_size (const guchar *data,
            gsize         length,
            guint        *width,
            guint        *height)
{
  if (length >= 24 && memcmp (data, "\x89PNG\r\n\x1a\n", 8) == 0)
    {
      *width = (guint) data[16] << 24 | (guint) data[17] << 16 | (guint) data[18] << 8 | data[19];
      *height = (guint) data[20] << 24 | (guint) data[21] << 16 | (guint) data[22] << 8 | data[23];
      return TRUE;
    }
  if (length >= 4 && data[0] == 0xFF && data[1] == 0xD8)
    {
      gsize i = 2;
      while (i + 9 < length)
        {
          guint marker, segment;
          if (data[i] != 0xFF)
            return FALSE;
          marker = data[i + 1];
          segment = (guint) data[i + 2] << 8 | data[i + 3];
          if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)
            {
              *height = (guint) data[i + 5] << 8 | data[i + 6];
              *width = (guint) data[i + 7] << 8 | data[i + 8];
              return TRUE;
            }
          i += 2 + segment;
        }
    }
  return FALSE;
}


static void
on_captured (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(Screenshot) shot = user_data;
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  const guchar *data;
  gsize length = 0;
  guint width = 0, height = 0;

  image = stw_session_capture_screenshot_finish (STW_SESSION (object), result, &error);
  if (image == NULL)
    {
      stw_invocation_return_error (shot->invocation, error);
      return;
    }
  data = g_bytes_get_data (image, &length);
  if (!g_file_set_contents_full (shot->path, (const char *) data, (gssize) length,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    {
      stw_invocation_return_error_literal (shot->invocation, "FILE_NOT_FOUND", error->message);
      return;
    }

  json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (shot->invocation));
  json_object_set_string_member (payload, "path", shot->path);
  json_object_set_int_member (payload, "bytes", (gint64) length);
  json_object_set_string_member (payload, "format", shot->format);
  if (image_size (data, length, &width, &height))
    {
      json_object_set_int_member (payload, "width", width);
      json_object_set_int_member (payload, "height", height);
    }
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

  if (id == NULL && title == NULL && index < 0 && _stw_session_get_browser (session) != NULL &&
      stw_session_get_active_window (session) != NULL)
    return stw_session_get_active_window (session);

  return stw_session_find_window (session, id, title, (int) MIN (index, G_MAXINT), error);
}

static void
screenshot_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  JsonObject *args = stw_invocation_get_arguments (invocation);
  const char *path = json_object_get_string_member_with_default (args, "path", NULL);
  const char *dir = json_object_get_string_member_with_default (args, "dir", NULL);
  const char *format = json_object_get_string_member_with_default (args, "format", "png");
  const char *app_root = stw_dispatcher_get_app_root (dispatcher);
  g_autoptr(GError) error = NULL;
  g_autoptr(Screenshot) shot = NULL;
  g_autofree char *parent = NULL;
  StwSession *session;
  StwSurface *window;
  StwSurface *active;

  if (path != NULL && dir != NULL)
    {
      stw_invocation_return_error_literal (invocation, "BAD_ARGUMENT", _("Give path or dir, not both"));
      return;
    }
  if ((path != NULL && !g_path_is_absolute (path)) || (dir != NULL && !g_path_is_absolute (dir)))
    {
      stw_invocation_return_error_literal (invocation, "ABSOLUTE_PATH_REQUIRED", NULL);
      return;
    }
  if (json_object_has_member (args, "ref"))
    {
      GError *missing = stw_error_new ("REF_NOT_FOUND", _("Unknown ref: no snapshot has been taken"));
      stw_error_add_next_action (missing, "electron_snapshot()");
      stw_invocation_return_error (invocation, missing);
      return;
    }
  if ((json_object_has_member (args, "selector")) &&
      (json_object_has_member (args, "fullPage") || json_object_has_member (args, "clip")))
    {
      stw_invocation_return_error_literal (invocation, "BAD_ARGUMENT",
                                           _("fullPage and clip apply to window captures, not element crops"));
      return;
    }

  session = stw_invocation_get_session (invocation);
  if ((window = pick_window (session, args, &error)) == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  active = stw_session_get_active_surface (session);
  if (json_object_has_member (args, "selector") && active != NULL &&
      stw_surface_get_kind (active) != STW_SURFACE_KIND_WINDOW)
    {
      stw_invocation_return_error_literal (invocation, "SURFACE_UNSUPPORTED",
                                           _("Element crops work on window surfaces; switch to the window"));
      return;
    }

  shot = g_new0 (Screenshot, 1);
  shot->invocation = g_object_ref (invocation);
  shot->format = g_strdup (format);
  if (path != NULL)
    shot->path = g_strdup (path);
  else
    {
      g_autofree char *uuid = g_uuid_string_random ();
      g_autofree char *name = g_strdup_printf ("stagewright-%s.%s", uuid, g_str_equal (format, "jpeg") ? "jpg" : "png");
      const char *base = dir ? dir : stw_dispatcher_get_screenshot_dir (dispatcher);
      shot->path = g_build_filename (base ? base : g_get_tmp_dir (), name, NULL);
    }
  parent = g_path_get_dirname (shot->path);
  if (app_root != NULL && (path != NULL || dir != NULL) && !_stw_path_is_inside (parent, app_root))
    {
      stw_invocation_return_error_literal (invocation, "BAD_ARGUMENT",
                                           _("The screenshot path lies outside the server's --app-root"));
      return;
    }
  if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    {
      stw_invocation_return_error_literal (invocation, "FILE_NOT_FOUND", _("The directory does not exist"));
      return;
    }

  stw_session_capture_screenshot_async (session, window, args, stw_invocation_get_cancellable (invocation),
                                        on_captured, g_steal_pointer (&shot));
}

static const StwToolSpec observe_specs[] = {
  {
    .name = "electron_screenshot",
    .title = "Screenshot",
    .description = "Capture a window (active, or windowId > windowTitle > windowIndex), its full page, a clip, or "
                   "one element (selector) to a file: path > dir > the server's --screenshot-dir > the temporary "
                   "directory. Bytes are never inlined. "
                   "Returns: {session_id, path, bytes, format, width?, height?}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"sessionId\":{\"type\":\"string\",\"minLength\":1},"
      "\"ref\":{\"type\":\"integer\",\"minimum\":1},"
      "\"selector\":{\"type\":\"string\",\"minLength\":1},"
      "\"fullPage\":{\"type\":\"boolean\"},"
      "\"clip\":{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"x\",\"y\",\"width\",\"height\"],\"properties\":{"
      "\"x\":{\"type\":\"number\",\"minimum\":0},\"y\":{\"type\":\"number\",\"minimum\":0},"
      "\"width\":{\"type\":\"number\",\"exclusiveMinimum\":0},\"height\":{\"type\":\"number\",\"exclusiveMinimum\":0}}},"
      "\"format\":{\"enum\":[\"png\",\"jpeg\"],\"default\":\"png\"},"
      "\"quality\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100},"
      "\"path\":{\"type\":\"string\",\"minLength\":1},"
      "\"dir\":{\"type\":\"string\",\"minLength\":1},"
      "\"windowId\":{\"type\":\"string\",\"minLength\":1},"
      "\"windowTitle\":{\"type\":\"string\"},"
      "\"windowIndex\":{\"type\":\"integer\",\"minimum\":0}}}",
    .operation_type = STW_OPERATION_SCREENSHOT,
    .errors = "NOT_RUNNING ABSOLUTE_PATH_REQUIRED FILE_NOT_FOUND REF_NOT_FOUND SELECTOR_NO_MATCH "
              "SURFACE_UNSUPPORTED TRANSPORT_UNSUPPORTED CDP_DISCONNECTED CDP_TIMEOUT",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = screenshot_invoke,
  },
};

void
stw_core_tools_add_observe (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, observe_specs, G_N_ELEMENTS (observe_specs));
}
