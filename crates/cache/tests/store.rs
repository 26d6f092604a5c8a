//! The store over a cache directory: listing with unreadable and invalid files, confinement
//! of names, atomic writes, and errors for files that are not cache files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use retrace_cache::CacheError;
use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_test_support::askui_examples_dir;

fn store_with_examples() -> (tempfile::TempDir, CacheStore) {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "ownership_open_chapter.json",
        "std_search_error_code.json",
        "legacy_v0_24_bare_list.json",
    ] {
        std::fs::copy(askui_examples_dir().join(name), dir.path().join(name)).unwrap();
    }
    let store = CacheStore::new(dir.path());
    (dir, store)
}

#[test]
fn list_reports_unreadable_files_and_hides_invalid_ones() {
    let (dir, store) = store_with_examples();
    std::fs::write(dir.path().join("broken.json"), b"{\"metadata\": ").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"not a cache file").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub").join("nested.json"), b"[]").unwrap();
    store
        .update(
            "std_search_error_code",
            &MetadataUpdate::Invalidate {
                reason: "old".into(),
            },
            &Validators::none(),
        )
        .unwrap();

    let listed = store.list(false).unwrap();
    let names: Vec<&str> = listed.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["legacy_v0_24_bare_list.json", "ownership_open_chapter.json"]
    );
    assert_eq!(listed.hidden_invalid, 1);
    assert_eq!(listed.problems.len(), 1);
    let problem = listed.problems[0].to_string();
    assert!(
        problem.contains("broken.json") && problem.contains("invalid JSON at line 1"),
        "{problem}"
    );

    let all = store.list(true).unwrap();
    assert_eq!(all.entries.len(), 3);
    assert_eq!(all.hidden_invalid, 0);
}

#[test]
fn missing_directory_lists_empty() {
    let dir = tempfile::tempdir().unwrap();
    let listed = CacheStore::new(dir.path().join("nope")).list(true).unwrap();
    assert!(listed.entries.is_empty() && listed.problems.is_empty());
}

#[test]
fn names_that_lead_outside_are_refused() {
    let (dir, store) = store_with_examples();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("x.json");
    std::fs::copy(
        askui_examples_dir().join("ownership_open_chapter.json"),
        &secret,
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, dir.path().join("link.json")).unwrap();

    let absolute = secret.display().to_string();
    for (name, reason) in [
        ("../x.json", "`..` would lead out of the cache directory"),
        (absolute.as_str(), "absolute paths are not allowed"),
        (
            "link.json",
            "symlink that leads outside the cache directory",
        ),
        ("link", "symlink that leads outside the cache directory"),
    ] {
        let error = store.read(name).unwrap_err();
        assert!(
            matches!(error, CacheError::NameRefused { .. }),
            "{name}: {error}"
        );
        assert!(error.to_string().contains(reason), "{name}: {error}");
        let error = store
            .write(name, &store.read("ownership_open_chapter").unwrap())
            .unwrap_err();
        assert!(error.to_string().contains(reason), "{name}: {error}");
    }
    // The file outside was not touched, and the link is reported by list, not followed.
    assert_eq!(
        std::fs::read(&secret).unwrap(),
        std::fs::read(askui_examples_dir().join("ownership_open_chapter.json")).unwrap()
    );
    let listed = store.list(true).unwrap();
    assert!(
        listed
            .problems
            .iter()
            .any(|p| p.to_string().contains("link.json"))
    );
}

#[test]
fn write_and_write_new_round_trip() {
    let (dir, store) = store_with_examples();
    let file = store.read("ownership_open_chapter").unwrap();
    let path = store.write("copy", &file).unwrap();
    assert_eq!(path, dir.path().join("copy.json"));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(dir.path().join("ownership_open_chapter.json")).unwrap()
    );
    let first = store.write_new(&file).unwrap();
    let second = store.write_new(&file).unwrap();
    assert_ne!(first, second);
    for path in [&first, &second] {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let digits = name
            .strip_prefix("cached_trajectory_")
            .unwrap()
            .strip_suffix(".json")
            .unwrap();
        assert_eq!(digits.len(), 20, "{name}");
        assert!(digits.bytes().all(|b| b.is_ascii_digit()), "{name}");
        assert_eq!(store.read(&name).unwrap(), file);
    }
}

#[test]
fn not_cache_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = CacheStore::new(dir.path()).with_max_file_size(1024);
    std::fs::create_dir(dir.path().join("adir.json")).unwrap();
    std::fs::write(dir.path().join("empty.json"), b"").unwrap();
    std::fs::File::create(dir.path().join("huge.json"))
        .unwrap()
        .set_len(200 * 1024 * 1024)
        .unwrap();
    let cases = [
        ("adir", "adir.json: is a directory, not a cache file"),
        ("empty", "empty.json: file is empty"),
        (
            "huge",
            "huge.json: file is 209715200 bytes, larger than the limit of 1024 bytes",
        ),
        ("absent", "absent.json: cannot open"),
    ];
    for (name, want) in cases {
        let error = store.read(name).unwrap_err().to_string();
        assert!(error.contains(want), "{name}: {error}");
    }
    // An update of a broken file is refused and leaves it as it was.
    let error = store
        .update("empty", &MetadataUpdate::Revalidate, &Validators::none())
        .unwrap_err();
    assert!(error.to_string().contains("file is empty"), "{error}");
    assert_eq!(std::fs::read(dir.path().join("empty.json")).unwrap(), b"");
}

#[test]
fn updates_through_a_symlink_inside_keep_the_link() {
    let (dir, store) = store_with_examples();
    std::os::unix::fs::symlink(
        dir.path().join("ownership_open_chapter.json"),
        dir.path().join("alias.json"),
    )
    .unwrap();
    store
        .update(
            "alias",
            &MetadataUpdate::Invalidate {
                reason: "via alias".into(),
            },
            &Validators::none(),
        )
        .unwrap();
    assert!(
        std::fs::symlink_metadata(dir.path().join("alias.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let target = store.read("ownership_open_chapter").unwrap();
    assert_eq!(
        target.metadata.invalidation_reason.as_deref(),
        Some("via alias")
    );
}

#[test]
fn updating_a_missing_file_leaves_no_lock_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let store = CacheStore::new(dir.path());
    let error = store
        .update("absent", &MetadataUpdate::Revalidate, &Validators::none())
        .unwrap_err();
    assert!(
        error.to_string().contains("absent.json: cannot open"),
        "{error}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
