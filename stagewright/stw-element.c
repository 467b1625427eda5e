/* stw-element.c: running a page op on the element a target names
 *
 * The one place where a ref becomes an element (docs/page-ops.md): a ref
 * is looked up in the session's table (handed down to every surface, as
 * StwSurfaceShared: nothing here calls the session), its surface found,
 * and the op runs
 * there with the element's key; a selector runs in the surface asked. The
 * answer's element gets (or keeps) its ref.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-surface-private.h"

typedef struct
{
  StwSurfaceShared *shared;
  StwSurface  *surface;    /* where the op runs */
  guint        ref;        /* 0 for a selector */
  char        *op;
  JsonObject  *args;       /* the op's arguments, target included */
  gboolean     moved;      /* the ref was moved once already */
} ElementOp;

static void
element_op_free (ElementOp *data)
{
  g_clear_pointer (&data->shared, _stw_surface_shared_unref);
  g_clear_object (&data->surface);
  g_free (data->op);
  json_object_unref (data->args);
  g_free (data);
}

/* REF_NOT_FOUND for a ref whose element is gone, with what looks like it. */
static GError *
stale_ref_error (StwRefTable  *refs,
                 const StwRef *ref,
                 const char   *why)
{
  GError *error = stw_error_new_code (STW_ERROR_REF_NOT_FOUND, "%s", why);
  g_autoptr(JsonArray) similar = _stw_ref_table_similar (refs, ref, 5);
  g_autofree char *find = g_strdup_printf ("electron_find({ role: \"%s\" })", *ref->role ? ref->role : "button");

  if (json_array_get_length (similar) > 0)
    stw_error_set_similar_refs (error, similar);
  stw_error_set_hint (error, _("The element this ref named is gone. Take a new snapshot and use a ref from it."));
  stw_error_add_next_action (error, "electron_snapshot()");
  stw_error_add_next_action (error, find);
  return error;
}

static JsonObject *
page_target_for (const StwRef *ref)
{
  JsonObject *target = json_object_new ();

  json_object_set_int_member (target, "key", ref->key);
  json_object_set_int_member (target, "world", ref->world_id);
  json_object_set_string_member (target, "fp", ref->fingerprint);
  return target;
}

static void run_op (GTask *task);

/* The ref's element went. Chooses among the live elements with its
 * fingerprint those that have no ref yet: exactly one, and the ref moves
 * to it and the op runs again; otherwise the ref is gone for good. */
static GError *
move_or_retire (GTask        *task,
                const GError *error,
                gint64        world_id)
{
  ElementOp *data = g_task_get_task_data (task);
  StwRefTable *refs = data->shared->refs;
  const StwRef *ref = _stw_ref_table_lookup (refs, data->ref);
  JsonObject *details = stw_error_get_details (error);
  JsonArray *candidates = details && json_object_has_member (details, "candidates")
                          ? json_object_get_array_member (details, "candidates") : NULL;
  const char *surface_id = stw_surface_get_id (data->surface);
  JsonObject *chosen = NULL;
  guint unreffed = 0;

  for (guint i = 0; !data->moved && candidates != NULL && i < json_array_get_length (candidates); i++)
    {
      JsonObject *candidate = json_array_get_object_element (candidates, i);
      gint64 key = candidate ? json_object_get_int_member_with_default (candidate, "key", 0) : 0;

      if (key > 0 && _stw_ref_table_find (refs, surface_id, world_id, key) == 0)
        {
          chosen = candidate;
          unreffed++;
        }
    }

  if (unreffed == 1)
    {
      data->moved = TRUE;
      _stw_ref_table_rebind (refs, data->ref, world_id, json_object_get_int_member (chosen, "key"));
      json_object_set_object_member (data->args, "target", page_target_for (ref));
      run_op (g_object_ref (task));
      return NULL;
    }

  _stw_ref_table_retire (refs, data->ref);
  return stale_ref_error (refs, ref,
                          unreffed > 1 ? _("The element of this ref is gone, and several elements look like it")
                                       : _("The element of this ref is gone"));
}

static void
on_op_answered (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ElementOp *data = g_task_get_task_data (task);
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  StwRefTable *refs = data->shared->refs;
  JsonObject *answer, *target;
  JsonObject *described;
  gint64 world_id = 0;
  guint ref;

  value = _stw_surface_call_page_finish (STW_SURFACE (object), result, &world_id, &error);
  if (value == NULL)
    {
      if (data->ref != 0 && g_error_matches (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND))
        {
          GError *final = move_or_retire (task, error, world_id);
          if (final != NULL)
            g_task_return_error (task, final);
          return;
        }
      if (g_error_matches (error, STW_ERROR, STW_ERROR_SELECTOR_NO_MATCH))
        stw_error_add_next_action (error, "electron_snapshot()");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  answer = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  /* An op that may find no element (a wait for one to go) says so with
   * `target: null`. */
  if (answer != NULL && json_object_has_member (answer, "target") &&
      JSON_NODE_HOLDS_NULL (json_object_get_member (answer, "target")))
    {
      g_task_return_pointer (task, json_object_ref (answer), (GDestroyNotify) json_object_unref);
      return;
    }
  target = answer && json_object_has_member (answer, "target") ? json_object_get_object_member (answer, "target") : NULL;
  if (target == NULL || json_object_get_int_member_with_default (target, "key", 0) <= 0)
    {
      g_task_return_new_error (task, STW_ERROR, STW_ERROR_INTERNAL_ERROR, "Page op %s named no element", data->op);
      return;
    }

  ref = _stw_ref_table_bind (refs, stw_surface_get_id (data->surface), world_id,
                             json_object_get_int_member (target, "key"),
                             stw_json_get_string (target, "fp"),
                             stw_json_get_string (target, "role"),
                             stw_json_get_string (target, "name"));
  described = json_object_new ();
  json_object_set_int_member (described, "ref", ref);
  json_object_set_string_member (described, "role", stw_json_get_string (target, "role") ?: "");
  json_object_set_string_member (described, "name", stw_json_get_string (target, "name") ?: "");
  json_object_set_object_member (answer, "target", described);
  g_task_return_pointer (task, json_object_ref (answer), (GDestroyNotify) json_object_unref);
}

static void
run_op (GTask *task)
{
  ElementOp *data = g_task_get_task_data (task);

  _stw_surface_call_page_async (data->surface, data->op, data->args, g_task_get_cancellable (task),
                                on_op_answered, task);
}

void
_stw_surface_element_op_async (StwSurface          *self,
                               const StwTarget     *target,
                               const char          *op,
                               JsonObject          *args,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  StwSurfaceShared *shared;
  ElementOp *data;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  g_return_if_fail (op != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, _stw_surface_element_op_async);

  shared = _stw_surface_get_shared (self);
  if (!shared->alive)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      return;
    }

  data = g_new0 (ElementOp, 1);
  data->shared = _stw_surface_shared_ref (shared);
  data->op = g_strdup (op);
  data->args = json_object_new ();
  stw_json_object_copy_members (data->args, args, NULL);
  data->ref = stw_target_get_ref (target);
  g_task_set_task_data (task, data, (GDestroyNotify) element_op_free);

  if (data->ref != 0)
    {
      StwRefTable *refs = shared->refs;
      const StwRef *ref = _stw_ref_table_lookup (refs, data->ref);
      StwSurface *surface;

      if (ref == NULL)
        {
          GError *error = stw_error_new_code (STW_ERROR_REF_NOT_FOUND,
                                              _stw_ref_table_was_issued (refs, data->ref)
                                              ? _("Ref %u is gone: the session keeps only its most recent refs")
                                              : _("Ref %u was never given in this session"), data->ref);
          stw_error_add_next_action (error, "electron_snapshot()");
          g_task_return_error (task, error);
          return;
        }
      if (ref->gone)
        {
          g_task_return_error (task, stale_ref_error (refs, ref, _("The element of this ref is gone")));
          return;
        }
      surface = _stw_surface_shared_lookup (shared, ref->surface_id);
      if (surface == NULL || stw_surface_is_closed (surface))
        {
          _stw_ref_table_retire (refs, data->ref);
          g_task_return_error (task, stale_ref_error (refs, ref, _("The surface of this ref has closed")));
          return;
        }
      data->surface = g_object_ref (surface);
      json_object_set_object_member (data->args, "target", page_target_for (ref));
    }
  else
    {
      JsonObject *page_target = json_object_new ();

      json_object_set_string_member (page_target, "selector", stw_target_get_selector (target));
      json_object_set_object_member (data->args, "target", page_target);
      data->surface = g_object_ref (self);
    }

  run_op (g_steal_pointer (&task));
}

JsonObject *
_stw_surface_element_op_finish (StwSurface    *self,
                                GAsyncResult  *result,
                                StwSurface   **acted_on,
                                GError       **error)
{
  ElementOp *data;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_surface_element_op_async, NULL);

  data = g_task_get_task_data (G_TASK (result));
  if (acted_on != NULL)
    *acted_on = data && data->surface ? g_object_ref (data->surface) : NULL;
  return g_task_propagate_pointer (G_TASK (result), error);
}

guint
_stw_surface_bind_ref (StwSurface *self,
                       gint64      world_id,
                       JsonObject *info)
{
  g_return_val_if_fail (info != NULL, 0);
  if (json_object_get_int_member_with_default (info, "key", 0) <= 0)
    return 0;
  return _stw_ref_table_bind (_stw_surface_get_shared (self)->refs, stw_surface_get_id (self), world_id,
                              json_object_get_int_member (info, "key"),
                              stw_json_get_string (info, "fp"),
                              stw_json_get_string (info, "role"),
                              stw_json_get_string (info, "name"));
}
