/* stw-envelope.c: the response envelope every tool call returns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-envelope.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"

/* Bounds on what one error can echo back (hostile input ends up in
 * messages). */
#define MAX_MESSAGE_CHARS 1000
#define MAX_SIMILAR_REFS 5

/**
 * stw_estimate_tokens:
 * @n_chars: characters of a JSON text
 *
 * The token estimate the contract uses: ceil(chars / 4), no tokenizer.
 *
 * Returns: the estimate
 *
 * Since: 1.0
 */
gint64
stw_estimate_tokens (gsize n_chars)
{
  return (gint64) ((n_chars + 3) / 4);
}

static void
stamp_meta (JsonObject *envelope,
            gint64      elapsed_ms,
            const char *session_id)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  JsonObject *meta;

  /* Estimated on everything but _meta itself, which is what the agent pays
   * for the answer's content. */
  json_object_remove_member (envelope, "_meta");
  text = stw_json_object_to_string (envelope, &length);

  meta = json_object_new ();
  json_object_set_int_member (meta, "estimated_tokens",
                              stw_estimate_tokens (stw_json_utf8_length (text, length)));
  json_object_set_int_member (meta, "elapsed_ms", MAX (elapsed_ms, 0));
  if (session_id != NULL)
    json_object_set_string_member (meta, "session_id", session_id);
  json_object_set_object_member (envelope, "_meta", meta);
}

/**
 * stw_envelope_new_success:
 * @payload: (nullable): the tool's result fields
 * @elapsed_ms: time since the call started
 * @session_id: (nullable): the session the call resolved to
 *
 * Builds `{ ok: true, …payload, _meta }`. Fields of @payload named `ok` or
 * `_meta` are the envelope's and are not copied.
 *
 * Returns: (transfer full): the envelope
 *
 * Since: 1.0
 */
JsonObject *
stw_envelope_new_success (JsonObject *payload,
                          gint64      elapsed_ms,
                          const char *session_id)
{
  JsonObject *envelope = json_object_new ();

  json_object_set_boolean_member (envelope, "ok", TRUE);
  if (payload != NULL)
    {
      g_autoptr(GList) members = json_object_get_members (payload);

      for (const GList *l = members; l != NULL; l = l->next)
        {
          const char *name = l->data;

          if (strcmp (name, "ok") == 0 || strcmp (name, "_meta") == 0)
            continue;
          json_object_set_member (envelope, name,
                                  json_node_copy (json_object_get_member (payload, name)));
        }
    }

  stamp_meta (envelope, elapsed_ms, session_id);
  return envelope;
}

static char *
bounded_message (const char *message)
{
  g_autofree char *valid = NULL;
  glong n_chars;

  if (message == NULL || *message == '\0')
    return NULL;
  if (!g_utf8_validate (message, -1, NULL))
    message = valid = g_utf8_make_valid (message, -1);

  n_chars = g_utf8_strlen (message, -1);
  if (n_chars <= MAX_MESSAGE_CHARS)
    return g_strdup (message);

  {
    g_autofree char *head = g_utf8_substring (message, 0, MAX_MESSAGE_CHARS);
    return g_strdup_printf ("%s…(%ld chars)", head, n_chars);
  }
}

/**
 * stw_envelope_new_error:
 * @error: the failure; any domain (outside %STW_ERROR and the plugins'
 *   domains, stw_error_domain_is_registered(), it is `INTERNAL_ERROR`)
 * @elapsed_ms: time since the call started
 * @session_id: (nullable): the session the call resolved to
 *
 * Builds `{ ok: false, error, code, hint, retryable, http, next_actions?,
 * similar_refs?, details?, _meta }` with the registry's metadata.
 *
 * Returns: (transfer full): the envelope
 *
 * Since: 1.0
 */
JsonObject *
stw_envelope_new_error (const GError *error,
                        gint64        elapsed_ms,
                        const char   *session_id)
{
  JsonObject *envelope;
  const char *code;
  const char *hint;
  const char * const *next_actions;
  JsonArray *similar_refs;
  JsonObject *details;
  g_autofree char *message = NULL;
  guint http = 500;
  gboolean retryable = FALSE;

  g_return_val_if_fail (error != NULL, NULL);

  code = stw_error_get_code_name (error);
  stw_error_registry_lookup (stw_error_registry_get_default (), code, &http, &retryable, NULL);
  hint = stw_error_get_hint (error);
  message = bounded_message (error->message);

  envelope = json_object_new ();
  json_object_set_boolean_member (envelope, "ok", FALSE);
  json_object_set_string_member (envelope, "error", message ? message : (hint ? hint : code));
  json_object_set_string_member (envelope, "code", code);
  json_object_set_string_member (envelope, "hint", hint ? hint : "");
  json_object_set_boolean_member (envelope, "retryable", retryable);
  json_object_set_int_member (envelope, "http", http);

  next_actions = stw_error_get_next_actions (error);
  if (next_actions != NULL && next_actions[0] != NULL)
    {
      JsonArray *array = json_array_new ();
      for (guint i = 0; next_actions[i] != NULL; i++)
        json_array_add_string_element (array, next_actions[i]);
      json_object_set_array_member (envelope, "next_actions", array);
    }

  similar_refs = stw_error_get_similar_refs (error);
  if (similar_refs != NULL && json_array_get_length (similar_refs) > 0)
    {
      JsonArray *array = json_array_new ();
      guint n = MIN (json_array_get_length (similar_refs), MAX_SIMILAR_REFS);
      for (guint i = 0; i < n; i++)
        json_array_add_element (array, json_node_copy (json_array_get_element (similar_refs, i)));
      json_object_set_array_member (envelope, "similar_refs", array);
    }

  details = stw_error_get_details (error);
  if (details != NULL)
    {
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (node, details);
      json_object_set_member (envelope, "details", json_node_copy (node));
      json_node_unref (node);
    }

  stamp_meta (envelope, elapsed_ms, session_id);
  return envelope;
}

/**
 * stw_envelope_is_ok:
 * @envelope: an envelope
 *
 * Checks whether an answer envelope reports success.
 *
 * Returns: the envelope's `ok`
 *
 * Since: 1.0
 */
gboolean
stw_envelope_is_ok (JsonObject *envelope)
{
  g_return_val_if_fail (envelope != NULL, FALSE);
  return json_object_get_boolean_member_with_default (envelope, "ok", FALSE);
}

/**
 * stw_envelope_to_string:
 * @envelope: an envelope
 *
 * Serializes the envelope as one line of JSON (no raw newline, never
 * invalid numbers).
 *
 * Returns: (transfer full): the JSON text
 *
 * Since: 1.0
 */
char *
stw_envelope_to_string (JsonObject *envelope)
{
  g_return_val_if_fail (envelope != NULL, NULL);
  return stw_json_object_to_string (envelope, NULL);
}
