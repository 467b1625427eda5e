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

  image = stw_surface_capture_screenshot_finish (STW_SURFACE (object), result, &error);
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
  if (stw_image_get_size (image, &width, &height))
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

  if (id == NULL && title == NULL && index < 0 && stw_session_get_active_window (session) != NULL)
    return stw_session_get_active_window (session);

  return stw_session_find_window (session, id, title, (int) MIN (index, G_MAXINT), error);
}

static void
screenshot_invoke (StwTool       *tool,
                   StwInvocation *invocation)
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
  if (json_object_has_member (args, "ref"))
    {
      g_autoptr(GError) missing = stw_error_new ("REF_NOT_FOUND", _("Unknown ref: no snapshot has been taken"));
      stw_error_add_next_action (missing, "electron_snapshot()");
      stw_invocation_return_error (invocation, missing);
      return;
    }
  options = stw_screenshot_options_new_from_json (args, &error);
  if (options == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }

  session = stw_invocation_get_session (invocation);
  if ((window = pick_window (session, args, &error)) == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  active = stw_session_get_active_surface (session);
  if (stw_screenshot_options_get_selector (options) != NULL && active != NULL &&
      stw_surface_get_kind (active) != STW_SURFACE_KIND_WINDOW)
    {
      stw_invocation_return_error_literal (invocation, "SURFACE_UNSUPPORTED",
                                           _("Element crops work on window surfaces; switch to the window"));
      return;
    }

  shot = g_new0 (Screenshot, 1);
  shot->invocation = g_object_ref (invocation);
  shot->format = g_strdup (format);
  shot->path = g_steal_pointer (&file);

  stw_surface_capture_screenshot_async (window, options, stw_invocation_get_cancellable (invocation),
                                        on_captured, g_steal_pointer (&shot));
}

static const StwToolSpec observe_specs[] = {
  {
    .name = "electron_screenshot",
    .title = "Screenshot",
    .description = "Capture a window (active, or windowId > windowTitle > windowIndex), its full page, a clip, or "
                   "one element (selector) to a file: path (ending in .png, or .jpg for jpeg) > dir > the server's --screenshot-dir > <app-root>/.stagewright/screenshots "
                   "(with --app-root) > the temporary directory. Bytes are never inlined. "
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
