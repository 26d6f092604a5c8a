"""A GTK 3 window with one focused text field whose caret blinks fast, for retrace's readiness
test (crates/drive/tests/x11_desktop/caret.rs).

The caret blinks every 200 ms (on 133 ms, off 67 ms: GTK's two thirds on, one third off) and
keeps blinking (no blink timeout), so two captures of the window 100 ms apart seldom show the
same picture.
"""

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

settings = Gtk.Settings.get_default()
settings.set_property("gtk-cursor-blink", True)
settings.set_property("gtk-cursor-blink-time", 200)
settings.set_property("gtk-cursor-blink-timeout", 2147483647)

window = Gtk.Window(title="Caret")
window.set_default_size(300, 80)
window.move(50, 50)
entry = Gtk.Entry()
entry.set_text("a focused field")
window.add(entry)
window.connect("destroy", Gtk.main_quit)
window.show_all()
# Focused without selecting its text: a selection hides the caret.
entry.grab_focus_without_selecting()
entry.set_position(-1)
Gtk.main()
