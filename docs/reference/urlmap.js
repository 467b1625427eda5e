// Where gi-docgen links the dependencies' symbols.
baseURLs = [
  [ 'GLib', 'https://docs.gtk.org/glib/' ],
  [ 'GObject', 'https://docs.gtk.org/gobject/' ],
  [ 'Gio', 'https://docs.gtk.org/gio/' ],
  [ 'Json', 'https://gnome.pages.gitlab.gnome.org/json-glib/' ],
]
