//! The names of the fields retrace adds to askui's cache format, defined once.
//!
//! askui ignores fields it does not know (and drops them when it rewrites a file); every
//! crate that reads or writes one of these uses the constant here, never the string.

use serde_json::Value;

use crate::model::CacheMetadata;

/// Step field: the after-action hash, the region around the action point in the screenshot
/// the action returned, so a replay can check the action had its effect.
pub const AFTER_HASH: &str = "visual_representation_after";

/// Metadata field: `[width, height]` of the screen the trajectory was recorded on.
pub const DISPLAY_SIZE: &str = "display_size";

/// Metadata field: the model's last verdict on a replay, `{timestamp, success, notes}`.
pub const LAST_VERIFICATION: &str = "last_verification";

/// The screen size a file was recorded at ([`DISPLAY_SIZE`]), when it says and the value is
/// two positive integers.
pub fn display_size(metadata: &CacheMetadata) -> Option<(u32, u32)> {
    let size = metadata.extra.get(DISPLAY_SIZE)?.as_array()?;
    let dimension = |value: Option<&Value>| {
        value
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
    };
    Some((dimension(size.first())?, dimension(size.get(1))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_size_reads_two_positive_integers_only() {
        let mut metadata = CacheMetadata::new(jiff::Timestamp::UNIX_EPOCH, None);
        assert_eq!(display_size(&metadata), None);
        metadata
            .extra
            .insert(DISPLAY_SIZE.into(), serde_json::json!([1280, 800]));
        assert_eq!(display_size(&metadata), Some((1280, 800)));
        for bad in [
            serde_json::json!([0, 800]),
            serde_json::json!(["1280", 800]),
            serde_json::json!([1280]),
        ] {
            metadata.extra.insert(DISPLAY_SIZE.into(), bad.clone());
            assert_eq!(display_size(&metadata), None, "{bad}");
        }
    }
}
