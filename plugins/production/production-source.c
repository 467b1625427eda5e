/* production-source.c: what a packaged app holds, read without running it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An artifact is a directory (an unpacked app), an AppImage (an ELF
 * runtime followed by a squashfs image) or a .deb (an ar archive with
 * control and data tarballs). Each is listed first (names, types, modes,
 * owners, sizes), then the few members the checks need are streamed:
 * nothing is extracted, so a decompression bomb costs time, bounded by the
 * deadline, and never disk. Nothing of the artifact is executed: the
 * AppImage's squashfs is read by unsquashfs at the offset its ELF headers
 * give; tools run with a wall-clock bound, an output bound, no file they
 * may write (RLIMIT_FSIZE 0), and are ended by their pid.
 */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stagewright/stagewright.h>

#include "production-private.h"

#define CHUNK (256 * 1024)
#define MAX_STDERR (64 * 1024)
#define MAX_DEPTH 32
#define MAX_PATH_BYTES 4096
/* The listing of a squashfs: about 100 bytes a line. */
#define LISTING_BYTES_PER_ENTRY 512

/* --- bounded tools ------------------------------------------------------- */

static void
child_setup (gpointer user_data)
{
  struct rlimit none = { 0, 0 };
  struct rlimit memory = { (rlim_t) 2 << 30, (rlim_t) 2 << 30 };
  struct rlimit cpu;
  rlim_t seconds = (rlim_t) GPOINTER_TO_UINT (user_data);

  cpu.rlim_cur = seconds;
  cpu.rlim_max = seconds + 1;
  /* The tools write to their pipes only: no file may grow. */
  setrlimit (RLIMIT_FSIZE, &none);
  setrlimit (RLIMIT_CORE, &none);
  setrlimit (RLIMIT_AS, &memory);
  setrlimit (RLIMIT_CPU, &cpu);
}

void
production_run_clear (ProductionRun *run)
{
  g_clear_pointer (&run->out, g_byte_array_unref);
  g_clear_pointer (&run->err, g_byte_array_unref);
}

/* Runs @argv (argv[0] found in PATH) until it exits, @deadline passes,
 * @cancellable fires, or its output passes @max_out (when no @sink takes
 * it) or the sink wants no more: then it is killed by its pid. FALSE only
 * when it could not start. */
gboolean
production_run (const char * const *argv,
                gint64              deadline,
                gsize               max_out,
                ProductionSink      sink,
                gpointer            sink_data,
                GCancellable       *cancellable,
                ProductionRun      *run,
                GError            **error)
{
  g_autofree char *program = g_find_program_in_path (argv[0]);
  g_auto(GStrv) env = g_get_environ ();
  g_autofree guint8 *buffer = g_malloc (CHUNK);
  GPid pid;
  int out_fd = -1, err_fd = -1;
  gint64 remaining = deadline - g_get_monotonic_time ();
  g_autofree char **args = NULL;
  gboolean killed = FALSE;
  guint n = g_strv_length ((char **) argv);

  memset (run, 0, sizeof *run);
  run->out = g_byte_array_new ();
  run->err = g_byte_array_new ();
  if (program == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s is not installed", argv[0]);
      return FALSE;
    }
  if (remaining <= 0)
    {
      run->timed_out = TRUE;
      return TRUE;
    }
  args = g_new0 (char *, n + 1);
  args[0] = program;
  for (guint i = 1; i < n; i++)
    args[i] = (char *) argv[i];
  env = g_environ_setenv (env, "LC_ALL", "C", TRUE);
  env = g_environ_setenv (env, "TZ", "UTC", TRUE);
  if (!g_spawn_async_with_pipes (NULL, args, env,
                                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDIN_FROM_DEV_NULL | G_SPAWN_CLOEXEC_PIPES,
                                 child_setup, GUINT_TO_POINTER ((guint) (remaining / G_USEC_PER_SEC + 1)),
                                 &pid, NULL, &out_fd, &err_fd, error))
    return FALSE;

  while (out_fd >= 0 || err_fd >= 0)
    {
      struct pollfd fds[2];
      nfds_t count = 0;
      gint64 now = g_get_monotonic_time ();

      if (now >= deadline)
        {
          run->timed_out = TRUE;
          break;
        }
      if (g_cancellable_is_cancelled (cancellable))
        {
          run->cancelled = TRUE;
          break;
        }
      if (out_fd >= 0)
        fds[count++] = (struct pollfd) { .fd = out_fd, .events = POLLIN };
      if (err_fd >= 0)
        fds[count++] = (struct pollfd) { .fd = err_fd, .events = POLLIN };
      if (poll (fds, count, (int) MIN ((deadline - now) / 1000 + 1, 100)) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      for (nfds_t i = 0; i < count; i++)
        {
          gssize got;
          gboolean is_out = fds[i].fd == out_fd;

          if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
            continue;
          got = read (fds[i].fd, buffer, CHUNK);
          if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
          if (got <= 0)
            {
              close (fds[i].fd);
              if (is_out)
                out_fd = -1;
              else
                err_fd = -1;
              continue;
            }
          if (!is_out)
            {
              if (run->err->len < MAX_STDERR)
                g_byte_array_append (run->err, buffer, (guint) MIN ((gsize) got, MAX_STDERR - run->err->len));
            }
          else if (sink != NULL)
            {
              if (!sink (0, buffer, (gsize) got, sink_data))
                {
                  run->output_cut = TRUE;
                  goto stop;
                }
            }
          else if (run->out->len + (gsize) got > max_out)
            {
              run->output_cut = TRUE;
              goto stop;
            }
          else
            g_byte_array_append (run->out, buffer, (guint) got);
        }
    }

stop:
  if (out_fd >= 0)
    close (out_fd);
  if (err_fd >= 0)
    close (err_fd);
  /* Wait for the exit, bounded by the deadline; then end it by its pid. */
  for (;;)
    {
      pid_t done = waitpid (pid, &run->wait_status, WNOHANG);

      if (done == pid || (done < 0 && errno != EINTR))
        break;
      if (run->timed_out || run->cancelled || run->output_cut || g_get_monotonic_time () >= deadline)
        {
          if (g_get_monotonic_time () >= deadline)
            run->timed_out = TRUE;
          kill (pid, SIGKILL);
          killed = TRUE;
          while (waitpid (pid, &run->wait_status, 0) < 0 && errno == EINTR)
            ;
          break;
        }
      g_usleep (10000);
    }
  if (killed)
    run->wait_status = -1;
  g_spawn_close_pid (pid);
  return TRUE;
}

/* --- listings ------------------------------------------------------------ */

static void
entry_free (ProductionEntry *entry)
{
  g_free (entry->path);
  g_free (entry->target);
  g_free (entry);
}

static void
control_file_free (ProductionControlFile *file)
{
  g_free (file->name);
  g_clear_pointer (&file->data, g_bytes_unref);
  g_free (file);
}

/* Relative, without "." or ".." components; NULL when it cannot be one. */
static char *
normalize_path (const char *raw)
{
  g_auto(GStrv) parts = NULL;
  g_autoptr(GString) path = g_string_new (NULL);

  if (raw == NULL || strlen (raw) > MAX_PATH_BYTES)
    return NULL;
  parts = g_strsplit (raw, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        return NULL;
      if (path->len > 0)
        g_string_append_c (path, '/');
      g_string_append (path, parts[i]);
    }
  return g_string_free (g_steal_pointer (&path), FALSE);
}

static gboolean
add_entry (ProductionSource    *self,
           const char          *raw_path,
           ProductionEntryType  type,
           guint32              mode,
           guint32              uid,
           guint64              size,
           const char          *target)
{
  ProductionEntry *entry;
  char *path = normalize_path (raw_path);

  if (path == NULL)
    return TRUE;
  if (path[0] == '\0' || g_hash_table_contains (self->by_path, path))
    {
      g_free (path);
      return TRUE;
    }
  if (self->entries->len >= self->limits.max_entries)
    {
      g_free (path);
      return FALSE;
    }
  entry = g_new0 (ProductionEntry, 1);
  entry->path = path;
  entry->type = type;
  entry->mode = mode & 07777;
  entry->uid = uid;
  entry->size = size;
  entry->target = g_strdup (target);
  g_ptr_array_add (self->entries, entry);
  g_hash_table_insert (self->by_path, entry->path, entry);
  return TRUE;
}

ProductionEntry *
production_source_lookup (ProductionSource *self,
                          const char       *path)
{
  return g_hash_table_lookup (self->by_path, path);
}

gboolean
production_source_expired (ProductionSource *self)
{
  return g_get_monotonic_time () >= self->deadline || g_cancellable_is_cancelled (self->cancellable);
}

/* --- a directory --------------------------------------------------------- */

static gboolean
walk_directory (ProductionSource *self,
                int               dir_fd,
                const char       *prefix,
                guint             depth)
{
  DIR *dir;
  struct dirent *child;
  int fd = dup (dir_fd);
  gboolean complete = TRUE;

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      return TRUE;
    }
  while (complete && (child = readdir (dir)) != NULL)
    {
      struct stat st;
      g_autofree char *path = NULL;
      ProductionEntryType type;
      char target[MAX_PATH_BYTES + 1] = "";

      if (g_str_equal (child->d_name, ".") || g_str_equal (child->d_name, ".."))
        continue;
      if (production_source_expired (self))
        {
          complete = FALSE;
          break;
        }
      if (fstatat (dirfd (dir), child->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      path = prefix[0] ? g_strconcat (prefix, "/", child->d_name, NULL) : g_strdup (child->d_name);
      type = S_ISREG (st.st_mode) ? ENTRY_FILE : S_ISDIR (st.st_mode) ? ENTRY_DIR
             : S_ISLNK (st.st_mode) ? ENTRY_LINK : ENTRY_OTHER;
      if (type == ENTRY_LINK)
        {
          gssize n = readlinkat (dirfd (dir), child->d_name, target, MAX_PATH_BYTES);

          target[n > 0 ? n : 0] = '\0';
        }
      if (!add_entry (self, path, type, st.st_mode, st.st_uid, (guint64) st.st_size, target))
        {
          complete = FALSE;
          break;
        }
      if (type == ENTRY_DIR && depth < MAX_DEPTH)
        {
          int sub = openat (dirfd (dir), child->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

          if (sub >= 0)
            {
              complete = walk_directory (self, sub, path, depth + 1);
              close (sub);
            }
        }
    }
  closedir (dir);
  return complete;
}

/* Opens @path beneath @root_fd, following no symbolic link on the way. */
static int
open_beneath (int         root_fd,
              const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);
  int fd = dup (root_fd);

  for (guint i = 0; fd >= 0 && parts[i] != NULL; i++)
    {
      gboolean last = parts[i + 1] == NULL;
      int next = openat (fd, parts[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (last ? 0 : O_DIRECTORY));

      close (fd);
      fd = next;
    }
  return fd;
}

/* --- an AppImage --------------------------------------------------------- */

/* The ELF header and section headers: where the squashfs begins (the end
 * of the section headers, as the AppImage runtime computes it) and the
 * signature sections. */
static gboolean
read_elf (ProductionSource *self,
          int               fd,
          guint64           file_size)
{
  guint8 header[64];
  gboolean is64;
  gboolean le;
  guint64 shoff;
  guint shentsize, shnum, shstrndx;
  g_autofree guint8 *sections = NULL;
  g_autofree char *names = NULL;
  guint64 names_size = 0;
  guint8 magic[4];

#define U16(p) (le ? GUINT16_FROM_LE (*(guint16 *) (p)) : GUINT16_FROM_BE (*(guint16 *) (p)))
#define U32(p) (le ? GUINT32_FROM_LE (*(guint32 *) (p)) : GUINT32_FROM_BE (*(guint32 *) (p)))
#define U64(p) (le ? GUINT64_FROM_LE (*(guint64 *) (p)) : GUINT64_FROM_BE (*(guint64 *) (p)))

  if (pread (fd, header, sizeof header, 0) != sizeof header)
    return FALSE;
  is64 = header[4] == 2;
  le = header[5] == 1;
  if (is64)
    {
      shoff = U64 (header + 40);
      shentsize = U16 (header + 58);
      shnum = U16 (header + 60);
      shstrndx = U16 (header + 62);
    }
  else
    {
      shoff = U32 (header + 32);
      shentsize = U16 (header + 46);
      shnum = U16 (header + 48);
      shstrndx = U16 (header + 50);
    }
  if (shentsize < (is64 ? 64u : 40u) || shnum == 0 || shnum > 4096 || shoff > file_size ||
      (guint64) shentsize * shnum > file_size - shoff)
    {
      g_string_append_printf (self->structure, "the ELF runtime's section headers are invalid");
      return FALSE;
    }
  self->squashfs_offset = shoff + (guint64) shentsize * shnum;
  if (pread (fd, magic, 4, (off_t) self->squashfs_offset) != 4 || memcmp (magic, "hsqs", 4) != 0)
    {
      g_string_append_printf (self->structure, "no squashfs image at offset %" G_GUINT64_FORMAT
                              " (the end of the ELF runtime's section headers)", self->squashfs_offset);
      return FALSE;
    }

  sections = g_malloc ((gsize) shentsize * shnum);
  if (pread (fd, sections, (gsize) shentsize * shnum, (off_t) shoff) != (gssize) ((gsize) shentsize * shnum))
    return FALSE;
  if (shstrndx < shnum)
    {
      const guint8 *s = sections + (gsize) shstrndx * shentsize;
      guint64 offset = is64 ? U64 (s + 24) : U32 (s + 16);

      names_size = is64 ? U64 (s + 32) : U32 (s + 20);
      if (names_size > 0 && names_size <= 65536 && offset <= file_size && names_size <= file_size - offset)
        {
          names = g_malloc0 ((gsize) names_size + 1);
          if (pread (fd, names, (gsize) names_size, (off_t) offset) != (gssize) names_size)
            names_size = 0;
        }
      else
        names_size = 0;
    }
  for (guint i = 0; names_size > 0 && i < shnum; i++)
    {
      const guint8 *s = sections + (gsize) i * shentsize;
      guint32 name = U32 (s);
      guint64 offset = is64 ? U64 (s + 24) : U32 (s + 16);
      guint64 size = is64 ? U64 (s + 32) : U32 (s + 20);
      g_autofree char *data = NULL;
      gsize used = 0;

      if (name >= names_size || !g_str_equal (names + name, ".sha256_sig"))
        continue;
      if (size == 0 || size > 65536 || offset > file_size || size > file_size - offset)
        break;
      data = g_malloc0 ((gsize) size + 1);
      if (pread (fd, data, (gsize) size, (off_t) offset) != (gssize) size)
        break;
      for (gsize j = 0; j < size; j++)
        if (data[j] != '\0')
          used = j + 1;
      if (used == 0)
        break;
      self->signature_present = TRUE;
      self->signature_ok = g_str_has_prefix (data, "-----BEGIN PGP SIGNATURE-----") &&
                           strstr (data, "-----END PGP SIGNATURE-----") != NULL && strlen (data) == used;
      self->signature_evidence = g_strdup_printf (self->signature_ok
                                                  ? "the .sha256_sig section holds an armored OpenPGP signature "
                                                    "(%" G_GSIZE_FORMAT " bytes); not verified against a key"
                                                  : "the .sha256_sig section holds %" G_GSIZE_FORMAT
                                                    " bytes that are not an armored OpenPGP signature",
                                                  used);
      break;
    }
#undef U16
#undef U32
#undef U64
  return TRUE;
}

static guint32
parse_mode (const char *text)
{
  static const guint32 bits[9] = { 0400, 0200, 0100, 040, 020, 010, 04, 02, 01 };
  guint32 mode = 0;

  for (guint i = 0; i < 9; i++)
    {
      char c = text[1 + i];

      if (c != '-' && c != 'S' && c != 'T')
        mode |= bits[i];
      if (i == 2 && (c == 's' || c == 'S'))
        mode |= 04000;
      if (i == 5 && (c == 's' || c == 'S'))
        mode |= 02000;
      if (i == 8 && (c == 't' || c == 'T'))
        mode |= 01000;
    }
  return mode;
}

static gboolean
list_squashfs (ProductionSource *self,
               GError          **error)
{
  g_autofree char *offset = g_strdup_printf ("%" G_GUINT64_FORMAT, self->squashfs_offset);
  const char *argv[] = { "unsquashfs", "-lln", "-UTC", "-p", "1", "-da", "8", "-fr", "8", "-o", offset,
                         self->path, NULL };
  g_autoptr(GRegex) line = g_regex_new ("^([-dlcbps][-rwxsStT]{9}) ([0-9]+)/[0-9]+ +([0-9]+|[0-9]+, *[0-9]+) "
                                        "[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} squashfs-root(/.*)?$",
                                        G_REGEX_OPTIMIZE, 0, NULL);
  ProductionRun run;
  g_auto(GStrv) lines = NULL;
  guint listed = 0, unread = 0;

  if (!production_run (argv, MIN (self->deadline, g_get_monotonic_time () +
                                   (gint64) self->limits.tool_timeout_s * G_USEC_PER_SEC),
                       (gsize) self->limits.max_entries * LISTING_BYTES_PER_ENTRY, NULL, NULL,
                       self->cancellable, &run, error))
    return FALSE;
  if (run.timed_out || run.cancelled || run.output_cut || !WIFEXITED (run.wait_status) ||
      WEXITSTATUS (run.wait_status) != 0)
    {
      g_autofree char *err = g_strndup (run.err->len ? (const char *) run.err->data : "", MIN (run.err->len, 300));

      g_string_append_printf (self->structure, "unsquashfs -lln -o %s %s%s", offset,
                              run.timed_out ? "ran out of time" : run.cancelled ? "was cancelled"
                              : run.output_cut ? "listed more than the entry bound" : "failed: ",
                              run.timed_out || run.cancelled || run.output_cut ? "" : g_strstrip (err));
      production_run_clear (&run);
      return TRUE;
    }

  g_byte_array_append (run.out, (const guint8 *) "", 1);
  lines = g_strsplit ((const char *) run.out->data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) match = NULL;
      g_autofree char *mode = NULL, *uid = NULL, *size = NULL, *path = NULL;
      char *arrow;
      ProductionEntryType type;

      if (lines[i][0] == '\0')
        continue;
      if (!g_regex_match (line, lines[i], 0, &match))
        {
          unread++;
          continue;
        }
      mode = g_match_info_fetch (match, 1);
      uid = g_match_info_fetch (match, 2);
      size = g_match_info_fetch (match, 3);
      path = g_match_info_fetch (match, 4);
      type = mode[0] == '-' ? ENTRY_FILE : mode[0] == 'd' ? ENTRY_DIR : mode[0] == 'l' ? ENTRY_LINK : ENTRY_OTHER;
      arrow = type == ENTRY_LINK ? strstr (path, " -> ") : NULL;
      if (arrow != NULL)
        *arrow = '\0';
      if (path == NULL || path[0] == '\0')
        continue;
      if (!add_entry (self, path, type, parse_mode (mode), (guint32) g_ascii_strtoull (uid, NULL, 10),
                      type == ENTRY_FILE ? g_ascii_strtoull (size, NULL, 10) : 0, arrow ? arrow + 4 : NULL))
        {
          g_string_append_printf (self->structure, "more than %u entries", self->limits.max_entries);
          production_run_clear (&run);
          return TRUE;
        }
      listed++;
    }
  production_run_clear (&run);
  self->structure_ok = listed > 0;
  g_string_append_printf (self->structure, "ELF runtime, squashfs at offset %" G_GUINT64_FORMAT
                          "; unsquashfs listed %u entries", self->squashfs_offset, listed);
  if (unread > 0)
    g_string_append_printf (self->structure, " (%u lines not understood)", unread);
  return TRUE;
}

/* --- a .deb -------------------------------------------------------------- */

typedef struct
{
  struct archive *outer;
  guint8 buffer[CHUNK];
} Nested;

static la_ssize_t
nested_read (struct archive *inner,
             void           *user_data,
             const void    **data)
{
  Nested *nested = user_data;

  *data = nested->buffer;
  return archive_read_data (nested->outer, nested->buffer, sizeof nested->buffer);
}

static struct archive *
open_outer (ProductionSource *self)
{
  struct archive *outer = archive_read_new ();

  archive_read_support_format_ar (outer);
  if (archive_read_open_filename (outer, self->path, CHUNK) != ARCHIVE_OK)
    {
      archive_read_free (outer);
      return NULL;
    }
  return outer;
}

static struct archive *
open_inner (Nested *nested)
{
  struct archive *inner = archive_read_new ();

  archive_read_support_filter_gzip (inner);
  archive_read_support_filter_xz (inner);
  archive_read_support_filter_zstd (inner);
  archive_read_support_filter_bzip2 (inner);
  archive_read_support_format_tar (inner);
  if (archive_read_open (inner, nested, NULL, nested_read, NULL) != ARCHIVE_OK)
    {
      archive_read_free (inner);
      return NULL;
    }
  return inner;
}

static ProductionEntryType
archive_type (struct archive_entry *entry)
{
  switch (archive_entry_filetype (entry))
    {
    case AE_IFREG: return archive_entry_hardlink (entry) ? ENTRY_OTHER : ENTRY_FILE;
    case AE_IFDIR: return ENTRY_DIR;
    case AE_IFLNK: return ENTRY_LINK;
    default: return ENTRY_OTHER;
    }
}

static void
read_control (ProductionSource *self,
              struct archive   *inner)
{
  struct archive_entry *entry;

  while (archive_read_next_header (inner, &entry) == ARCHIVE_OK && !production_source_expired (self))
    {
      g_autofree char *name = normalize_path (archive_entry_pathname (entry));
      ProductionControlFile *file;
      g_autoptr(GByteArray) data = g_byte_array_new ();
      guint8 buffer[8192];
      la_ssize_t got;

      if (name == NULL || name[0] == '\0' || strchr (name, '/') != NULL || archive_type (entry) != ENTRY_FILE ||
          self->control->len >= 32)
        continue;
      file = g_new0 (ProductionControlFile, 1);
      file->name = g_steal_pointer (&name);
      file->mode = archive_entry_perm (entry) & 07777;
      while ((got = archive_read_data (inner, buffer, sizeof buffer)) > 0)
        {
          if (data->len + (gsize) got > PRODUCTION_MAX_CONTROL_BYTES)
            {
              file->cut = TRUE;
              break;
            }
          g_byte_array_append (data, buffer, (guint) got);
        }
      file->data = g_byte_array_free_to_bytes (g_steal_pointer (&data));
      g_ptr_array_add (self->control, file);
    }
}

static gboolean
list_deb (ProductionSource *self)
{
  struct archive *outer = open_outer (self);
  struct archive_entry *member;
  guint index = 0;
  gboolean binary_ok = FALSE, has_control = FALSE, has_data = FALSE, complete = TRUE;
  g_autoptr(GString) order = g_string_new (NULL);

  if (outer == NULL)
    {
      g_string_append (self->structure, "not an ar archive");
      return TRUE;
    }
  while (archive_read_next_header (outer, &member) == ARCHIVE_OK && index < 16)
    {
      const char *name = archive_entry_pathname (member);
      Nested *nested;
      struct archive *inner;

      if (name == NULL)
        break;
      g_string_append_printf (order, "%s%s", index ? ", " : "", name);
      if (index == 0 && g_str_equal (name, "debian-binary"))
        {
          char version[16] = "";
          la_ssize_t got = archive_read_data (outer, version, sizeof version - 1);

          binary_ok = got >= 4 && g_str_has_prefix (version, "2.");
        }
      else if (g_str_has_prefix (name, "control.tar") || g_str_has_prefix (name, "data.tar"))
        {
          gboolean is_data = name[0] == 'd';

          nested = g_new0 (Nested, 1);
          nested->outer = outer;
          inner = open_inner (nested);
          if (inner != NULL && !is_data)
            {
              has_control = TRUE;
              read_control (self, inner);
            }
          else if (inner != NULL)
            {
              struct archive_entry *entry;
              int status;

              has_data = TRUE;
              while ((status = archive_read_next_header (inner, &entry)) == ARCHIVE_OK)
                {
                  if (production_source_expired (self))
                    {
                      complete = FALSE;
                      g_string_append (self->structure, "; ran out of time listing data.tar");
                      break;
                    }
                  if (!add_entry (self, archive_entry_pathname (entry), archive_type (entry),
                                  archive_entry_perm (entry), (guint32) archive_entry_uid (entry),
                                  (guint64) MAX (archive_entry_size (entry), 0), archive_entry_symlink (entry)))
                    {
                      complete = FALSE;
                      g_string_append_printf (self->structure, "; more than %u entries in data.tar",
                                              self->limits.max_entries);
                      break;
                    }
                }
              if (status != ARCHIVE_EOF && complete)
                {
                  complete = FALSE;
                  g_string_append_printf (self->structure, "; data.tar is damaged: %s",
                                          archive_error_string (inner) ?: "unknown error");
                }
            }
          if (inner != NULL)
            archive_read_free (inner);
          g_free (nested);
        }
      index++;
    }
  archive_read_free (outer);

  g_string_prepend (self->structure, "");
  self->structure_ok = binary_ok && has_control && has_data && complete;
  g_string_prepend (self->structure, order->str);
  g_string_prepend (self->structure, self->structure_ok ? "ar members " : "ar members (debian-binary 2.x, "
                                                          "control.tar.*, data.tar.* expected) ");
  if (self->structure_ok)
    g_string_append_printf (self->structure, "; data.tar lists %u entries", self->entries->len);
  return TRUE;
}

static void
read_deb (ProductionSource   *self,
          const char * const *paths,
          guint               n_paths,
          ProductionSink      sink,
          gpointer            user_data,
          GHashTable         *failures)
{
  struct archive *outer = open_outer (self);
  struct archive_entry *member;
  g_autoptr(GHashTable) wanted = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree guint8 *buffer = g_malloc (CHUNK);

  for (guint i = 0; i < n_paths; i++)
    g_hash_table_insert (wanted, (gpointer) paths[i], GUINT_TO_POINTER (i + 1));
  while (outer != NULL && archive_read_next_header (outer, &member) == ARCHIVE_OK)
    {
      Nested *nested;
      struct archive *inner;
      struct archive_entry *entry;

      if (!g_str_has_prefix (archive_entry_pathname (member) ?: "", "data.tar"))
        continue;
      nested = g_new0 (Nested, 1);
      nested->outer = outer;
      inner = open_inner (nested);
      while (inner != NULL && g_hash_table_size (wanted) > 0 &&
             archive_read_next_header (inner, &entry) == ARCHIVE_OK && !production_source_expired (self))
        {
          g_autofree char *path = normalize_path (archive_entry_pathname (entry));
          guint member_index = path ? GPOINTER_TO_UINT (g_hash_table_lookup (wanted, path)) : 0;
          guint64 total = 0;
          la_ssize_t got;

          if (member_index == 0 || archive_type (entry) != ENTRY_FILE)
            continue;
          g_hash_table_remove (wanted, path);
          while ((got = archive_read_data (inner, buffer, CHUNK)) > 0)
            {
              total += (guint64) got;
              if (total > self->limits.max_member_bytes)
                {
                  g_hash_table_insert (failures, GUINT_TO_POINTER (member_index - 1),
                                       g_strdup_printf ("larger than %" G_GUINT64_FORMAT " bytes",
                                                        self->limits.max_member_bytes));
                  break;
                }
              if (!sink (member_index - 1, buffer, (gsize) got, user_data) || production_source_expired (self))
                break;
            }
          if (got < 0)
            g_hash_table_insert (failures, GUINT_TO_POINTER (member_index - 1),
                                 g_strdup_printf ("damaged: %s", archive_error_string (inner) ?: "?"));
        }
      if (inner != NULL)
        archive_read_free (inner);
      g_free (nested);
      break;
    }
  if (outer != NULL)
    archive_read_free (outer);
  for (guint i = 0; i < n_paths; i++)
    if (g_hash_table_contains (wanted, paths[i]) &&
        !g_hash_table_contains (failures, GUINT_TO_POINTER (i)))
      g_hash_table_insert (failures, GUINT_TO_POINTER (i),
                           g_strdup (production_source_expired (self) ? "ran out of time" : "not read"));
}

/* --- members ------------------------------------------------------------- */

typedef struct
{
  ProductionSink sink;
  gpointer user_data;
  guint member;
  guint64 total;
  guint64 max;
  gboolean too_large;
} Piped;

static gboolean
piped_sink (guint         member,
            const guint8 *data,
            gsize         len,
            gpointer      user_data)
{
  Piped *piped = user_data;

  piped->total += len;
  if (piped->total > piped->max)
    {
      piped->too_large = TRUE;
      return FALSE;
    }
  return piped->sink (piped->member, data, len, piped->user_data);
}

void
production_source_read (ProductionSource   *self,
                        const char * const *paths,
                        guint               n_paths,
                        ProductionSink      sink,
                        gpointer            user_data,
                        GHashTable         *failures)
{
  if (self->kind == PRODUCTION_DEB)
    {
      read_deb (self, paths, n_paths, sink, user_data, failures);
      return;
    }

  for (guint i = 0; i < n_paths; i++)
    {
      if (production_source_expired (self))
        {
          g_hash_table_insert (failures, GUINT_TO_POINTER (i), g_strdup ("ran out of time"));
          continue;
        }
      if (self->kind == PRODUCTION_DIRECTORY)
        {
          int fd = open_beneath (self->root_fd, paths[i]);
          g_autofree guint8 *buffer = NULL;
          struct stat st;
          guint64 total = 0;
          gssize got = 0;

          if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
            {
              g_hash_table_insert (failures, GUINT_TO_POINTER (i), g_strdup ("not a regular file"));
              if (fd >= 0)
                close (fd);
              continue;
            }
          buffer = g_malloc (CHUNK);
          while ((got = read (fd, buffer, CHUNK)) > 0)
            {
              total += (guint64) got;
              if (total > self->limits.max_member_bytes)
                {
                  g_hash_table_insert (failures, GUINT_TO_POINTER (i),
                                       g_strdup_printf ("larger than %" G_GUINT64_FORMAT " bytes",
                                                        self->limits.max_member_bytes));
                  break;
                }
              if (!sink (i, buffer, (gsize) got, user_data) || production_source_expired (self))
                break;
            }
          close (fd);
        }
      else
        {
          g_autofree char *offset = g_strdup_printf ("%" G_GUINT64_FORMAT, self->squashfs_offset);
          const char *argv[] = { "unsquashfs", "-cat", "-no-wildcards", "-p", "1", "-da", "8", "-fr", "8",
                                 "-o", offset, self->path, paths[i], NULL };
          Piped piped = { sink, user_data, i, 0, self->limits.max_member_bytes, FALSE };
          ProductionRun run;
          g_autoptr(GError) error = NULL;

          if (!production_run (argv, MIN (self->deadline, g_get_monotonic_time () +
                                          (gint64) self->limits.tool_timeout_s * G_USEC_PER_SEC),
                               0, piped_sink, &piped, self->cancellable, &run, &error))
            g_hash_table_insert (failures, GUINT_TO_POINTER (i), g_strdup (error->message));
          else if (piped.too_large)
            g_hash_table_insert (failures, GUINT_TO_POINTER (i),
                                 g_strdup_printf ("larger than %" G_GUINT64_FORMAT " bytes", piped.max));
          else if (run.timed_out)
            g_hash_table_insert (failures, GUINT_TO_POINTER (i), g_strdup ("unsquashfs ran out of time"));
          else if (!run.output_cut && (!WIFEXITED (run.wait_status) || WEXITSTATUS (run.wait_status) != 0))
            g_hash_table_insert (failures, GUINT_TO_POINTER (i), g_strdup ("unsquashfs -cat failed"));
          production_run_clear (&run);
        }
    }
}

/* --- opening ------------------------------------------------------------- */

void
production_source_free (ProductionSource *self)
{
  if (self == NULL)
    return;
  if (self->root_fd >= 0)
    close (self->root_fd);
  g_free (self->path);
  g_free (self->signature_evidence);
  g_clear_object (&self->cancellable);
  g_string_free (self->structure, TRUE);
  g_hash_table_unref (self->by_path);
  g_ptr_array_unref (self->entries);
  g_ptr_array_unref (self->control);
  g_free (self);
}

ProductionSource *
production_source_open (const char             *path,
                        const ProductionLimits *limits,
                        GCancellable           *cancellable,
                        GError                **error)
{
  g_autoptr(ProductionSource) self = g_new0 (ProductionSource, 1);
  struct stat st;
  int fd;
  guint8 magic[16] = { 0 };

  self->root_fd = -1;
  self->limits = *limits;
  self->deadline = g_get_monotonic_time () + (gint64) limits->timeout_s * G_USEC_PER_SEC;
  self->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  self->structure = g_string_new (NULL);
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  self->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  self->control = g_ptr_array_new_with_free_func ((GDestroyNotify) control_file_free);
  self->path = g_strdup (path);

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      *error = stw_error_new ("production.APP_NOT_FOUND", "“%s” cannot be opened: %s", path, g_strerror (saved));
      stw_error_set_hint (*error, "Give the path of an unpacked app directory, an AppImage or a .deb");
      return NULL;
    }

  if (S_ISDIR (st.st_mode))
    {
      self->kind = PRODUCTION_DIRECTORY;
      self->root_fd = fd;
      self->structure_ok = walk_directory (self, fd, "", 0);
      g_string_append_printf (self->structure, "a directory of %u entries%s", self->entries->len,
                              self->structure_ok ? "" : " (the listing stopped at a bound)");
      return g_steal_pointer (&self);
    }

  if (!S_ISREG (st.st_mode) || pread (fd, magic, sizeof magic, 0) < 8)
    {
      close (fd);
      *error = stw_error_new ("production.UNSUPPORTED_ARTIFACT", "“%s” is not a directory, an AppImage or a .deb",
                              path);
      stw_error_set_hint (*error, "Give the path of an unpacked app directory, an AppImage or a .deb");
      return NULL;
    }

  if (memcmp (magic, "!<arch>\n", 8) == 0)
    {
      self->kind = PRODUCTION_DEB;
      close (fd);
      list_deb (self);
      return g_steal_pointer (&self);
    }

  if (memcmp (magic, "\177ELF", 4) == 0)
    {
      gboolean appimage_magic = magic[8] == 'A' && magic[9] == 'I' && magic[10] == 2;
      gboolean read = read_elf (self, fd, (guint64) st.st_size);

      close (fd);
      if (!appimage_magic && self->squashfs_offset == 0)
        {
          *error = stw_error_new ("production.UNSUPPORTED_ARTIFACT",
                                  "“%s” is an ELF file without an AppImage's squashfs", path);
          stw_error_set_hint (*error, "Give the app's directory (the one with the binary, resources/ and "
                                      "chrome-sandbox), its AppImage or its .deb");
          return NULL;
        }
      self->kind = PRODUCTION_APPIMAGE;
      if (read && self->squashfs_offset > 0 && !list_squashfs (self, error))
        {
          g_string_append_printf (self->structure, "%s%s", self->structure->len ? "; " : "", (*error)->message);
          self->structure_unknown = TRUE;
          g_clear_error (error);
        }
      return g_steal_pointer (&self);
    }

  close (fd);
  *error = stw_error_new ("production.UNSUPPORTED_ARTIFACT",
                          "“%s” is not a directory, an AppImage or a .deb", path);
  stw_error_set_hint (*error, "Snaps, Flatpaks, RPMs and tarballs are not read; unpack the app and give its "
                              "directory");
  return NULL;
}
