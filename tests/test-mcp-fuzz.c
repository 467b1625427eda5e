/* test-mcp-fuzz.c: StwMcpServer against malformed and random input
 *
 * A fixed seed (STW_FUZZ_SEED overrides it, the seed is printed) drives a
 * few thousand lines (STW_FUZZ_ITERATIONS overrides the count) of random
 * bytes, huge lines, deep nesting, lone surrogates, extreme numbers,
 * truncated and mutated messages, requests with random methods and params,
 * tool calls with random names and arguments, and cancellations of real and
 * made-up ids. Throughout, every line the server writes must be a valid
 * JSON-RPC frame (the test client checks each one) and the server must keep
 * answering ping.
 *
 * /mcp-fuzz/tool-calls sends thousands of tools/call requests to the real
 * core tools with hostile arguments drawn from each tool's own schema
 * (wrong types, out-of-range and wrapping integers, traversal and device
 * paths, debugger and code-loading switches, dangerous environment keys),
 * a fifth of them mutated byte-wise, bounded in time (STW_FUZZ_SECONDS),
 * then ping; no process may have been started.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "stagewright.h"
#include "stw-json-private.h"
#include "stw-test-utils.h"

#define DEFAULT_SEED 0x57a9e5u
#define DEFAULT_ITERATIONS 3000
/* A ping round trip (and the queue emptied) every so many lines. */
#define FLUSH_EVERY 50
#define MAX_RECENT_IDS 32

/* Helpers {{{1 */

static StwMcpServer *log_forward_server;

/* Library messages (eval audits, slow calls) go to the client that asked
 * for logs, as in the stagewright program, and not to the test log. */
static GLogWriterOutput
fuzz_log_writer (GLogLevelFlags   log_level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         user_data)
{
  if ((log_level & (G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG)) == 0)
    return g_log_writer_default (log_level, fields, n_fields, user_data);

  if (log_forward_server != NULL && (log_level & G_LOG_LEVEL_MESSAGE) != 0)
    for (gsize i = 0; i < n_fields; i++)
      if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
        stw_mcp_server_send_log (log_forward_server, "notice", "stagewright", fields[i].value);
  return G_LOG_WRITER_HANDLED;
}

static guint
env_uint (const char *name,
          guint       fallback)
{
  const char *value = g_getenv (name);
  guint64 parsed;
  char *end = NULL;

  if (value == NULL || *value == '\0')
    return fallback;
  parsed = g_ascii_strtoull (value, &end, 0);
  if (end == value || *end != '\0' || parsed > G_MAXUINT)
    g_error ("%s must be an unsigned integer, not “%s”", name, value);
  return (guint) parsed;
}

typedef struct
{
  GRand         *rand;
  StwTestClient *client;
  guint          iterations;
  guint          next_id;
  GPtrArray     *recent_ids;   /* JSON text of ids of recent tools/call */
  guint          n_huge;
  guint          n_deep;
  guint          n_sent;
  gsize          bytes_sent;
} Fuzz;

static Fuzz *
fuzz_new (StwTestClient *client)
{
  Fuzz *fuzz = g_new0 (Fuzz, 1);
  guint seed = env_uint ("STW_FUZZ_SEED", DEFAULT_SEED);

  fuzz->iterations = env_uint ("STW_FUZZ_ITERATIONS", DEFAULT_ITERATIONS);
  fuzz->rand = g_rand_new_with_seed (seed);
  fuzz->client = client;
  fuzz->recent_ids = g_ptr_array_new_with_free_func (g_free);
  g_test_message ("seed %u (STW_FUZZ_SEED), %u iterations (STW_FUZZ_ITERATIONS)",
                  seed, fuzz->iterations);
  return fuzz;
}

static void
fuzz_free (Fuzz *fuzz)
{
  if (fuzz->n_sent > 0)
    g_test_message ("%u lines, %" G_GSIZE_FORMAT " bytes sent; %u huge, %u deeply nested",
                    fuzz->n_sent, fuzz->bytes_sent, fuzz->n_huge, fuzz->n_deep);
  g_rand_free (fuzz->rand);
  g_ptr_array_unref (fuzz->recent_ids);
  g_free (fuzz);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fuzz, fuzz_free)

static guint
pick (Fuzz  *fuzz,
      guint  n)
{
  return (guint) g_rand_int_range (fuzz->rand, 0, (gint32) n);
}

static gboolean
chance (Fuzz  *fuzz,
        guint  percent)
{
  return pick (fuzz, 100) < percent;
}

#define PICK(fuzz, array) ((array)[pick ((fuzz), G_N_ELEMENTS (array))])

static void
send_line (Fuzz    *fuzz,
           GString *line)
{
  g_string_append_c (line, '\n');
  stw_test_client_send_raw (fuzz->client, line->str, line->len);
  fuzz->n_sent++;
  fuzz->bytes_sent += line->len;
}

/* Random JSON {{{1 */

static const char * const numbers[] = {
  "0", "-0", "1", "-1", "7", "42", "200", "60001", "1.5", "-2.25", "0.1", "1E+2", "1e21",
  "1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308", "0.0", "-0.0",
  "9223372036854775807", "-9223372036854775808", "9223372036854775808",
  "18446744073709551616", "123456789012345678901234567890",
  "-123456789012345678901234567890", "100000000000000000000000",
};

static const char * const string_pieces[] = {
  "a", "Z", "0", " ", "-", "_", "/", ".", "\\n", "\\r", "\\t", "\\\"", "\\\\", "\\/", "\\b",
  "\\f", "\\u0000", "\\u001f", "\\u007f", "\\u00e9", "\\u2028", "\\ufeff", "\\uffff",
  "\\ud800", "\\udfff", "\\udbff\\udfff", "\\ud83d\\ude00", "\\ud83d", "\\ude00x",
  "\\uD800\\uD800", "\\ud800\\u0041", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
  "test_echo", "ping", "tools/call", "stagewright://docs/", "require(", "process.exit",
  "%s%n", "${x}", "<script>",
};

/* Escapes json-glib 1.6 mishandles; the last two leaked a string in its
 * scanner before stw_json_parse() refused them. */
static const char * const bad_escapes[] = {
  "\\x41", "\\q", "\\u12", "\\uZZZZ", "\\u00e", "\\ude0x\\u0041", "\\ud80x\\u2028",
  "\\", "\t", "\x01",
};

static const char * const keys[] = {
  "message", "count", "data", "ms", "steps", "interval_ms", "code", "name", "arguments",
  "uri", "level", "cursor", "protocolVersion", "capabilities", "clientInfo", "_meta",
  "progressToken", "requestId", "reason", "id", "jsonrpc", "method", "params", "", "ok",
};

static void append_value (Fuzz    *fuzz,
                          GString *out,
                          guint    depth);

static void
append_string (Fuzz    *fuzz,
               GString *out)
{
  guint n = pick (fuzz, 12);

  g_string_append_c (out, '"');
  for (guint i = 0; i < n; i++)
    g_string_append (out, PICK (fuzz, string_pieces));
  g_string_append_c (out, '"');
}

static void
append_big_string (Fuzz    *fuzz,
                   GString *out,
                   gsize    size)
{
  g_string_append_c (out, '"');
  for (gsize i = 0; i < size; i++)
    {
      if (i % 997 == 0)
        g_string_append (out, PICK (fuzz, string_pieces));
      else
        g_string_append_c (out, (char) ('a' + i % 26));
    }
  g_string_append_c (out, '"');
}

static void
append_object (Fuzz    *fuzz,
               GString *out,
               guint    depth)
{
  guint n = pick (fuzz, 6);

  g_string_append_c (out, '{');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      if (chance (fuzz, 80))
        g_string_append_printf (out, "\"%s\"", PICK (fuzz, keys));
      else
        append_string (fuzz, out);
      g_string_append_c (out, ':');
      append_value (fuzz, out, depth + 1);
    }
  g_string_append_c (out, '}');
}

static void
append_value (Fuzz    *fuzz,
              GString *out,
              guint    depth)
{
  switch (pick (fuzz, depth >= 4 ? 5 : 8))
    {
    case 0:
      g_string_append (out, "null");
      break;
    case 1:
      g_string_append (out, chance (fuzz, 50) ? "true" : "false");
      break;
    case 2:
      g_string_append (out, PICK (fuzz, numbers));
      break;
    case 3:
    case 4:
      if (chance (fuzz, 1))
        append_big_string (fuzz, out, 20000 + pick (fuzz, 60000));
      else
        append_string (fuzz, out);
      break;
    case 5:
      {
        guint n = pick (fuzz, 6);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            append_value (fuzz, out, depth + 1);
          }
        g_string_append_c (out, ']');
      }
      break;
    case 6:
    case 7:
    default:
      append_object (fuzz, out, depth);
      break;
    }
}

/* Ids: mostly fresh integers and strings, sometimes anything. */
static void
append_id (Fuzz    *fuzz,
           GString *out,
           gboolean remember)
{
  gsize start = out->len;
  guint kind = pick (fuzz, 10);

  if (kind < 5)
    g_string_append_printf (out, "%u", fuzz->next_id++);
  else if (kind < 8)
    g_string_append_printf (out, "\"r-%u\"", fuzz->next_id++);
  else if (kind < 9 && fuzz->recent_ids->len > 0)
    g_string_append (out, g_ptr_array_index (fuzz->recent_ids, pick (fuzz, fuzz->recent_ids->len)));
  else
    append_value (fuzz, out, 3);

  if (remember)
    {
      if (fuzz->recent_ids->len >= MAX_RECENT_IDS)
        g_ptr_array_remove_index_fast (fuzz->recent_ids, pick (fuzz, fuzz->recent_ids->len));
      g_ptr_array_add (fuzz->recent_ids, g_strndup (out->str + start, out->len - start));
    }
}

static const char * const methods[] = {
  "initialize", "ping", "tools/list", "tools/call", "tools/call", "tools/call", "tools/call",
  "resources/list", "resources/read", "resources/templates/list", "logging/setLevel",
  "server/discover", "notifications/cancelled", "notifications/initialized",
  "notifications/progress", "completion/complete", "prompts/list", "tasks/get",
  "resources/subscribe", "", "tools/", "TOOLS/LIST", "ping ", "tools/call\\u0000x",
  "subscriptions/listen", "subscriptions/listen",
};

static const char * const tool_names[] = {
  "test_echo", "test_echo", "test_fail", "test_slow", "test_progress", "test_never",
  "test_eval", "electron_status", "electron_doctor", "no_such_tool", "", "TEST_ECHO",
  "test_echo\\u0000", "test_echo ", "electron_launch",
};

static const char * const levels[] = {
  "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", "verbose", "",
};

static const char * const uris[] = {
  "stagewright://docs/quickstart", "stagewright://docs/concepts", "stagewright://docs/security",
  "stagewright://manifest/profile", "stagewright://docs/", "file:///etc/passwd", "",
  "stagewright://docs/quickstart/../security",
};

/* Arguments that a tool's schema mostly accepts, with wrong types mixed
 * in. */
static void
append_tool_arguments (Fuzz       *fuzz,
                       GString    *out,
                       const char *tool)
{
  if (chance (fuzz, 15))
    {
      append_value (fuzz, out, 0);
      return;
    }

  g_string_append_c (out, '{');
  if (g_str_equal (tool, "test_echo"))
    {
      g_string_append (out, "\"message\":");
      if (chance (fuzz, 80))
        append_string (fuzz, out);
      else
        append_value (fuzz, out, 2);
      if (chance (fuzz, 50))
        {
          g_string_append (out, ",\"count\":");
          g_string_append (out, PICK (fuzz, numbers));
        }
      if (chance (fuzz, 50))
        {
          g_string_append (out, ",\"data\":");
          append_value (fuzz, out, 0);
        }
    }
  else if (g_str_equal (tool, "test_slow"))
    g_string_append_printf (out, "\"ms\":%s", chance (fuzz, 70) ? "5" : PICK (fuzz, numbers));
  else if (g_str_equal (tool, "test_progress"))
    g_string_append_printf (out, "\"steps\":%s,\"interval_ms\":%s", PICK (fuzz, numbers),
                            chance (fuzz, 70) ? "1" : PICK (fuzz, numbers));
  else if (g_str_equal (tool, "test_eval"))
    {
      g_string_append (out, "\"code\":");
      append_string (fuzz, out);
    }
  else if (chance (fuzz, 50))
    {
      g_string_append (out, "\"unexpected\":");
      append_value (fuzz, out, 2);
    }
  g_string_append_c (out, '}');
}

static void
append_params (Fuzz       *fuzz,
               GString    *out,
               const char *method)
{
  if (chance (fuzz, 10))
    {
      append_value (fuzz, out, 0);
      return;
    }

  if (g_str_equal (method, "tools/call"))
    {
      const char *tool = PICK (fuzz, tool_names);

      g_string_append (out, "{\"name\":");
      if (chance (fuzz, 90))
        g_string_append_printf (out, "\"%s\"", tool);
      else
        append_value (fuzz, out, 2);
      if (chance (fuzz, 90))
        {
          g_string_append (out, ",\"arguments\":");
          append_tool_arguments (fuzz, out, tool);
        }
      if (chance (fuzz, 20))
        {
          g_string_append (out, ",\"_meta\":{\"progressToken\":");
          append_value (fuzz, out, 3);
          g_string_append_c (out, '}');
        }
      g_string_append_c (out, '}');
    }
  else if (g_str_equal (method, "notifications/cancelled"))
    {
      g_string_append (out, "{\"requestId\":");
      if (fuzz->recent_ids->len > 0 && chance (fuzz, 60))
        g_string_append (out, g_ptr_array_index (fuzz->recent_ids, pick (fuzz, fuzz->recent_ids->len)));
      else
        append_value (fuzz, out, 2);
      g_string_append (out, ",\"reason\":");
      append_value (fuzz, out, 3);
      g_string_append_c (out, '}');
    }
  else if (g_str_equal (method, "subscriptions/listen"))
    {
      static const char * const flags[] = { "toolsListChanged", "resourcesListChanged", "promptsListChanged" };

      g_string_append (out, "{\"notifications\":{");
      for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
        {
          g_string_append_printf (out, "\"%s\":", flags[i]);
          if (chance (fuzz, 80))
            g_string_append (out, chance (fuzz, 50) ? "true" : "false");
          else
            append_value (fuzz, out, 3);
          g_string_append_c (out, ',');
        }
      g_string_append (out, "\"resourceSubscriptions\":");
      if (chance (fuzz, 80))
        g_string_append_printf (out, "[\"%s\",\"%s\"]", PICK (fuzz, uris), PICK (fuzz, uris));
      else
        append_value (fuzz, out, 2);
      g_string_append (out, "}");
      /* Mostly of its era; sometimes not, or half. */
      if (chance (fuzz, 80))
        g_string_append (out, ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                              "\"io.modelcontextprotocol/clientCapabilities\":{}}");
      else if (chance (fuzz, 50))
        g_string_append (out, ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}");
      g_string_append_c (out, '}');
    }
  else if (g_str_equal (method, "logging/setLevel"))
    g_string_append_printf (out, "{\"level\":\"%s\"}", PICK (fuzz, levels));
  else if (g_str_equal (method, "resources/read"))
    g_string_append_printf (out, "{\"uri\":\"%s\"}", PICK (fuzz, uris));
  else if (g_str_equal (method, "tools/list") && chance (fuzz, 50))
    {
      g_string_append (out, "{\"cursor\":");
      if (chance (fuzz, 50))
        {
          g_autofree char *raw = g_strdup_printf ("stw:%s", PICK (fuzz, numbers));
          g_autofree char *cursor = g_base64_encode ((const guchar *) raw, strlen (raw));
          g_string_append_printf (out, "\"%s\"", cursor);
        }
      else
        append_value (fuzz, out, 3);
      g_string_append_c (out, '}');
    }
  else
    append_object (fuzz, out, 1);
}

/* A message of valid shape: request, notification or response. */
static void
append_message (Fuzz    *fuzz,
                GString *out)
{
  guint kind = pick (fuzz, 20);
  const char *method = PICK (fuzz, methods);

  if (kind == 0)
    {
      /* A response to a request the server never sent. */
      g_string_append (out, "{\"jsonrpc\":\"2.0\",\"id\":");
      append_id (fuzz, out, FALSE);
      g_string_append (out, chance (fuzz, 50) ? ",\"result\":" : ",\"error\":");
      append_value (fuzz, out, 2);
      g_string_append_c (out, '}');
      return;
    }

  g_string_append (out, "{\"jsonrpc\":\"2.0\"");
  if (kind > 4)
    {
      g_string_append (out, ",\"id\":");
      /* Remembered for notifications/cancelled. */
      append_id (fuzz, out, g_str_equal (method, "tools/call") || g_str_equal (method, "subscriptions/listen"));
    }
  g_string_append (out, ",\"method\":");
  if (chance (fuzz, 95))
    g_string_append_printf (out, "\"%s\"", method);
  else
    append_value (fuzz, out, 2);
  if (chance (fuzz, 85))
    {
      g_string_append (out, ",\"params\":");
      append_params (fuzz, out, method);
    }
  g_string_append_c (out, '}');
}

/* Lines {{{1 */

static void
append_random_bytes (Fuzz    *fuzz,
                     GString *out,
                     gsize    length)
{
  for (gsize i = 0; i < length; i++)
    {
      guint8 byte = (guint8) pick (fuzz, 256);

      /* A newline would only cut this into more random lines. */
      g_string_append_c (out, (char) (byte == '\n' ? 0 : byte));
    }
}

static void
append_deep (Fuzz    *fuzz,
             GString *out,
             guint    depth)
{
  gboolean objects = chance (fuzz, 50);
  gboolean closed = chance (fuzz, 70);

  for (guint i = 0; i < depth; i++)
    g_string_append (out, objects ? "{\"a\":" : "[");
  g_string_append (out, "1");
  if (closed)
    for (guint i = 0; i < depth; i++)
      g_string_append_c (out, objects ? '}' : ']');
}

static void
append_huge (Fuzz    *fuzz,
             GString *out)
{
  gsize size = (1 + pick (fuzz, 5)) * 1024 * 1024 - pick (fuzz, 4096);

  switch (pick (fuzz, 3))
    {
    case 0:
      /* Answered with an envelope too big to send twice. */
      g_string_append_printf (out, "{\"jsonrpc\":\"2.0\",\"id\":\"huge-%u\",\"method\":\"tools/call\","
                              "\"params\":{\"name\":\"test_echo\",\"arguments\":{\"message\":",
                              fuzz->next_id++);
      append_big_string (fuzz, out, size);
      g_string_append (out, "}}}");
      break;
    case 1:
      g_string_append_printf (out, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\",\"params\":{\"x\":",
                              fuzz->next_id++);
      append_big_string (fuzz, out, size);
      g_string_append (out, "}}");
      break;
    case 2:
    default:
      append_random_bytes (fuzz, out, size);
      break;
    }
}

static void
send_random_line (Fuzz  *fuzz,
                  guint  iteration)
{
  g_autoptr(GString) line = g_string_new (NULL);

  /* The expensive kinds on a budget, spread over the run. */
  if (iteration % 700 == 350)
    {
      append_huge (fuzz, line);
      fuzz->n_huge++;
      send_line (fuzz, line);
      return;
    }
  if (iteration % 100 == 50)
    {
      static const guint depths[] = { 100000, 100000, 20000, STW_JSON_MAX_DEPTH + 1, STW_JSON_MAX_DEPTH - 8 };
      guint depth = PICK (fuzz, depths);

      if (chance (fuzz, 50))
        append_deep (fuzz, line, depth);
      else
        {
          /* Nested inside a real request, where the echo tool takes it. */
          g_string_append (line, "{\"jsonrpc\":\"2.0\",\"id\":\"deep\",\"method\":\"tools/call\","
                           "\"params\":{\"name\":\"test_echo\",\"arguments\":{\"message\":\"m\",\"data\":");
          append_deep (fuzz, line, depth);
          g_string_append (line, "}}}");
        }
      fuzz->n_deep++;
      send_line (fuzz, line);
      return;
    }

  switch (pick (fuzz, 13))
    {
    case 12:
      /* A request that is fine but for one bad escape in a string. */
      g_string_append (line, "{\"jsonrpc\":\"2.0\",\"id\":\"esc\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"test_echo\",\"arguments\":{\"message\":\"a");
      g_string_append (line, PICK (fuzz, bad_escapes));
      g_string_append (line, "z\"}}}");
      break;
    case 0:
      append_random_bytes (fuzz, line, pick (fuzz, 300));
      break;
    case 1:
      /* Any JSON value, usually not an object. */
      append_value (fuzz, line, 0);
      break;
    case 2:
      {
        /* Cut short. */
        g_autoptr(GString) message = g_string_new (NULL);

        append_message (fuzz, message);
        g_string_append_len (line, message->str, pick (fuzz, (guint) message->len));
      }
      break;
    case 3:
      {
        /* A few bytes changed. */
        guint n = 1 + pick (fuzz, 3);

        append_message (fuzz, line);
        for (guint i = 0; i < n && line->len > 0; i++)
          {
            gsize at = pick (fuzz, (guint) line->len);
            char byte = (char) pick (fuzz, 256);

            if (byte == '\n')
              byte = '"';
            switch (pick (fuzz, 3))
              {
              case 0:
                line->str[at] = byte;
                break;
              case 1:
                g_string_erase (line, (gssize) at, 1);
                break;
              case 2:
              default:
                g_string_insert_c (line, (gssize) at, byte);
                break;
              }
          }
      }
      break;
    case 4:
      {
        /* A batch. */
        guint n = pick (fuzz, 4);

        g_string_append_c (line, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (line, ',');
            append_message (fuzz, line);
          }
        g_string_append_c (line, ']');
      }
      break;
    case 5:
      {
        /* Cancel something: in flight, finished or never seen. */
        g_string_append (line, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":");
        append_params (fuzz, line, "notifications/cancelled");
        g_string_append_c (line, '}');
      }
      break;
    case 6:
      /* jsonrpc and id of any type. */
      g_string_append (line, "{\"jsonrpc\":");
      append_value (fuzz, line, 3);
      g_string_append (line, ",\"id\":");
      append_value (fuzz, line, 3);
      g_string_append (line, ",\"method\":\"ping\"}");
      break;
    case 7:
      /* CRLF, whitespace, an empty line. */
      if (chance (fuzz, 30))
        g_string_append (line, chance (fuzz, 50) ? "\r" : " \t ");
      else
        {
          g_string_append (line, "  ");
          append_message (fuzz, line);
          g_string_append (line, "\r");
        }
      break;
    case 8:
    case 9:
    case 10:
    case 11:
    default:
      append_message (fuzz, line);
      break;
    }

  send_line (fuzz, line);
}

static void check_still_serving (StwTestClient *client);

/* Tool calls with hostile arguments {{{1 */

/* Values for each argument name of the core tools. Hostile, but never
 * able to reach outside: no pid that names a process (a wrong type only:
 * kill(-1) or a wrapped 4294967297 would signal real ones), no port that
 * may be open (another test's Chromium), no executable that exists, no
 * host off this machine. The app root is an empty directory and PATH is
 * empty, so nothing is found to run either. */
typedef struct
{
  const char         *name;
  const char * const *values;
  guint               n_values;
} ArgumentPool;

static const char * const pool_pid[] = {
  "\"1\"", "true", "1.5", "[]", "{}", "null", "\"-1\"", "\"4294967297\"", "1e400",
};
static const char * const pool_port[] = {
  "0", "-1", "65536", "70000", "4294967297", "1e400", "\"9222\"", "1.5", "null", "1", "[1]",
};
static const char * const pool_ports[] = {
  "[]", "[0]", "[1]", "[65536,-1]", "[\"9222\"]", "1", "null", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]",
};
static const char * const pool_host[] = {
  "\"\"", "\"127.0.0.1\"", "\"::1\"", "\"[::1]\"", "\"localhost\"", "\"0.0.0.0\"",
  "\"10.255.255.1\"", "\"127.0.0.1:1\"", "\"127.0.0.1 \"", "\"\\u0000\"", "1", "null",
};
static const char * const pool_url[] = {
  "\"ws://127.0.0.1:1/devtools/browser/x\"", "\"ws://10.255.255.1:1/x\"", "\"http://127.0.0.1:1/\"",
  "\"file:///etc/passwd\"", "\"\"", "\"ws://[::1]:1/\"", "\"ws://127.0.0.1:99999/\"",
  "\"ws://user:pw@127.0.0.1:1/\"", "\"javascript:alert(1)\"", "7",
};
static const char * const pool_path[] = {
  "\"/nonexistent/stw-fuzz\"", "\"\"", "\"relative/app.js\"", "\"/\"", "\"/dev/null\"",
  "\"../../../../../etc/passwd\"", "\"/proc/self/mem\"", "\"/dev/zero\"", "\"a\\u0000b\"",
  "\"~/x\"", "\"$HOME/x\"", "\"C:\\\\x\"", "1", "[]", "null",
};
static const char * const pool_args[] = {
  "[]", "[\"--inspect=0.0.0.0:9229\"]", "[\"--renderer-cmd-prefix=/nonexistent/sh\"]",
  "[\"--user-data-dir=/nonexistent\"]", "[\"--remote-debugging-port=1\"]", "[\"--js-flags=--x\"]",
  "[\"/nonexistent/app\"]", "[1,2]", "[\"\\u0000\"]", "[\"--gpu-launcher=/x\",\"--no-sandbox\"]",
  "\"--x\"", "{}",
};
static const char * const pool_env[] = {
  "{}", "{\"LD_PRELOAD\":\"/nonexistent.so\"}", "{\"NODE_OPTIONS\":\"--require /x\"}",
  "{\"\":\"x\"}", "{\"A=B\":\"c\"}", "{\"X\":1}", "{\"BASH_ENV\":\"/x\"}",
  "{\"ELECTRON_RUN_AS_NODE\":\"1\"}", "{\"NODE_V8_COVERAGE\":\"/tmp\"}", "[]", "\"X=1\"",
};
static const char * const pool_timeout[] = {
  "0", "1", "5", "50", "-1", "4294967296", "1e400", "\"10\"", "1.5", "null",
};
static const char * const pool_index[] = {
  "0", "1", "-1", "4294967296", "9223372036854775808", "1e400", "\"0\"", "1.5", "null",
};
static const char * const pool_session[] = {
  "\"s1\"", "\"\"", "\"../x\"", "\"\\u0000\"", "1", "null", "[]",
};
static const char * const pool_any[] = {
  "null", "true", "false", "0", "-1", "1.5", "1e400", "9223372036854775808", "\"\"", "\"x\"",
  "\"png\"", "\"jpeg\"", "\"webp\"", "\"keychain\"", "\"node\"", "\"electron\"", "[]", "{}",
  "{\"x\":0,\"y\":0,\"width\":1e400,\"height\":-1}", "{\"x\":\"a\"}", "[[[[[[[[]]]]]]]]",
  "{\"__proto__\":{\"a\":1}}", "\"$(touch /tmp/stw-fuzz)\"", "\"%s%n\"",
};

#define POOL(name, array) { name, array, G_N_ELEMENTS (array) }
static const ArgumentPool argument_pools[] = {
  POOL ("pid", pool_pid), POOL ("port", pool_port), POOL ("ports", pool_ports),
  POOL ("host", pool_host), POOL ("cdpUrl", pool_url), POOL ("main", pool_path),
  POOL ("executablePath", pool_path), POOL ("cwd", pool_path), POOL ("path", pool_path),
  POOL ("dir", pool_path), POOL ("args", pool_args), POOL ("env", pool_env),
  POOL ("timeoutMs", pool_timeout), POOL ("readyTimeoutMs", pool_timeout),
  POOL ("index", pool_index), POOL ("windowIndex", pool_index), POOL ("quality", pool_index),
  POOL ("ref", pool_index), POOL ("sessionId", pool_session), POOL ("surfaceId", pool_session),
  POOL ("targetId", pool_session), POOL ("windowId", pool_session),
};
#undef POOL

/* Names whose values are never random: a random pid, port or host could
 * reach a real process. */
static gboolean
is_guarded (const char *name)
{
  return g_str_equal (name, "pid") || g_str_equal (name, "port") || g_str_equal (name, "ports") ||
         g_str_equal (name, "host") || g_str_equal (name, "cdpUrl");
}

static void
append_hostile_argument (Fuzz       *fuzz,
                         GString    *out,
                         const char *name)
{
  ArgumentPool pool = { name, pool_any, G_N_ELEMENTS (pool_any) };

  for (guint i = 0; i < G_N_ELEMENTS (argument_pools); i++)
    if (g_str_equal (argument_pools[i].name, name))
      pool = argument_pools[i];

  if (!is_guarded (name) && chance (fuzz, 15))
    append_value (fuzz, out, 2);
  else
    g_string_append (out, pool.values[pick (fuzz, pool.n_values)]);
}

/* A few byte-wise mutations that keep the line one line. */
static void
mutate_line (Fuzz    *fuzz,
             GString *line)
{
  static const char bytes[] = "{}[]\",:0123456789-.eEtfn\\ \x01\xff";
  guint n = 1 + pick (fuzz, 3);

  for (guint i = 0; i < n && line->len > 0; i++)
    {
      gsize at = pick (fuzz, (guint) line->len);

      switch (pick (fuzz, 3))
        {
        case 0:
          line->str[at] = bytes[pick (fuzz, sizeof bytes - 1)];
          break;
        case 1:
          g_string_insert_c (line, (gssize) at, bytes[pick (fuzz, sizeof bytes - 1)]);
          break;
        default:
          {
            gsize want = 1 + pick (fuzz, 8);
            g_string_erase (line, (gssize) at, (gssize) MIN (want, line->len - at));
          }
          break;
        }
    }
}

static guint
count_children (void)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  g_autofree char *ppid_line = g_strdup_printf ("\nPPid:\t%d\n", (int) getpid ());
  const char *name;
  guint n = 0;

  /* Only looked at, never signalled. */
  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *status = NULL;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "status", NULL);
      if (g_file_get_contents (path, &status, NULL, NULL) && strstr (status, ppid_line) != NULL)
        n++;
    }
  return n;
}

static void
test_fuzz_tool_calls (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(Fuzz) fuzz = fuzz_new (client);
  StwDispatcher *dispatcher = stw_test_client_get_dispatcher (client);
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autofree char *root = g_dir_make_tmp ("stw-fuzz-root-XXXXXX", NULL);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  guint seconds = env_uint ("STW_FUZZ_SECONDS", 15);
  gint64 deadline = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
  guint children_before = count_children ();
  guint n_calls = 0;
  guint n_mutated = 0;

  g_assert_nonnull (root);
  /* Nothing to run and nowhere to write: an empty app root, an empty PATH,
   * and calls that end within the backstop. */
  stw_dispatcher_set_app_root (dispatcher, root);
  stw_dispatcher_set_screenshot_dir (dispatcher, root);
  stw_dispatcher_set_operation_timeout_ms (dispatcher, 2000);
  g_setenv ("PATH", root, TRUE);

  {
    g_autoptr(GList) list = stw_dispatcher_list_tools (dispatcher);

    for (const GList *l = list; l != NULL; l = l->next)
      if (g_str_has_prefix (stw_tool_get_name (l->data), "electron_"))
        g_ptr_array_add (tools, stw_tool_to_manifest (l->data));
  }
  g_assert_cmpuint (tools->len, >=, 10);

  stw_test_client_initialize (client);
  for (guint i = 0; i < fuzz->iterations && g_get_monotonic_time () < deadline; i++)
    {
      JsonObject *manifest = g_ptr_array_index (tools, pick (fuzz, tools->len));
      JsonObject *schema = json_object_get_object_member (manifest, "inputSchema");
      JsonObject *properties = json_object_has_member (schema, "properties")
                               ? json_object_get_object_member (schema, "properties") : NULL;
      g_autoptr(GList) names = properties ? json_object_get_members (properties) : NULL;
      g_autoptr(GString) line = g_string_new (NULL);
      gboolean first = TRUE;

      g_string_append_printf (line, "{\"jsonrpc\":\"2.0\",\"id\":\"t-%u\",\"method\":\"tools/call\","
                              "\"params\":{\"name\":\"%s\",\"arguments\":{",
                              i, json_object_get_string_member (manifest, "name"));
      for (const GList *l = names; l != NULL; l = l->next)
        {
          if (!chance (fuzz, 50))
            continue;
          g_string_append_printf (line, "%s\"%s\":", first ? "" : ",", (const char *) l->data);
          append_hostile_argument (fuzz, line, l->data);
          first = FALSE;
        }
      if (chance (fuzz, 10))
        {
          g_string_append_printf (line, "%s\"%s\":", first ? "" : ",", PICK (fuzz, keys));
          append_value (fuzz, line, 2);
        }
      g_string_append (line, "}}}");

      /* Mutated lines never touch a guarded value's meaning: a mutation
       * of a guarded tool's call is dropped rather than sent. */
      if (chance (fuzz, 20) && strstr (line->str, "\"pid\"") == NULL && strstr (line->str, "\"port") == NULL &&
          strstr (line->str, "\"host\"") == NULL && strstr (line->str, "\"cdpUrl\"") == NULL)
        {
          mutate_line (fuzz, line);
          n_mutated++;
        }
      send_line (fuzz, line);
      n_calls++;
      if (i % FLUSH_EVERY == FLUSH_EVERY - 1)
        {
          stw_test_client_flush (client);
          stw_test_client_clear (client);
        }
    }

  check_still_serving (client);
  g_test_message ("%u tool calls (%u mutated) to %u tools", n_calls, n_mutated, tools->len);
  g_assert_cmpuint (n_calls, >, 100);

  /* Nothing was started, and nothing was written into the root. */
  g_assert_cmpuint (count_children (), <=, children_before);
  {
    g_autoptr(GDir) dir = g_dir_open (root, 0, NULL);
    const char *entry = dir ? g_dir_read_name (dir) : NULL;

    if (entry != NULL)
      g_error ("A tool call wrote %s into the app root", entry);
  }

  g_setenv ("PATH", old_path, TRUE);
  g_rmdir (root);
}

static void
check_still_serving (StwTestClient *client)
{
  g_autoptr(JsonObject) response = NULL;

  g_assert_false (stw_test_client_is_finished (client));
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"final-ping\",\"method\":\"ping\"}");
  response = stw_test_client_wait_response (client, "\"final-ping\"");
  stw_test_assert_result (response, "\"final-ping\"");
  stw_test_assert_json_equal (json_object_get_member (response, "result"), "{}");
  stw_test_assert_members (response, "jsonrpc", "id", "result", NULL);
}

/* Tests {{{1 */

static void
run_fuzz (gboolean initialize,
          guint    share)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(Fuzz) fuzz = fuzz_new (client);
  gint64 start = g_get_monotonic_time ();

  fuzz->iterations /= share;

  /* The eval tool is callable, and library messages reach the client. */
  stw_dispatcher_set_allow_eval (stw_test_client_get_dispatcher (client), STW_EVAL_TARGET_MAIN);
  log_forward_server = stw_test_client_get_server (client);

  if (initialize)
    stw_test_client_initialize (client);

  for (guint i = 0; i < fuzz->iterations; i++)
    {
      send_random_line (fuzz, i);
      if (i % FLUSH_EVERY == FLUSH_EVERY - 1)
        {
          stw_test_client_flush (client);
          stw_test_client_clear (client);
        }
    }

  check_still_serving (client);
  stw_test_client_clear (client);

  /* Whatever happened, the session works. */
  {
    g_autofree char *id = stw_test_client_send_request (client, "initialize", "{}");
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);
    g_autoptr(JsonObject) tools = NULL;
    g_autoptr(JsonObject) echo = NULL;

    if (json_object_has_member (response, "error"))
      stw_test_assert_error (response, id, -32600);
    else
      stw_test_assert_result (response, id);
    tools = stw_test_client_call_result (client, "tools/list", NULL);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (tools, "tools")), >, 0);
    echo = stw_test_client_call_tool (client, "test_echo", "{\"message\":\"still here\"}");
    g_assert_false (json_object_get_boolean_member (echo, "isError"));
  }

  g_test_message ("%u frames received in %" G_GINT64_FORMAT " ms",
                  stw_test_client_get_n_frames (client), (g_get_monotonic_time () - start) / 1000);
  log_forward_server = NULL;
}

static void
test_fuzz_lines (void)
{
  run_fuzz (TRUE, 1);
}

static void
test_fuzz_uninitialized (void)
{
  /* Before initialize, most requests are refused early: fewer lines. */
  run_fuzz (FALSE, 4);
}

/* Valid pings and garbage lines in one stream, written in random pieces:
 * every ping is answered once, every non-blank garbage line gets exactly
 * one error with a null id, nothing else is said. */
static void
test_fuzz_chunks (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(Fuzz) fuzz = fuzz_new (client);
  g_autoptr(GString) stream = g_string_new (NULL);
  static const char garbage_chars[] = "abcxyz 0129:,]}-+.eE\t\r\\'";
  guint n_lines = MAX (fuzz->iterations / 3, 10);
  guint n_pings = 0;
  guint n_garbage = 0;
  guint n_errors = 0;
  gsize offset = 0;

  stw_test_client_initialize (client);
  for (guint i = 0; i < n_lines; i++)
    {
      if (chance (fuzz, 50))
        {
          g_string_append_printf (stream, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}%s",
                                  n_pings++, chance (fuzz, 30) ? "\r\n" : "\n");
          continue;
        }

      {
        guint length = 1 + pick (fuzz, 40);
        gboolean blank = TRUE;

        for (guint j = 0; j < length; j++)
          {
            char c = garbage_chars[pick (fuzz, sizeof garbage_chars - 1)];

            if (!g_ascii_isspace (c))
              blank = FALSE;
            g_string_append_c (stream, c);
          }
        g_string_append_c (stream, '\n');
        if (!blank)
          n_garbage++;
      }
    }

  while (offset < stream->len)
    {
      /* Not inside MIN (): it evaluates its arguments twice. */
      gsize want = 1 + pick (fuzz, chance (fuzz, 50) ? 8 : 4096);
      gsize size = MIN (stream->len - offset, want);

      stw_test_client_send_raw (client, stream->str + offset, size);
      offset += size;
    }

  for (guint i = 0; i < n_pings; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);

      stw_test_assert_result (response, id);
    }
  stw_test_client_flush (client);
  while (stw_test_client_has_response (client, "null"))
    {
      g_autoptr(JsonObject) error = stw_test_client_wait_response (client, "null");
      gint64 code = json_object_get_int_member (json_object_get_object_member (error, "error"), "code");

      g_assert_true (code == -32700 || code == -32600);
      n_errors++;
    }
  g_test_message ("%u pings, %u garbage lines, %" G_GSIZE_FORMAT " bytes", n_pings, n_garbage, stream->len);
  g_assert_cmpuint (n_errors, ==, n_garbage);
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
  stw_test_init (&argc, &argv);

  g_test_add_func ("/mcp-fuzz/lines", test_fuzz_lines);
  g_test_add_func ("/mcp-fuzz/uninitialized", test_fuzz_uninitialized);
  g_test_add_func ("/mcp-fuzz/chunks", test_fuzz_chunks);
  g_test_add_func ("/mcp-fuzz/tool-calls", test_fuzz_tool_calls);

  return g_test_run ();
}
