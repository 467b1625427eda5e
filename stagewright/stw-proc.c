/* stw-proc.c: which processes we may signal
 *
 * The rule, in one place: the server signals a process it launched (its
 * StwProcess, by process group), or a process proven to be the endpoint's
 * own: it owns the listening socket of the port we are connected to
 * (/proc/net/tcp{,6} LISTEN inode ↔ /proc/<pid>/fd/N → socket:[inode]),
 * or it is an ancestor of that process in the same session (real Electron
 * listens in its main process; a wrapper or a split main process is its
 * parent). Never the server itself or the processes that started it, never
 * pid 1, and never judged by a name: packaged apps are called `code` or
 * `slack`, and argv[0] is whatever the process chose.
 *
 * SIGUSR1 (inject) additionally goes only to a process that catches it
 * (SigCgt in /proc/<pid>/status: Node and Electron install a handler); to
 * any other process it would be fatal.
 *
 * These checks read /proc at the moment of the decision; they never
 * choose a process to signal, they only refuse.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stw-error-registry.h"
#include "stw-proc-private.h"

#define ENDPOINT_RULE "only a process that owns the endpoint's listening socket, or its ancestor in the same " \
                      "session, may be given (never this server, its ancestors or pid 1)"

static GError *
pid_error (const char *rule,
           const char *format,
           ...) G_GNUC_PRINTF (2, 3);

static GError *
pid_error (const char *rule,
           const char *format,
           ...)
{
  g_autoptr(JsonObject) details = json_object_new ();
  g_autofree char *message = NULL;
  GError *error;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  error = stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT, message);
  json_object_set_string_member (details, "argument", "pid");
  json_object_set_string_member (details, "rule", rule);
  stw_error_set_details (error, details);
  return error;
}

static gint64
pid_max (void)
{
  g_autofree char *text = NULL;
  gint64 value;

  if (!g_file_get_contents ("/proc/sys/kernel/pid_max", &text, NULL, NULL))
    return STW_PID_LIMIT;
  value = g_ascii_strtoll (text, NULL, 10);
  return value > 1 && value <= STW_PID_LIMIT ? value : STW_PID_LIMIT;
}

/**
 * _stw_proc_check_pid_range:
 * @pid: a pid as the caller gave it, before any narrowing
 * @error: `BAD_ARGUMENT`
 *
 * Returns: whether @pid can name a process at all (1 … pid_max - 1);
 *   4294967297 is not 1
 */
gboolean
_stw_proc_check_pid_range (gint64   pid,
                           GError **error)
{
  gint64 limit = pid_max ();

  if (pid >= 1 && pid < limit)
    return TRUE;
  g_propagate_error (error, pid_error ("a pid is an integer from 1 to pid_max - 1",
                                       _("pid %" PRId64 " is not a process id (1 to %" PRId64 ")"),
                                       pid, limit - 1));
  return FALSE;
}

/* ppid and session of @pid from /proc/<pid>/stat; FALSE when it is gone. */
static gboolean
read_stat (GPid  pid,
           GPid *ppid,
           GPid *session)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  const char *tail;
  char state;
  int parent, group, sid;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  /* comm may hold spaces and parentheses: the fields start after the last ')'. */
  tail = strrchr (text, ')');
  if (tail == NULL || sscanf (tail + 1, " %c %d %d %d", &state, &parent, &group, &sid) != 4)
    return FALSE;
  *ppid = parent;
  *session = sid;
  return TRUE;
}

/* The process group of @pid, 0 when it is gone. */
static GPid
read_group (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  const char *tail;
  char state;
  int parent, group;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  tail = strrchr (text, ')');
  if (tail == NULL || sscanf (tail + 1, " %c %d %d", &state, &parent, &group) != 3)
    return 0;
  return group;
}

static gboolean is_loopback_address (const char *hex);

/* "socket:[inode]" → port of the TCP sockets listening on @port (0: any
 * port), IPv4 and IPv6, on any address or, with @loopback_only, on a
 * loopback one. */
static GHashTable *
read_listeners (guint    port,
                gboolean loopback_only)
{
  const char *tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
  GHashTable *listeners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;

      if (!g_file_get_contents (tables[t], &text, NULL, NULL))
        continue;
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 1; lines[i] != NULL; i++)
        {
          char address[33];
          unsigned int local_port, state;
          unsigned long inode;

          /* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode */
          if (sscanf (lines[i], " %*u: %32[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x %*u %*u %lu",
                      address, &local_port, &state, &inode) == 4 &&
              state == 0x0A /* TCP_LISTEN */ && inode != 0 && local_port > 0 && local_port <= 65535 &&
              (port == 0 || local_port == port) && (!loopback_only || is_loopback_address (address)))
            g_hash_table_insert (listeners, g_strdup_printf ("socket:[%lu]", inode), GUINT_TO_POINTER (local_port));
        }
    }
  return listeners;
}

/* Inodes of the sockets listening on @port (IPv4 and IPv6, any address). */
static GHashTable *
listening_inodes (guint port)
{
  return read_listeners (port, FALSE);
}

static gboolean
holds_any_socket (GPid        pid,
                  GHashTable *inodes)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/fd", (int) pid);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *link = g_build_filename (path, name, NULL);
      g_autofree char *target = g_file_read_link (link, NULL);

      if (target != NULL && g_hash_table_contains (inodes, target))
        return TRUE;
    }
  return FALSE;
}

/* Every process holding one of @inodes (several with SO_REUSEPORT or a
 * socket inherited across fork). */
static GArray *
socket_holders (GHashTable *inodes)
{
  GArray *holders = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GDir) proc = NULL;
  const char *name;

  if (g_hash_table_size (inodes) == 0 || (proc = g_dir_open ("/proc", 0, NULL)) == NULL)
    return holders;
  while ((name = g_dir_read_name (proc)) != NULL)
    {
      char *end = NULL;
      gint64 pid = g_ascii_strtoll (name, &end, 10);

      if (end == name || *end != '\0' || pid <= 0 || pid > G_MAXINT)
        continue;
      if (holds_any_socket ((GPid) pid, inodes))
        {
          GPid holder = (GPid) pid;
          g_array_append_val (holders, holder);
        }
    }
  return holders;
}

/**
 * _stw_proc_find_listener:
 * @port: a TCP port
 *
 * Returns: a process listening on @port, 0 when none is visible (another
 *   user's process is not, unless we are root)
 */
GPid
_stw_proc_find_listener (guint port)
{
  g_autoptr(GHashTable) inodes = listening_inodes (port);
  g_autoptr(GArray) holders = socket_holders (inodes);

  return holders->len > 0 ? g_array_index (holders, GPid, 0) : 0;
}

/* Whether @pid is this process or one of those that started it. */
static gboolean
is_self_or_ancestor (GPid pid)
{
  GPid current = getpid ();

  for (guint hops = 0; current > 0 && hops < 4096; hops++)
    {
      GPid parent, session;

      if (current == pid)
        return TRUE;
      if (current == 1 || !read_stat (current, &parent, &session))
        return FALSE;
      current = parent;
    }
  return FALSE;
}

/* Whether @pid is @holder or an ancestor of it in @holder's session. */
static gboolean
is_holder_or_ancestor (GPid pid,
                       GPid holder)
{
  GPid current = holder;
  GPid parent, holder_session, session;

  if (!read_stat (holder, &parent, &holder_session))
    return FALSE;
  for (guint hops = 0; current > 1 && hops < 4096; hops++)
    {
      if (!read_stat (current, &parent, &session) || session != holder_session)
        return FALSE;
      if (current == pid)
        return TRUE;
      current = parent;
    }
  return FALSE;
}

/**
 * _stw_proc_check_endpoint_pid:
 * @pid: the pid a caller says is the endpoint's
 * @port: the TCP port of the endpoint we are connected to
 * @holder: (out) (optional): the listening process @pid was proven by
 *   (@pid itself, or the descendant of it that holds the socket)
 * @error: `BAD_ARGUMENT`, with the rule in its details
 *
 * Whether @pid may be signalled on behalf of the endpoint on @port: it
 * holds the socket listening on @port, or it is an ancestor of such a
 * process in the same session; and it is neither pid 1 nor this server
 * nor an ancestor of this server.
 *
 * Returns: %TRUE when @pid is proven to be the endpoint's own
 */
gboolean
_stw_proc_check_endpoint_pid (GPid     pid,
                              guint    port,
                              GPid    *holder,
                              GError **error)
{
  g_autoptr(GHashTable) inodes = NULL;
  g_autoptr(GArray) holders = NULL;

  if (!_stw_proc_check_pid_range (pid, error))
    return FALSE;
  if (pid == 1 || is_self_or_ancestor (pid))
    {
      g_propagate_error (error, pid_error (ENDPOINT_RULE, _("pid %d is this server or one of its ancestors"),
                                           (int) pid));
      return FALSE;
    }

  inodes = listening_inodes (port);
  holders = socket_holders (inodes);
  for (guint i = 0; i < holders->len; i++)
    if (is_holder_or_ancestor (pid, g_array_index (holders, GPid, i)))
      {
        if (holder != NULL)
          *holder = g_array_index (holders, GPid, i);
        return TRUE;
      }

  {
    GError *refused = pid_error (ENDPOINT_RULE,
                                 _("Process %d does not own the endpoint on port %u"), (int) pid, port);
    if (holders->len > 0)
      {
        JsonObject *details = stw_error_get_details (refused);
        json_object_set_int_member (details, "endpoint_pid", g_array_index (holders, GPid, 0));
      }
    g_propagate_error (error, refused);
  }
  return FALSE;
}

/**
 * _stw_proc_catches_signal:
 * @pid: a process
 * @signo: a signal number
 *
 * Returns: whether @pid has a handler for @signo (its SigCgt bit), that
 *   is, whether the signal would not kill it
 */
gboolean
_stw_proc_catches_signal (GPid pid,
                          int  signo)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *text = NULL;
  const char *line;
  guint64 mask;

  if (signo < 1 || signo > 64 || !g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  line = strstr (text, "\nSigCgt:");
  if (line == NULL)
    return FALSE;
  mask = g_ascii_strtoull (line + strlen ("\nSigCgt:"), NULL, 16);
  return (mask >> (signo - 1)) & 1;
}

/**
 * _stw_proc_get_start_time:
 * @pid: a process
 *
 * When @pid started, in clock ticks since boot (field 22 of
 * `/proc/<pid>/stat`). With the pid it names one process for good: a pid
 * that is reused belongs to a process that started later.
 *
 * Returns: the start time, or 0 when @pid does not exist (or is a zombie)
 */
guint64
_stw_proc_get_start_time (GPid pid)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after;

  if (pid <= 0)
    return 0;
  path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  if (!g_file_get_contents (path, &text, NULL, NULL) || (after = strrchr (text, ')')) == NULL)
    return 0;
  /* After the command name: state (field 3) … starttime (field 22). */
  fields = g_strsplit (after + 1, " ", 0);
  if (g_strv_length (fields) < 21 || g_str_equal (fields[1], "Z") || g_str_equal (fields[1], "X"))
    return 0;
  return g_ascii_strtoull (fields[20], NULL, 10);
}

/**
 * _stw_proc_is_same:
 * @pid: a process
 * @start_time: what _stw_proc_get_start_time() said of it earlier
 *
 * Whether @pid still names the process it named then: the check before
 * signalling a process we did not start, so a reused pid is never hit.
 *
 * Returns: %TRUE when the same process is still there
 */
gboolean
_stw_proc_is_same (GPid    pid,
                   guint64 start_time)
{
  return start_time != 0 && _stw_proc_get_start_time (pid) == start_time;
}

/**
 * _stw_proc_check_signal_caught:
 * @pid: a process
 * @signo: the signal to send
 * @error: `BAD_ARGUMENT`, with the rule in its details
 *
 * The rule before a signal that is fatal by default: @pid exists, is not
 * this server or its ancestor or pid 1, and catches @signo.
 *
 * Returns: %TRUE when @signo may be sent to @pid
 */
gboolean
_stw_proc_check_signal_caught (GPid     pid,
                               int      signo,
                               GError **error)
{
  const char *rule = "only a process that installed a handler for the signal (SigCgt) is signalled; "
                     "to any other it would be fatal";

  if (!_stw_proc_check_pid_range (pid, error))
    return FALSE;
  if (pid == 1 || is_self_or_ancestor (pid))
    {
      g_propagate_error (error, pid_error (rule, _("pid %d is this server or one of its ancestors"), (int) pid));
      return FALSE;
    }
  if (!_stw_proc_catches_signal (pid, signo))
    {
      g_propagate_error (error, pid_error (rule, _("Process %d does not handle %s; it would die of it"),
                                           (int) pid, g_strsignal (signo)));
      return FALSE;
    }
  return TRUE;
}

/* Whether a /proc/net/tcp{,6} address (the kernel prints each 32-bit word
 * of the network-order address as a host-order number) is loopback:
 * 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104. */
static gboolean
is_loopback_address (const char *hex)
{
  guint8 bytes[16] = { 0 };
  gsize length = strlen (hex);

  if (length != 8 && length != 32)
    return FALSE;
  for (gsize word = 0; word < length / 8; word++)
    {
      char text[9];
      guint32 value;

      memcpy (text, hex + word * 8, 8);
      text[8] = '\0';
      value = (guint32) g_ascii_strtoull (text, NULL, 16);
      memcpy (bytes + word * 4, &value, 4);
    }
  if (length == 8)
    return bytes[0] == 127;
  for (guint i = 0; i < 10; i++)
    if (bytes[i] != 0)
      return FALSE;
  if (bytes[10] == 0xff && bytes[11] == 0xff)
    return bytes[12] == 127;
  for (guint i = 10; i < 15; i++)
    if (bytes[i] != 0)
      return FALSE;
  return bytes[15] == 1;
}

static gint
compare_ports (gconstpointer a,
               gconstpointer b)
{
  guint first = *(const guint *) a, second = *(const guint *) b;

  return first < second ? -1 : first > second;
}

/**
 * _stw_proc_listening_ports:
 * @pid: a process
 *
 * The TCP ports @pid listens on at a loopback address, read from its fds:
 * where a Node inspector opened by SIGUSR1 is found, on whatever port
 * `--inspect-port` or `NODE_OPTIONS` gave it.
 *
 * Returns: (transfer full): the ports (guint), ascending, without repeats
 */
GArray *
_stw_proc_listening_ports (GPid pid)
{
  g_autoptr(GHashTable) listeners = read_listeners (0, TRUE);
  g_autofree char *path = g_strdup_printf ("/proc/%d/fd", (int) pid);
  g_autoptr(GDir) dir = pid > 0 ? g_dir_open (path, 0, NULL) : NULL;
  GArray *ports = g_array_new (FALSE, FALSE, sizeof (guint));
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *link = g_build_filename (path, name, NULL);
      g_autofree char *target = g_file_read_link (link, NULL);
      gpointer port;
      gboolean seen = FALSE;

      if (target == NULL || !g_hash_table_lookup_extended (listeners, target, NULL, &port))
        continue;
      for (guint i = 0; i < ports->len && !seen; i++)
        seen = g_array_index (ports, guint, i) == GPOINTER_TO_UINT (port);
      if (!seen)
        {
          guint value = GPOINTER_TO_UINT (port);
          g_array_append_val (ports, value);
        }
    }
  g_array_sort (ports, compare_ports);
  return ports;
}

/* Whether @pid runs as the user of this server (its real uid). */
static gboolean
is_ours (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (line = strstr (text, "\nUid:")) == NULL)
    return FALSE;
  return g_ascii_strtoull (line + strlen ("\nUid:"), NULL, 10) == (guint64) getuid ();
}

/**
 * _stw_proc_endpoint_chain:
 * @port: the loopback TCP port of an endpoint we connected to
 * @error: `TRANSPORT_UNSUPPORTED`, saying why no process is known
 *
 * The processes that may be the endpoint's main process, nearest first:
 * the one holding the socket listening on @port, then its ancestors in
 * the same session and process group (a wrapper, or a main process whose
 * browser child listens, as in the Electron stand-in). Only processes of
 * our uid; never
 * pid 1, this server or its ancestors; at most eight. Nothing here is
 * signalled: the caller still checks SigCgt and start time before it
 * does.
 *
 * Returns: (transfer full) (nullable): the pids (GPid), or %NULL with
 *   @error saying why none is known
 */
GArray *
_stw_proc_endpoint_chain (guint    port,
                          GError **error)
{
  g_autoptr(GHashTable) inodes = listening_inodes (port);
  g_autoptr(GArray) holders = socket_holders (inodes);
  g_autoptr(GArray) chain = g_array_new (FALSE, FALSE, sizeof (GPid));
  GPid current, parent, holder_session, session, holder_group;

  if (holders->len == 0)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                    g_hash_table_size (inodes) > 0
                                                    ? _("The process listening on port %u is not one of this user's")
                                                    : _("No process listening on port %u is visible"), port));
      return NULL;
    }
  current = g_array_index (holders, GPid, 0);
  if (!read_stat (current, &parent, &holder_session))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                    _("The process listening on port %u is gone"), port));
      return NULL;
    }
  holder_group = read_group (current);
  for (guint hops = 0; current > 1 && hops < 8; hops++)
    {
      /* An ancestor in another process group is whatever launched the
       * browser detached (Puppeteer, Playwright, a test runner), not the
       * app: a split main process keeps its browser in its group. */
      if (!read_stat (current, &parent, &session) || session != holder_session ||
          read_group (current) != holder_group || is_self_or_ancestor (current) || !is_ours (current))
        break;
      g_array_append_val (chain, current);
      current = parent;
    }
  if (chain->len == 0)
    {
      GPid holder = g_array_index (holders, GPid, 0);

      g_propagate_error (error, stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                    !is_ours (holder)
                                                    ? _("The process listening on port %u (%d) is another user's")
                                                    : _("The process listening on port %u (%d) is this server or one of "
                                                        "its ancestors"), port, (int) holder));
      return NULL;
    }
  return g_steal_pointer (&chain);
}

/**
 * _stw_proc_get_parent:
 * @pid: a process
 *
 * Returns: the parent of @pid, 0 when it is gone
 */
GPid
_stw_proc_get_parent (GPid pid)
{
  GPid parent, session;

  return pid > 0 && read_stat (pid, &parent, &session) ? parent : 0;
}
