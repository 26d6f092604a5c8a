//! retrace's `computer` key combos (xdotool names: `ctrl+shift+Tab`, `Return`) as askui 0.48's
//! `keyboard_tap` input (`{key, modifier_keys}` with askui's `PcKey`/`ModifierKey` names).
//!
//! The inverse of `retrace_replay::askui_tools::xdotool_key`: a combo exported here and
//! replayed through retrace's askui tools presses the same keys.

/// askui's `ModifierKey` names.
const MODIFIERS: [&str; 5] = ["command", "alt", "control", "shift", "right_shift"];

/// askui's named `PcKey`s (single printable ASCII characters are keys too).
const NAMED_KEYS: [&str; 41] = [
    "backspace",
    "delete",
    "enter",
    "tab",
    "escape",
    "up",
    "down",
    "right",
    "left",
    "home",
    "end",
    "pageup",
    "pagedown",
    "f1",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "f10",
    "f11",
    "f12",
    "numpad_lock",
    "numpad_0",
    "numpad_1",
    "numpad_2",
    "numpad_3",
    "numpad_4",
    "numpad_5",
    "numpad_6",
    "numpad_7",
    "numpad_8",
    "numpad_9",
    "numpad_+",
    "numpad_-",
    "numpad_*",
    "numpad_/",
    "space",
];

/// `{key, modifier_keys}` for a combo, or a message naming the part askui has no name for.
pub(super) fn keyboard_tap(combo: &str) -> Result<(String, Vec<String>), String> {
    let parts: Vec<&str> = combo.split('+').map(str::trim).collect();
    // `ctrl++` (the plus key) splits into an empty last part.
    let (key, held) = match parts.as_slice() {
        [.., "", ""] if parts.len() >= 2 => ("+", &parts[..parts.len() - 2]),
        [held @ .., key] if !key.is_empty() => (*key, held),
        _ => return Err(format!("`{combo}` is not a key combination")),
    };
    let modifier_keys = held
        .iter()
        .map(|part| {
            modifier(part).map(str::to_owned).ok_or_else(|| {
                format!(
                    "`{part}` in `{combo}` is not a modifier askui can hold (askui's: {})",
                    MODIFIERS.join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let key = modifier(key)
        .map(str::to_owned)
        .or_else(|| named_key(key))
        .ok_or_else(|| {
            format!(
                "key `{key}` in `{combo}` has no askui name (askui's: {}, {} and single \
                 printable characters)",
                NAMED_KEYS.join(", "),
                MODIFIERS.join(", ")
            )
        })?;
    Ok((key, modifier_keys))
}

/// The askui modifier for an xdotool modifier name.
fn modifier(part: &str) -> Option<&'static str> {
    Some(match part.to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "ctrl_l" | "control_l" | "ctrl_r" | "control_r" => "control",
        "alt" | "alt_l" | "alt_r" | "option" => "alt",
        "shift" | "shift_l" => "shift",
        "shift_r" => "right_shift",
        "super" | "super_l" | "super_r" | "meta" | "cmd" | "command" | "win" | "windows" => {
            "command"
        }
        _ => return None,
    })
}

/// The askui `PcKey` for an xdotool key name.
fn named_key(key: &str) -> Option<String> {
    let mut chars = key.chars();
    if let (Some(single), None) = (chars.next(), chars.next())
        && single.is_ascii_graphic()
    {
        return Some(single.to_string());
    }
    let lower = key.to_ascii_lowercase();
    let mapped = match lower.as_str() {
        "return" | "enter" | "kp_enter" => "enter",
        "escape" | "esc" => "escape",
        "backspace" => "backspace",
        "delete" | "del" => "delete",
        "tab" => "tab",
        "space" => "space",
        "page_up" | "prior" => "pageup",
        "page_down" | "next" => "pagedown",
        "comma" => ",",
        "period" => ".",
        "slash" => "/",
        "backslash" => "\\",
        "minus" => "-",
        "plus" => "+",
        "equal" => "=",
        "semicolon" => ";",
        "apostrophe" => "'",
        "grave" => "`",
        "bracketleft" => "[",
        "bracketright" => "]",
        other if NAMED_KEYS.contains(&other) => other,
        _ => return None,
    };
    Some(mapped.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn maps_xdotool_combos_to_askui_names() {
        let tap = |combo: &str| keyboard_tap(combo).unwrap();
        assert_eq!(tap("Return"), ("enter".into(), vec![]));
        assert_eq!(
            tap("ctrl+shift+Tab"),
            ("tab".into(), vec!["control".into(), "shift".into()])
        );
        assert_eq!(tap("ctrl+a"), ("a".into(), vec!["control".into()]));
        assert_eq!(tap("Page_Down"), ("pagedown".into(), vec![]));
        assert_eq!(tap("F5"), ("f5".into(), vec![]));
        assert_eq!(tap("super+l"), ("l".into(), vec!["command".into()]));
        assert_eq!(tap("ctrl++"), ("+".into(), vec!["control".into()]));
        assert_eq!(tap("shift"), ("shift".into(), vec![]));
    }

    #[test]
    fn names_what_askui_cannot_press() {
        let error = keyboard_tap("Insert").unwrap_err();
        assert!(
            error.contains("key `Insert` in `Insert` has no askui name"),
            "{error}"
        );
        let error = keyboard_tap("Hyper_L+a").unwrap_err();
        assert!(
            error.contains("`Hyper_L` in `Hyper_L+a` is not a modifier"),
            "{error}"
        );
    }
}
