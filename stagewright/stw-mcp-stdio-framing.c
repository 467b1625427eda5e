/* stw-mcp-stdio-framing.c: newline-delimited JSON-RPC on a pair of streams
 *
 * The MCP stdio transport: one message per line, both ways (the writer
 * escapes every newline inside a message). Reading and writing are
 * asynchronous, so a client that stops reading never blocks the main
 * loop; what it leaves unread is bounded, and past the bound the client
 * is dropped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-mcp-framing-private.h"

#define READ_CHUNK 65536

struct _StwMcpStdioFraming
{
  StwMcpFraming  parent_instance;

  GInputStream  *input;
  GOutputStream *output;
  GCancellable  *cancellable;

  GByteArray    *inbuf;
  gsize          scanned;       /* bytes of inbuf known to hold no newline */
  gboolean       discarding;    /* inside an oversized line */
  gboolean       reading;
  gboolean       input_done;

  GQueue         outq;          /* GBytes, each a whole line */
  GBytes        *writing;       /* the line being written */
  gsize          queued_bytes;  /* in outq, behind the line being written */
  gsize          max_queued;
  gboolean       output_failed;
};

G_DEFINE_FINAL_TYPE (StwMcpStdioFraming, stw_mcp_stdio_framing, STW_TYPE_MCP_FRAMING)

static void read_next (StwMcpStdioFraming *self);
static void write_next (StwMcpStdioFraming *self);

static void
clear_output (StwMcpStdioFraming *self)
{
  while (!g_queue_is_empty (&self->outq))
    g_bytes_unref (g_queue_pop_head (&self->outq));
  self->queued_bytes = 0;
}

/* --- input --------------------------------------------------------------- */

static void
emit_line (StwMcpStdioFraming *self,
           const char         *line,
           gsize               length)
{
  if (length > 0 && line[length - 1] == '\r')
    length--;
  _stw_mcp_framing_emit_message (STW_MCP_FRAMING (self), line, length);
}

static void
process_buffer (StwMcpStdioFraming *self)
{
  StwMcpFraming *framing = STW_MCP_FRAMING (self);
  guint8 *data = self->inbuf->data;
  gsize len = self->inbuf->len;
  gsize consumed = 0;

  for (;;)
    {
      /* A long line arrives in many reads; search each byte once. */
      gsize from = MAX (consumed, self->scanned);
      guint8 *newline = memchr (data + from, '\n', len - from);
      gsize line_len;

      if (newline == NULL)
        break;
      line_len = (gsize) (newline - (data + consumed));
      if (self->discarding)
        self->discarding = FALSE;  /* the oversized line ends here */
      else
        emit_line (self, (const char *) data + consumed, line_len);
      consumed += line_len + 1;
      if (_stw_mcp_framing_is_stopped (framing))
        return;
    }

  if (consumed > 0)
    g_byte_array_remove_range (self->inbuf, 0, (guint) consumed);
  self->scanned = self->inbuf->len;

  if (self->discarding || self->inbuf->len > STW_MCP_MAX_MESSAGE_BYTES)
    {
      /* The rest of an oversized line is dropped as it arrives. */
      if (!self->discarding)
        _stw_mcp_framing_emit_too_large (framing);
      self->discarding = TRUE;
      g_byte_array_set_size (self->inbuf, 0);
      self->scanned = 0;
    }
}

static void
on_read (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(StwMcpStdioFraming) self = user_data;
  StwMcpFraming *framing = STW_MCP_FRAMING (self);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  gsize size;
  gconstpointer data;

  self->reading = FALSE;
  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (_stw_mcp_framing_is_stopped (framing))
    return;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      /* End of input: a last line without a newline still counts. */
      if (bytes != NULL && self->inbuf->len > 0 && !self->discarding)
        {
          g_autoptr(GByteArray) rest = g_steal_pointer (&self->inbuf);

          self->inbuf = g_byte_array_new ();
          self->scanned = 0;
          emit_line (self, (const char *) rest->data, rest->len);
        }
      if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_clear_error (&error);
      self->input_done = TRUE;
      _stw_mcp_framing_emit_input_ended (framing, error);
      return;
    }

  data = g_bytes_get_data (bytes, &size);
  g_byte_array_append (self->inbuf, data, (guint) size);
  process_buffer (self);
  read_next (self);
}

static void
read_next (StwMcpStdioFraming *self)
{
  if (_stw_mcp_framing_is_stopped (STW_MCP_FRAMING (self)) || self->input_done || self->reading)
    return;
  self->reading = TRUE;
  g_input_stream_read_bytes_async (self->input, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   self->cancellable, on_read, g_object_ref (self));
}

/* --- output -------------------------------------------------------------- */

static void
on_written (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwMcpStdioFraming) self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->writing, g_bytes_unref);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      /* The client is gone; nothing more can be said to it. */
      self->output_failed = TRUE;
      clear_output (self);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Output closed: %s", error->message);
      _stw_mcp_framing_emit_failed (STW_MCP_FRAMING (self), error);
      return;
    }

  write_next (self);
}

static void
write_next (StwMcpStdioFraming *self)
{
  gsize size;
  gconstpointer data;

  if (self->writing != NULL || self->output_failed)
    return;
  if (g_queue_is_empty (&self->outq))
    {
      _stw_mcp_framing_emit_output_idle (STW_MCP_FRAMING (self));
      return;
    }

  self->writing = g_queue_pop_head (&self->outq);
  data = g_bytes_get_data (self->writing, &size);
  self->queued_bytes -= size;
  /* Not cancelled when serving stops: answers already queued still go out. */
  g_output_stream_write_all_async (self->output, data, size, G_PRIORITY_DEFAULT,
                                   NULL, on_written, g_object_ref (self));
}

/* --- vfuncs -------------------------------------------------------------- */

static void
stw_mcp_stdio_framing_start (StwMcpFraming *framing)
{
  read_next (STW_MCP_STDIO_FRAMING (framing));
}

static void
stw_mcp_stdio_framing_send (StwMcpFraming *framing,
                            GBytes        *message)
{
  StwMcpStdioFraming *self = STW_MCP_STDIO_FRAMING (framing);
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);
  char *line;

  if (self->output_failed)
    return;

  /* What waits behind the line being written is bounded; one answer
   * bigger than the bound still goes to a client that reads. */
  if (self->queued_bytes > 0 && self->queued_bytes + length + 1 > self->max_queued)
    {
      g_autoptr(GError) error = NULL;

      /* A client that stops reading must not make the server grow without
       * bound (nor block it: writes are asynchronous): it is dropped. */
      g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   "The client stopped reading: more than %" G_GSIZE_FORMAT " bytes of answers unread",
                   self->max_queued);
      self->output_failed = TRUE;
      clear_output (self);
      _stw_mcp_framing_emit_failed (framing, error);
      return;
    }

  line = g_malloc (length + 1);
  memcpy (line, data, length);
  line[length] = '\n';
  g_queue_push_tail (&self->outq, g_bytes_new_take (line, length + 1));
  self->queued_bytes += length + 1;
  write_next (self);
}

static gboolean
stw_mcp_stdio_framing_is_idle (StwMcpFraming *framing)
{
  StwMcpStdioFraming *self = STW_MCP_STDIO_FRAMING (framing);

  return self->output_failed || (self->writing == NULL && g_queue_is_empty (&self->outq));
}

static void
stw_mcp_stdio_framing_stop (StwMcpFraming *framing)
{
  StwMcpStdioFraming *self = STW_MCP_STDIO_FRAMING (framing);

  g_cancellable_cancel (self->cancellable);
}

static void
stw_mcp_stdio_framing_finalize (GObject *object)
{
  StwMcpStdioFraming *self = STW_MCP_STDIO_FRAMING (object);

  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->inbuf, g_byte_array_unref);
  g_clear_pointer (&self->writing, g_bytes_unref);
  clear_output (self);

  G_OBJECT_CLASS (stw_mcp_stdio_framing_parent_class)->finalize (object);
}

static void
stw_mcp_stdio_framing_class_init (StwMcpStdioFramingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StwMcpFramingClass *framing_class = STW_MCP_FRAMING_CLASS (klass);

  object_class->finalize = stw_mcp_stdio_framing_finalize;
  framing_class->start = stw_mcp_stdio_framing_start;
  framing_class->send = stw_mcp_stdio_framing_send;
  framing_class->is_idle = stw_mcp_stdio_framing_is_idle;
  framing_class->stop = stw_mcp_stdio_framing_stop;
}

static void
stw_mcp_stdio_framing_init (StwMcpStdioFraming *self)
{
  self->inbuf = g_byte_array_new ();
  self->cancellable = g_cancellable_new ();
  self->max_queued = STW_MCP_MAX_QUEUED_BYTES;
  g_queue_init (&self->outq);
}

StwMcpFraming *
_stw_mcp_stdio_framing_new (GInputStream  *input,
                            GOutputStream *output)
{
  StwMcpStdioFraming *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  self = g_object_new (STW_TYPE_MCP_STDIO_FRAMING, NULL);
  self->input = g_object_ref (input);
  self->output = g_object_ref (output);
  return STW_MCP_FRAMING (self);
}

/* Tests use a small bound. */
void
_stw_mcp_stdio_framing_set_max_queued (StwMcpStdioFraming *self,
                                       gsize               max_bytes)
{
  g_return_if_fail (STW_IS_MCP_STDIO_FRAMING (self));
  g_return_if_fail (max_bytes > 0);
  self->max_queued = max_bytes;
}
