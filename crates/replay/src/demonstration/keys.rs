//! A key the page saw go down (`KeyboardEvent.key` and the modifiers held) as the computer
//! tool names it: typed text, or an xdotool chord (`Return`, `shift+Tab`, `ctrl+a`), the
//! names replay presses keys by (`retrace_drive::chromium::keys`).

/// A key and the modifiers held with it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Chord<'a> {
    pub key: &'a str,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    pub meta: bool,
}

/// `KeyboardEvent.key` values of keys that only modify others: no step of their own.
const MODIFIERS: [&str; 9] = [
    "Shift", "Control", "Alt", "Meta", "AltGraph", "CapsLock", "NumLock", "OS", "Super",
];

/// `KeyboardEvent.key` names to xdotool's, for keys whose names differ or that replay knows.
const NAMED: [(&str, &str); 22] = [
    ("Enter", "Return"),
    ("Tab", "Tab"),
    ("Escape", "Escape"),
    ("Backspace", "BackSpace"),
    ("Delete", "Delete"),
    ("Insert", "Insert"),
    ("Home", "Home"),
    ("End", "End"),
    ("PageUp", "Page_Up"),
    ("PageDown", "Page_Down"),
    ("ArrowUp", "Up"),
    ("ArrowDown", "Down"),
    ("ArrowLeft", "Left"),
    ("ArrowRight", "Right"),
    (" ", "space"),
    ("F1", "F1"),
    ("F2", "F2"),
    ("F3", "F3"),
    ("F4", "F4"),
    ("F5", "F5"),
    ("F6", "F6"),
    ("F12", "F12"),
];

impl Chord<'_> {
    /// The one character this key types into a text field, when it types one (no control,
    /// alt or meta held).
    pub fn typed_character(&self) -> Option<char> {
        if self.ctrl || self.alt || self.meta {
            return None;
        }
        let mut chars = self.key.chars();
        let first = chars.next()?;
        chars.next().is_none().then_some(first)
    }

    /// Whether this is a plain backspace.
    pub fn is_backspace(&self) -> bool {
        self.key == "Backspace" && !(self.ctrl || self.alt || self.meta || self.shift)
    }

    /// The xdotool chord (`ctrl+shift+t`, `Return`); `None` for a modifier alone or a key
    /// with no name replay knows.
    pub fn xdotool(&self) -> Option<String> {
        if MODIFIERS.contains(&self.key) {
            return None;
        }
        let single = self.typed_character().is_some() || self.key.chars().count() == 1;
        let name = match NAMED.iter().find(|(dom, _)| *dom == self.key) {
            Some((_, name)) => (*name).to_owned(),
            None if single => self.key.to_lowercase(),
            None => return None,
        };
        let mut chord = String::new();
        for (held, prefix) in [
            (self.ctrl, "ctrl+"),
            (self.alt, "alt+"),
            (self.meta, "super+"),
            // A shifted character is its own key (`A`, `?`); shift is named only beside
            // other modifiers or on named keys (`shift+Tab`).
            (
                self.shift && (!single || self.ctrl || self.alt || self.meta),
                "shift+",
            ),
        ] {
            if held {
                chord.push_str(prefix);
            }
        }
        if single && !(self.ctrl || self.alt || self.meta) && name != "space" {
            // A character key pressed outside a text field: its character as typed.
            chord.push_str(self.key);
        } else {
            chord.push_str(&name);
        }
        Some(chord)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(key: &str, ctrl: bool, shift: bool) -> Chord<'_> {
        Chord {
            key,
            ctrl,
            alt: false,
            shift,
            meta: false,
        }
    }

    #[test]
    fn keys_are_named_as_xdotool_names_them() {
        assert_eq!(
            chord("Enter", false, false).xdotool().as_deref(),
            Some("Return")
        );
        assert_eq!(
            chord("Tab", false, true).xdotool().as_deref(),
            Some("shift+Tab")
        );
        assert_eq!(chord("a", true, false).xdotool().as_deref(), Some("ctrl+a"));
        assert_eq!(
            chord("T", true, true).xdotool().as_deref(),
            Some("ctrl+shift+t")
        );
        assert_eq!(chord(" ", false, false).xdotool().as_deref(), Some("space"));
        assert_eq!(chord("Shift", false, true).xdotool(), None);
        assert_eq!(chord("Unidentified", false, false).xdotool(), None);
    }

    #[test]
    fn only_plain_characters_type() {
        assert_eq!(chord("A", false, true).typed_character(), Some('A'));
        assert_eq!(chord("a", true, false).typed_character(), None);
        assert_eq!(chord("Tab", false, false).typed_character(), None);
        assert!(chord("Backspace", false, false).is_backspace());
    }
}
