//! The server's keyboard mapping, and which keycode (with or without Shift) produces a keysym.
//!
//! Built from one `GetKeyboardMapping` reply. A keysym the keyboard does not carry (`é` on a US
//! layout) is bound to a spare keycode (one with no keysyms), the way xdotool does; the caller
//! sends the `ChangeKeyboardMapping` this module asks for. Bindings are kept for the life of
//! the connection rather than undone at once: a client looks a key up lazily, after the event
//! arrives, so undoing the binding right away could make it read the old (empty) key.

use super::keysym::Keysym;

/// How to produce one keysym: press `keycode`, with Shift held when `shift` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stroke {
    /// The X keycode.
    pub keycode: u8,
    /// Whether the keysym sits on the key's second (shifted) level.
    pub shift: bool,
}

/// A keycode this module wants bound to a keysym before it is pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rebind {
    /// The spare keycode to change.
    pub keycode: u8,
    /// The keysym to put on both of its levels.
    pub keysym: Keysym,
}

/// A copy of the server's keycode → keysyms table.
#[derive(Debug, Clone)]
pub(crate) struct Keymap {
    min_keycode: u8,
    per_keycode: usize,
    syms: Vec<Keysym>,
    /// Keycodes that carried no keysym when the map was read, usable for rebinding.
    spare: Vec<u8>,
    /// Which spare keycode is rebound next once all are in use.
    next_spare: usize,
}

impl Keymap {
    /// Builds the map from `GetKeyboardMapping`'s answer for keycodes starting at
    /// `min_keycode`, `per_keycode` keysyms each.
    pub(crate) fn new(min_keycode: u8, per_keycode: u8, syms: Vec<Keysym>) -> Self {
        let per_keycode = usize::from(per_keycode.max(1));
        let spare = syms
            .chunks(per_keycode)
            .enumerate()
            .filter(|(_, row)| row.iter().all(|&s| s == 0))
            .filter_map(|(i, _)| keycode_at(min_keycode, i))
            .collect();
        Self {
            min_keycode,
            per_keycode,
            syms,
            spare,
            next_spare: 0,
        }
    }

    /// Keysyms per keycode in this map (what `ChangeKeyboardMapping` must send).
    pub(crate) fn keysyms_per_keycode(&self) -> u8 {
        u8::try_from(self.per_keycode).unwrap_or(u8::MAX)
    }

    /// The key that produces `keysym` on its first or second level, preferring an unshifted
    /// key. An upper-case Latin letter also matches a key whose only keysym is its lower case
    /// (X's rule for one-keysym letter keys).
    pub(crate) fn lookup(&self, keysym: Keysym) -> Option<Stroke> {
        let rows = || {
            self.syms
                .chunks(self.per_keycode)
                .enumerate()
                .filter_map(|(i, row)| keycode_at(self.min_keycode, i).map(|kc| (kc, row)))
        };
        let level = |row: &[Keysym], n: usize| row.get(n).copied().unwrap_or(0);
        if let Some((keycode, _)) = rows().find(|(_, row)| level(row, 0) == keysym) {
            return Some(Stroke {
                keycode,
                shift: false,
            });
        }
        if let Some((keycode, _)) = rows().find(|(_, row)| level(row, 1) == keysym) {
            return Some(Stroke {
                keycode,
                shift: true,
            });
        }
        let lower = lower_latin(keysym)?;
        rows()
            .find(|(_, row)| level(row, 0) == lower && level(row, 1) == 0)
            .map(|(keycode, _)| Stroke {
                keycode,
                shift: true,
            })
    }

    /// The keysym `keycode` produces, on its shifted level when `shifted` (a one-keysym letter
    /// key gives its upper case), `0` for a key with none: what a pressed key typed.
    pub(crate) fn keysym_at(&self, keycode: u8, shifted: bool) -> Keysym {
        let Some(index) = keycode.checked_sub(self.min_keycode) else {
            return 0;
        };
        let start = usize::from(index) * self.per_keycode;
        let row = self
            .syms
            .get(start..start + self.per_keycode)
            .unwrap_or(&[]);
        let level = |n: usize| row.get(n).copied().unwrap_or(0);
        match (shifted, level(1)) {
            (false, _) => level(0),
            (true, 0) => upper_latin(level(0)),
            (true, sym) => sym,
        }
    }

    /// Picks a spare keycode for a keysym no key carries and records the binding, so the next
    /// `lookup` finds it. `None` when the keyboard has no spare keycode at all.
    pub(crate) fn bind_spare(&mut self, keysym: Keysym) -> Option<Rebind> {
        let keycode = *self.spare.get(self.next_spare % self.spare.len().max(1))?;
        self.next_spare = self.next_spare.wrapping_add(1);
        let start = usize::from(keycode - self.min_keycode) * self.per_keycode;
        let row = self.syms.get_mut(start..start + self.per_keycode)?;
        row.fill(0);
        row.iter_mut().take(2).for_each(|s| *s = keysym);
        Some(Rebind { keycode, keysym })
    }

    /// How many spare keycodes there are to bind keysyms to.
    pub(crate) fn spare_count(&self) -> usize {
        self.spare.len()
    }

    /// The keysyms to send in `ChangeKeyboardMapping` for `rebind`'s keycode.
    pub(crate) fn row_for(&self, rebind: Rebind) -> Vec<Keysym> {
        let mut row = vec![0; self.per_keycode];
        row.iter_mut().take(2).for_each(|s| *s = rebind.keysym);
        row
    }
}

/// The keycode of row `index` of a map starting at `min`, if it fits in a keycode.
fn keycode_at(min: u8, index: usize) -> Option<u8> {
    u8::try_from(usize::from(min) + index).ok()
}

/// The upper-case keysym of a lower-case Latin-1 letter; any other keysym as it is.
fn upper_latin(keysym: Keysym) -> Keysym {
    match keysym {
        0x61..=0x7a | 0xe0..=0xf6 | 0xf8..=0xfe => keysym - 0x20,
        _ => keysym,
    }
}

/// The lower-case keysym of an upper-case Latin-1 letter.
fn lower_latin(keysym: Keysym) -> Option<Keysym> {
    match keysym {
        0x41..=0x5a | 0xc0..=0xd6 | 0xd8..=0xde => Some(keysym + 0x20),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keycodes 8.. with two keysyms each: 8 empty, 9 = a/A, 10 = 1/!, 11 = b (alone), 12 empty.
    fn sample() -> Keymap {
        Keymap::new(8, 2, vec![0, 0, 0x61, 0x41, 0x31, 0x21, 0x62, 0, 0, 0])
    }

    #[test]
    fn finds_plain_and_shifted_levels() {
        let map = sample();
        let plain = |keycode| {
            Some(Stroke {
                keycode,
                shift: false,
            })
        };
        let shifted = |keycode| {
            Some(Stroke {
                keycode,
                shift: true,
            })
        };
        assert_eq!(map.lookup(0x61), plain(9));
        assert_eq!(map.lookup(0x41), shifted(9));
        assert_eq!(map.lookup(0x21), shifted(10));
        assert_eq!(map.lookup(0x42), shifted(11), "B from a one-keysym b key");
        assert_eq!(map.lookup(0xe9), None);
    }

    #[test]
    fn a_pressed_key_reads_back_as_its_keysym() {
        let map = sample();
        assert_eq!(map.keysym_at(9, false), 0x61);
        assert_eq!(map.keysym_at(9, true), 0x41);
        assert_eq!(map.keysym_at(10, true), 0x21);
        assert_eq!(
            map.keysym_at(11, true),
            0x42,
            "a one-keysym letter key shifted"
        );
        assert_eq!(map.keysym_at(12, false), 0);
        assert_eq!(map.keysym_at(3, false), 0, "below the first keycode");
        assert_eq!(map.keysym_at(200, false), 0, "past the last keycode");
    }

    #[test]
    fn binds_spare_keycodes_in_turn() {
        let mut map = sample();
        let first = map.bind_spare(0xe9).unwrap();
        assert_eq!(
            first,
            Rebind {
                keycode: 8,
                keysym: 0xe9
            }
        );
        assert_eq!(
            map.lookup(0xe9),
            Some(Stroke {
                keycode: 8,
                shift: false
            })
        );
        assert_eq!(map.row_for(first), vec![0xe9, 0xe9]);
        let second = map.bind_spare(0x20ac).unwrap();
        assert_eq!(second.keycode, 12);
        let third = map.bind_spare(0xf1).unwrap();
        assert_eq!(third.keycode, 8, "wraps around to the oldest binding");
        assert_eq!(map.lookup(0xe9), None);
    }

    #[test]
    fn a_full_keyboard_has_no_spare() {
        let mut map = Keymap::new(8, 1, vec![0x61]);
        assert_eq!(map.bind_spare(0xe9), None);
    }
}
