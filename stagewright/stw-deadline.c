/* stw-deadline.c: a call's deadline, carried by its cancellable
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-deadline-private.h"

struct _StwDeadline
{
  GCancellable parent_instance;
  gint64       deadline_us;   /* monotonic */
  guint        timeout_ms;    /* the call's, for the messages that cite it */
  GSource     *forward;       /* the caller's cancellation, passed on */
  GCancellable *caller;
};

G_DEFINE_FINAL_TYPE (StwDeadline, _stw_deadline, G_TYPE_CANCELLABLE)

static void
_stw_deadline_dispose (GObject *object)
{
  StwDeadline *self = STW_DEADLINE (object);

  /* A source, not g_cancellable_connect(): the last reference may go while
   * the caller's cancellable emits, and disconnecting from inside its
   * emission would deadlock. The caller goes after the source: a source
   * that dropped the caller's last reference would dispose it (and its
   * own source) under GLib's cancellable lock, which does not nest. */
  if (self->forward != NULL)
    {
      g_source_destroy (self->forward);
      g_clear_pointer (&self->forward, g_source_unref);
    }
  g_clear_object (&self->caller);

  G_OBJECT_CLASS (_stw_deadline_parent_class)->dispose (object);
}

static void
_stw_deadline_class_init (StwDeadlineClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = _stw_deadline_dispose;
}

static void
_stw_deadline_init (StwDeadline *self)
{
  self->deadline_us = G_MAXINT64;
}

static gboolean
on_caller_cancelled (GCancellable *caller,
                     gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
  return G_SOURCE_REMOVE;
}

/*
 * _stw_deadline_new:
 * @parent: (nullable): the caller's cancellable
 * @timeout_ms: the call's timeout
 *
 * A cancellable for the steps of one call, cancelled with @parent, whose
 * deadline is @timeout_ms (plus %STW_DEADLINE_GRACE_MS) from now, or
 * @parent's own deadline when that comes first.
 *
 * Returns: (transfer full): the deadline
 */
GCancellable *
_stw_deadline_new (GCancellable *parent,
                   guint         timeout_ms)
{
  StwDeadline *self = g_object_new (STW_TYPE_DEADLINE, NULL);

  g_return_val_if_fail (parent == NULL || G_IS_CANCELLABLE (parent), G_CANCELLABLE (self));

  self->timeout_ms = timeout_ms;
  self->deadline_us = g_get_monotonic_time () + ((gint64) timeout_ms + STW_DEADLINE_GRACE_MS) * 1000;
  if (STW_IS_DEADLINE (parent) && STW_DEADLINE (parent)->deadline_us < self->deadline_us)
    {
      self->deadline_us = STW_DEADLINE (parent)->deadline_us;
      self->timeout_ms = STW_DEADLINE (parent)->timeout_ms;
    }

  if (parent != NULL && g_cancellable_is_cancelled (parent))
    g_cancellable_cancel (G_CANCELLABLE (self));
  else if (parent != NULL)
    {
      g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();

      self->caller = g_object_ref (parent);
      self->forward = g_cancellable_source_new (parent);
      g_source_set_callback (self->forward, G_SOURCE_FUNC (on_caller_cancelled), self, NULL);
      g_source_attach (self->forward, context);
    }
  return G_CANCELLABLE (self);
}

/*
 * _stw_deadline_clamp:
 * @cancellable: (nullable): the cancellable a command is started with
 * @timeout_ms: (inout): the command's reply timeout; cut to what is left
 *   of the deadline, 0 when it has passed
 * @call_timeout_ms: (out): the timeout of the call whose deadline cut it
 *
 * Returns: %TRUE when @cancellable carries a deadline that cut @timeout_ms
 */
gboolean
_stw_deadline_clamp (GCancellable *cancellable,
                     guint        *timeout_ms,
                     guint        *call_timeout_ms)
{
  StwDeadline *self;
  gint64 left_ms;

  if (!STW_IS_DEADLINE (cancellable))
    return FALSE;
  self = STW_DEADLINE (cancellable);
  /* Rounded up: a timeout source of 0 ms would fire before the last
   * fraction of a millisecond is over. */
  left_ms = (self->deadline_us - g_get_monotonic_time () + 999) / 1000;
  if (left_ms >= (gint64) *timeout_ms)
    return FALSE;
  *timeout_ms = (guint) MAX (left_ms, 0);
  *call_timeout_ms = self->timeout_ms;
  return TRUE;
}

/*
 * _stw_deadline_has_passed:
 * @cancellable: (nullable): a cancellable
 *
 * Returns: %TRUE when @cancellable carries a deadline that has passed
 */
gboolean
_stw_deadline_has_passed (GCancellable *cancellable)
{
  return STW_IS_DEADLINE (cancellable) &&
         g_get_monotonic_time () >= STW_DEADLINE (cancellable)->deadline_us;
}

/*
 * _stw_deadline_get_real_ms:
 * @cancellable: (nullable): a cancellable
 *
 * The deadline in wall-clock time, for a page that must not act on a
 * command it runs late (after a hang): the page's clock is this
 * machine's.
 *
 * Returns: the deadline in milliseconds since the epoch, or 0 when
 *   @cancellable carries none
 */
gint64
_stw_deadline_get_real_ms (GCancellable *cancellable)
{
  if (!STW_IS_DEADLINE (cancellable))
    return 0;
  return (g_get_real_time () + STW_DEADLINE (cancellable)->deadline_us - g_get_monotonic_time ()) / 1000;
}
