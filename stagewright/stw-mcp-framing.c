/* stw-mcp-framing.c: the base of the MCP framings
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-mcp-framing-private.h"

typedef struct
{
  StwMcpFramingSink sink;
  gpointer          sink_data;
  gboolean          stopped;
} StwMcpFramingPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (StwMcpFraming, stw_mcp_framing, G_TYPE_OBJECT)

static void
stw_mcp_framing_class_init (StwMcpFramingClass *klass)
{
}

static void
stw_mcp_framing_init (StwMcpFraming *self)
{
}

void
_stw_mcp_framing_set_sink (StwMcpFraming           *self,
                           const StwMcpFramingSink *sink,
                           gpointer                 user_data)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  g_return_if_fail (STW_IS_MCP_FRAMING (self));
  g_return_if_fail (sink != NULL);

  priv->sink = *sink;
  priv->sink_data = user_data;
}

void
_stw_mcp_framing_start (StwMcpFraming *self)
{
  g_return_if_fail (STW_IS_MCP_FRAMING (self));

  STW_MCP_FRAMING_GET_CLASS (self)->start (self);
}

void
_stw_mcp_framing_send (StwMcpFraming *self,
                       GBytes        *message)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  g_return_if_fail (STW_IS_MCP_FRAMING (self));
  g_return_if_fail (message != NULL);

  if (!priv->stopped)
    STW_MCP_FRAMING_GET_CLASS (self)->send (self, message);
}

void
_stw_mcp_framing_send_related (StwMcpFraming *self,
                               GBytes        *message,
                               const char    *request_key,
                               gboolean       is_response)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);
  StwMcpFramingClass *klass;

  g_return_if_fail (STW_IS_MCP_FRAMING (self));
  g_return_if_fail (message != NULL);

  if (priv->stopped)
    return;
  klass = STW_MCP_FRAMING_GET_CLASS (self);
  if (klass->send_related != NULL)
    klass->send_related (self, message, request_key, is_response);
  else
    klass->send (self, message);
}

gboolean
_stw_mcp_framing_is_idle (StwMcpFraming *self)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  g_return_val_if_fail (STW_IS_MCP_FRAMING (self), TRUE);

  return priv->stopped || STW_MCP_FRAMING_GET_CLASS (self)->is_idle (self);
}

void
_stw_mcp_framing_stop (StwMcpFraming *self)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  g_return_if_fail (STW_IS_MCP_FRAMING (self));

  if (priv->stopped)
    return;
  priv->stopped = TRUE;
  STW_MCP_FRAMING_GET_CLASS (self)->stop (self);
}

gboolean
_stw_mcp_framing_is_stopped (StwMcpFraming *self)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  return priv->stopped;
}

void
_stw_mcp_framing_emit_message (StwMcpFraming *self,
                               const char    *data,
                               gsize          length)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  if (!priv->stopped && priv->sink.message != NULL)
    priv->sink.message (data, length, priv->sink_data);
}

void
_stw_mcp_framing_emit_too_large (StwMcpFraming *self)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  if (!priv->stopped && priv->sink.too_large != NULL)
    priv->sink.too_large (priv->sink_data);
}

void
_stw_mcp_framing_emit_input_ended (StwMcpFraming *self,
                                   GError        *error)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  if (!priv->stopped && priv->sink.input_ended != NULL)
    priv->sink.input_ended (error, priv->sink_data);
}

void
_stw_mcp_framing_emit_output_idle (StwMcpFraming *self)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  if (!priv->stopped && priv->sink.output_idle != NULL)
    priv->sink.output_idle (priv->sink_data);
}

void
_stw_mcp_framing_emit_failed (StwMcpFraming *self,
                              GError        *error)
{
  StwMcpFramingPrivate *priv = stw_mcp_framing_get_instance_private (self);

  if (!priv->stopped && priv->sink.failed != NULL)
    priv->sink.failed (error, priv->sink_data);
}
