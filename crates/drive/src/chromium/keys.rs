//! xdotool key names (`ctrl+a`, `Return`, `shift+Tab`, `Page_Down`, `F5`) to the fields a CDP
//! `Input.dispatchKeyEvent` needs: DOM `key`, physical `code`, Windows virtual key code and
//! the text the key produces. A US keyboard layout is assumed, as xdotool does by default.

use crate::error::DriveError;

/// CDP modifier bits (`Input.dispatchKeyEvent.modifiers`).
pub mod modifier {
    /// Alt.
    pub const ALT: i64 = 1;
    /// Control.
    pub const CTRL: i64 = 2;
    /// Meta (Super, Command).
    pub const META: i64 = 4;
    /// Shift.
    pub const SHIFT: i64 = 8;
}

/// One physical key as CDP wants it described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDef {
    /// The DOM `KeyboardEvent.key` value ("a", "Enter", "Control").
    pub key: String,
    /// The DOM `KeyboardEvent.code` value ("KeyA", "Enter", "ControlLeft").
    pub code: &'static str,
    /// The Windows virtual key code (65 for A, 13 for Enter).
    pub key_code: i64,
    /// The text the key inserts, if any ("a", "\r").
    pub text: Option<String>,
    /// The modifier bit this key sets while held, if it is a modifier.
    pub modifier_bit: Option<i64>,
    /// Whether producing this character needs Shift held (upper case, `!`, `?`...).
    pub needs_shift: bool,
}

/// Parses an xdotool combination (`ctrl+shift+t`, `Return`, `shift+Tab`) into its keys, in
/// press order: modifiers first, the main key last.
pub fn parse_combo(combo: &str) -> Result<Vec<KeyDef>, DriveError> {
    let trimmed = combo.trim();
    if trimmed.is_empty() {
        return Err(DriveError::InvalidInput(
            "empty key combination; expected xdotool names such as `Return`, `ctrl+a` or \
             `shift+Tab`"
                .to_owned(),
        ));
    }
    // A lone "+" is the plus key; "ctrl++" is ctrl and plus.
    let mut parts: Vec<&str> = trimmed.split('+').collect();
    if trimmed.ends_with("++") || trimmed == "+" {
        parts.retain(|part| !part.is_empty());
        parts.push("plus");
    }
    parts
        .iter()
        .map(|part| {
            key_by_name(part.trim()).ok_or_else(|| {
                DriveError::InvalidInput(format!(
                    "unknown key `{part}` in `{combo}`; use xdotool names: a letter or digit, \
                     Return, Tab, BackSpace, Escape, Delete, space, Home, End, Page_Up, \
                     Page_Down, Left, Right, Up, Down, F1..F12, or modifiers ctrl, shift, alt, \
                     super joined with `+`"
                ))
            })
        })
        .collect()
}

/// The key for one xdotool key name, case-insensitive for named keys.
pub fn key_by_name(name: &str) -> Option<KeyDef> {
    let mut chars = name.chars();
    if let (Some(only), None) = (chars.next(), chars.next()) {
        return char_key(only);
    }
    let lower = name.to_ascii_lowercase();
    if let Some(def) = modifier_key(&lower) {
        return Some(def);
    }
    if let Some(def) = named_key(&lower) {
        return Some(def);
    }
    if let Some(number) = lower.strip_prefix('f').and_then(|n| n.parse::<i64>().ok())
        && (1..=12).contains(&number)
    {
        return Some(plain(
            &format!("F{number}"),
            F_CODES[(number - 1) as usize],
            111 + number,
        ));
    }
    let symbol = symbol_char(&lower)?;
    char_key(symbol)
}

/// The key that types `c` on a US layout, if there is one.
pub fn char_key(c: char) -> Option<KeyDef> {
    let with = |code: &'static str, key_code: i64, needs_shift: bool| KeyDef {
        key: c.to_string(),
        code,
        key_code,
        text: Some(c.to_string()),
        modifier_bit: None,
        needs_shift,
    };
    if c.is_ascii_lowercase() {
        let index = (c as u8 - b'a') as usize;
        return Some(with(LETTER_CODES[index], 65 + index as i64, false));
    }
    if c.is_ascii_uppercase() {
        let index = (c as u8 - b'A') as usize;
        return Some(with(LETTER_CODES[index], 65 + index as i64, true));
    }
    if c.is_ascii_digit() {
        let index = (c as u8 - b'0') as usize;
        return Some(with(DIGIT_CODES[index], 48 + index as i64, false));
    }
    let (code, key_code, needs_shift) = match c {
        ' ' => ("Space", 32, false),
        '`' => ("Backquote", 192, false),
        '~' => ("Backquote", 192, true),
        '-' => ("Minus", 189, false),
        '_' => ("Minus", 189, true),
        '=' => ("Equal", 187, false),
        '+' => ("Equal", 187, true),
        '[' => ("BracketLeft", 219, false),
        '{' => ("BracketLeft", 219, true),
        ']' => ("BracketRight", 221, false),
        '}' => ("BracketRight", 221, true),
        '\\' => ("Backslash", 220, false),
        '|' => ("Backslash", 220, true),
        ';' => ("Semicolon", 186, false),
        ':' => ("Semicolon", 186, true),
        '\'' => ("Quote", 222, false),
        '"' => ("Quote", 222, true),
        ',' => ("Comma", 188, false),
        '<' => ("Comma", 188, true),
        '.' => ("Period", 190, false),
        '>' => ("Period", 190, true),
        '/' => ("Slash", 191, false),
        '?' => ("Slash", 191, true),
        '!' => ("Digit1", 49, true),
        '@' => ("Digit2", 50, true),
        '#' => ("Digit3", 51, true),
        '$' => ("Digit4", 52, true),
        '%' => ("Digit5", 53, true),
        '^' => ("Digit6", 54, true),
        '&' => ("Digit7", 55, true),
        '*' => ("Digit8", 56, true),
        '(' => ("Digit9", 57, true),
        ')' => ("Digit0", 48, true),
        '\n' | '\r' => return named_key("return"),
        '\t' => return named_key("tab"),
        _ => return None,
    };
    Some(with(code, key_code, needs_shift))
}

const LETTER_CODES: [&str; 26] = [
    "KeyA", "KeyB", "KeyC", "KeyD", "KeyE", "KeyF", "KeyG", "KeyH", "KeyI", "KeyJ", "KeyK", "KeyL",
    "KeyM", "KeyN", "KeyO", "KeyP", "KeyQ", "KeyR", "KeyS", "KeyT", "KeyU", "KeyV", "KeyW", "KeyX",
    "KeyY", "KeyZ",
];
const DIGIT_CODES: [&str; 10] = [
    "Digit0", "Digit1", "Digit2", "Digit3", "Digit4", "Digit5", "Digit6", "Digit7", "Digit8",
    "Digit9",
];
const F_CODES: [&str; 12] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
];

/// A key that produces no text.
fn plain(key: &str, code: &'static str, key_code: i64) -> KeyDef {
    KeyDef {
        key: key.to_owned(),
        code,
        key_code,
        text: None,
        modifier_bit: None,
        needs_shift: false,
    }
}

fn modifier_key(lower: &str) -> Option<KeyDef> {
    let (key, code, key_code, bit) = match lower {
        "ctrl" | "control" | "control_l" | "ctrl_l" => {
            ("Control", "ControlLeft", 17, modifier::CTRL)
        }
        "control_r" | "ctrl_r" => ("Control", "ControlRight", 17, modifier::CTRL),
        "shift" | "shift_l" => ("Shift", "ShiftLeft", 16, modifier::SHIFT),
        "shift_r" => ("Shift", "ShiftRight", 16, modifier::SHIFT),
        "alt" | "alt_l" | "option" => ("Alt", "AltLeft", 18, modifier::ALT),
        "alt_r" | "altgr" => ("Alt", "AltRight", 18, modifier::ALT),
        "super" | "super_l" | "meta" | "meta_l" | "cmd" | "command" | "win" => {
            ("Meta", "MetaLeft", 91, modifier::META)
        }
        "super_r" | "meta_r" => ("Meta", "MetaRight", 92, modifier::META),
        _ => return None,
    };
    Some(KeyDef {
        modifier_bit: Some(bit),
        ..plain(key, code, key_code)
    })
}

fn named_key(lower: &str) -> Option<KeyDef> {
    let def = match lower {
        "return" | "enter" | "kp_enter" => KeyDef {
            text: Some("\r".to_owned()),
            ..plain("Enter", "Enter", 13)
        },
        "tab" => plain("Tab", "Tab", 9),
        "iso_left_tab" => KeyDef {
            needs_shift: true,
            ..plain("Tab", "Tab", 9)
        },
        "backspace" => plain("Backspace", "Backspace", 8),
        "escape" | "esc" => plain("Escape", "Escape", 27),
        "delete" | "del" | "kp_delete" => plain("Delete", "Delete", 46),
        "insert" => plain("Insert", "Insert", 45),
        "home" | "kp_home" => plain("Home", "Home", 36),
        "end" | "kp_end" => plain("End", "End", 35),
        "page_up" | "prior" | "pageup" => plain("PageUp", "PageUp", 33),
        "page_down" | "next" | "pagedown" => plain("PageDown", "PageDown", 34),
        "left" | "kp_left" => plain("ArrowLeft", "ArrowLeft", 37),
        "up" | "kp_up" => plain("ArrowUp", "ArrowUp", 38),
        "right" | "kp_right" => plain("ArrowRight", "ArrowRight", 39),
        "down" | "kp_down" => plain("ArrowDown", "ArrowDown", 40),
        "space" => return char_key(' '),
        "caps_lock" => plain("CapsLock", "CapsLock", 20),
        "menu" => plain("ContextMenu", "ContextMenu", 93),
        "pause" => plain("Pause", "Pause", 19),
        "print" => plain("PrintScreen", "PrintScreen", 44),
        _ => return None,
    };
    Some(def)
}

/// xdotool's keysym names for punctuation.
fn symbol_char(lower: &str) -> Option<char> {
    Some(match lower {
        "minus" => '-',
        "equal" => '=',
        "plus" => '+',
        "comma" => ',',
        "period" => '.',
        "slash" => '/',
        "backslash" => '\\',
        "semicolon" => ';',
        "colon" => ':',
        "apostrophe" => '\'',
        "quotedbl" => '"',
        "bracketleft" => '[',
        "bracketright" => ']',
        "braceleft" => '{',
        "braceright" => '}',
        "grave" => '`',
        "asciitilde" => '~',
        "exclam" => '!',
        "at" => '@',
        "numbersign" => '#',
        "dollar" => '$',
        "percent" => '%',
        "asciicircum" => '^',
        "ampersand" => '&',
        "asterisk" => '*',
        "parenleft" => '(',
        "parenright" => ')',
        "underscore" => '_',
        "less" => '<',
        "greater" => '>',
        "question" => '?',
        "bar" => '|',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn summary(combo: &str) -> Vec<(String, &'static str, i64, Option<String>)> {
        parse_combo(combo)
            .unwrap()
            .into_iter()
            .map(|k| (k.key, k.code, k.key_code, k.text))
            .collect()
    }

    #[test]
    fn named_keys_map_to_dom_key_code_and_text() {
        assert_eq!(
            summary("Return"),
            vec![("Enter".to_owned(), "Enter", 13, Some("\r".to_owned()))]
        );
        assert_eq!(summary("Tab"), vec![("Tab".to_owned(), "Tab", 9, None)]);
        assert_eq!(
            summary("BackSpace"),
            vec![("Backspace".to_owned(), "Backspace", 8, None)]
        );
        assert_eq!(
            summary("Page_Down"),
            vec![("PageDown".to_owned(), "PageDown", 34, None)]
        );
        assert_eq!(summary("F5"), vec![("F5".to_owned(), "F5", 116, None)]);
        assert_eq!(
            summary("Escape"),
            vec![("Escape".to_owned(), "Escape", 27, None)]
        );
    }

    #[test]
    fn combos_list_modifiers_first_with_their_bits() {
        let keys = parse_combo("ctrl+shift+t").unwrap();
        let bits: Vec<Option<i64>> = keys.iter().map(|k| k.modifier_bit).collect();
        assert_eq!(
            bits,
            vec![Some(modifier::CTRL), Some(modifier::SHIFT), None]
        );
        assert_eq!(keys[2].code, "KeyT");
        assert_eq!(summary("shift+Tab")[1].0, "Tab");
        assert_eq!(summary("ctrl++")[1].0, "+");
    }

    #[test]
    fn characters_know_their_physical_key_and_shift() {
        let upper = char_key('A').unwrap();
        assert_eq!(
            (upper.code, upper.key_code, upper.needs_shift),
            ("KeyA", 65, true)
        );
        let bang = key_by_name("exclam").unwrap();
        assert_eq!(
            (bang.key.as_str(), bang.code, bang.needs_shift),
            ("!", "Digit1", true)
        );
        assert_eq!(char_key('é'), None);
    }

    #[test]
    fn unknown_keys_name_the_culprit_and_the_valid_names() {
        let error = parse_combo("ctrl+Hyperdrive").unwrap_err().to_string();
        assert!(error.contains("`Hyperdrive`"), "{error}");
        assert!(error.contains("Return"), "{error}");
        assert!(parse_combo("  ").is_err());
    }
}
