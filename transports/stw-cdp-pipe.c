/* stw-cdp-pipe.c: CDP over --remote-debugging-pipe (NUL-delimited, fds 3/4)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <string.h>

#include "stw-cdp-pipe.h"
#include "stw-transport-private.h"

/**
 * StwCdpPipe:
 *
 * A #StwTransport over a pair of streams carrying NUL-terminated JSON
 * records: Chromium's `--remote-debugging-pipe`, which reads commands on
 * its file descriptor 3 and writes replies and events on 4. It is the
 * fastest transport to plain Chromium (field notes §2).
 *
 * Reads are asynchronous and chunked; records split across reads and
 * several records in one read are both handled. A record larger than
 * 512 MiB (twice the largest message Chromium's DevTools code sends) is
 * skipped up to its terminator with a warning; the connection survives.
 * Writes go through an ordered queue, one asynchronous write at a time.
 * End of file or a read or write error closes the transport.
 */

#define MAX_RECORD_SIZE ((gsize) 512 * 1024 * 1024)
#define READ_CHUNK_SIZE (64 * 1024)
/* The input buffer is given back after a record larger than this. */
#define KEEP_BUFFER_SIZE (1024 * 1024)

struct _StwCdpPipe
{
  StwTransport   parent_instance;

  GInputStream  *input;
  GOutputStream *output;
  GCancellable  *cancellable;    /* stops the read loop and the writes */

  GByteArray    *record;         /* the partial record read so far */
  gboolean       skipping;       /* dropping an oversized record up to its NUL */

  GQueue         outgoing;       /* GBytes, each a record with its NUL */
  gboolean       writing;
};

G_DEFINE_FINAL_TYPE (StwCdpPipe, stw_cdp_pipe, STW_TYPE_TRANSPORT)

enum {
  PROP_0,
  PROP_INPUT_STREAM,
  PROP_OUTPUT_STREAM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The state of one asynchronous read or write. It does not own the pipe:
 * the pipe may be finalized while the operation is in flight, and the
 * buffer must outlive it either way. */
typedef struct
{
  GWeakRef pipe;
  guint8   buffer[READ_CHUNK_SIZE];
} ReadOp;

typedef struct
{
  GWeakRef  pipe;
  GBytes   *bytes;
} WriteOp;

static void
read_op_free (ReadOp *op)
{
  g_weak_ref_clear (&op->pipe);
  g_free (op);
}

static void
write_op_free (WriteOp *op)
{
  g_weak_ref_clear (&op->pipe);
  g_bytes_unref (op->bytes);
  g_free (op);
}

/* The channel is unusable: stop reading and writing, and let go of the
 * streams so their file descriptors close (an in-flight operation keeps
 * its stream until it finishes cancelled). */
static void
teardown (StwCdpPipe *self)
{
  g_cancellable_cancel (self->cancellable);
  g_queue_clear_full (&self->outgoing, (GDestroyNotify) g_bytes_unref);

  /* Closing the output now gives the peer end of file at once. */
  if (self->output != NULL && !g_output_stream_has_pending (self->output))
    g_output_stream_close (self->output, NULL, NULL);
  if (self->input != NULL && !g_input_stream_has_pending (self->input))
    g_input_stream_close (self->input, NULL, NULL);

  g_clear_object (&self->input);
  g_clear_object (&self->output);
}

static void
lost (StwCdpPipe   *self,
      const GError *error)
{
  teardown (self);
  _stw_transport_closed (STW_TRANSPORT (self), error);
}

/* --- reading ------------------------------------------------------------- */

static void
deliver (StwCdpPipe *self,
         const char *data,
         gsize       length)
{
  if (length > 0)
    _stw_transport_receive (STW_TRANSPORT (self), data, length);
}

/* Splits @n bytes at the NUL terminators. Returns FALSE once the transport
 * closed while delivering. */
static gboolean
consume (StwCdpPipe   *self,
         const guint8 *data,
         gsize         n)
{
  while (n > 0)
    {
      const guint8 *nul = memchr (data, '\0', n);
      gsize take = nul != NULL ? (gsize) (nul - data) : n;

      if (self->skipping)
        {
          if (nul != NULL)
            self->skipping = FALSE;
        }
      else if (self->record->len + take > MAX_RECORD_SIZE)
        {
          g_warning ("Skipping a DevTools pipe record larger than %" G_GSIZE_FORMAT " bytes",
                     MAX_RECORD_SIZE);
          g_clear_pointer (&self->record, g_byte_array_unref);
          self->record = g_byte_array_new ();
          self->skipping = (nul == NULL);
        }
      else if (nul != NULL && self->record->len == 0)
        {
          /* The common case, a whole record in this chunk: no copy. */
          deliver (self, (const char *) data, take);
        }
      else
        {
          g_byte_array_append (self->record, data, (guint) take);
          if (nul != NULL)
            {
              gsize length = self->record->len;

              deliver (self, (const char *) self->record->data, length);
              /* Delivery may have closed the transport, but not freed it:
               * the read callback holds a reference. */
              if (length > KEEP_BUFFER_SIZE)
                {
                  g_clear_pointer (&self->record, g_byte_array_unref);
                  self->record = g_byte_array_new ();
                }
              else
                g_byte_array_set_size (self->record, 0);
            }
        }

      if (stw_transport_is_closed (STW_TRANSPORT (self)))
        return FALSE;
      if (nul == NULL)
        break;
      data += take + 1;
      n -= take + 1;
    }

  return TRUE;
}

static void read_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data);

static void
read_next (StwCdpPipe *self,
           ReadOp     *op)
{
  g_input_stream_read_async (self->input, op->buffer, sizeof op->buffer,
                             G_PRIORITY_DEFAULT, self->cancellable, read_cb, op);
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  ReadOp *op = user_data;
  g_autoptr(StwCdpPipe) self = g_weak_ref_get (&op->pipe);
  g_autoptr(GError) error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      stw_transport_is_closed (STW_TRANSPORT (self)))
    {
      read_op_free (op);
      return;
    }

  if (n <= 0)
    {
      /* End of file: the peer is gone, which is how Chromium says goodbye. */
      read_op_free (op);
      lost (self, error);
      return;
    }

  if (!consume (self, op->buffer, (gsize) n) || self->input == NULL)
    {
      read_op_free (op);
      return;
    }

  read_next (self, op);
}

/* --- writing ------------------------------------------------------------- */

static void write_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data);

static void
write_next (StwCdpPipe *self)
{
  GBytes *bytes;
  WriteOp *op;

  if (self->writing || self->output == NULL || g_queue_is_empty (&self->outgoing))
    return;

  /* Everything queued goes out in one write. */
  if (g_queue_get_length (&self->outgoing) == 1)
    bytes = g_queue_pop_head (&self->outgoing);
  else
    {
      GByteArray *batch = g_byte_array_new ();
      GBytes *item;

      while ((item = g_queue_pop_head (&self->outgoing)) != NULL)
        {
          gsize size = 0;
          gconstpointer data = g_bytes_get_data (item, &size);

          g_byte_array_append (batch, data, (guint) size);
          g_bytes_unref (item);
        }
      bytes = g_byte_array_free_to_bytes (batch);
    }

  op = g_new0 (WriteOp, 1);
  g_weak_ref_init (&op->pipe, self);
  op->bytes = bytes;
  self->writing = TRUE;
  g_output_stream_write_all_async (self->output,
                                   g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, self->cancellable, write_cb, op);
}

static void
write_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  WriteOp *op = user_data;
  g_autoptr(StwCdpPipe) self = g_weak_ref_get (&op->pipe);
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error);
  write_op_free (op);

  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->writing = FALSE;
  if (error != NULL)
    {
      lost (self, error);
      return;
    }

  write_next (self);
}

static void
stw_cdp_pipe_send_message (StwTransport *transport,
                           const char   *data,
                           gsize         length)
{
  StwCdpPipe *self = STW_CDP_PIPE (transport);

  if (self->output == NULL)
    return;

  /* The base class NUL-terminates the text: the terminator is the record
   * separator. */
  g_assert (data[length] == '\0');
  g_queue_push_tail (&self->outgoing, g_bytes_new (data, length + 1));
  write_next (self);
}

static void
stw_cdp_pipe_shutdown (StwTransport *transport)
{
  teardown (STW_CDP_PIPE (transport));
}

/* --- object -------------------------------------------------------------- */

/* A blocking descriptor would let one large write stall the main loop
 * until the peer has read it all (or forever, when the peer runs in the
 * same loop). */
static void
make_nonblocking (GObject *stream)
{
  int fd = -1;

  if (G_IS_UNIX_INPUT_STREAM (stream))
    fd = g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (stream));
  else if (G_IS_UNIX_OUTPUT_STREAM (stream))
    fd = g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (stream));

  if (fd >= 0)
    g_unix_set_fd_nonblocking (fd, TRUE, NULL);
}

static void
stw_cdp_pipe_constructed (GObject *object)
{
  StwCdpPipe *self = STW_CDP_PIPE (object);
  ReadOp *op;

  G_OBJECT_CLASS (stw_cdp_pipe_parent_class)->constructed (object);

  if (self->input == NULL || self->output == NULL)
    {
      g_critical ("StwCdpPipe needs both an input and an output stream");
      lost (self, NULL);
      return;
    }

  make_nonblocking (G_OBJECT (self->input));
  make_nonblocking (G_OBJECT (self->output));
  op = g_new0 (ReadOp, 1);
  g_weak_ref_init (&op->pipe, self);
  read_next (self, op);
}

static void
stw_cdp_pipe_dispose (GObject *object)
{
  StwCdpPipe *self = STW_CDP_PIPE (object);

  stw_transport_close (STW_TRANSPORT (self));
  teardown (self);

  G_OBJECT_CLASS (stw_cdp_pipe_parent_class)->dispose (object);
}

static void
stw_cdp_pipe_finalize (GObject *object)
{
  StwCdpPipe *self = STW_CDP_PIPE (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->record, g_byte_array_unref);

  G_OBJECT_CLASS (stw_cdp_pipe_parent_class)->finalize (object);
}

static void
stw_cdp_pipe_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  StwCdpPipe *self = STW_CDP_PIPE (object);

  switch (prop_id)
    {
    case PROP_INPUT_STREAM:
      g_value_set_object (value, self->input);
      break;
    case PROP_OUTPUT_STREAM:
      g_value_set_object (value, self->output);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_cdp_pipe_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  StwCdpPipe *self = STW_CDP_PIPE (object);

  switch (prop_id)
    {
    case PROP_INPUT_STREAM:
      self->input = g_value_dup_object (value);
      break;
    case PROP_OUTPUT_STREAM:
      self->output = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_cdp_pipe_class_init (StwCdpPipeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StwTransportClass *transport_class = STW_TRANSPORT_CLASS (klass);

  object_class->constructed = stw_cdp_pipe_constructed;
  object_class->dispose = stw_cdp_pipe_dispose;
  object_class->finalize = stw_cdp_pipe_finalize;
  object_class->get_property = stw_cdp_pipe_get_property;
  object_class->set_property = stw_cdp_pipe_set_property;

  transport_class->send_message = stw_cdp_pipe_send_message;
  transport_class->shutdown = stw_cdp_pipe_shutdown;

  /**
   * StwCdpPipe:input-stream:
   *
   * Where the peer's records come from (Chromium's fd 4). %NULL once the
   * transport is closed.
   */
  properties[PROP_INPUT_STREAM] =
    g_param_spec_object ("input-stream", NULL, NULL,
                         G_TYPE_INPUT_STREAM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * StwCdpPipe:output-stream:
   *
   * Where records to the peer go (Chromium's fd 3). %NULL once the
   * transport is closed.
   */
  properties[PROP_OUTPUT_STREAM] =
    g_param_spec_object ("output-stream", NULL, NULL,
                         G_TYPE_OUTPUT_STREAM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_cdp_pipe_init (StwCdpPipe *self)
{
  self->cancellable = g_cancellable_new ();
  self->record = g_byte_array_new ();
  g_queue_init (&self->outgoing);
}

/**
 * stw_cdp_pipe_new:
 * @input: the stream the peer writes to (Chromium's fd 4)
 * @output: the stream the peer reads from (Chromium's fd 3)
 *
 * Starts reading at once. Unix streams are switched to non-blocking mode,
 * so that no write ever stalls the main loop. Closing the transport closes
 * both streams.
 *
 * Returns: (transfer full) (type StwCdpPipe): a new transport
 *
 * Since: 1.0
 */
StwTransport *
stw_cdp_pipe_new (GInputStream  *input,
                  GOutputStream *output)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  return g_object_new (STW_TYPE_CDP_PIPE,
                       "input-stream", input,
                       "output-stream", output,
                       NULL);
}
