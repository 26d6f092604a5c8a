//! Keys a person pressed on the X server, named as a browser's `KeyboardEvent.key` names them
//! (`a`, `A`, `Enter`, `Backspace`, `ArrowUp`, ` `), with the modifiers held: the spelling the
//! demonstration recorder folds into `type` and `key` steps, whichever backend saw the key.
//!
//! Pure code over keysyms, tested without a display.

use super::keysym::Keysym;

/// X keysyms of keys with a name rather than a character, and that name.
const NAMED: &[(Keysym, &str)] = &[
    (0xff08, "Backspace"),
    (0xff09, "Tab"),
    (0xfe20, "Tab"),
    (0xff0d, "Enter"),
    (0xff8d, "Enter"),
    (0xff1b, "Escape"),
    (0xffff, "Delete"),
    (0xff63, "Insert"),
    (0xff50, "Home"),
    (0xff57, "End"),
    (0xff55, "PageUp"),
    (0xff56, "PageDown"),
    (0xff51, "ArrowLeft"),
    (0xff52, "ArrowUp"),
    (0xff53, "ArrowRight"),
    (0xff54, "ArrowDown"),
    (0xffe1, "Shift"),
    (0xffe2, "Shift"),
    (0xffe3, "Control"),
    (0xffe4, "Control"),
    (0xffe9, "Alt"),
    (0xffea, "Alt"),
    (0xffe7, "Meta"),
    (0xffe8, "Meta"),
    (0xffeb, "Meta"),
    (0xffec, "Meta"),
    (0xffe5, "CapsLock"),
    (0xff7f, "NumLock"),
];

/// The modifiers held, as the keys going down and up said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// A Control key is down.
    pub ctrl: bool,
    /// An Alt key is down.
    pub alt: bool,
    /// A Shift key is down.
    pub shift: bool,
    /// A Super or Meta key is down.
    pub meta: bool,
}

impl Modifiers {
    /// Notes a key named `key` going down or up; `false` when it is no modifier.
    pub fn track(&mut self, key: &str, down: bool) -> bool {
        let held = match key {
            "Control" => &mut self.ctrl,
            "Alt" => &mut self.alt,
            "Shift" => &mut self.shift,
            "Meta" => &mut self.meta,
            _ => return false,
        };
        *held = down;
        true
    }
}

/// The `KeyboardEvent.key` name of `keysym`: its character, or its name (`Enter`, `F5`);
/// `None` for a keysym retrace has no name for.
pub fn key_name(keysym: Keysym) -> Option<String> {
    if let Some((_, name)) = NAMED.iter().find(|(sym, _)| *sym == keysym) {
        return Some((*name).to_owned());
    }
    if (0xffbe..=0xffe0).contains(&keysym) {
        return Some(format!("F{}", keysym - 0xffbd));
    }
    let code = match keysym {
        0x20..=0x7e | 0xa0..=0xff => keysym,
        0x0100_0000..=0x0110_ffff => keysym - 0x0100_0000,
        _ => return None,
    };
    char::from_u32(code)
        .filter(|c| !c.is_control())
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms_are_named_as_a_browser_names_keys() {
        assert_eq!(key_name(0x61).as_deref(), Some("a"));
        assert_eq!(key_name(0x41).as_deref(), Some("A"));
        assert_eq!(key_name(0x20).as_deref(), Some(" "));
        assert_eq!(key_name(0xe9).as_deref(), Some("é"));
        assert_eq!(key_name(0x0100_20ac).as_deref(), Some("€"));
        assert_eq!(key_name(0xff0d).as_deref(), Some("Enter"));
        assert_eq!(key_name(0xff08).as_deref(), Some("Backspace"));
        assert_eq!(
            key_name(0xfe20).as_deref(),
            Some("Tab"),
            "shift+Tab's keysym"
        );
        assert_eq!(key_name(0xffc2).as_deref(), Some("F5"));
        assert_eq!(key_name(0xffe3).as_deref(), Some("Control"));
        assert_eq!(key_name(0), None);
        assert_eq!(key_name(0xfe03), None, "ISO_Level3_Shift has no name here");
    }

    #[test]
    fn modifiers_follow_their_keys() {
        let mut held = Modifiers::default();
        assert!(held.track("Control", true));
        assert!(!held.track("a", true));
        assert!(held.ctrl && !held.shift);
        held.track("Shift", true);
        held.track("Control", false);
        assert_eq!(
            held,
            Modifiers {
                shift: true,
                ..Modifiers::default()
            }
        );
    }
}
