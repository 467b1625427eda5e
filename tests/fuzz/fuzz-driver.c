/* fuzz-driver.c: a bounded replay-and-mutate driver for the fuzz targets
 *
 * For `make check` with any compiler: runs every file of the target's seed
 * corpus (tests/fuzz/corpus/<target>/, or the files and directories given
 * as arguments), then mutated inputs (bit flips, JSON-ish byte
 * replacements, insertions, deletions, repeated chunks, splices of two
 * seeds, truncations) until STW_FUZZ_ITERATIONS inputs (default 5000) or
 * STW_FUZZ_SECONDS (default 3) have passed. STW_FUZZ_SEED fixes the seed
 * (printed). A crash or a failed assertion aborts; the input that did it
 * is written to STW_FUZZ_CRASH_DIR (default: the current directory) first.
 * Prints TAP.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef STW_FUZZ_TARGET
# error "STW_FUZZ_TARGET names the target (json, schema, cdp, walk)"
#endif

#define FUZZ_MAX_INPUT (256 * 1024)

static GByteArray *current;

static guint
env_uint (const char *name,
          guint       fallback)
{
  const char *value = g_getenv (name);

  if (value == NULL || *value == '\0')
    return fallback;
  return (guint) g_ascii_strtoull (value, NULL, 0);
}

/* Keep the input that crashed. */
static void
on_abort (int signum)
{
  const char *dir = g_getenv ("STW_FUZZ_CRASH_DIR");
  char path[4096];
  FILE *file;

  g_snprintf (path, sizeof path, "%s/crash-" STW_FUZZ_TARGET "-%d", dir ? dir : ".", (int) getpid ());
  if (current != NULL && (file = fopen (path, "wb")) != NULL)
    {
      fwrite (current->data, 1, current->len, file);
      fclose (file);
      fprintf (stderr, "fuzz-driver: the input is in %s\n", path);
    }
  signal (signum, SIG_DFL);
  raise (signum);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

static void
load_path (GPtrArray  *corpus,
           const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      /* Directory order is not stable; the run must be. */
      g_ptr_array_sort (names, compare_names);
      for (guint i = 0; i < names->len; i++)
        load_path (corpus, g_ptr_array_index (names, i));
      return;
    }
  {
    char *contents = NULL;
    gsize length = 0;

    if (!g_file_get_contents (path, &contents, &length, NULL))
      g_error ("Cannot read %s", path);
    g_ptr_array_add (corpus, g_bytes_new_take (contents, length));
  }
}

static void
insert (GByteArray   *input,
        guint         at,
        const guint8 *data,
        guint         length)
{
  guint old_len = input->len;

  g_byte_array_set_size (input, old_len + length);
  memmove (input->data + at + length, input->data + at, old_len - at);
  memcpy (input->data + at, data, length);
}

static void
mutate (GRand      *rand,
        GByteArray *input,
        GPtrArray  *corpus)
{
  static const char tokens[] = "{}[]\",:0123456789-+.eE\\utfnrl \t\r\n\x01\x7f\xc3\xa9\xff\0";
  static const char * const words[] = {
    "null", "true", "false", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00", "1e400",
    "-0", "9223372036854775808", "\"\"", "[]", "{}", "\"id\":1", "\"method\":\"Target.x\"",
    "\"params\":{}", "\"result\":{}", "\"error\":{\"code\":-32000}", "\"sessionId\":\"S1\"",
    "\"type\":\"object\"", "\"required\":[\"a\"]", "\"items\":{}", "\"enum\":[1]",
    "\"oneOf\":[{},{}]", "\"pattern\":\"(a+)+$\"", "\"default\":0", "/*", "'", "NaN",
  };
  guint n = 1 + (guint) g_rand_int_range (rand, 0, 4);

  for (guint i = 0; i < n; i++)
    {
      guint len = input->len;
      guint at = len ? (guint) g_rand_int_range (rand, 0, (gint32) len) : 0;

      switch (g_rand_int_range (rand, 0, 8))
        {
        case 0:
          if (len)
            input->data[at] ^= (guint8) (1u << g_rand_int_range (rand, 0, 8));
          break;
        case 1:
          if (len)
            input->data[at] = (guint8) tokens[g_rand_int_range (rand, 0, sizeof tokens - 1)];
          break;
        case 2:
          {
            guint8 c = (guint8) tokens[g_rand_int_range (rand, 0, sizeof tokens - 1)];
            insert (input, at, &c, 1);
          }
          break;
        case 3:
          {
            const char *word = words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))];
            insert (input, at, (const guint8 *) word, (guint) strlen (word));
          }
          break;
        case 4:
          if (len)
            {
              /* Not inside MIN (): it evaluates its arguments twice. */
              guint want = (guint) g_rand_int_range (rand, 1, 16);
              g_byte_array_remove_range (input, at, MIN (len - at, want));
            }
          break;
        case 5:
          if (len && len < FUZZ_MAX_INPUT / 4)
            {
              guint want = (guint) g_rand_int_range (rand, 1, 64);
              guint chunk = MIN (len - at, want);
              g_autofree guint8 *copy = g_memdup2 (input->data + at, chunk);
              guint times = (guint) g_rand_int_range (rand, 1, 64);

              for (guint t = 0; t < times; t++)
                insert (input, at, copy, chunk);
            }
          break;
        case 6:
          {
            GBytes *other = corpus->pdata[g_rand_int_range (rand, 0, (gint32) corpus->len)];
            gsize other_len = 0;
            const guint8 *other_data = g_bytes_get_data (other, &other_len);

            if (other_len)
              {
                gsize from = (gsize) g_rand_int_range (rand, 0, (gint32) other_len);
                g_byte_array_set_size (input, at);
                g_byte_array_append (input, other_data + from, (guint) (other_len - from));
              }
          }
          break;
        default:
          if (len)
            g_byte_array_set_size (input, at);
          break;
        }
      if (input->len > FUZZ_MAX_INPUT)
        g_byte_array_set_size (input, FUZZ_MAX_INPUT);
    }
}

static void
run_one (const guint8 *data,
         gsize         length)
{
  /* A private copy: out-of-bounds reads hit the end of the allocation. */
  g_byte_array_set_size (current, 0);
  g_byte_array_append (current, data, (guint) length);
  {
    g_autofree guint8 *copy = g_memdup2 (data, length);
    LLVMFuzzerTestOneInput (copy, length);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) corpus = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GRand) rand = NULL;
  g_autoptr(GByteArray) input = g_byte_array_new ();
  guint seed = env_uint ("STW_FUZZ_SEED", 0x5eed);
  guint iterations = env_uint ("STW_FUZZ_ITERATIONS", 5000);
  guint seconds = env_uint ("STW_FUZZ_SECONDS", 3);
  gint64 deadline = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
  guint n_run = 0;

  current = g_byte_array_new ();
  signal (SIGABRT, on_abort);
  signal (SIGSEGV, on_abort);
  signal (SIGBUS, on_abort);
  signal (SIGFPE, on_abort);
  signal (SIGTRAP, on_abort);  /* g_error () */

  if (argc > 1)
    for (int i = 1; i < argc; i++)
      load_path (corpus, argv[i]);
  else
    {
      const char *srcdir = g_getenv ("G_TEST_SRCDIR");
      g_autofree char *dir = g_build_filename (srcdir ? srcdir : "tests", "fuzz", "corpus",
                                               STW_FUZZ_TARGET, NULL);
      load_path (corpus, dir);
    }
  if (corpus->len == 0)
    g_error ("The seed corpus of " STW_FUZZ_TARGET " is empty");

  printf ("1..1\n# %s: seed %u (STW_FUZZ_SEED), %u seeds, at most %u inputs or %u s\n",
          STW_FUZZ_TARGET, seed, corpus->len, iterations, seconds);
  fflush (stdout);

  for (guint i = 0; i < corpus->len; i++, n_run++)
    {
      gsize length = 0;
      const guint8 *data = g_bytes_get_data (corpus->pdata[i], &length);
      run_one (data, length);
    }

  rand = g_rand_new_with_seed (seed);
  while (n_run < iterations && g_get_monotonic_time () < deadline)
    {
      gsize length = 0;
      const guint8 *data = g_bytes_get_data (corpus->pdata[g_rand_int_range (rand, 0, (gint32) corpus->len)],
                                             &length);

      g_byte_array_set_size (input, 0);
      g_byte_array_append (input, data, (guint) length);
      mutate (rand, input, corpus);
      run_one (input->data, input->len);
      n_run++;
    }

  printf ("ok 1 - %s: %u inputs without a crash or a failed check\n", STW_FUZZ_TARGET, n_run);
  g_byte_array_unref (current);
  return 0;
}
