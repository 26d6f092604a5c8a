//! Key names and characters to X keysyms.
//!
//! Key combos arrive in xdotool's spelling (`ctrl+a`, `Return`, `shift+Tab`, `BackSpace`,
//! `super`); this module turns each name into the keysym X uses, the way xdotool's
//! `XStringToKeysym` plus its modifier aliases would. It knows keysym *names*, not keycodes:
//! which physical key carries a keysym is the keymap's job (`keymap.rs`).

use crate::error::DriveError;

/// A keysym value (X11 `KEYSYM`).
pub(crate) type Keysym = u32;

/// `Return`, what a newline in typed text presses.
pub(crate) const RETURN: Keysym = 0xff0d;
/// `Tab`, what a tab in typed text presses.
pub(crate) const TAB: Keysym = 0xff09;
/// `Shift_L`, held for characters on a key's second level.
pub(crate) const SHIFT_L: Keysym = 0xffe1;

/// Named keysyms, in X's own spelling (the names `xev` prints and xdotool accepts).
const NAMED: &[(&str, Keysym)] = &[
    ("BackSpace", 0xff08),
    ("Tab", TAB),
    ("ISO_Left_Tab", 0xfe20),
    ("Linefeed", 0xff0a),
    ("Clear", 0xff0b),
    ("Return", RETURN),
    ("Pause", 0xff13),
    ("Scroll_Lock", 0xff14),
    ("Sys_Req", 0xff15),
    ("Escape", 0xff1b),
    ("Delete", 0xffff),
    ("Home", 0xff50),
    ("Left", 0xff51),
    ("Up", 0xff52),
    ("Right", 0xff53),
    ("Down", 0xff54),
    ("Prior", 0xff55),
    ("Page_Up", 0xff55),
    ("Next", 0xff56),
    ("Page_Down", 0xff56),
    ("End", 0xff57),
    ("Begin", 0xff58),
    ("Select", 0xff60),
    ("Print", 0xff61),
    ("Execute", 0xff62),
    ("Insert", 0xff63),
    ("Undo", 0xff65),
    ("Redo", 0xff66),
    ("Menu", 0xff67),
    ("Find", 0xff68),
    ("Cancel", 0xff69),
    ("Help", 0xff6a),
    ("Break", 0xff6b),
    ("Num_Lock", 0xff7f),
    ("KP_Space", 0xff80),
    ("KP_Tab", 0xff89),
    ("KP_Enter", 0xff8d),
    ("KP_Home", 0xff95),
    ("KP_Left", 0xff96),
    ("KP_Up", 0xff97),
    ("KP_Right", 0xff98),
    ("KP_Down", 0xff99),
    ("KP_Prior", 0xff9a),
    ("KP_Page_Up", 0xff9a),
    ("KP_Next", 0xff9b),
    ("KP_Page_Down", 0xff9b),
    ("KP_End", 0xff9c),
    ("KP_Begin", 0xff9d),
    ("KP_Insert", 0xff9e),
    ("KP_Delete", 0xff9f),
    ("KP_Equal", 0xffbd),
    ("KP_Multiply", 0xffaa),
    ("KP_Add", 0xffab),
    ("KP_Separator", 0xffac),
    ("KP_Subtract", 0xffad),
    ("KP_Decimal", 0xffae),
    ("KP_Divide", 0xffaf),
    ("KP_0", 0xffb0),
    ("KP_1", 0xffb1),
    ("KP_2", 0xffb2),
    ("KP_3", 0xffb3),
    ("KP_4", 0xffb4),
    ("KP_5", 0xffb5),
    ("KP_6", 0xffb6),
    ("KP_7", 0xffb7),
    ("KP_8", 0xffb8),
    ("KP_9", 0xffb9),
    ("Shift_L", SHIFT_L),
    ("Shift_R", 0xffe2),
    ("Control_L", 0xffe3),
    ("Control_R", 0xffe4),
    ("Caps_Lock", 0xffe5),
    ("Shift_Lock", 0xffe6),
    ("Meta_L", 0xffe7),
    ("Meta_R", 0xffe8),
    ("Alt_L", 0xffe9),
    ("Alt_R", 0xffea),
    ("Super_L", 0xffeb),
    ("Super_R", 0xffec),
    ("Hyper_L", 0xffed),
    ("Hyper_R", 0xffee),
    ("ISO_Level3_Shift", 0xfe03),
    ("Mode_switch", 0xff7e),
    ("space", 0x20),
    ("exclam", 0x21),
    ("quotedbl", 0x22),
    ("numbersign", 0x23),
    ("dollar", 0x24),
    ("percent", 0x25),
    ("ampersand", 0x26),
    ("apostrophe", 0x27),
    ("quoteright", 0x27),
    ("parenleft", 0x28),
    ("parenright", 0x29),
    ("asterisk", 0x2a),
    ("plus", 0x2b),
    ("comma", 0x2c),
    ("minus", 0x2d),
    ("period", 0x2e),
    ("slash", 0x2f),
    ("colon", 0x3a),
    ("semicolon", 0x3b),
    ("less", 0x3c),
    ("equal", 0x3d),
    ("greater", 0x3e),
    ("question", 0x3f),
    ("at", 0x40),
    ("bracketleft", 0x5b),
    ("backslash", 0x5c),
    ("bracketright", 0x5d),
    ("asciicircum", 0x5e),
    ("underscore", 0x5f),
    ("grave", 0x60),
    ("quoteleft", 0x60),
    ("braceleft", 0x7b),
    ("bar", 0x7c),
    ("braceright", 0x7d),
    ("asciitilde", 0x7e),
    ("XF86AudioMute", 0x1008ff12),
    ("XF86AudioLowerVolume", 0x1008ff11),
    ("XF86AudioRaiseVolume", 0x1008ff13),
    ("XF86AudioPlay", 0x1008ff14),
    ("XF86AudioStop", 0x1008ff15),
    ("XF86AudioPrev", 0x1008ff16),
    ("XF86AudioNext", 0x1008ff17),
];

/// Short names xdotool and models use for modifiers and common keys, lower-case.
const ALIASES: &[(&str, Keysym)] = &[
    ("ctrl", 0xffe3),
    ("control", 0xffe3),
    ("shift", SHIFT_L),
    ("alt", 0xffe9),
    ("meta", 0xffe7),
    ("super", 0xffeb),
    ("win", 0xffeb),
    ("windows", 0xffeb),
    ("cmd", 0xffeb),
    ("command", 0xffeb),
    ("enter", RETURN),
    ("esc", 0xff1b),
    ("del", 0xffff),
    ("backspace", 0xff08),
    ("pageup", 0xff55),
    ("pgup", 0xff55),
    ("pagedown", 0xff56),
    ("pgdn", 0xff56),
    ("arrowleft", 0xff51),
    ("arrowright", 0xff53),
    ("arrowup", 0xff52),
    ("arrowdown", 0xff54),
    ("capslock", 0xffe5),
];

/// The keysym X uses for a typed character (`'a'` → `0x61`, `'é'` → `0xe9`, `'€'` →
/// `0x10020ac`); newline and tab map to `Return` and `Tab`. Other control characters have no
/// key and give `None`.
pub(crate) fn char_keysym(c: char) -> Option<Keysym> {
    let code = u32::from(c);
    match c {
        '\n' | '\r' => Some(RETURN),
        '\t' => Some(TAB),
        ' '..='~' | '\u{a0}'..='\u{ff}' => Some(code),
        c if c.is_control() => None,
        _ => Some(0x0100_0000 | code),
    }
}

/// The keysym for one xdotool key name: an X keysym name (`Return`, `BackSpace`, `F5`,
/// `KP_Enter`), a modifier alias (`ctrl`, `shift`, `alt`, `super`), a single character
/// (`a`, `A`, `7`, `/`), or a raw keysym in hex (`0xff0d`). Exact names win; otherwise the
/// match ignores case, so `return` and `TAB` work too.
pub(crate) fn name_keysym(name: &str) -> Result<Keysym, DriveError> {
    if let Some(&(_, sym)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Ok(sym);
    }
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && let Some(sym) = char_keysym(c)
    {
        return Ok(sym);
    }
    if let Some(sym) = function_key(name) {
        return Ok(sym);
    }
    let lower = name.to_ascii_lowercase();
    if let Some(&(_, sym)) = ALIASES.iter().find(|(n, _)| *n == lower) {
        return Ok(sym);
    }
    if let Some(&(_, sym)) = NAMED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Ok(sym);
    }
    if let Some(hex) = lower.strip_prefix("0x")
        && let Ok(sym) = u32::from_str_radix(hex, 16)
    {
        return Ok(sym);
    }
    Err(DriveError::InvalidInput(format!(
        "unknown key name {name:?}: use xdotool names such as Return, Tab, BackSpace, \
         Escape, Delete, Up, Page_Down, F5, space, a single character, or modifiers \
         ctrl, shift, alt, super joined with '+' (ctrl+a, shift+Tab)"
    )))
}

/// `F1`..`F35` (either case of the `F`).
fn function_key(name: &str) -> Option<Keysym> {
    let digits = name.strip_prefix('F').or_else(|| name.strip_prefix('f'))?;
    let n: u32 = digits.parse().ok()?;
    (1..=35).contains(&n).then(|| 0xffbd + n)
}

/// Splits a key string into combos and each combo into key names: `"ctrl+a Delete"` is two
/// combos, `["ctrl", "a"]` then `["Delete"]`. A `+` key is written `plus`, or as the last key
/// of a combo (`ctrl++`).
pub(crate) fn parse_combos(keys: &str) -> Result<Vec<Vec<Keysym>>, DriveError> {
    let combos: Vec<Vec<Keysym>> = keys
        .split_whitespace()
        .map(parse_combo)
        .collect::<Result<_, _>>()?;
    if combos.is_empty() {
        return Err(DriveError::InvalidInput(
            "empty key combo: give xdotool key names such as Return or ctrl+a".to_owned(),
        ));
    }
    Ok(combos)
}

/// One combo (`ctrl+shift+t`) into keysyms, pressed in this order.
fn parse_combo(combo: &str) -> Result<Vec<Keysym>, DriveError> {
    let (head, plus_key) = match combo.strip_suffix("++") {
        Some(head) => (head, true),
        None if combo == "+" => ("", true),
        None => (combo, false),
    };
    let mut keys = Vec::new();
    if !head.is_empty() {
        for part in head.split('+') {
            if part.is_empty() {
                return Err(DriveError::InvalidInput(format!(
                    "key combo {combo:?} has an empty key name between '+' signs"
                )));
            }
            keys.push(name_keysym(part)?);
        }
    }
    if plus_key {
        keys.push(u32::from('+'));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_like_xdotool() {
        assert_eq!(name_keysym("Return").unwrap(), 0xff0d);
        assert_eq!(name_keysym("return").unwrap(), 0xff0d);
        assert_eq!(name_keysym("Enter").unwrap(), 0xff0d);
        assert_eq!(name_keysym("BackSpace").unwrap(), 0xff08);
        assert_eq!(name_keysym("ctrl").unwrap(), 0xffe3);
        assert_eq!(name_keysym("F12").unwrap(), 0xffc9);
        assert_eq!(name_keysym("a").unwrap(), 0x61);
        assert_eq!(name_keysym("A").unwrap(), 0x41);
        assert_eq!(name_keysym("Page_Down").unwrap(), 0xff56);
        assert_eq!(name_keysym("0xff0d").unwrap(), 0xff0d);
    }

    #[test]
    fn unknown_names_say_which_and_what_is_valid() {
        let err = name_keysym("Hyperdrive").unwrap_err().to_string();
        assert!(err.contains("\"Hyperdrive\""), "{err}");
        assert!(err.contains("ctrl+a"), "{err}");
        assert!(name_keysym("F36").is_err());
    }

    #[test]
    fn combos_split_on_plus_and_whitespace() {
        assert_eq!(parse_combos("ctrl+a").unwrap(), vec![vec![0xffe3, 0x61]]);
        assert_eq!(
            parse_combos("shift+Tab").unwrap(),
            vec![vec![0xffe1, 0xff09]]
        );
        assert_eq!(
            parse_combos("ctrl+a Delete").unwrap(),
            vec![vec![0xffe3, 0x61], vec![0xffff]]
        );
        assert_eq!(parse_combos("ctrl++").unwrap(), vec![vec![0xffe3, 0x2b]]);
        assert_eq!(parse_combos("+").unwrap(), vec![vec![0x2b]]);
        assert!(parse_combos("ctrl+ +a").is_err());
        assert!(parse_combos("   ").is_err());
    }

    #[test]
    fn characters_map_to_latin1_or_unicode_keysyms() {
        assert_eq!(char_keysym('!'), Some(0x21));
        assert_eq!(char_keysym('é'), Some(0xe9));
        assert_eq!(char_keysym('€'), Some(0x0100_20ac));
        assert_eq!(char_keysym('\n'), Some(RETURN));
        assert_eq!(char_keysym('\u{7}'), None);
    }
}
