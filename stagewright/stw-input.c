/* stw-input.c: real input — keys, chords, the mouse, sent on a connection
 *
 * Keys follow a US keyboard the way Playwright's layout does: a chord's
 * modifiers go down first, each with its own keydown; a printable key
 * carries its text unless Control, Alt or Meta is held (then it is a
 * shortcut, a rawKeyDown). Input goes to the page session of the window
 * (docs/page-ops.md, "Coordinates and input").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-error-registry.h"
#include "stw-input-private.h"
#include "stw-json-private.h"

/* --- the keyboard --------------------------------------------------------- */

typedef struct
{
  const char *key;        /* KeyboardEvent.key */
  const char *code;       /* KeyboardEvent.code */
  int         key_code;   /* windowsVirtualKeyCode */
  const char *text;       /* what it types, or NULL */
  int         location;
} KeyDef;

static const KeyDef NAMED_KEYS[] = {
  { "Enter", "Enter", 13, "\r", 0 },
  { "Tab", "Tab", 9, NULL, 0 },
  { "Escape", "Escape", 27, NULL, 0 },
  { "Backspace", "Backspace", 8, NULL, 0 },
  { "Delete", "Delete", 46, NULL, 0 },
  { "Insert", "Insert", 45, NULL, 0 },
  { "ArrowLeft", "ArrowLeft", 37, NULL, 0 },
  { "ArrowUp", "ArrowUp", 38, NULL, 0 },
  { "ArrowRight", "ArrowRight", 39, NULL, 0 },
  { "ArrowDown", "ArrowDown", 40, NULL, 0 },
  { "Home", "Home", 36, NULL, 0 },
  { "End", "End", 35, NULL, 0 },
  { "PageUp", "PageUp", 33, NULL, 0 },
  { "PageDown", "PageDown", 34, NULL, 0 },
  { " ", "Space", 32, " ", 0 },
  { "CapsLock", "CapsLock", 20, NULL, 0 },
  { "ContextMenu", "ContextMenu", 93, NULL, 0 },
  { "Shift", "ShiftLeft", 16, NULL, 1 },
  { "Control", "ControlLeft", 17, NULL, 1 },
  { "Alt", "AltLeft", 18, NULL, 1 },
  { "Meta", "MetaLeft", 91, NULL, 1 },
};

static const struct
{
  const char *alias;
  const char *key;
} KEY_ALIASES[] = {
  { "Space", " " }, { "Esc", "Escape" }, { "Return", "Enter" }, { "Del", "Delete" },
  { "Ctrl", "Control" }, { "Control", "Control" },
#ifdef __APPLE__
  /* The platform's shortcut modifier: Command on macOS. */
  { "ControlOrMeta", "Meta" },
#else
  { "ControlOrMeta", "Control" },
#endif
  { "Cmd", "Meta" }, { "Command", "Meta" }, { "Super", "Meta" }, { "Option", "Alt" },
  { "Up", "ArrowUp" }, { "Down", "ArrowDown" }, { "Left", "ArrowLeft" }, { "Right", "ArrowRight" },
};

/* US punctuation: unshifted, shifted, code, key code. */
static const struct
{
  char        plain;
  char        shifted;
  const char *code;
  int         key_code;
} PUNCTUATION[] = {
  { '`', '~', "Backquote", 192 }, { '-', '_', "Minus", 189 }, { '=', '+', "Equal", 187 },
  { '[', '{', "BracketLeft", 219 }, { ']', '}', "BracketRight", 221 }, { '\\', '|', "Backslash", 220 },
  { ';', ':', "Semicolon", 186 }, { '\'', '"', "Quote", 222 }, { ',', '<', "Comma", 188 },
  { '.', '>', "Period", 190 }, { '/', '?', "Slash", 191 },
};

static const char DIGIT_SHIFTED[] = ")!@#$%^&*(";

/* The key that types @c on a US keyboard; FALSE when none does. @key and
 * @text point into @buffer. @shifted says whether Shift makes it. */
static gboolean
key_for_char (gunichar  c,
              KeyDef   *def,
              char      buffer[8],
              char      code[16],
              gboolean *shifted)
{
  *shifted = FALSE;
  memset (def, 0, sizeof *def);
  if (c == '\n' || c == '\r')
    {
      *def = NAMED_KEYS[0];
      return TRUE;
    }
  if (c == '\t')
    {
      *def = NAMED_KEYS[1];
      return TRUE;
    }
  if (c == ' ')
    {
      def->key = def->text = " ";
      def->code = "Space";
      def->key_code = 32;
      return TRUE;
    }
  if (c >= 0x80 || !g_ascii_isgraph ((char) c))
    return FALSE;

  buffer[0] = (char) c;
  buffer[1] = '\0';
  def->key = def->text = buffer;
  def->code = code;
  if (g_ascii_isalpha ((char) c))
    {
      g_snprintf (code, 16, "Key%c", g_ascii_toupper ((char) c));
      def->key_code = g_ascii_toupper ((char) c);
      *shifted = g_ascii_isupper ((char) c);
      return TRUE;
    }
  if (g_ascii_isdigit ((char) c))
    {
      g_snprintf (code, 16, "Digit%c", (char) c);
      def->key_code = (int) c;
      return TRUE;
    }
  for (guint i = 0; i < 10; i++)
    if (DIGIT_SHIFTED[i] == (char) c)
      {
        g_snprintf (code, 16, "Digit%u", i);
        def->key_code = '0' + (int) i;
        *shifted = TRUE;
        return TRUE;
      }
  for (guint i = 0; i < G_N_ELEMENTS (PUNCTUATION); i++)
    if (PUNCTUATION[i].plain == (char) c || PUNCTUATION[i].shifted == (char) c)
      {
        g_strlcpy (code, PUNCTUATION[i].code, 16);
        def->key_code = PUNCTUATION[i].key_code;
        *shifted = PUNCTUATION[i].shifted == (char) c;
        return TRUE;
      }
  return FALSE;
}

/* A named key (after aliases), or a function key F1…F12. */
static gboolean
named_key (const char *name,
           KeyDef     *def,
           char        buffer[8])
{
  for (guint i = 0; i < G_N_ELEMENTS (KEY_ALIASES); i++)
    if (g_ascii_strcasecmp (name, KEY_ALIASES[i].alias) == 0)
      {
        name = KEY_ALIASES[i].key;
        break;
      }
  for (guint i = 0; i < G_N_ELEMENTS (NAMED_KEYS); i++)
    if (g_ascii_strcasecmp (name, NAMED_KEYS[i].key) == 0 && strlen (name) > 1)
      {
        *def = NAMED_KEYS[i];
        return TRUE;
      }
  if ((name[0] == 'F' || name[0] == 'f') && g_ascii_isdigit (name[1]))
    {
      guint64 n = 0;

      if (g_ascii_string_to_unsigned (name + 1, 10, 1, 12, &n, NULL))
        {
          g_snprintf (buffer, 8, "F%u", (guint) n);
          memset (def, 0, sizeof *def);
          def->key = def->code = buffer;
          def->key_code = 111 + (int) n;
          return TRUE;
        }
    }
  return FALSE;
}

static int
modifier_bit (const KeyDef *def)
{
  switch (def->key_code)
    {
    case 16: return STW_INPUT_SHIFT;
    case 17: return STW_INPUT_CONTROL;
    case 18: return STW_INPUT_ALT;
    case 91: return STW_INPUT_META;
    default: return 0;
    }
}

static void
add_event (GPtrArray  *events,
           const char *method,
           JsonObject *params)
{
  StwInputEvent *event = g_new0 (StwInputEvent, 1);

  event->method = method;
  event->params = params;
  g_ptr_array_add (events, event);
}

static void
input_event_free (StwInputEvent *event)
{
  json_object_unref (event->params);
  g_free (event);
}

GPtrArray *
_stw_input_events_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) input_event_free);
}

void
_stw_input_add_call (GPtrArray  *events,
                     const char *method,
                     JsonObject *params)
{
  add_event (events, method, params ? params : json_object_new ());
}

static void
add_key (GPtrArray    *events,
         gboolean      down,
         const KeyDef *def,
         const char   *key,
         int           modifiers,
         gboolean      with_text)
{
  JsonObject *params = json_object_new ();
  const char *text = with_text ? def->text : NULL;

  json_object_set_string_member (params, "type", !down ? "keyUp" : text ? "keyDown" : "rawKeyDown");
  json_object_set_int_member (params, "modifiers", modifiers);
  json_object_set_string_member (params, "key", key ? key : def->key);
  json_object_set_string_member (params, "code", def->code);
  json_object_set_int_member (params, "windowsVirtualKeyCode", def->key_code);
  json_object_set_int_member (params, "nativeVirtualKeyCode", def->key_code);
  if (def->location != 0)
    json_object_set_int_member (params, "location", def->location);
  if (down && text != NULL)
    {
      json_object_set_string_member (params, "text", text);
      json_object_set_string_member (params, "unmodifiedText", text);
    }
  add_event (events, "Input.dispatchKeyEvent", params);
}

/* Parses @chord into its modifier keys (in order) and its main key. */
static gboolean
parse_chord (const char  *chord,
             KeyDef       modifiers[4],
             guint       *n_modifiers,
             KeyDef      *main_key,
             char         buffer[8],
             char         code[16],
             GError     **error)
{
  g_auto(GStrv) parts = NULL;
  guint n;

  if (chord == NULL || *chord == '\0')
    goto bad;
  /* "+" alone, or ending a chord ("Shift++"), is the plus key. */
  if (g_str_equal (chord, "+"))
    {
      parts = g_new0 (char *, 2);
      parts[0] = g_strdup ("+");
    }
  else if (g_str_has_suffix (chord, "++"))
    {
      g_autofree char *head = g_strndup (chord, strlen (chord) - 2);
      g_auto(GStrv) split = g_strsplit (head, "+", -1);
      guint len = g_strv_length (split);

      parts = g_new0 (char *, len + 2);
      for (guint i = 0; i < len; i++)
        parts[i] = g_strdup (split[i]);
      parts[len] = g_strdup ("+");
    }
  else
    parts = g_strsplit (chord, "+", -1);

  n = g_strv_length (parts);
  *n_modifiers = 0;
  for (guint i = 0; i < n; i++)
    {
      const char *part = parts[i];
      KeyDef def;
      gboolean shifted;
      gunichar c;

      if (*part == '\0')
        goto bad;
      c = g_utf8_get_char_validated (part, -1);
      if (g_utf8_strlen (part, -1) == 1 && c != (gunichar) -1 && c != (gunichar) -2)
        {
          if (!key_for_char (c, &def, buffer, code, &shifted))
            goto bad;
        }
      else if (!named_key (part, &def, buffer))
        goto bad;

      if (i + 1 < n)
        {
          if (modifier_bit (&def) == 0 || *n_modifiers >= 4)
            goto bad;
          modifiers[(*n_modifiers)++] = def;
        }
      else
        *main_key = def;
    }
  return TRUE;

bad:
  {
    GError *bad = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Not a key or chord: \"%s\" (e.g. Enter, a, Control+A, Shift+ArrowLeft)"),
                                      chord ? chord : "");
    g_autoptr(JsonObject) details = json_object_new ();

    json_object_set_string_member (details, "field", "key");
    stw_error_set_details (bad, details);
    g_propagate_error (error, bad);
    return FALSE;
  }
}

gboolean
_stw_input_chord_is_valid (const char  *chord,
                           GError     **error)
{
  KeyDef modifiers[4], main_key;
  char buffer[8], code[16];
  guint n;

  return parse_chord (chord, modifiers, &n, &main_key, buffer, code, error);
}

gboolean
_stw_input_add_chord (GPtrArray   *events,
                      const char  *chord,
                      GError     **error)
{
  KeyDef modifiers[4], main_key;
  char buffer[8], code[16];
  char upper[8];
  const char *key;
  guint n = 0;
  int held = 0;

  if (!parse_chord (chord, modifiers, &n, &main_key, buffer, code, error))
    return FALSE;

  for (guint i = 0; i < n; i++)
    {
      held |= modifier_bit (&modifiers[i]);
      add_key (events, TRUE, &modifiers[i], NULL, held, FALSE);
    }

  /* A letter types as written ("X" is a capital, as typing it is); Shift
   * makes it upper case. Control, Alt or Meta make a shortcut, which types
   * nothing and names the key as a keyboard does: lower case unless Shift
   * is held. */
  key = main_key.key;
  if (main_key.text != NULL && strlen (main_key.text) == 1 && g_ascii_isalpha (main_key.text[0]))
    {
      gboolean shortcut = (held & ~STW_INPUT_SHIFT) != 0;

      if (held & STW_INPUT_SHIFT)
        upper[0] = g_ascii_toupper (main_key.text[0]);
      else if (shortcut)
        upper[0] = g_ascii_tolower (main_key.text[0]);
      else
        upper[0] = main_key.text[0];
      upper[1] = '\0';
      key = upper;
      main_key.text = upper;
      /* A capital typed alone carries Shift, as typing it does. */
      if (g_ascii_isupper (upper[0]))
        held |= STW_INPUT_SHIFT;
    }
  held |= modifier_bit (&main_key);
  add_key (events, TRUE, &main_key, key, held, (held & ~STW_INPUT_SHIFT) == 0);
  add_key (events, FALSE, &main_key, key, held, FALSE);

  for (guint i = n; i > 0; i--)
    {
      held &= ~modifier_bit (&modifiers[i - 1]);
      add_key (events, FALSE, &modifiers[i - 1], NULL, held, FALSE);
    }
  return TRUE;
}

void
_stw_input_add_text (GPtrArray  *events,
                     const char *text)
{
  g_autoptr(GString) pending = g_string_new (NULL);

  for (const char *p = text; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      char buffer[8], code[16];
      gboolean shifted;
      KeyDef def;

      if (!key_for_char (c, &def, buffer, code, &shifted))
        {
          /* No key makes it: a run of such characters is inserted at once. */
          g_string_append_unichar (pending, c);
          continue;
        }
      if (pending->len > 0)
        {
          JsonObject *params = json_object_new ();

          json_object_set_string_member (params, "text", pending->str);
          add_event (events, "Input.insertText", params);
          g_string_truncate (pending, 0);
        }
      add_key (events, TRUE, &def, NULL, shifted ? STW_INPUT_SHIFT : 0, TRUE);
      add_key (events, FALSE, &def, NULL, shifted ? STW_INPUT_SHIFT : 0, FALSE);
    }
  if (pending->len > 0)
    {
      JsonObject *params = json_object_new ();

      json_object_set_string_member (params, "text", pending->str);
      add_event (events, "Input.insertText", params);
    }
}

/* --- the mouse ------------------------------------------------------------ */

static int
button_bit (const char *button)
{
  return g_strcmp0 (button, "right") == 0 ? 2 : g_strcmp0 (button, "middle") == 0 ? 4 : 1;
}

void
_stw_input_add_mouse (GPtrArray  *events,
                      const char *type,
                      double      x,
                      double      y,
                      const char *button,
                      int         click_count)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "type", type);
  json_object_set_double_member (params, "x", x);
  json_object_set_double_member (params, "y", y);
  json_object_set_string_member (params, "button", button ? button : "none");
  /* Buttons held after the event: pressed holds it, released lets go. */
  json_object_set_int_member (params, "buttons", g_str_equal (type, "mousePressed") ? button_bit (button) : 0);
  if (click_count > 0)
    json_object_set_int_member (params, "clickCount", click_count);
  add_event (events, "Input.dispatchMouseEvent", params);
}

void
_stw_input_add_wheel (GPtrArray *events,
                      double     x,
                      double     y,
                      double     dx,
                      double     dy)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "type", "mouseWheel");
  json_object_set_double_member (params, "x", x);
  json_object_set_double_member (params, "y", y);
  json_object_set_double_member (params, "deltaX", dx);
  json_object_set_double_member (params, "deltaY", dy);
  add_event (events, "Input.dispatchMouseEvent", params);
}

/* --- where the mouse is ----------------------------------------------------- */

/* Where the mouse of one window is, as far as we know: shared by the
 * window that holds it and the sends that move it. */
struct _StwInputPointer
{
  gboolean known;
  double   x, y;
};

StwInputPointer *
_stw_input_pointer_new (void)
{
  return g_atomic_rc_box_new0 (StwInputPointer);
}

StwInputPointer *
_stw_input_pointer_ref (StwInputPointer *pointer)
{
  return g_atomic_rc_box_acquire (pointer);
}

void
_stw_input_pointer_unref (StwInputPointer *pointer)
{
  g_atomic_rc_box_release (pointer);
}

gboolean
_stw_input_pointer_is_at (StwInputPointer *pointer,
                          double           x,
                          double           y)
{
  return pointer->known && pointer->x == x && pointer->y == y;
}

/* Remembers where @events leave the mouse (or forgets it, when they might
 * not all have been delivered). */
static void
track_pointer (StwInputPointer *pointer,
               GPtrArray       *events,
               gboolean         delivered)
{
  gboolean moved = FALSE;

  for (guint i = events->len; delivered && !moved && i > 0; i--)
    {
      StwInputEvent *event = g_ptr_array_index (events, i - 1);

      if (g_str_equal (event->method, "Input.dispatchMouseEvent"))
        {
          pointer->x = json_object_get_double_member (event->params, "x");
          pointer->y = json_object_get_double_member (event->params, "y");
          moved = TRUE;
        }
    }
  if (moved || !delivered)
    pointer->known = moved;
}

/* --- sending --------------------------------------------------------------- */

/* At most this many input events are in flight: a long text is typed in a
 * stream, and each event's reply timeout starts when it is sent, not when
 * the whole text was queued. */
#define SEND_WINDOW 32

typedef struct
{
  StwTransport    *transport;
  char            *window_session;
  char            *frame_session;
  StwInputPointer *pointer;
  gulong           dialog_handler;
  GPtrArray       *events;
  guint            next;        /* the next event to send */
  guint            pending;     /* sent, not acknowledged */
  gboolean         done;
  char            *dialog_session;  /* where a dialog opened, if one did */
  JsonObject      *dialog_event;    /* and its Page.javascriptDialogOpening */
} Send;

static void
send_free (Send *send)
{
  if (send->dialog_handler != 0)
    g_signal_handler_disconnect (send->transport, send->dialog_handler);
  g_clear_object (&send->transport);
  g_clear_pointer (&send->events, g_ptr_array_unref);
  g_free (send->window_session);
  g_free (send->frame_session);
  g_clear_pointer (&send->pointer, _stw_input_pointer_unref);
  g_free (send->dialog_session);
  g_clear_pointer (&send->dialog_event, json_object_unref);
  g_free (send);
}

static void
send_complete (GTask  *task,
               GError *error)
{
  Send *send = g_task_get_task_data (task);

  if (send->done)
    {
      g_clear_error (&error);
      return;
    }
  send->done = TRUE;
  track_pointer (send->pointer, send->events, error == NULL);
  if (send->dialog_handler != 0)
    {
      g_signal_handler_disconnect (send->transport, send->dialog_handler);
      send->dialog_handler = 0;
    }
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
on_dialog_settled (gpointer user_data)
{
  send_complete (user_data, NULL);
  return G_SOURCE_REMOVE;
}

/* A dialog holds the acknowledgement of the input that opened it until it
 * closes (cdp-field-notes 27): the input has landed, so it is done. What
 * the dialog was answered is not this unit's to know: the caller asks the
 * dialogs unit (_stw_dialogs_take_opened()). It answers once this event
 * has reached every handler, so it does not matter which was connected
 * first. */
static void
on_dialog_opening (StwTransport *transport,
                   const char   *method,
                   JsonObject   *params,
                   const char   *session_id,
                   GTask        *task)
{
  Send *send = g_task_get_task_data (task);
  g_autoptr(GSource) idle = NULL;

  if (send->done || send->dialog_session != NULL ||
      (g_strcmp0 (session_id, send->window_session) != 0 && g_strcmp0 (session_id, send->frame_session) != 0))
    return;
  send->dialog_session = g_strdup (session_id);
  send->dialog_event = json_object_ref (params);
  g_signal_handler_disconnect (send->transport, send->dialog_handler);
  send->dialog_handler = 0;
  idle = g_idle_source_new ();
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, on_dialog_settled, g_object_ref (task), g_object_unref);
  g_source_attach (idle, g_task_get_context (task));
}

static void on_input_acked (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data);

/* Fills the window of events in flight; one connection keeps them in
 * order, and the renderer handles each before the next. */
static void
send_more (GTask *task)
{
  Send *send = g_task_get_task_data (task);

  while (!send->done && send->dialog_session == NULL && send->next < send->events->len &&
         send->pending < SEND_WINDOW)
    {
      StwInputEvent *event = g_ptr_array_index (send->events, send->next++);

      send->pending++;
      stw_transport_call_async (send->transport, event->method, event->params, send->window_session, 0,
                                g_task_get_cancellable (task), on_input_acked, g_object_ref (task));
    }
}

static void
on_input_acked (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Send *send = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  send->pending--;
  if (send->dialog_session != NULL)
    g_clear_error (&error);   /* a dialog ended it: the idle answers */
  else if (reply == NULL)
    send_complete (task, error);
  else if (send->pending == 0 && send->next == send->events->len)
    send_complete (task, NULL);
  else
    send_more (task);
}

void
_stw_input_send_async (StwTransport        *transport,
                       const char          *window_session,
                       const char          *frame_session,
                       StwInputPointer     *pointer,
                       GPtrArray           *events,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Send *send;

  g_task_set_source_tag (task, _stw_input_send_async);
  if (transport == NULL || stw_transport_is_closed (transport))
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      return;
    }
  if (events->len == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  send = g_new0 (Send, 1);
  send->transport = g_object_ref (transport);
  send->window_session = g_strdup (window_session);
  send->frame_session = g_strdup (frame_session);
  send->pointer = _stw_input_pointer_ref (pointer);
  g_task_set_task_data (task, send, (GDestroyNotify) send_free);
  send->dialog_handler = g_signal_connect (transport, "event::Page.javascriptDialogOpening",
                                           G_CALLBACK (on_dialog_opening), task);

  send->events = g_ptr_array_ref (events);
  send_more (task);
}

gboolean
_stw_input_send_finish (GAsyncResult  *result,
                        char         **dialog_session,
                        JsonObject   **dialog_event,
                        GError       **error)
{
  Send *send;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_input_send_async, FALSE);

  send = g_task_get_task_data (G_TASK (result));
  if (dialog_session != NULL)
    *dialog_session = send ? g_strdup (send->dialog_session) : NULL;
  if (dialog_event != NULL)
    *dialog_event = send && send->dialog_event ? json_object_ref (send->dialog_event) : NULL;
  return g_task_propagate_boolean (G_TASK (result), error);
}
