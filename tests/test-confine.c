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
#include <unistd.h>

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
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  rm_tree (fixture->scratch);
  free (fixture->scratch);
  g_free (fixture->root);
  g_free (fixture->outside);
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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/confine/env-relative", Fixture, NULL, fixture_set_up, test_env_relative, fixture_tear_down);
  return g_test_run ();
}
