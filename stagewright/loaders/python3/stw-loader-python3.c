/* stw-loader-python3.c: the loader of Python plugins (libpython3loader.so)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Embeds CPython (libpeas's recipe): in a Python host the running
 * interpreter is shared (Py_IsInitialized, the GIL); otherwise one is
 * started once, without signal handlers, and never finalized (its objects
 * live as long as the plugins do). A small bootstrap (bootstrap.py, built
 * into this module) imports NAME.py or the package NAME/ beside the
 * .plugin file and makes the module's one Stagewright.Plugin subclass.
 */
#define PY_SSIZE_T_CLEAN
/* Python's headers redeclare what PY_SSIZE_T_CLEAN renames. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wredundant-decls"
#include <Python.h>
#pragma GCC diagnostic pop

#include "config.h"

#include <glib/gi18n-lib.h>

#include "stagewright.h"
#include "stw-plugin-loader-private.h"

#include "stw-loader-python3-bootstrap.h"

StwPlugin *stw_loader_module_load (const char    *module,
                                   const char    *dir,
                                   GMainContext  *context,
                                   GError       **error);

static PyObject *bootstrap_load;   /* bootstrap.py's load(), once imported */

/* The interpreter this process started: its own, so the server's rules
 * apply. print() writes to stderr (fd 1 is the protocol's, and stdio
 * points it at stderr anyway, but sys.stdout would buffer), and
 * SystemExit, which PyErr_Print() — PyGObject's report of an exception in
 * a callback — would turn into exit(), is printed like any exception
 * (`inspect`, as `python3 -i` does). */
static gboolean
start_python (GError **error)
{
  PyConfig config;
  PyStatus status;

  PyConfig_InitPythonConfig (&config);
  config.install_signal_handlers = 0;  /* the server's own handlers stay */
  config.parse_argv = 0;
  config.inspect = 1;
  /* Found from this path: the libpython this module links, not the first
   * python3 on PATH (a pyenv one has no PyGObject). */
  status = PyConfig_SetBytesString (&config, &config.program_name, STW_PYTHON3_PROGRAM);
  if (!PyStatus_Exception (status))
    status = Py_InitializeFromConfig (&config);
  PyConfig_Clear (&config);
  if (PyStatus_Exception (status))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot start Python: %s"),
                   status.err_msg ? status.err_msg : "?");
      return FALSE;
    }
  if (PySys_SetObject ("stdout", PySys_GetObject ("stderr")) != 0)
    PyErr_Clear ();
  /* The GIL is taken around each call from here on (PyGILState), and by
   * PyGObject around each call into a plugin. */
  PyEval_SaveThread ();
  return TRUE;
}

/* Imports the bootstrap, under the GIL. */
static gboolean
import_bootstrap (GError **error)
{
  PyObject *code;
  PyObject *module;

  code = Py_CompileString (stw_loader_python3_bootstrap, "<stagewright-plugin-bootstrap>", Py_file_input);
  module = code != NULL ? PyImport_ExecCodeModule ("_stagewright_plugin_bootstrap", code) : NULL;
  Py_XDECREF (code);
  bootstrap_load = module != NULL ? PyObject_GetAttrString (module, "load") : NULL;
  Py_XDECREF (module);
  if (bootstrap_load == NULL)
    {
      PyErr_Print ();
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           _("the Python plugin bootstrap failed (see stderr)"));
      return FALSE;
    }
  return TRUE;
}

/* Returns a new reference to the plugin the bootstrap made, or sets
 * @error from the message it returned. Under the GIL. */
static StwPlugin *
call_bootstrap (const char  *module,
                const char  *dir,
                GError     **error)
{
  PyObject *result = PyObject_CallFunction (bootstrap_load, "ss", module, dir);
  PyObject *capsule;
  PyObject *message;
  StwPlugin *plugin = NULL;

  if (result == NULL || !PyTuple_Check (result) || PyTuple_GET_SIZE (result) != 2)
    {
      /* load() catches everything: this is the loader's own fault. */
      if (PyErr_Occurred ())
        PyErr_Print ();
      Py_XDECREF (result);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           _("the Python plugin bootstrap failed (see stderr)"));
      return NULL;
    }

  message = PyTuple_GET_ITEM (result, 1);
  capsule = PyTuple_GET_ITEM (result, 0) != Py_None
            ? PyObject_GetAttrString (PyTuple_GET_ITEM (result, 0), "__gpointer__") : NULL;
  if (capsule == NULL)
    PyErr_Clear ();
  else if (PyCapsule_CheckExact (capsule))
    {
      gpointer object = PyCapsule_GetPointer (capsule, PyCapsule_GetName (capsule));

      if (G_IS_OBJECT (object))
        plugin = g_object_ref (object);
    }
  Py_XDECREF (capsule);
  if (plugin == NULL)
    {
      const char *text = PyUnicode_Check (message) ? PyUnicode_AsUTF8 (message) : NULL;

      if (text == NULL)
        PyErr_Clear ();
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           text != NULL ? text : _("its module made no plugin"));
    }
  Py_DECREF (result);
  return plugin;
}

/**
 * stw_loader_module_load: (skip)
 *
 * The loader's entry point (%STW_LOADER_MODULE_ENTRY).
 */
StwPlugin *
stw_loader_module_load (const char    *module,
                        const char    *dir,
                        GMainContext  *context,
                        GError       **error)
{
  PyGILState_STATE gil;
  StwPlugin *plugin = NULL;

  /* Python code runs on the thread that loads it; the dispatcher's
   * context is that thread's in the server and in the hosts. */
  (void) context;

  if (!Py_IsInitialized () && !start_python (error))
    return NULL;

  gil = PyGILState_Ensure ();
  if (bootstrap_load != NULL || import_bootstrap (error))
    plugin = call_bootstrap (module, dir, error);
  PyGILState_Release (gil);
  return plugin;
}
