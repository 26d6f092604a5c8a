//! Images inlined into the HTML report: read within a size limit (a note says why one was
//! left out) and written as data URIs.

use std::path::Path;

use base64::Engine;

/// The largest crop (expected, actual, diff) inlined.
pub const MAX_CROP_BYTES: u64 = 512 * 1024;

/// The largest final screenshot inlined.
pub const MAX_SCREENSHOT_BYTES: u64 = 3 * 1024 * 1024;

/// The image at `report_dir/path` as a data URI, or a note saying why not.
pub(super) fn inline_image(
    report_dir: &Path,
    path: &Path,
    max_bytes: u64,
    notes: &mut Vec<String>,
) -> Option<String> {
    read_image(report_dir, path, max_bytes, notes).map(|bytes| data_uri(&bytes))
}

/// The bytes of a PNG or WebP image no larger than `max_bytes`; otherwise a note.
pub(super) fn read_image(
    report_dir: &Path,
    path: &Path,
    max_bytes: u64,
    notes: &mut Vec<String>,
) -> Option<Vec<u8>> {
    let full = report_dir.join(path);
    match std::fs::metadata(&full) {
        Err(error) => {
            notes.push(format!("{}: {error}", path.display()));
            return None;
        }
        Ok(metadata) if metadata.len() > max_bytes => {
            notes.push(format!(
                "{}: not inlined, {} KB is over the report's {} KB limit for it",
                path.display(),
                metadata.len() / 1024,
                max_bytes / 1024
            ));
            return None;
        }
        Ok(_) => {}
    }
    match std::fs::read(&full) {
        Ok(bytes) if image_type(&bytes).is_some() => Some(bytes),
        Ok(_) => {
            notes.push(format!("{}: not a PNG or WebP image", path.display()));
            None
        }
        Err(error) => {
            notes.push(format!("{}: {error}", path.display()));
            None
        }
    }
}

/// The media type of PNG or WebP bytes.
fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.len() > 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// `data:image/png;base64,...` (only the base64 alphabet follows the prefix, so the template
/// may print it unescaped).
pub(super) fn data_uri(bytes: &[u8]) -> String {
    format!(
        "data:{};base64,{}",
        image_type(bytes).unwrap_or("application/octet-stream"),
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}
