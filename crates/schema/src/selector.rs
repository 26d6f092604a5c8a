//! A CSS selector syntax check, as `document.querySelector` would apply it.
//!
//! Why hand-written: the only well-kept standalone parser is Servo's `selectors` crate, which
//! needs `cssparser` plus a `SelectorImpl`/`Parser` implementation of our own and pulls in a
//! dozen crates (phf, servo_arc, precomputed-hash, derive_more…) for a yes/no answer. The
//! check below is a small recursive-descent parser of Selectors Level 4 syntax: selector
//! lists, the four combinators, type/universal selectors with namespaces, ids, classes,
//! attribute selectors (all six matchers, `i`/`s` flags), CSS escapes and strings, the
//! standard pseudo-classes (functional ones with selector-list, relative-selector and
//! `An+B [of S]` arguments) and pseudo-elements. Like a browser, it rejects unknown
//! pseudo-classes (`:has-text()` is Playwright's, not CSS). It does not resolve anything
//! against a document.

use std::fmt;

/// Why a selector does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// Byte offset where parsing stopped.
    pub at: usize,
    /// What was expected there.
    pub reason: String,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid CSS selector at byte {}: {}",
            self.at, self.reason
        )
    }
}

impl std::error::Error for SelectorError {}

/// Checks that `selector` is a syntactically valid CSS selector list.
pub fn check_selector(selector: &str) -> Result<(), SelectorError> {
    let mut parser = Parser {
        s: selector.as_bytes(),
        pos: 0,
    };
    parser.skip_ws();
    parser.selector_list(false)?;
    parser.skip_ws();
    if parser.pos < parser.s.len() {
        return Err(parser.fail("unexpected character"));
    }
    Ok(())
}

const PSEUDO_CLASSES: &[&str] = &[
    "active",
    "any-link",
    "autofill",
    "blank",
    "checked",
    "current",
    "default",
    "defined",
    "disabled",
    "empty",
    "enabled",
    "first",
    "first-child",
    "first-of-type",
    "focus",
    "focus-visible",
    "focus-within",
    "fullscreen",
    "future",
    "hover",
    "in-range",
    "indeterminate",
    "invalid",
    "last-child",
    "last-of-type",
    "left",
    "link",
    "local-link",
    "modal",
    "only-child",
    "only-of-type",
    "optional",
    "out-of-range",
    "past",
    "paused",
    "picture-in-picture",
    "placeholder-shown",
    "playing",
    "popover-open",
    "read-only",
    "read-write",
    "required",
    "right",
    "root",
    "scope",
    "target",
    "target-within",
    "user-invalid",
    "user-valid",
    "valid",
    "visited",
    "host",
    // Legacy pseudo-elements written with one colon.
    "before",
    "after",
    "first-line",
    "first-letter",
];

const PSEUDO_ELEMENTS: &[&str] = &[
    "before",
    "after",
    "first-line",
    "first-letter",
    "marker",
    "placeholder",
    "selection",
    "backdrop",
    "file-selector-button",
    "cue",
    "grammar-error",
    "spelling-error",
    "target-text",
];

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_name_char(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'-'
}

impl Parser<'_> {
    fn fail(&self, reason: impl Into<String>) -> SelectorError {
        SelectorError {
            at: self.pos,
            reason: reason.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.s.get(self.pos + offset).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
        self.pos > start
    }

    fn selector_list(&mut self, relative: bool) -> Result<(), SelectorError> {
        loop {
            self.skip_ws();
            if relative && matches!(self.peek(), Some(b'>' | b'+' | b'~')) {
                self.pos += 1;
                self.skip_ws();
            }
            self.complex()?;
            self.skip_ws();
            if !self.eat(b',') {
                return Ok(());
            }
        }
    }

    fn complex(&mut self) -> Result<(), SelectorError> {
        self.compound()?;
        loop {
            let spaced = self.skip_ws();
            match self.peek() {
                Some(b'>' | b'+' | b'~') => {
                    self.pos += 1;
                    self.skip_ws();
                    self.compound()?;
                }
                Some(b',' | b')') | None => return Ok(()),
                Some(_) if spaced => self.compound()?,
                Some(_) => return Err(self.fail("expected a combinator")),
            }
        }
    }

    fn compound(&mut self) -> Result<(), SelectorError> {
        let start = self.pos;
        self.type_selector()?;
        loop {
            match self.peek() {
                Some(b'#') => {
                    self.pos += 1;
                    if !self.name()? {
                        return Err(self.fail("expected an id after `#`"));
                    }
                }
                Some(b'.') => {
                    self.pos += 1;
                    if !self.ident()? {
                        return Err(self.fail("expected a class name after `.`"));
                    }
                }
                Some(b'[') => self.attribute()?,
                Some(b':') if self.peek_at(1) == Some(b':') => {
                    self.pos += 2;
                    self.pseudo_element()?;
                }
                Some(b':') => {
                    self.pos += 1;
                    self.pseudo_class()?;
                }
                _ => break,
            }
        }
        if self.pos == start {
            return Err(self.fail("expected a selector"));
        }
        Ok(())
    }

    /// `ns|name`, `*|*`, `|name`, `name`, `*`, or nothing.
    fn type_selector(&mut self) -> Result<(), SelectorError> {
        let had_prefix = self.eat(b'*') || self.ident()?;
        if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'=') {
            self.pos += 1;
            if !(self.eat(b'*') || self.ident()?) {
                return Err(self.fail("expected an element name after `|`"));
            }
        } else if !had_prefix {
            return Ok(());
        }
        Ok(())
    }

    /// An escape after `\`; `pos` is at the backslash.
    fn escape(&mut self) -> Result<(), SelectorError> {
        self.pos += 1;
        match self.peek() {
            None => Err(self.fail("`\\` at the end")),
            Some(b'\n' | b'\r' | 0x0c) => Err(self.fail("`\\` before a line break")),
            Some(b) if b.is_ascii_hexdigit() => {
                let mut digits = 0;
                while digits < 6 && self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                    self.pos += 1;
                    digits += 1;
                }
                if self.peek().is_some_and(is_ws) {
                    self.pos += 1;
                }
                Ok(())
            }
            Some(_) => {
                self.pos += 1;
                Ok(())
            }
        }
    }

    /// Name characters (for ids); `false` when there are none.
    fn name(&mut self) -> Result<bool, SelectorError> {
        let start = self.pos;
        loop {
            match self.peek() {
                Some(b'\\') => self.escape()?,
                Some(b) if is_name_char(b) => self.pos += 1,
                _ => return Ok(self.pos > start),
            }
        }
    }

    /// A CSS identifier; `false` (position unchanged) when none starts here.
    fn ident(&mut self) -> Result<bool, SelectorError> {
        let start = self.pos;
        let mut i = 0;
        if self.peek() == Some(b'-') {
            i = 1;
        }
        let starts = match self.peek_at(i) {
            Some(b'-') if i == 1 => true,
            Some(b'\\') => true,
            Some(b) => is_name_start(b),
            None => false,
        };
        if !starts {
            return Ok(false);
        }
        self.pos += i;
        if !self.name()? {
            self.pos = start;
            return Ok(false);
        }
        Ok(true)
    }

    fn string(&mut self) -> Result<(), SelectorError> {
        let Some(quote) = self.peek() else {
            return Err(self.fail("expected a string"));
        };
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(self.fail("string is not closed")),
                Some(b'\n' | b'\r' | 0x0c) => return Err(self.fail("line break inside a string")),
                Some(b'\\') => {
                    self.pos += 1;
                    if self.peek().is_some() {
                        self.pos += 1;
                    }
                }
                Some(b) if b == quote => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn attribute(&mut self) -> Result<(), SelectorError> {
        self.pos += 1;
        self.skip_ws();
        let name_start = self.pos;
        self.type_selector()?;
        let name = &self.s[name_start..self.pos];
        if name.is_empty() || name.ends_with(b"*") {
            self.pos = name_start;
            return Err(self.fail("expected an attribute name"));
        }
        self.skip_ws();
        if self.eat(b']') {
            return Ok(());
        }
        match (self.peek(), self.peek_at(1)) {
            (Some(b'='), _) => self.pos += 1,
            (Some(b'~' | b'|' | b'^' | b'$' | b'*'), Some(b'=')) => self.pos += 2,
            _ => {
                return Err(
                    self.fail("expected `]` or an attribute matcher (=, ~=, |=, ^=, $=, *=)")
                );
            }
        }
        self.skip_ws();
        match self.peek() {
            Some(b'"' | b'\'') => self.string()?,
            _ => {
                if !self.ident()? {
                    return Err(self
                        .fail("expected an identifier or a quoted string as the attribute value"));
                }
            }
        }
        self.skip_ws();
        if matches!(self.peek(), Some(b'i' | b'I' | b's' | b'S')) {
            self.pos += 1;
            self.skip_ws();
        }
        if !self.eat(b']') {
            return Err(self.fail("expected `]` to close the attribute selector"));
        }
        Ok(())
    }

    fn pseudo_name(&mut self) -> Result<String, SelectorError> {
        let start = self.pos;
        if !self.ident()? {
            return Err(self.fail("expected a pseudo-class or pseudo-element name"));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.pos]).to_ascii_lowercase())
    }

    fn pseudo_class(&mut self) -> Result<(), SelectorError> {
        let at = self.pos;
        let name = self.pseudo_name()?;
        if !self.eat(b'(') {
            if PSEUDO_CLASSES.contains(&name.as_str()) {
                return Ok(());
            }
            return Err(SelectorError {
                at,
                reason: format!("unknown pseudo-class `:{name}`"),
            });
        }
        self.skip_ws();
        match name.as_str() {
            "not" | "is" | "where" | "matches" | "-webkit-any" | "host" | "host-context" => {
                self.selector_list(false)?;
            }
            "has" => self.selector_list(true)?,
            "nth-child" | "nth-last-child" => {
                self.an_plus_b()?;
                let save = self.pos;
                if self.skip_ws() && self.s[self.pos..].starts_with(b"of") {
                    self.pos += 2;
                    if !self.skip_ws() {
                        return Err(self.fail("expected a space after `of`"));
                    }
                    self.selector_list(false)?;
                } else {
                    self.pos = save;
                }
            }
            "nth-of-type" | "nth-last-of-type" => self.an_plus_b()?,
            "lang" => loop {
                match self.peek() {
                    Some(b'"' | b'\'') => self.string()?,
                    _ => {
                        if !self.ident()? {
                            return Err(self.fail("expected a language tag"));
                        }
                    }
                }
                self.skip_ws();
                if !self.eat(b',') {
                    break;
                }
                self.skip_ws();
            },
            "dir" | "state" => {
                if !self.ident()? {
                    return Err(self.fail("expected an identifier"));
                }
            }
            _ => {
                return Err(SelectorError {
                    at,
                    reason: format!("unknown functional pseudo-class `:{name}()`"),
                });
            }
        }
        self.skip_ws();
        if !self.eat(b')') {
            return Err(self.fail(format!("expected `)` to close `:{name}(`")));
        }
        Ok(())
    }

    fn pseudo_element(&mut self) -> Result<(), SelectorError> {
        let at = self.pos;
        let name = self.pseudo_name()?;
        if self.eat(b'(') {
            self.skip_ws();
            match name.as_str() {
                "slotted" => self.compound()?,
                "part" | "highlight" => {
                    if !self.ident()? {
                        return Err(self.fail("expected an identifier"));
                    }
                    while self.skip_ws() && self.ident()? {}
                }
                _ => {
                    return Err(SelectorError {
                        at,
                        reason: format!("unknown functional pseudo-element `::{name}()`"),
                    });
                }
            }
            self.skip_ws();
            if !self.eat(b')') {
                return Err(self.fail(format!("expected `)` to close `::{name}(`")));
            }
            return Ok(());
        }
        if PSEUDO_ELEMENTS.contains(&name.as_str())
            || name.starts_with("-webkit-")
            || name.starts_with("-moz-")
        {
            return Ok(());
        }
        Err(SelectorError {
            at,
            reason: format!("unknown pseudo-element `::{name}`"),
        })
    }

    /// `odd`, `even`, `An+B`, `An`, `B`, with optional signs and spaces around the `+`/`-`.
    fn an_plus_b(&mut self) -> Result<(), SelectorError> {
        let rest = &self.s[self.pos..];
        for word in [&b"odd"[..], b"even"] {
            if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word) {
                self.pos += word.len();
                return Ok(());
            }
        }
        let start = self.pos;
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        let digits = self.digits();
        if matches!(self.peek(), Some(b'n' | b'N')) {
            self.pos += 1;
            let save = self.pos;
            self.skip_ws();
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
                self.skip_ws();
                if self.digits() == 0 {
                    return Err(self.fail("expected digits after the sign in An+B"));
                }
            } else {
                self.pos = save;
            }
            return Ok(());
        }
        if digits == 0 {
            self.pos = start;
            return Err(self.fail("expected `odd`, `even` or An+B"));
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }
}
