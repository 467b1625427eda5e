/* stw-mcp-framing-private.h: how MCP messages cross one client's byte stream
 *
 * A framing cuts incoming bytes into messages and writes outgoing frames
 * without ever blocking the main loop. It knows nothing of JSON-RPC: it
 * hands each message to its sink (the connection) and is told what to send.
 * The stdio framing (newline-delimited JSON on a pair of streams) is the one
 * we have; the Streamable HTTP transport adds another subclass.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The longest message a framing accepts; longer ones are refused whole. */
#define STW_MCP_MAX_MESSAGE_BYTES (64 * 1024 * 1024)
/* The most output a client may leave unread before it is dropped. */
#define STW_MCP_MAX_QUEUED_BYTES (64 * 1024 * 1024)

typedef struct
{
  /* One complete message, without its delimiter. */
  void (*message)     (const char *data,
                       gsize       length,
                       gpointer    user_data);
  /* A message longer than the limit arrived and was dropped. */
  void (*too_large)   (gpointer    user_data);
  /* No more input: @error is NULL at end of input. */
  void (*input_ended) (GError     *error,
                       gpointer    user_data);
  /* Everything sent so far has been written. */
  void (*output_idle) (gpointer    user_data);
  /* The client cannot be written to any more (gone, or not reading):
   * nothing more will be written. */
  void (*failed)      (GError     *error,
                       gpointer    user_data);
} StwMcpFramingSink;

#define STW_TYPE_MCP_FRAMING (stw_mcp_framing_get_type ())
G_DECLARE_DERIVABLE_TYPE (StwMcpFraming, stw_mcp_framing, STW, MCP_FRAMING, GObject)

struct _StwMcpFramingClass
{
  GObjectClass parent_class;

  /* Begin reading. */
  void     (*start)   (StwMcpFraming *self);
  /* Queue one frame (a complete JSON-RPC message, no delimiter). */
  void     (*send)    (StwMcpFraming *self,
                       GBytes        *message);
  /* Nothing queued or being written. */
  gboolean (*is_idle) (StwMcpFraming *self);
  /* Stop reading and writing; idempotent. No sink call follows. */
  void     (*stop)    (StwMcpFraming *self);
  /* Optional: queue one frame that belongs to the request whose id has
   * the JSON text @request_key (NULL: unrelated, or a response to a
   * message that had no valid id), @is_response when it answers it. A
   * framing with one stream leaves this NULL and gets send(). */
  void     (*send_related) (StwMcpFraming *self,
                            GBytes        *message,
                            const char    *request_key,
                            gboolean       is_response);
};

void     _stw_mcp_framing_set_sink     (StwMcpFraming           *self,
                                        const StwMcpFramingSink *sink,
                                        gpointer                 user_data);
void     _stw_mcp_framing_start        (StwMcpFraming           *self);
void     _stw_mcp_framing_send         (StwMcpFraming           *self,
                                        GBytes                  *message);
void     _stw_mcp_framing_send_related (StwMcpFraming           *self,
                                        GBytes                  *message,
                                        const char              *request_key,
                                        gboolean                 is_response);
gboolean _stw_mcp_framing_is_idle      (StwMcpFraming           *self);
void     _stw_mcp_framing_stop         (StwMcpFraming           *self);

/* For subclasses: report to the sink (nothing once stopped). */
gboolean _stw_mcp_framing_is_stopped   (StwMcpFraming           *self);
void     _stw_mcp_framing_emit_message (StwMcpFraming           *self,
                                        const char              *data,
                                        gsize                    length);
void     _stw_mcp_framing_emit_too_large (StwMcpFraming         *self);
void     _stw_mcp_framing_emit_input_ended (StwMcpFraming       *self,
                                            GError              *error);
void     _stw_mcp_framing_emit_output_idle (StwMcpFraming       *self);
void     _stw_mcp_framing_emit_failed  (StwMcpFraming           *self,
                                        GError                  *error);

/* Newline-delimited JSON-RPC on a pair of streams (stdin/stdout, pipes). */
#define STW_TYPE_MCP_STDIO_FRAMING (stw_mcp_stdio_framing_get_type ())
G_DECLARE_FINAL_TYPE (StwMcpStdioFraming, stw_mcp_stdio_framing, STW, MCP_STDIO_FRAMING, StwMcpFraming)

StwMcpFraming *_stw_mcp_stdio_framing_new (GInputStream  *input,
                                           GOutputStream *output);
void           _stw_mcp_stdio_framing_set_max_queued (StwMcpStdioFraming *self,
                                                      gsize               max_bytes);

G_END_DECLS
