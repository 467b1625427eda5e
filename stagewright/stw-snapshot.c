/* stw-snapshot.c: snapshot entries, ref reconciliation, renderers and diffs
 *
 * Everything here is pure: the walker's answer goes in, entries, refs and
 * text come out (stw-surface-snapshot.c does the I/O).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-json-private.h"
#include "stw-snapshot-private.h"

/* Free text longer than this is cut in the text form (reference §4.4). */
#define TEXT_CUT 80

StwSnapEntry *
_stw_snap_entry_new (void)
{
  return g_new0 (StwSnapEntry, 1);
}

void
_stw_snap_entry_free (StwSnapEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->surface_id);
  g_free (entry->role);
  g_free (entry->name);
  g_free (entry->value);
  g_free (entry->fingerprint);
  g_free (entry->description);
  g_free (entry->placeholder);
  g_free (entry->tag);
  g_free (entry->frame_surface_id);
  g_free (entry);
}

static const char *
array_string (JsonArray *array,
              guint      index)
{
  JsonNode *node;

  if (array == NULL || index >= json_array_get_length (array))
    return NULL;
  node = json_array_get_element (array, index);
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

/* A field of a walker line (js/a11y.js `row`), unescaped; NULL when empty
 * and @empty_is_null. */
static char *
field_string (const char *start,
              const char *end,
              gboolean    empty_is_null)
{
  char *out, *o;

  if (start == end && empty_is_null)
    return NULL;
  if (memchr (start, '\\', end - start) == NULL)
    return g_strndup (start, end - start);
  out = o = g_malloc (end - start + 1);
  for (const char *p = start; p < end; p++)
    {
      if (*p == '\\' && p + 1 < end)
        {
          p++;
          *o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
        }
      else
        *o++ = *p;
    }
  *o = '\0';
  return out;
}

/* A number field, read as g_ascii_strtoll (text, NULL, 10) reads it
 * (leading spaces, a sign, digits, clamped on overflow), without its
 * generic machinery: eight per row. */
static gint64
field_int (const char *p)
{
  gboolean negative = FALSE;
  guint64 magnitude = 0;
  guint64 limit;

  while (g_ascii_isspace (*p))
    p++;
  if (*p == '-' || *p == '+')
    negative = *p++ == '-';
  limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
  for (; g_ascii_isdigit (*p); p++)
    {
      guint digit = (guint) (*p - '0');

      if (magnitude > (limit - digit) / 10)
        return negative ? G_MININT64 : G_MAXINT64;
      magnitude = magnitude * 10 + digit;
    }
  return negative ? (gint64) ((guint64) 0 - magnitude) : (gint64) magnitude;
}

/* Roles come from a closed list (js/a11y.js): letters, digits and '-'. */
static gboolean
role_is_plain (const char *role)
{
  if (*role == '\0')
    return FALSE;
  for (; *role != '\0'; role++)
    if (!g_ascii_isalnum (*role) && *role != '-')
      return FALSE;
  return TRUE;
}

enum
{
  FIELD_KEY,
  FIELD_FLAGS,
  FIELD_ROLE,
  FIELD_NAME,
  FIELD_VALUE,
  FIELD_CONTEXT,
  FIELD_X,
  FIELD_Y,
  FIELD_W,
  FIELD_H,
  FIELD_LEVEL,
  FIELD_DESCRIPTION,
  FIELD_PLACEHOLDER,
  FIELD_TAG,
  N_FIELDS
};

/* js/a11y.js F.HAS_VALUE: the value field is meaningful even when empty. */
#define HAS_VALUE (1 << 22)

static StwSnapEntry *
parse_row (const char *line,
           const char *end,
           JsonArray  *contexts)
{
  const char *fields[N_FIELDS + 1];
  guint n = 0;
  StwSnapEntry *entry;
  const char *context;

  fields[n++] = line;
  for (const char *p = line; p < end && n <= N_FIELDS; p++)
    if (*p == '\t')
      fields[n++] = p + 1;
  if (n != N_FIELDS)
    return NULL;
  fields[N_FIELDS] = end + 1;
#define FIELD_END(i) (fields[(i) + 1] - 1)
#define FIELD_INT(i) field_int (fields[i])

  entry = _stw_snap_entry_new ();
  entry->key = FIELD_INT (FIELD_KEY);
  entry->flags = (guint) FIELD_INT (FIELD_FLAGS);
  entry->role = field_string (fields[FIELD_ROLE], FIELD_END (FIELD_ROLE), FALSE);
  entry->name = field_string (fields[FIELD_NAME], FIELD_END (FIELD_NAME), FALSE);
  if (entry->flags & HAS_VALUE)
    entry->value = field_string (fields[FIELD_VALUE], FIELD_END (FIELD_VALUE), FALSE);
  entry->flags &= ~HAS_VALUE;
  context = array_string (contexts, (guint) FIELD_INT (FIELD_CONTEXT));
  entry->fingerprint = g_strconcat (entry->role, "|", entry->name, "|", context ? context : "", NULL);
  entry->x = (int) FIELD_INT (FIELD_X);
  entry->y = (int) FIELD_INT (FIELD_Y);
  entry->w = (int) FIELD_INT (FIELD_W);
  entry->h = (int) FIELD_INT (FIELD_H);
  entry->level = (int) FIELD_INT (FIELD_LEVEL);
  entry->description = field_string (fields[FIELD_DESCRIPTION], FIELD_END (FIELD_DESCRIPTION), TRUE);
  entry->placeholder = field_string (fields[FIELD_PLACEHOLDER], FIELD_END (FIELD_PLACEHOLDER), TRUE);
  entry->tag = field_string (fields[FIELD_TAG], end, TRUE);
#undef FIELD_END
#undef FIELD_INT
  /* Roles come from a closed list (js/a11y.js); anything else is not a
   * row the walker wrote, and must not reach the one-line text form. */
  if (entry->key <= 0 || !role_is_plain (entry->role))
    {
      _stw_snap_entry_free (entry);
      return NULL;
    }
  return entry;
}

GPtrArray *
_stw_snap_entries_from_walk (JsonObject *walk,
                             const char *surface_id,
                             gint64      world_id,
                             guint       depth)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  const char *rows = stw_json_get_string (walk, "rows");
  JsonArray *contexts = walk && json_object_has_member (walk, "contexts") &&
                        JSON_NODE_HOLDS_ARRAY (json_object_get_member (walk, "contexts"))
                        ? json_object_get_array_member (walk, "contexts") : NULL;

  for (const char *line = rows; line != NULL && *line != '\0';)
    {
      const char *end = strchr (line, '\n');
      StwSnapEntry *entry;

      if (end == NULL)
        end = line + strlen (line);
      entry = parse_row (line, end, contexts);
      if (entry != NULL)
        {
          entry->surface_id = g_strdup (surface_id);
          entry->world_id = world_id;
          entry->depth = depth;
          g_ptr_array_add (entries, entry);
        }
      line = *end == '\n' ? end + 1 : end;
    }
  return entries;
}

/* --- refs ------------------------------------------------------------------ */

void
_stw_snapshot_reconcile (StwRefTable *refs,
                         const char  *surface_id,
                         gint64       world_id,
                         GPtrArray   *entries,
                         GHashTable  *alive,
                         gboolean     ref_all)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);         /* refs found on entries */
  g_autoptr(GHashTable) unreffed = g_hash_table_new (g_str_hash, g_str_equal);  /* fp -> count */
  g_autoptr(GHashTable) gone_by_fp = g_hash_table_new (g_str_hash, g_str_equal); /* fp -> count */
  g_autoptr(GPtrArray) live = NULL;
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();

  g_return_if_fail (refs != NULL && surface_id != NULL && entries != NULL);

  _stw_ref_table_begin_pass (refs);
  /* 1. An element that has a ref keeps it. */
  for (guint i = 0; i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);
      guint ref;

      if (g_strcmp0 (entry->surface_id, surface_id) != 0 || entry->world_id != world_id)
        continue;
      entry->ref = 0;
      ref = _stw_ref_table_find (refs, surface_id, world_id, entry->key);
      /* A landmark gets no ref of its own, but shows one another
       * operation gave it. */
      if (!ref_all && !(entry->flags & STW_SNAP_REFFED) && ref == 0)
        continue;
      if (ref != 0)
        {
          entry->ref = _stw_ref_table_bind (refs, surface_id, world_id, entry->key,
                                            entry->fingerprint, entry->role, entry->name);
          g_hash_table_add (seen, GUINT_TO_POINTER (ref));
        }
      else
        g_hash_table_insert (unreffed, entry->fingerprint,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (unreffed, entry->fingerprint)) + 1));
    }

  /* 2. A ref whose element went. */
  live = _stw_ref_table_list (refs, surface_id);
  for (guint i = 0; i < live->len; i++)
    {
      const StwRef *ref = g_ptr_array_index (live, i);
      gint64 key = ref->key;

      if (g_hash_table_contains (seen, GUINT_TO_POINTER (ref->ref)))
        continue;
      if (alive == NULL || (ref->world_id == world_id && g_hash_table_contains (alive, &key)))
        continue;   /* still there, just not listed (or not judged) */
      g_ptr_array_add (gone, (gpointer) ref);
      g_hash_table_insert (gone_by_fp, ref->fingerprint,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (gone_by_fp, ref->fingerprint)) + 1));
    }
  for (guint i = 0; i < gone->len; i++)
    {
      const StwRef *ref = g_ptr_array_index (gone, i);
      StwSnapEntry *target = NULL;

      /* Only when neither side is ambiguous: one ref went, one element
       * without a ref looks like it. */
      if (ref->fingerprint != NULL && *ref->fingerprint != '\0' &&
          GPOINTER_TO_UINT (g_hash_table_lookup (gone_by_fp, ref->fingerprint)) == 1 &&
          GPOINTER_TO_UINT (g_hash_table_lookup (unreffed, ref->fingerprint)) == 1)
        {
          for (guint j = 0; j < entries->len && target == NULL; j++)
            {
              StwSnapEntry *entry = g_ptr_array_index (entries, j);

              if (entry->ref == 0 && entry->world_id == world_id &&
                  g_strcmp0 (entry->surface_id, surface_id) == 0 &&
                  (ref_all || entry->flags & STW_SNAP_REFFED) &&
                  g_strcmp0 (entry->fingerprint, ref->fingerprint) == 0)
                target = entry;
            }
        }
      if (target != NULL)
        {
          guint number = ref->ref;

          _stw_ref_table_rebind (refs, number, world_id, target->key);
          target->ref = _stw_ref_table_bind (refs, surface_id, world_id, target->key,
                                             target->fingerprint, target->role, target->name);
          g_hash_table_remove (unreffed, target->fingerprint);
        }
      else
        _stw_ref_table_retire (refs, ref->ref);
    }

  /* 3. Everything else that should have a ref gets a new one. */
  for (guint i = 0; i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);

      if (entry->ref != 0 || entry->unlisted || g_strcmp0 (entry->surface_id, surface_id) != 0 ||
          entry->world_id != world_id)
        continue;
      if (!ref_all && !(entry->flags & STW_SNAP_REFFED))
        continue;
      entry->ref = _stw_ref_table_bind (refs, surface_id, world_id, entry->key,
                                        entry->fingerprint, entry->role, entry->name);
    }
  _stw_ref_table_end_pass (refs);
}

/* --- text ------------------------------------------------------------------ */

/* Bytes append_quoted() writes escaped: '"', '\\', controls and DEL. */
static const guint8 quote_escaped[256] = {
  [0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f] = 1,
};

/* An entry's ref as its lines begin with it: "[12] ", or "[-] " for none. */
static void
append_ref (GString *out,
            guint    ref)
{
  if (ref == 0)
    {
      g_string_append_len (out, "[-] ", 4);
      return;
    }
  g_string_append_c (out, '[');
  stw_json_append_int (out, ref);
  g_string_append_len (out, "] ", 2);
}

/* A JSON-quoted string on one line, cut when long. */
static void
append_quoted (GString    *out,
               const char *text)
{
  gsize bytes = text ? strlen (text) : 0;
  /* No more bytes than TEXT_CUT, no more characters: nothing to count. */
  glong length = bytes > TEXT_CUT ? g_utf8_strlen (text, -1) : (glong) bytes;
  const char *end = text ? text + bytes : NULL;

  if (text != NULL && length > TEXT_CUT)
    end = g_utf8_offset_to_pointer (text, TEXT_CUT);

  g_string_append_c (out, '"');
  for (const char *p = text; p != NULL && p < end; p++)
    {
      const char *run = p;
      guchar c;

      while (p < end && !quote_escaped[(guchar) *p])
        p++;
      if (p > run)
        g_string_append_len (out, run, p - run);
      if (p == end)
        break;
      c = (guchar) *p;
      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else
        g_string_append_printf (out, "\\u%04x", c);
    }
  if (text != NULL && length > TEXT_CUT)
    g_string_append_printf (out, "…(%ld chars)", length);
  g_string_append_c (out, '"');
}

/* U+2028 and U+2029 end lines for some readers too. */
static void
strip_line_separators (GString *out)
{
  char *p;

  while ((p = strstr (out->str, "\xe2\x80\xa8")) != NULL || (p = strstr (out->str, "\xe2\x80\xa9")) != NULL)
    {
      gsize at = p - out->str;

      g_string_erase (out, at, 3);
      g_string_insert_c (out, at, ' ');
    }
}

static gboolean
is_select_role (const char *role)
{
  return g_strcmp0 (role, "combobox") == 0 || g_strcmp0 (role, "listbox") == 0;
}

static gboolean
is_text_role (const char *role)
{
  return g_strcmp0 (role, "textbox") == 0 || g_strcmp0 (role, "searchbox") == 0;
}

char *
_stw_snapshot_entry_line (const StwSnapEntry *entry)
{
  GString *out = g_string_new (NULL);
  guint flags = entry->flags;

  for (guint i = 0; i < entry->depth; i++)
    g_string_append (out, "  ");
  if (entry->recently_changed)
    g_string_append_c (out, '~');
  append_ref (out, entry->ref);
  g_string_append (out, flags & STW_SNAP_FRAME ? "frame" : entry->role);
  g_string_append_c (out, ' ');
  append_quoted (out, entry->name);
  if (flags & STW_SNAP_FRAME && entry->frame_surface_id != NULL)
    g_string_append_printf (out, " surface=%s", entry->frame_surface_id);
  if (entry->level > 0)
    {
      g_string_append (out, " level=");
      stw_json_append_int (out, entry->level);
    }
  /* An empty value, like every default, goes without saying. */
  if (entry->value != NULL && *entry->value != '\0')
    {
      g_string_append (out, " value=");
      append_quoted (out, entry->value);
    }
  if (entry->placeholder != NULL && *entry->placeholder != '\0')
    {
      g_string_append (out, " placeholder=");
      append_quoted (out, entry->placeholder);
    }
  if (entry->description != NULL && *entry->description != '\0')
    {
      g_string_append (out, " desc=");
      append_quoted (out, entry->description);
    }
  if (flags & STW_SNAP_HIDDEN)
    g_string_append (out, " hidden");
  if (flags & STW_SNAP_DISABLED)
    g_string_append (out, " disabled");
  if (flags & STW_SNAP_MIXED)
    g_string_append (out, " mixed");
  else if (flags & STW_SNAP_CHECKED)
    g_string_append (out, " checked");
  if (flags & STW_SNAP_SELECTED)
    g_string_append (out, " selected");
  /* A collapsed combobox is the default, not news. */
  if (flags & STW_SNAP_EXPANDABLE && (flags & STW_SNAP_EXPANDED || g_strcmp0 (entry->role, "combobox") != 0))
    g_string_append (out, flags & STW_SNAP_EXPANDED ? " expanded" : " collapsed");
  if (flags & STW_SNAP_PRESSED)
    g_string_append (out, " pressed");
  if (flags & STW_SNAP_FOCUSED)
    g_string_append (out, " focused");
  if (flags & STW_SNAP_READONLY)
    g_string_append (out, " readonly");
  if (flags & STW_SNAP_REQUIRED)
    g_string_append (out, " required");
  if (flags & STW_SNAP_INVALID)
    g_string_append (out, " invalid");
  if (flags & STW_SNAP_BUSY)
    g_string_append (out, " busy");
  if (flags & STW_SNAP_SHADOW_CLOSED)
    g_string_append (out, " shadow-closed");
  strip_line_separators (out);
  return g_string_free (out, FALSE);
}

char *
_stw_snapshot_render_text (const char *title,
                           const char *url,
                           int         width,
                           int         height,
                           GPtrArray  *entries)
{
  GString *out = g_string_new ("page ");

  append_quoted (out, title ? title : "");
  g_string_append (out, " url=");
  append_quoted (out, url ? url : "");
  g_string_append_printf (out, " viewport=%dx%d entries=%u", width, height, entries->len);
  strip_line_separators (out);
  for (guint i = 0; i < entries->len; i++)
    {
      const StwSnapEntry *entry = g_ptr_array_index (entries, i);
      g_autofree char *line = _stw_snapshot_entry_line (entry);

      g_string_append_c (out, '\n');
      g_string_append (out, line);
      if (!is_select_role (entry->role))
        continue;
      /* A select's options go on its line: `options: [7]"Label"="value"`. */
      for (guint j = i + 1, first = i + 1; j < entries->len; j++)
        {
          const StwSnapEntry *option = g_ptr_array_index (entries, j);
          GString *item;

          if (!(option->flags & STW_SNAP_IN_SELECT))
            break;
          item = g_string_new (j == first ? " options:" : "");
          g_string_append_c (item, ' ');
          if (option->ref != 0)
            g_string_append_printf (item, "[%u]", option->ref);
          append_quoted (item, option->name);
          if (option->value != NULL)
            {
              g_string_append_c (item, '=');
              append_quoted (item, option->value);
            }
          if (option->flags & STW_SNAP_DISABLED)
            g_string_append (item, "(disabled)");
          strip_line_separators (item);
          g_string_append_len (out, item->str, item->len);
          g_string_free (item, TRUE);
          i = j;
        }
    }
  return g_string_free (out, FALSE);
}

/* --- JSON ------------------------------------------------------------------ */

static void
set_tristate (JsonObject *state,
              const char *name,
              guint       flags,
              guint       applies,
              guint       set)
{
  if (flags & applies)
    json_object_set_boolean_member (state, name, (flags & set) != 0);
  else
    json_object_set_null_member (state, name);
}

static JsonObject *
state_json (const StwSnapEntry *entry)
{
  JsonObject *state = json_object_new ();
  guint flags = entry->flags;
  gboolean editable_role = is_text_role (entry->role) || g_strcmp0 (entry->role, "combobox") == 0 ||
                           g_strcmp0 (entry->role, "spinbutton") == 0;

  json_object_set_boolean_member (state, "visible", !(flags & STW_SNAP_HIDDEN));
  json_object_set_boolean_member (state, "enabled", !(flags & STW_SNAP_DISABLED));
  json_object_set_boolean_member (state, "disabled", (flags & STW_SNAP_DISABLED) != 0);
  if (flags & STW_SNAP_MIXED)
    json_object_set_string_member (state, "checked", "mixed");
  else
    set_tristate (state, "checked", flags, STW_SNAP_CHECKABLE, STW_SNAP_CHECKED);
  set_tristate (state, "selected", flags, STW_SNAP_SELECTABLE, STW_SNAP_SELECTED);
  set_tristate (state, "expanded", flags, STW_SNAP_EXPANDABLE, STW_SNAP_EXPANDED);
  set_tristate (state, "pressed", flags, STW_SNAP_PRESSABLE, STW_SNAP_PRESSED);
  json_object_set_boolean_member (state, "focused", (flags & STW_SNAP_FOCUSED) != 0);
  if (editable_role || flags & (STW_SNAP_REQUIRED | STW_SNAP_INVALID) || flags & STW_SNAP_CHECKABLE)
    {
      json_object_set_boolean_member (state, "required", (flags & STW_SNAP_REQUIRED) != 0);
      json_object_set_boolean_member (state, "invalid", (flags & STW_SNAP_INVALID) != 0);
    }
  else
    {
      json_object_set_null_member (state, "required");
      json_object_set_null_member (state, "invalid");
    }
  if (!editable_role && !(flags & STW_SNAP_READONLY))
    json_object_set_null_member (state, "readonly");
  else
    json_object_set_boolean_member (state, "readonly", (flags & STW_SNAP_READONLY) != 0);
  json_object_set_boolean_member (state, "busy", (flags & STW_SNAP_BUSY) != 0);
  json_object_set_boolean_member (state, "shadow_closed", (flags & STW_SNAP_SHADOW_CLOSED) != 0);
  return state;
}

static JsonObject *
bbox_json (const StwSnapEntry *entry)
{
  JsonObject *bbox = json_object_new ();

  json_object_set_int_member (bbox, "x", entry->x);
  json_object_set_int_member (bbox, "y", entry->y);
  json_object_set_int_member (bbox, "w", entry->w);
  json_object_set_int_member (bbox, "h", entry->h);
  return bbox;
}

static void
set_nullable_string (JsonObject *object,
                     const char *member,
                     const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, member, value);
  else
    json_object_set_null_member (object, member);
}

JsonObject *
_stw_snapshot_entry_json (const StwSnapEntry *entry)
{
  JsonObject *object = json_object_new ();

  if (entry->ref != 0)
    json_object_set_int_member (object, "ref", entry->ref);
  else
    json_object_set_null_member (object, "ref");
  set_nullable_string (object, "tag", entry->tag);
  json_object_set_string_member (object, "role", entry->flags & STW_SNAP_FRAME ? "frame" : entry->role);
  json_object_set_string_member (object, "name", entry->name);
  json_object_set_string_member (object, "description", entry->description ?: "");
  json_object_set_boolean_member (object, "interactive", (entry->flags & STW_SNAP_INTERACTIVE) != 0);
  json_object_set_object_member (object, "state", state_json (entry));
  json_object_set_object_member (object, "bbox", bbox_json (entry));
  json_object_set_string_member (object, "fingerprint", entry->fingerprint);
  json_object_set_boolean_member (object, "recently_changed", entry->recently_changed);
  set_nullable_string (object, "value", entry->value);
  set_nullable_string (object, "placeholder", entry->placeholder);
  json_object_set_string_member (object, "surface_id", entry->surface_id);
  if (entry->level > 0)
    json_object_set_int_member (object, "level", entry->level);
  if (entry->frame_surface_id != NULL)
    json_object_set_string_member (object, "frame_surface_id", entry->frame_surface_id);
  return object;
}

/* --- changes ---------------------------------------------------------------- */

/* Two entries are the same thing when they have the same ref, or (without
 * refs) are the same element. Entries are their own keys in an index: no
 * string to build per entry and look-up. */
static guint
identity_hash (gconstpointer data)
{
  const StwSnapEntry *entry = data;

  if (entry->ref != 0)
    return entry->ref;
  return _stw_element_identity_hash (entry->surface_id, entry->world_id, entry->key);
}

static gboolean
identity_equal (gconstpointer a,
                gconstpointer b)
{
  const StwSnapEntry *x = a, *y = b;

  if (x->ref != 0 || y->ref != 0)
    return x->ref == y->ref;
  return _stw_element_identity_equal (x->surface_id, x->world_id, x->key, y->surface_id, y->world_id, y->key);
}

/* The entries by identity (the last of equal ones wins). */
static GHashTable *
index_entries (GPtrArray *entries)
{
  GHashTable *index = g_hash_table_new (identity_hash, identity_equal);

  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);
      g_hash_table_replace (index, entry, entry);
    }
  return index;
}

typedef enum
{
  CHANGED_NAME  = 1 << 0,
  CHANGED_VALUE = 1 << 1,
  CHANGED_STATE = 1 << 2,
  CHANGED_BBOX  = 1 << 3,
} Changed;

/* Positions change with every scroll; only a new size counts. */
static guint
changes (const StwSnapEntry *a,
         const StwSnapEntry *b)
{
  guint changed = 0;

  if (g_strcmp0 (a->name, b->name) != 0)
    changed |= CHANGED_NAME;
  if (g_strcmp0 (a->value, b->value) != 0)
    changed |= CHANGED_VALUE;
  if ((a->flags & STW_SNAP_STATE_MASK) != (b->flags & STW_SNAP_STATE_MASK))
    changed |= CHANGED_STATE;
  if (a->w != b->w || a->h != b->h)
    changed |= CHANGED_BBOX;
  return changed;
}

void
_stw_snapshot_mark_changed (GPtrArray *prev,
                            GPtrArray *curr)
{
  g_autoptr(GHashTable) index = index_entries (prev);

  for (guint i = 0; i < curr->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (curr, i);
      StwSnapEntry *before = g_hash_table_lookup (index, entry);

      entry->recently_changed = before != NULL && (changes (before, entry) & ~CHANGED_BBOX) != 0;
    }
}

typedef struct
{
  int       kind;          /* 0 removed, 1 changed, 2 added: the order items go */
  gboolean  interactive;
  guint     position;
  gsize     size;
  JsonNode *node;          /* JSON form */
  char     *line;          /* text form */
  gboolean  dropped;
} DiffItem;

static void
diff_item_clear (DiffItem *item)
{
  g_clear_pointer (&item->node, json_node_unref);
  g_clear_pointer (&item->line, g_free);
}

static int
drop_order (gconstpointer a,
            gconstpointer b)
{
  const DiffItem *x = *(DiffItem * const *) a, *y = *(DiffItem * const *) b;

  if (x->interactive != y->interactive)
    return x->interactive ? 1 : -1;
  if (x->kind != y->kind)
    return x->kind - y->kind;
  return (int) y->position - (int) x->position;
}

static void
quoted_value (GString    *out,
              const char *value)
{
  if (value == NULL)
    g_string_append (out, "null");
  else
    append_quoted (out, value);
}

static char *
flags_words (guint flags)
{
  StwSnapEntry probe = { 0 };
  g_autofree char *line = NULL;
  const char *space;

  probe.flags = flags & ~STW_SNAP_FRAME;
  probe.role = (char *) "x";
  probe.name = (char *) "";
  line = _stw_snapshot_entry_line (&probe);
  /* "[-] x \"\"" then the flags. */
  space = line + strlen ("[-] x \"\"");
  return g_strdup (*space == ' ' ? space + 1 : "(none)");
}

static char *
changed_line (const StwSnapEntry *before,
              const StwSnapEntry *after,
              guint               changed)
{
  GString *out = g_string_new ("~ ");

  append_ref (out, after->ref);
  g_string_append (out, after->role);
  g_string_append_c (out, ' ');
  append_quoted (out, before->name);
  g_string_append (out, " —");
  if (changed & CHANGED_NAME)
    {
      g_string_append (out, " name: ");
      append_quoted (out, before->name);
      g_string_append (out, " -> ");
      append_quoted (out, after->name);
      g_string_append_c (out, ',');
    }
  if (changed & CHANGED_VALUE)
    {
      g_string_append (out, " value: ");
      quoted_value (out, before->value);
      g_string_append (out, " -> ");
      quoted_value (out, after->value);
      g_string_append_c (out, ',');
    }
  if (changed & CHANGED_STATE)
    {
      g_autofree char *a = flags_words (before->flags);
      g_autofree char *b = flags_words (after->flags);

      g_string_append_printf (out, " state: %s -> %s,", a, b);
    }
  if (changed & CHANGED_BBOX)
    g_string_append (out, " resized,");
  g_string_truncate (out, out->len - 1);
  strip_line_separators (out);
  return g_string_free (out, FALSE);
}

static JsonObject *
changed_json (const StwSnapEntry *before,
              const StwSnapEntry *after,
              guint               changed,
              StwDiffFormat       format)
{
  JsonObject *item = json_object_new ();
  JsonArray *fields = json_array_new ();
  JsonObject *prev, *curr;

  if (after->ref != 0)
    json_object_set_int_member (item, "ref", after->ref);
  else
    json_object_set_null_member (item, "ref");
  json_object_set_string_member (item, "role", after->role);
  json_object_set_string_member (item, "name", after->name);
  json_object_set_string_member (item, "fingerprint", after->fingerprint);
  if (changed & CHANGED_NAME)
    json_array_add_string_element (fields, "name");
  if (changed & CHANGED_VALUE)
    json_array_add_string_element (fields, "value");
  if (changed & CHANGED_STATE)
    json_array_add_string_element (fields, "state");
  if (changed & CHANGED_BBOX)
    json_array_add_string_element (fields, "bbox");
  json_object_set_array_member (item, "changed_fields", fields);

  if (format == STW_DIFF_FORMAT_FULL)
    {
      json_object_set_object_member (item, "prev", _stw_snapshot_entry_json (before));
      json_object_set_object_member (item, "curr", _stw_snapshot_entry_json (after));
      return item;
    }
  prev = json_object_new ();
  curr = json_object_new ();
  if (changed & CHANGED_NAME)
    {
      json_object_set_string_member (prev, "name", before->name);
      json_object_set_string_member (curr, "name", after->name);
    }
  if (changed & CHANGED_VALUE)
    {
      set_nullable_string (prev, "value", before->value);
      set_nullable_string (curr, "value", after->value);
    }
  if (changed & CHANGED_STATE)
    {
      json_object_set_object_member (prev, "state", state_json (before));
      json_object_set_object_member (curr, "state", state_json (after));
    }
  if (changed & CHANGED_BBOX)
    {
      json_object_set_object_member (prev, "bbox", bbox_json (before));
      json_object_set_object_member (curr, "bbox", bbox_json (after));
    }
  json_object_set_object_member (item, "prev", prev);
  json_object_set_object_member (item, "curr", curr);
  return item;
}

static gsize
node_size (JsonNode *node)
{
  g_autofree char *text = json_to_string (node, FALSE);
  return strlen (text) + 1;
}

JsonObject *
_stw_snapshot_diff (GPtrArray     *prev,
                    GPtrArray     *curr,
                    StwDiffFormat  format,
                    guint          budget_tokens,
                    char         **text,
                    gboolean      *truncated)
{
  g_autoptr(GHashTable) before_index = index_entries (prev);
  g_autoptr(GHashTable) after_index = index_entries (curr);
  g_autoptr(GArray) items = g_array_new (FALSE, TRUE, sizeof (DiffItem));
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  JsonObject *diff = json_object_new ();
  JsonArray *added = json_array_new (), *removed = json_array_new (), *changed_array = json_array_new ();
  JsonObject *meta = json_object_new ();
  guint n_added = 0, n_removed = 0, n_changed = 0, n_dropped = 0;
  gsize total = 160;

  g_array_set_clear_func (items, (GDestroyNotify) diff_item_clear);

  for (guint i = 0; prev != NULL && i < prev->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (prev, i);
      DiffItem item = { 0 };
      JsonObject *object;
      GString *line;

      if (g_hash_table_contains (after_index, entry))
        continue;
      n_removed++;
      object = json_object_new ();
      json_object_set_string_member (object, "fingerprint", entry->fingerprint);
      if (entry->ref != 0)
        json_object_set_int_member (object, "ref", entry->ref);
      else
        json_object_set_null_member (object, "ref");
      json_object_set_string_member (object, "role", entry->role);
      json_object_set_string_member (object, "name", entry->name);
      line = g_string_new ("- ");
      append_ref (line, entry->ref);
      g_string_append (line, entry->role);
      g_string_append_c (line, ' ');
      append_quoted (line, entry->name);
      strip_line_separators (line);
      item.kind = 0;
      item.interactive = (entry->flags & STW_SNAP_INTERACTIVE) != 0;
      item.position = i;
      item.node = json_node_init_object (json_node_alloc (), object);
      json_object_unref (object);
      item.line = g_string_free (line, FALSE);
      g_array_append_val (items, item);
    }

  for (guint i = 0; i < curr->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (curr, i);
      StwSnapEntry *before = g_hash_table_lookup (before_index, entry);
      DiffItem item = { 0 };
      JsonObject *object;

      item.interactive = (entry->flags & STW_SNAP_INTERACTIVE) != 0;
      item.position = i;
      if (before == NULL)
        {
          g_autofree char *line = _stw_snapshot_entry_line (entry);

          n_added++;
          item.kind = 2;
          object = _stw_snapshot_entry_json (entry);
          item.line = g_strconcat ("+ ", line + strspn (line, " "), NULL);
        }
      else
        {
          guint changed = changes (before, entry);

          if (changed == 0)
            continue;
          n_changed++;
          item.kind = 1;
          object = changed_json (before, entry, changed, format);
          item.line = changed_line (before, entry, changed);
        }
      item.node = json_node_init_object (json_node_alloc (), object);
      json_object_unref (object);
      g_array_append_val (items, item);
    }

  for (guint i = 0; i < items->len; i++)
    {
      DiffItem *item = &g_array_index (items, DiffItem, i);

      item->size = text != NULL ? strlen (item->line) + 1 : node_size (item->node);
      total += item->size;
      g_ptr_array_add (order, item);
    }
  if (budget_tokens > 0 && total / 4 > budget_tokens)
    {
      g_ptr_array_sort (order, drop_order);
      for (guint i = 0; i < order->len && total / 4 > budget_tokens; i++)
        {
          DiffItem *item = g_ptr_array_index (order, i);

          item->dropped = TRUE;
          total -= item->size;
          n_dropped++;
        }
    }

  if (text != NULL)
    {
      GString *out = g_string_new (NULL);

      g_string_append_printf (out, "diff +%u -%u ~%u", n_added, n_removed, n_changed);
      if (n_dropped > 0)
        g_string_append_printf (out, " (truncated %u)", n_dropped);
      for (int kind = 0; kind < 3; kind++)
        for (guint i = 0; i < items->len; i++)
          {
            DiffItem *item = &g_array_index (items, DiffItem, i);

            if (item->kind != kind || item->dropped)
              continue;
            g_string_append_c (out, '\n');
            g_string_append (out, item->line);
          }
      *text = g_string_free (out, FALSE);
    }

  for (guint i = 0; i < items->len; i++)
    {
      DiffItem *item = &g_array_index (items, DiffItem, i);
      JsonArray *into = item->kind == 0 ? removed : item->kind == 1 ? changed_array : added;

      if (!item->dropped)
        json_array_add_element (into, json_node_ref (item->node));
    }

  json_object_set_array_member (diff, "added", added);
  json_object_set_array_member (diff, "removed", removed);
  json_object_set_array_member (diff, "changed", changed_array);
  /* Refs follow elements, so a ref means the same thing before and after:
   * the map of the reference is empty by construction. */
  json_object_set_object_member (diff, "ref_map", json_object_new ());
  json_object_set_int_member (meta, "entries_added", n_added);
  json_object_set_int_member (meta, "entries_removed", n_removed);
  json_object_set_int_member (meta, "entries_changed", n_changed);
  json_object_set_int_member (meta, "truncated_entries", n_dropped);
  json_object_set_int_member (meta, "estimated_tokens", (gint64) ((total + 3) / 4));
  json_object_set_object_member (diff, "_meta", meta);
  if (truncated != NULL)
    *truncated = n_dropped > 0;
  return diff;
}
