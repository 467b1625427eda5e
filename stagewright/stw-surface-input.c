/* stw-surface-input.c: input to a surface — which window takes it, where
 * a frame's point is in that window, and what a dialog it opened was
 * answered
 *
 * The surface layer over the input unit (stw-input.c), which knows only
 * connections and session ids: this file finds the window a frame's input
 * goes to and the offset of its point, hands the window's pointer down,
 * and asks the dialogs unit (stw-dialogs.c) explicitly about a dialog the
 * input opened.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-dialogs-private.h"
#include "stw-error-registry.h"
#include "stw-input-private.h"
#include "stw-json-private.h"
#include "stw-surface-private.h"

/* --- which window ------------------------------------------------------------ */

/* The window a surface's input goes to: a frame's page. */
StwSurface *
_stw_surface_window_of (StwSurface *surface)
{
  while (stw_surface_get_kind (surface) == STW_SURFACE_KIND_FRAME && _stw_surface_get_parent (surface) != NULL)
    surface = _stw_surface_get_parent (surface);
  return surface;
}

gboolean
_stw_surface_pointer_is_at (StwSurface *window,
                            double      x,
                            double      y)
{
  return _stw_input_pointer_is_at (_stw_surface_get_pointer (window), x, y);
}

/* --- sending ------------------------------------------------------------------ */

static void
on_input_sent (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSurface *window = g_task_get_source_object (task);
  g_autofree char *dialog_session = NULL;
  g_autoptr(JsonObject) dialog_event = NULL;
  GError *error = NULL;

  if (!_stw_input_send_finish (result, &dialog_session, &dialog_event, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (dialog_session != NULL)
    {
      /* The dialogs unit answered it by the session's policy, or answers
       * it now: the input's answer says which dialog and how. */
      StwDialogs *dialogs = _stw_surface_get_shared (window)->dialogs;
      JsonObject *dialog = _stw_dialogs_take_opened (dialogs, _stw_surface_get_transport (window),
                                                     dialog_session, dialog_event);

      g_task_set_task_data (task, dialog, (GDestroyNotify) json_object_unref);
    }
  g_task_return_boolean (task, TRUE);
}

void
_stw_surface_send_input_async (StwSurface          *window,
                               StwSurface          *frame,
                               GPtrArray           *events,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GTask *task = g_task_new (window, cancellable, callback, user_data);

  g_task_set_source_tag (task, _stw_surface_send_input_async);
  _stw_input_send_async (_stw_surface_get_transport (window), stw_surface_get_cdp_session_id (window),
                         frame ? stw_surface_get_cdp_session_id (frame) : NULL,
                         _stw_surface_get_pointer (window), events, cancellable, on_input_sent, task);
}

/* @dialog: the dialog the input opened ({type, message, action}), or NULL. */
gboolean
_stw_surface_send_input_finish (StwSurface    *window,
                                GAsyncResult  *result,
                                JsonObject   **dialog,
                                GError       **error)
{
  JsonObject *opened;

  g_return_val_if_fail (g_task_is_valid (result, window), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_surface_send_input_async, FALSE);

  opened = g_task_get_task_data (G_TASK (result));
  if (dialog != NULL)
    *dialog = opened ? json_object_ref (opened) : NULL;
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- where a frame is ------------------------------------------------------- */

typedef struct
{
  StwSurface *current;     /* the frame whose owner is being measured */
  double      dx, dy;
} Locate;

static void
locate_free (Locate *locate)
{
  g_clear_object (&locate->current);
  g_free (locate);
}

static void locate_step (GTask *task);

/* A same-process frame shares its local root's session and coordinates. */
static StwSurface *
local_root_of (StwSurface *surface)
{
  while (_stw_surface_get_subframe_id (surface) != NULL && _stw_surface_get_parent (surface) != NULL)
    surface = _stw_surface_get_parent (surface);
  return surface;
}

static void
on_owner_box (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Locate *locate = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;
  JsonObject *model;
  JsonArray *content;
  StwSurface *parent;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  model = json_object_has_member (reply, "model") ? json_object_get_object_member (reply, "model") : NULL;
  content = model && json_object_has_member (model, "content") ? json_object_get_array_member (model, "content") : NULL;
  if (content == NULL || json_array_get_length (content) < 8)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_ELEMENT_NOT_VISIBLE, _("The frame is not rendered")));
      return;
    }
  /* The content quad is in the local root's viewport. */
  locate->dx += json_array_get_double_element (content, 0);
  locate->dy += json_array_get_double_element (content, 1);

  parent = local_root_of (_stw_surface_get_parent (locate->current));
  g_set_object (&locate->current, parent);
  locate_step (g_steal_pointer (&task));
}

static void
on_frame_owner (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Locate *locate = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  StwSurface *parent = _stw_surface_get_parent (locate->current);
  GCancellable *cancellable;
  GError *error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  json_object_set_int_member (params, "backendNodeId", json_object_get_int_member_with_default (reply, "backendNodeId", 0));
  cancellable = g_task_get_cancellable (task);
  stw_transport_call_async (_stw_surface_get_transport (parent), "DOM.getBoxModel", params,
                            stw_surface_get_cdp_session_id (parent), 0, cancellable,
                            on_owner_box, g_steal_pointer (&task));
}

static void
locate_step (GTask *task)
{
  Locate *locate = g_task_get_task_data (task);
  StwSurface *parent = _stw_surface_get_parent (locate->current);
  g_autoptr(JsonObject) params = NULL;

  if (stw_surface_get_kind (locate->current) != STW_SURFACE_KIND_FRAME || parent == NULL)
    {
      g_task_return_pointer (task, g_object_ref (locate->current), g_object_unref);
      g_object_unref (task);
      return;
    }
  if (stw_surface_is_closed (parent) || _stw_surface_get_transport (parent) == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_SURFACE_CLOSED, NULL));
      g_object_unref (task);
      return;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "frameId", stw_surface_get_frame_id (locate->current));
  stw_transport_call_async (_stw_surface_get_transport (parent), "DOM.getFrameOwner", params,
                            stw_surface_get_cdp_session_id (parent), 0, g_task_get_cancellable (task),
                            on_frame_owner, task);
}

void
_stw_surface_frame_offset_async (StwSurface          *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Locate *locate = g_new0 (Locate, 1);

  g_task_set_source_tag (task, _stw_surface_frame_offset_async);
  locate->current = g_object_ref (self);
  g_task_set_task_data (task, locate, (GDestroyNotify) locate_free);
  locate_step (task);
}

StwSurface *
_stw_surface_frame_offset_finish (StwSurface    *self,
                                  GAsyncResult  *result,
                                  double        *x,
                                  double        *y,
                                  GError       **error)
{
  Locate *locate;
  StwSurface *root;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_surface_frame_offset_async, NULL);

  locate = g_task_get_task_data (G_TASK (result));
  root = g_task_propagate_pointer (G_TASK (result), error);
  if (x != NULL)
    *x = root ? locate->dx : 0;
  if (y != NULL)
    *y = root ? locate->dy : 0;
  return root;
}
