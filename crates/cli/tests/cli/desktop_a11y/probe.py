"""A small GTK 3 window for retrace's accessibility tests (crates/cli/tests/cli/desktop_a11y).

A check box, a button, a status line and a text field, at a fixed place. Arguments:
  --label TEXT   the button's label (default "Save");
  --stuck        the check box ignores clicks;
  --max N        the text field holds at most N characters;
  --out FILE     the button writes the check box's state there (the end state, read by the test).
"""

import argparse

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--label", default="Save")
parser.add_argument("--stuck", action="store_true")
parser.add_argument("--max", type=int, default=0)
parser.add_argument("--out")
args = parser.parse_args()

window = Gtk.Window(title="Probe")
window.set_default_size(360, 200)
window.move(100, 100)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=16)
box.set_margin_start(24)
box.set_margin_end(24)
box.set_margin_top(24)
box.set_margin_bottom(24)

check = Gtk.CheckButton(label="Remember me")
if args.stuck:
    # The click reaches the widget and is swallowed: the box stays as it is.
    check.connect("button-press-event", lambda *_: True)
box.pack_start(check, False, False, 0)

button = Gtk.Button(label=args.label)
button.set_halign(Gtk.Align.START)
status = Gtk.Label(label="")


def save(_button):
    state = "checked" if check.get_active() else "unchecked"
    status.set_text(f"Saved ({state})")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(state)


button.connect("clicked", save)
box.pack_start(button, False, False, 0)
box.pack_start(status, False, False, 0)
field = Gtk.Entry()
field.set_max_length(args.max)
box.pack_start(field, False, False, 0)
window.add(box)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
