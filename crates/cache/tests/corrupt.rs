//! Corrupted bytes of valid cache files never panic the reader: every outcome is a parsed
//! file or an error that names the file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use proptest::prelude::*;
use retrace_test_support::askui_examples_dir;

fn examples() -> Vec<Vec<u8>> {
    [
        "ownership_open_chapter.json",
        "reference_replays_with_failures.json",
        "legacy_v0_24_bare_list.json",
    ]
    .iter()
    .map(|n| std::fs::read(askui_examples_dir().join(n)).unwrap())
    .collect()
}

fn assert_no_panic(bytes: &[u8]) {
    let path = Path::new("corrupt.json");
    match retrace_cache::parse_bytes(path, bytes, jiff_epoch()) {
        Ok(file) => {
            // Whatever parsed can be checked and written back out.
            let _ = retrace_cache::check(&file);
            retrace_cache::to_askui_json(&file.to_json(), 2).unwrap();
        }
        Err(error) => assert!(error.to_string().starts_with("corrupt.json: "), "{error}"),
    }
}

fn jiff_epoch() -> jiff::Timestamp {
    retrace_cache::parse_timestamp("2026-01-01T00:00:00Z").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn overwritten_bytes(which in 0usize..3, edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let mut bytes = examples()[which].clone();
        for (index, byte) in edits {
            let at = index.index(bytes.len());
            bytes[at] = byte;
        }
        assert_no_panic(&bytes);
    }

    #[test]
    fn truncated(which in 0usize..3, cut in any::<prop::sample::Index>()) {
        let bytes = examples()[which].clone();
        let end = cut.index(bytes.len());
        assert_no_panic(&bytes[..end]);
    }

    #[test]
    fn structural_characters_swapped(which in 0usize..3, edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![b'{', b'}', b'[', b']', b'"', b',', b':', b'0', b'-', b'n', b't'])), 1..4)) {
        let mut bytes = examples()[which].clone();
        for (index, byte) in edits {
            let at = index.index(bytes.len());
            bytes[at] = byte;
        }
        assert_no_panic(&bytes);
    }
}
