/* stw-confine-private.h: what the server lets a launched app touch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

G_BEGIN_DECLS

char       *_stw_confine_path        (const char          *root,
                                      const char          *base_dir,
                                      const char          *path,
                                      const char          *argument,
                                      GError             **error);
gboolean    _stw_confine_args        (const char          *root,
                                      const char          *base_dir,
                                      const char * const  *args,
                                      GError             **error);
const char *_stw_confine_env_rule    (const char          *key,
                                      const char          *value);
gboolean    _stw_confine_env         (const char          *root,
                                      const char          *base_dir,
                                      GPtrArray           *keys,
                                      GPtrArray           *values,
                                      GError             **error);

/* Opening what was checked: beneath a descriptor of the root held since
 * the root was first named. */
void        _stw_confine_hold_root       (const char   *root);
void        _stw_confine_set_use_openat2 (gboolean      use);
int         _stw_confine_openat          (int           dir_fd,
                                          const char   *relative,
                                          int           flags,
                                          mode_t        mode);
int         _stw_confine_open            (const char   *root,
                                          const char   *path,
                                          int           flags,
                                          mode_t        mode,
                                          const char   *argument,
                                          GError      **error);
int         _stw_confine_make_dirs       (const char   *root,
                                          const char   *path,
                                          mode_t        mode,
                                          GError      **error);
int         _stw_confine_open_regular    (const char   *root,
                                          const char   *path,
                                          const char   *argument,
                                          GError      **error);
GBytes     *_stw_confine_read_file       (const char   *root,
                                          const char   *path,
                                          goffset       max,
                                          const char   *argument,
                                          GError      **error);
char       *_stw_confine_copy_file       (const char   *root,
                                          const char   *path,
                                          const char   *dest_dir,
                                          goffset       max,
                                          const char   *argument,
                                          goffset      *copied,
                                          GError      **error);
gboolean    _stw_confine_write_file      (const char   *root,
                                          const char   *path,
                                          GBytes       *contents,
                                          mode_t        mode,
                                          GError      **error);
gboolean    _stw_path_is_inside          (const char   *path,
                                          const char   *root);

G_END_DECLS
