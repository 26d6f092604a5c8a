//! JSON text as askui writes it: Python's `json.dump(..., indent=N)` with its default
//! `ensure_ascii=True`, so every character outside printable ASCII is a `\uXXXX` escape.
//! With this, a file askui rewrote (indent 2) comes out byte for byte the same when we
//! rewrite it.

use std::io;
use std::io::Write;

use serde::Serialize;
use serde_json::ser::CharEscape;
use serde_json::ser::Formatter;
use serde_json::ser::PrettyFormatter;

/// How a JSON file is laid out, so that a rewrite keeps it and its diff shows only the
/// values that changed: its indent (none: all on one line), whether characters outside
/// ASCII are escaped, and whether it ends with a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonLayout {
    /// Spaces per level; `None` for a file written on one line.
    pub indent: Option<usize>,
    /// Whether non-ASCII characters are written as `\uXXXX` escapes (askui's default).
    pub ascii: bool,
    /// Whether the text ends with a newline.
    pub trailing_newline: bool,
}

impl JsonLayout {
    /// The layout askui writes: indent `indent`, ASCII escapes, no final newline.
    pub fn askui(indent: usize) -> JsonLayout {
        JsonLayout {
            indent: Some(indent),
            ascii: true,
            trailing_newline: false,
        }
    }

    /// The layout of `text`: the indent of its first indented line (askui's 2 when no line
    /// is indented but the text spans lines), ASCII escapes unless it holds a non-ASCII
    /// byte, and its final newline.
    pub fn of(text: &[u8]) -> JsonLayout {
        let body = text.strip_suffix(b"\n").unwrap_or(text);
        let indent = if body.contains(&b'\n') {
            let first_indented = body
                .split(|byte| *byte == b'\n')
                .skip(1)
                .map(|line| line.iter().take_while(|byte| **byte == b' ').count())
                .find(|spaces| *spaces > 0);
            Some(first_indented.unwrap_or(2))
        } else {
            None
        };
        JsonLayout {
            indent,
            ascii: text.is_ascii(),
            trailing_newline: text.ends_with(b"\n"),
        }
    }

    /// `value` written in this layout.
    pub fn write<T: Serialize + ?Sized>(&self, value: &T) -> serde_json::Result<Vec<u8>> {
        let mut out = match (self.indent, self.ascii) {
            (Some(indent), true) => to_askui_json(value, indent)?,
            (Some(indent), false) => {
                let indent_text = vec![b' '; indent];
                let mut out = Vec::new();
                let formatter = PrettyFormatter::with_indent(&indent_text);
                let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
                value.serialize(&mut serializer)?;
                out
            }
            (None, _) => serde_json::to_vec(value)?,
        };
        if self.trailing_newline {
            out.push(b'\n');
        }
        Ok(out)
    }
}

/// Serializes `value` with `indent` spaces and ASCII escapes, as Python's `json.dump` does.
pub fn to_askui_json<T: Serialize + ?Sized>(
    value: &T,
    indent: usize,
) -> serde_json::Result<Vec<u8>> {
    let indent_text = vec![b' '; indent];
    let mut out = Vec::new();
    let formatter = AsciiFormatter {
        inner: PrettyFormatter::with_indent(&indent_text),
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer)?;
    Ok(out)
}

/// A pretty formatter that escapes non-ASCII characters (and DEL) the way Python does.
struct AsciiFormatter<'a> {
    inner: PrettyFormatter<'a>,
}

impl Formatter for AsciiFormatter<'_> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (index, ch) in fragment.char_indices() {
            if ch.is_ascii() && ch != '\u{7f}' {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[start..index])?;
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = index + ch.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        self.inner.write_char_escape(writer, char_escape)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.inner.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.inner.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_python() {
        let value = serde_json::json!({"goal": "say \u{201c}hi\u{201d} \u{1F600}\u{7f}\n", "n": [1, {}], "e": []});
        let text = String::from_utf8(to_askui_json(&value, 2).unwrap()).unwrap();
        // Python: json.dumps(v, indent=2)
        let python = "{\n  \"goal\": \"say \\u201chi\\u201d \\ud83d\\ude00\\u007f\\n\",\n  \"n\": [\n    1,\n    {}\n  ],\n  \"e\": []\n}";
        assert_eq!(text, python);
    }

    #[test]
    fn a_rewrite_in_the_files_own_layout_gives_back_its_bytes() {
        let files: [&[u8]; 5] = [
            b"{\n    \"a\": [\n        1\n    ],\n    \"b\": \"\\u00e9\"\n}\n",
            b"{\n  \"a\": [\n    1\n  ],\n  \"b\": \"\\u00e9\"\n}",
            "{\n  \"b\": \"\u{e9}\"\n}\n".as_bytes(),
            b"{\"a\":[1],\"b\":2}",
            b"[\n\t1\n]",
        ];
        for (index, bytes) in files.into_iter().enumerate() {
            let layout = JsonLayout::of(bytes);
            let value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            let written = layout.write(&value).unwrap();
            if index == 4 {
                // Tabs are not kept: such a file comes back with askui's two spaces.
                assert_eq!(layout.indent, Some(2));
                continue;
            }
            assert_eq!(
                String::from_utf8_lossy(&written),
                String::from_utf8_lossy(bytes),
                "file {index}"
            );
        }
    }
}
