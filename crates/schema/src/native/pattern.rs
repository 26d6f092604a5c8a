//! Anchored patterns built only of ASCII character classes and literals, such as
//! `^[a-zA-Z_][a-zA-Z0-9_]*$`, compiled to a small table-driven DFA and matched with one
//! table load per byte: no regex engine call, no cache lookup. Any other pattern (or one
//! whose DFA would be large) keeps the `regex` crate.
//!
//! Exactness: every atom matches ASCII bytes only and the pattern is anchored at both
//! ends, so a string with a non-ASCII character cannot match, under the `regex` crate or
//! ECMA-262 alike; on ASCII strings a class is a set of bytes. `$` is the end of the text
//! in both (no multi-line flag).

/// How often an atom may occur at its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    /// Exactly once.
    One,
    /// `?`: zero or one time.
    Optional,
    /// `*`: any number of times (`x+` is `x` then `x*`).
    Star,
}

/// One class or literal with its repetition.
#[derive(Debug, Clone, Copy)]
struct Atom {
    /// Bit `b` of the 128 says whether ASCII byte `b` matches.
    set: u128,
    repeat: Repeat,
}

/// A pattern of at most [`MAX_ATOMS`] atoms between `^` and `$`, as a DFA.
#[derive(Debug, Clone)]
pub(crate) struct SimplePattern {
    /// `next[state * 128 + byte]`: the next state, or [`DEAD`].
    next: Vec<u8>,
    /// Whether each state accepts at the end of the text.
    accept: Vec<bool>,
}

/// NFA states are bits of a `u64`, one per atom plus the accepting one.
const MAX_ATOMS: usize = 63;

/// At most this many DFA states; a pattern needing more keeps the `regex` crate.
const MAX_STATES: usize = 32;

/// No match is possible any more.
const DEAD: u8 = u8::MAX;

/// The atoms as an NFA whose states are bit sets ("about to match atom `i`").
struct Nfa {
    atoms: Vec<Atom>,
}

/// A byte allowed as a literal, or as a member or range end inside a class.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The class starting after its `[`: the byte set and the index just past its `]`.
fn class(bytes: &[u8], mut i: usize) -> Option<(u128, usize)> {
    let mut set = 0u128;
    let mut empty = true;
    loop {
        let b = *bytes.get(i)?;
        if b == b']' && !empty {
            return Some((set, i + 1));
        }
        if !plain(b) {
            return None;
        }
        let (low, high) = match (bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(b'-'), Some(&end)) if plain(end) => {
                i += 3;
                (b, end)
            }
            (Some(b'-'), _) => return None,
            _ => {
                i += 1;
                (b, b)
            }
        };
        if low > high {
            return None;
        }
        for member in low..=high {
            set |= 1u128 << member;
        }
        empty = false;
    }
}

impl SimplePattern {
    /// The pattern, when `source` is `^`, then classes (`[a-z0-9_]`, ranges of letters,
    /// digits and `_`) or literal letters, digits and `_`, each optionally followed by
    /// `?`, `*` or `+`, then `$`.
    pub(crate) fn parse(source: &str) -> Option<SimplePattern> {
        let bytes = source.strip_prefix('^')?.strip_suffix('$')?.as_bytes();
        let mut atoms = Vec::new();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            let set = if b == b'[' {
                let (set, next) = class(bytes, i + 1)?;
                i = next;
                set
            } else if plain(b) {
                i += 1;
                1u128 << b
            } else {
                return None;
            };
            match bytes.get(i) {
                Some(b'?') => {
                    i += 1;
                    atoms.push(Atom {
                        set,
                        repeat: Repeat::Optional,
                    });
                }
                Some(b'*') => {
                    i += 1;
                    atoms.push(Atom {
                        set,
                        repeat: Repeat::Star,
                    });
                }
                Some(b'+') => {
                    i += 1;
                    atoms.push(Atom {
                        set,
                        repeat: Repeat::One,
                    });
                    atoms.push(Atom {
                        set,
                        repeat: Repeat::Star,
                    });
                }
                _ => atoms.push(Atom {
                    set,
                    repeat: Repeat::One,
                }),
            }
            // Lazy (`*?`), possessive or stacked quantifiers and counted repetition: no.
            if matches!(bytes.get(i), Some(b'?' | b'*' | b'+' | b'{')) {
                return None;
            }
        }
        if atoms.len() > MAX_ATOMS {
            return None;
        }
        Nfa { atoms }.dfa()
    }

    /// Whether the whole of `text` matches.
    #[inline]
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.is_match_bytes(text.as_bytes())
    }

    /// Whether the whole of `bytes` (UTF-8) matches.
    #[inline]
    pub(crate) fn is_match_bytes(&self, bytes: &[u8]) -> bool {
        let mut state = 0usize;
        for &b in bytes {
            if !b.is_ascii() {
                return false;
            }
            match self.next.get(state * 128 + usize::from(b)) {
                Some(&next) if next != DEAD => state = usize::from(next),
                _ => return false,
            }
        }
        self.accept.get(state).copied().unwrap_or(false)
    }
}

impl Nfa {
    /// Adds the states reachable by skipping optional atoms.
    fn closure(&self, mut states: u64) -> u64 {
        for (i, atom) in self.atoms.iter().enumerate() {
            if states >> i & 1 == 1 && atom.repeat != Repeat::One {
                states |= 1 << (i + 1);
            }
        }
        states
    }

    /// The states after reading byte `b` (an ASCII byte) in `states`.
    fn step(&self, states: u64, b: u8) -> u64 {
        let mut next = 0u64;
        for (i, atom) in self.atoms.iter().enumerate() {
            if states >> i & 1 == 1 && atom.set >> b & 1 == 1 {
                next |= if atom.repeat == Repeat::Star {
                    1 << i
                } else {
                    1 << (i + 1)
                };
            }
        }
        self.closure(next)
    }

    /// The subset construction, unless it needs more than [`MAX_STATES`] states.
    fn dfa(&self) -> Option<SimplePattern> {
        let accept_bit = 1u64 << self.atoms.len();
        let mut subsets = vec![self.closure(1)];
        let mut next = Vec::new();
        let mut i = 0;
        while let Some(&subset) = subsets.get(i) {
            for b in 0..128u8 {
                let target = self.step(subset, b);
                let id = if target == 0 {
                    DEAD
                } else if let Some(id) = subsets.iter().position(|&s| s == target) {
                    u8::try_from(id).ok()?
                } else {
                    subsets.push(target);
                    if subsets.len() > MAX_STATES {
                        return None;
                    }
                    u8::try_from(subsets.len() - 1).ok()?
                };
                next.push(id);
            }
            i += 1;
        }
        Some(SimplePattern {
            next,
            accept: subsets.iter().map(|&s| s & accept_bit != 0).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::SimplePattern;

    const PATTERNS: [&str; 9] = [
        "^[a-zA-Z_][a-zA-Z0-9_]*$",
        "^[a-z]+$",
        "^a?b*c+$",
        "^[a-c]*a[0-9]?$",
        "^$",
        "^x$",
        "^[A-Z_]+[0-9]*[a-z]?$",
        "^[ab]*b[ab]$",
        "^_*[0-9a-fA-F]+$",
    ];

    #[test]
    fn only_the_subset_parses() {
        for pattern in PATTERNS {
            assert!(SimplePattern::parse(pattern).is_some(), "{pattern}");
        }
        for pattern in [
            "[a-z]+",
            "^[a-z]+",
            "^[^a-z]$",
            "^a.b$",
            "^(ab)$",
            "^a|b$",
            "^a{2}$",
            "^a*?$",
            "^[a-]$",
            "^[z-a]$",
            "^\\d$",
            "^[[:alpha:]]$",
            "^[a&&b]$",
            "^a\\$",
            "^é$",
            // In the subset, but its DFA would need 2^7 states.
            "^[ab]*a[ab][ab][ab][ab][ab][ab]$",
        ] {
            assert!(SimplePattern::parse(pattern).is_none(), "{pattern}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_the_regex_crate(text in "[a-cA-Z0-9_xé\\-. ]{0,12}") {
            for pattern in PATTERNS {
                let simple = SimplePattern::parse(pattern).unwrap();
                let regex = regex::Regex::new(pattern).unwrap();
                prop_assert_eq!(simple.is_match(&text), regex.is_match(&text), "{} on {:?}", pattern, text);
            }
        }
    }
}
