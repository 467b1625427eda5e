/* test-confine.c: what the server lets an app and a page reach
 *
 * The --app-root rules for launch environments (relative values resolve
 * against the app's working directory), the confined open that opens what
 * was checked (openat2 and the walk that stands in for it), and the files
 * the server reads for a page (no pseudo files, a hard size cap). A race
 * swaps a checked directory for a symlink while files are read and written.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include "stagewright.h"
#include "stw-confine-private.h"

typedef struct
{
  char *scratch;
  char *root;      /* <scratch>/root */
  char *outside;   /* <scratch>/outside */
} Fixture;

static void
rm_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  GStatBuf st;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
        rm_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *made = g_dir_make_tmp ("stw-confine-XXXXXX", NULL);

  g_assert_nonnull (made);
  fixture->scratch = realpath (made, NULL);
  fixture->root = g_build_filename (fixture->scratch, "root", NULL);
  fixture->outside = g_build_filename (fixture->scratch, "outside", NULL);
  g_assert_cmpint (g_mkdir (fixture->root, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (fixture->outside, 0700), ==, 0);
  _stw_confine_set_use_openat2 (GPOINTER_TO_INT (data) == 0);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  _stw_confine_set_use_openat2 (TRUE);
  rm_tree (fixture->scratch);
  free (fixture->scratch);
  g_free (fixture->root);
  g_free (fixture->outside);
}

static guint
entries_in (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static void
write_text (const char *path,
            const char *text)
{
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* --- launch environments (defect 7) ----------------------------------------- */

/* Which keys _stw_confine_env() refuses, as a sorted comma list. */
static char *
refused_env (const char         *root,
             const char         *cwd,
             const char * const *pairs)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) refused = g_string_new (NULL);
  JsonArray *denied;

  for (guint i = 0; pairs[i] != NULL; i += 2)
    {
      g_ptr_array_add (keys, (gpointer) pairs[i]);
      g_ptr_array_add (values, (gpointer) pairs[i + 1]);
    }
  if (_stw_confine_env (root, cwd, keys, values, &error))
    return g_strdup ("");
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  denied = json_object_get_array_member (stw_error_get_details (error), "denied_env_keys");
  for (guint i = 0; i < json_array_get_length (denied); i++)
    g_string_append_printf (refused, "%s%s", i ? "," : "", json_array_get_string_element (denied, i));
  return g_string_free (g_steal_pointer (&refused), FALSE);
}

/* Relative values are what the app resolves against its working
 * directory: `HOME=../outside/home` from a cwd inside the root is outside. */
static void
test_env_relative (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *bin = g_build_filename (fixture->root, "bin", NULL);
  g_autofree char *sub = g_build_filename (fixture->root, "sub", NULL);
  g_autofree char *escape = g_build_filename (fixture->root, "escape", NULL);
  g_autofree char *refused = NULL;

  g_assert_cmpint (g_mkdir (bin, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_cmpint (symlink (fixture->outside, escape), ==, 0);

  refused = refused_env (fixture->root, fixture->root, (const char *[]) {
    "HOME", "../outside/home",
    "XDG_CONFIG_HOME", "../outside/xdg",
    "PATH", "bin:../outside/bin:/usr/bin",
    "TMPDIR", "..",
    "CACHE", "escape",                  /* a bare word naming a symlink out */
    "DATA", "sub/../../outside",
    NULL });
  g_assert_cmpstr (refused, ==, "HOME,XDG_CONFIG_HOME,PATH,TMPDIR,CACHE,DATA");
  g_clear_pointer (&refused, g_free);

  /* From a cwd one level down, `..` is the root itself: inside. */
  refused = refused_env (fixture->root, sub, (const char *[]) {
    "HOME", "../home", "PATH", "../bin:.", "TMPDIR", "..", NULL });
  g_assert_cmpstr (refused, ==, "");
  g_clear_pointer (&refused, g_free);

  /* The control: relative paths inside and plain words pass. */
  refused = refused_env (fixture->root, fixture->root, (const char *[]) {
    "HOME", "./home", "PATH", "bin:sub", "LANG", "C.UTF-8", "NODE_ENV", "production",
    "COUNT", "1", NULL });
  g_assert_cmpstr (refused, ==, "");
  g_clear_pointer (&refused, g_free);

  /* An app whose cwd lies outside the root: a relative path lands there,
   * an empty PATH entry searches it; a plain word names nothing. */
  refused = refused_env (fixture->root, fixture->outside, (const char *[]) {
    "HOME", "./home", "PATH", "bin:", "LANG", "C.UTF-8", NULL });
  g_assert_cmpstr (refused, ==, "HOME,PATH");
  g_clear_pointer (&refused, g_free);

  /* Without a root nothing is confined. */
  refused = refused_env (NULL, fixture->root, (const char *[]) { "HOME", "../outside/home", NULL });
  g_assert_cmpstr (refused, ==, "");
}

/* --- the confined open (defect 11) ------------------------------------------ */

/* Beneath a directory descriptor: a symlink out, `..` and absolute
 * paths lead nowhere, with openat2 and with the walk alike. */
/* Whether openat2 answers at all: valgrind 3.19 does not know it and
 * answers ENOSYS, and the confined open then walks instead. */
static gboolean
kernel_has_openat2 (void)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  struct open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = RESOLVE_BENEATH };
  int fd = (int) syscall (SYS_openat2, AT_FDCWD, ".", &how, sizeof how);

  if (fd >= 0)
    close (fd);
  return fd >= 0 || errno != ENOSYS;
#else
  return FALSE;
#endif
}

static void
test_openat_beneath (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (fixture->root, "dir", NULL);
  g_autofree char *file = g_build_filename (dir, "in.txt", NULL);
  g_autofree char *secret = g_build_filename (fixture->outside, "in.txt", NULL);
  g_autofree char *link_out = g_build_filename (fixture->root, "out", NULL);
  g_autofree char *link_in = g_build_filename (fixture->root, "alias", NULL);
  const char *escapes[] = { "out/in.txt", "../outside/in.txt", "dir/../../outside/in.txt", "out" };
  int root_fd, fd;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  write_text (file, "inside");
  write_text (secret, "SECRET");
  g_assert_cmpint (symlink (fixture->outside, link_out), ==, 0);
  g_assert_cmpint (symlink ("dir", link_in), ==, 0);
  root_fd = open (fixture->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (root_fd, >=, 0);

  fd = _stw_confine_openat (root_fd, "dir/in.txt", O_RDONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  fd = _stw_confine_openat (root_fd, "alias/in.txt", O_RDONLY, 0);
  if (GPOINTER_TO_INT (data) == 0 && kernel_has_openat2 ())
    {
      /* openat2 follows a symlink that stays beneath; the walk follows none
       * (nor does the fallback where openat2 is ENOSYS, as under valgrind). */
      g_assert_cmpint (fd, >=, 0);
      close (fd);
    }
  else
    g_assert_cmpint (fd, ==, -1);

  for (guint i = 0; i < G_N_ELEMENTS (escapes); i++)
    {
      errno = 0;
      fd = _stw_confine_openat (root_fd, escapes[i], O_RDONLY, 0);
      g_test_message ("%s: %d (%s)", escapes[i], fd, g_strerror (errno));
      g_assert_cmpint (fd, ==, -1);
      g_assert_true (errno == EXDEV || errno == ELOOP || errno == ENOTDIR);
    }
  /* Nothing is created through a symlink out. */
  fd = _stw_confine_openat (root_fd, "out/new.png", O_WRONLY | O_CREAT | O_EXCL, 0600);
  g_assert_cmpint (fd, ==, -1);
  g_assert_cmpuint (entries_in (fixture->outside), ==, 1);
  close (root_fd);
}

static void
test_open_by_path (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *inside = g_build_filename (fixture->root, "a.txt", NULL);
  g_autofree char *secret = g_build_filename (fixture->outside, "a.txt", NULL);
  g_autofree char *link = g_build_filename (fixture->root, "link.txt", NULL);
  g_autofree char *deep = g_build_filename (fixture->root, "x", "y", "shots", NULL);
  g_autofree char *deep_out = g_build_filename (fixture->root, "escape", "shots", NULL);
  g_autofree char *escape = g_build_filename (fixture->root, "escape", NULL);
  g_autofree char *written = g_build_filename (fixture->root, "x", "shot.png", NULL);
  g_autofree char *written_out = g_build_filename (fixture->root, "escape", "shot.png", NULL);
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GBytes) image = g_bytes_new_static ("png", 3);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  int fd;

  write_text (inside, "inside");
  write_text (secret, "SECRET");
  g_assert_cmpint (symlink (secret, link), ==, 0);
  g_assert_cmpint (symlink (fixture->outside, escape), ==, 0);

  contents = _stw_confine_read_file (fixture->root, inside, 1024, "paths", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (contents, NULL), g_bytes_get_size (contents), "inside", 6);

  g_assert_null (_stw_confine_read_file (fixture->root, link, 1024, "paths", &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "argument"), ==, "paths");
  g_clear_error (&error);
  g_assert_cmpint (_stw_confine_open (fixture->root, secret, O_RDONLY, 0, "path", &error), ==, -1);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (_stw_confine_open (fixture->root, "a.txt", O_RDONLY, 0, "path", &error), ==, -1);
  g_assert_error (error, STW_ERROR, STW_ERROR_ABSOLUTE_PATH_REQUIRED);
  g_clear_error (&error);

  /* Directories are made beneath the root, and never through a link. */
  fd = _stw_confine_make_dirs (fixture->root, deep, 0700, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_test (deep, G_FILE_TEST_IS_DIR));
  g_assert_cmpint (_stw_confine_make_dirs (fixture->root, deep_out, 0700, &error), ==, -1);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  g_assert_true (_stw_confine_write_file (fixture->root, written, image, 0644, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (written, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "png");
  g_assert_false (_stw_confine_write_file (fixture->root, written_out, image, 0644, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_assert_cmpuint (entries_in (fixture->outside), ==, 1);
}

/* --- files read for a page (defect 8) ------------------------------------------- */

static void
assert_refused_file (const char *path,
                     int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *dest = g_dir_make_tmp ("stw-copy-XXXXXX", NULL);
  g_autofree char *copy = NULL;
  goffset copied = 0;

  g_test_message ("refused: %s", path);
  contents = _stw_confine_read_file (NULL, path, 1024 * 1024, "paths", &error);
  g_assert_null (contents);
  g_assert_error (error, STW_ERROR, code);
  g_clear_error (&error);
  copy = _stw_confine_copy_file (NULL, path, dest, 1024 * 1024, "paths", &copied, &error);
  g_assert_null (copy);
  g_assert_error (error, STW_ERROR, code);
  g_assert_cmpuint (entries_in (dest), ==, 0);
  g_rmdir (dest);
}

/* Without --app-root (the default) the server's own process files, the
 * kernel's pseudo files, FIFOs, sockets and devices are refused: none
 * of them is a file a page should be handed, and some never end. */
static void
test_pseudo_files (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *fifo = g_build_filename (fixture->root, "fifo", NULL);
  g_autofree char *to_environ = g_build_filename (fixture->root, "environ", NULL);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink ("/proc/self/environ", to_environ), ==, 0);

  assert_refused_file ("/proc/self/environ", STW_ERROR_BAD_ARGUMENT);
  assert_refused_file ("/proc/self/pagemap", STW_ERROR_BAD_ARGUMENT);
  assert_refused_file ("/proc/self/cmdline", STW_ERROR_BAD_ARGUMENT);
  assert_refused_file (to_environ, STW_ERROR_BAD_ARGUMENT);
  if (g_file_test ("/sys/devices/system/cpu/online", G_FILE_TEST_IS_REGULAR))
    assert_refused_file ("/sys/devices/system/cpu/online", STW_ERROR_BAD_ARGUMENT);
  assert_refused_file ("/dev/zero", STW_ERROR_BAD_ARGUMENT);
  assert_refused_file ("/dev/null", STW_ERROR_BAD_ARGUMENT);
  assert_refused_file (fifo, STW_ERROR_BAD_ARGUMENT);      /* and it does not hang */
  assert_refused_file (fixture->root, STW_ERROR_FILE_NOT_FOUND);
  assert_refused_file ("/no/such/file", STW_ERROR_FILE_NOT_FOUND);
}

/* The cap holds whatever the file's size says: a file that grows while it
 * is read, here one larger than the cap, is refused at the cap. */
static void
test_size_cap (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *big = g_build_filename (fixture->root, "big.bin", NULL);
  g_autofree char *small = g_build_filename (fixture->root, "small.bin", NULL);
  g_autofree char *dest = g_build_filename (fixture->scratch, "copies", NULL);
  g_autofree char *filler = g_strnfill (4096, 'x');
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *copy = NULL;
  goffset copied = 0;

  write_text (big, filler);
  write_text (small, "1234");
  g_assert_cmpint (g_mkdir (dest, 0700), ==, 0);

  g_assert_null (_stw_confine_read_file (fixture->root, big, 4095, "paths", &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (_stw_confine_copy_file (fixture->root, big, dest, 4095, "paths", &copied, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpuint (entries_in (dest), ==, 0);

  contents = _stw_confine_read_file (fixture->root, big, 4096, "paths", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (contents), ==, 4096);

  copy = _stw_confine_copy_file (fixture->root, small, dest, 4096, "paths", &copied, &error);
  g_assert_no_error (error);
  g_assert_cmpint (copied, ==, 4);
  g_assert_true (g_str_has_prefix (copy, dest));
  g_assert_true (g_str_has_suffix (copy, "/small.bin"));
  {
    g_autofree char *text = NULL;
    GStatBuf st;

    g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, "1234");
    g_assert_cmpint (g_stat (copy, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  }
}

/* --- the race (defect 11) --------------------------------------------------------- */

typedef struct
{
  const char *dir;      /* the checked directory */
  const char *parked;   /* where it waits while the link stands in */
  const char *target;   /* what the link points at (outside) */
  gint        stop;
  guint       swaps;
} Swapper;

static gpointer
swap_thread (gpointer data)
{
  Swapper *swapper = data;

  while (!g_atomic_int_get (&swapper->stop))
    {
      if (g_rename (swapper->dir, swapper->parked) != 0)
        continue;
      if (symlink (swapper->target, swapper->dir) == 0)
        {
          g_usleep (50);
          g_unlink (swapper->dir);
        }
      g_rename (swapper->parked, swapper->dir);
      swapper->swaps++;
      g_usleep (100);   /* the real directory stands a while too */
    }
  return NULL;
}

/* A directory inside the root is swapped for a symlink to the outside,
 * back and forth, while files in it are read and written by path: every
 * read answers the inside file or a refusal, every write lands inside or
 * is refused; nothing outside is read or written. */
static void
test_race (Fixture       *fixture,
           gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (fixture->root, "shots", NULL);
  g_autofree char *parked = g_build_filename (fixture->root, "shots.real", NULL);
  g_autofree char *inside = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *secret = g_build_filename (fixture->outside, "a.txt", NULL);
  g_autofree char *dest = g_build_filename (fixture->scratch, "copies", NULL);
  g_autoptr(GBytes) image = g_bytes_new_static ("png", 3);
  Swapper swapper = { dir, parked, fixture->outside, 0, 0 };
  GThread *thread;
  guint read_ok = 0, wrote = 0, refused = 0;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (dest, 0700), ==, 0);
  write_text (inside, "inside");
  write_text (secret, "SECRET");

  thread = g_thread_new ("swapper", swap_thread, &swapper);
  for (guint i = 0; i < 2000; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) contents = NULL;
      g_autofree char *shot = g_strdup_printf ("%s/shot-%u.png", dir, i);
      g_autofree char *copy = NULL;
      goffset copied = 0;

      contents = _stw_confine_read_file (fixture->root, inside, 1024, "paths", &error);
      if (contents != NULL)
        {
          g_assert_cmpmem (g_bytes_get_data (contents, NULL), g_bytes_get_size (contents), "inside", 6);
          read_ok++;
        }
      else
        refused++;
      g_clear_error (&error);
      copy = _stw_confine_copy_file (fixture->root, inside, dest, 1024, "paths", &copied, &error);
      if (copy != NULL)
        {
          g_autofree char *text = NULL;
          g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
          g_assert_cmpstr (text, ==, "inside");
        }
      g_clear_error (&error);
      if (_stw_confine_write_file (fixture->root, shot, image, 0644, &error))
        wrote++;
      else
        refused++;
    }
  g_atomic_int_set (&swapper.stop, 1);
  g_thread_join (thread);

  g_test_message ("%u swaps, %u reads, %u writes, %u refused", swapper.swaps, read_ok, wrote, refused);
  g_assert_cmpuint (swapper.swaps, >, 0);
  g_assert_cmpuint (entries_in (fixture->outside), ==, 1);   /* a.txt alone */
  g_assert_cmpuint (entries_in (dir), ==, 1 + wrote);
  g_assert_cmpuint (read_ok + wrote, >, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint walk = 0; walk < 2; walk++)
    {
      const char *mode = walk ? "walk" : "openat2";
      gconstpointer data = GINT_TO_POINTER (walk);
      g_autofree char *env = g_strdup_printf ("/confine/%s/env-relative", mode);
      g_autofree char *beneath = g_strdup_printf ("/confine/%s/openat-beneath", mode);
      g_autofree char *by_path = g_strdup_printf ("/confine/%s/open-by-path", mode);
      g_autofree char *pseudo = g_strdup_printf ("/confine/%s/pseudo-files", mode);
      g_autofree char *cap = g_strdup_printf ("/confine/%s/size-cap", mode);
      g_autofree char *race = g_strdup_printf ("/confine/%s/race", mode);

      if (!walk)
        g_test_add (env, Fixture, data, fixture_set_up, test_env_relative, fixture_tear_down);
      g_test_add (beneath, Fixture, data, fixture_set_up, test_openat_beneath, fixture_tear_down);
      g_test_add (by_path, Fixture, data, fixture_set_up, test_open_by_path, fixture_tear_down);
      g_test_add (pseudo, Fixture, data, fixture_set_up, test_pseudo_files, fixture_tear_down);
      g_test_add (cap, Fixture, data, fixture_set_up, test_size_cap, fixture_tear_down);
      g_test_add (race, Fixture, data, fixture_set_up, test_race, fixture_tear_down);
    }
  return g_test_run ();
}
