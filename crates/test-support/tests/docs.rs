//! The documentation stays true: every relative link in the README, CONTRIBUTING.md and the
//! book under `docs/` reaches a file (and a heading, for `#anchors`), every page of the book
//! is in its `SUMMARY.md`, the README stays a front door (under 150 lines), the architecture
//! page's crate table says what `cargo metadata` says, and `mdbook build docs` succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The markdown files the link check reads: the README, CONTRIBUTING.md, the CHANGELOG and
/// every page of the book.
fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![
        root.join("README.md"),
        root.join("CONTRIBUTING.md"),
        root.join("CHANGELOG.md"),
    ];
    files.extend(book_pages());
    files
}

fn book_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo_root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages
}

/// The text of `markdown` outside fenced code blocks and inline code spans, where links are
/// links.
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        for ch in line.chars() {
            if ch == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(ch);
            }
        }
        out.push('\n');
    }
    out
}

/// Every link target `[text](target)` in `markdown`'s prose.
fn link_targets(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    let mut targets = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    targets
}

/// The anchors mdBook and GitHub give `markdown`'s headings: lower case, spaces as `-`,
/// punctuation other than `-` and `_` dropped.
fn heading_anchors(markdown: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let anchor: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        anchors.insert(anchor);
    }
    anchors
}

/// The broken links of one file, each as `FILE: TARGET: PROBLEM`.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut broken = Vec::new();
    for target in link_targets(&text) {
        if target.starts_with("http://") || target.starts_with("https://") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        if !resolved.exists() {
            broken.push(format!("{}: {target}: no such file", file.display()));
            continue;
        }
        if let Some(anchor) = anchor {
            let linked = std::fs::read_to_string(&resolved).unwrap_or_default();
            if !heading_anchors(&linked).contains(anchor) {
                broken.push(format!("{}: {target}: no such heading", file.display()));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_docs_reaches_its_file_and_heading() {
    let broken: Vec<String> = markdown_files()
        .iter()
        .flat_map(|file| broken_links(file))
        .collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_finds_a_missing_file_and_a_missing_heading() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(
        dir.path().join("other.md"),
        "# Other page\n\n## Real part\n",
    )
    .unwrap();
    std::fs::write(
        &page,
        "See [there](other.md#real-part), [gone](missing.md), [wrong](other.md#no-part),\n\
         `[code](ignored.md)` and a [site](https://example.com/).\n\
         ```sh\n[fenced](also-ignored.md)\n```\n",
    )
    .unwrap();
    let broken = broken_links(&page);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(
        broken[0].ends_with("missing.md: no such file"),
        "{broken:?}"
    );
    assert!(
        broken[1].ends_with("other.md#no-part: no such heading"),
        "{broken:?}"
    );
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let summary = std::fs::read_to_string(repo_root().join("docs/SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = link_targets(&summary).into_iter().collect();
    let missing: Vec<String> = book_pages()
        .iter()
        .map(|page| page.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "SUMMARY.md" && !listed.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "pages not in docs/SUMMARY.md: {missing:?}"
    );
}

#[test]
fn the_readme_is_a_front_door_under_150_lines() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 150,
        "README.md has {lines} lines; the rest belongs in docs/"
    );
}

/// Each workspace crate and the workspace crates it depends on (dev-dependencies aside), by
/// `cargo metadata`.
fn workspace_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<String> = packages
        .iter()
        .map(|package| package["name"].as_str().unwrap().to_string())
        .collect();
    packages
        .iter()
        .map(|package| {
            let uses = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|dependency| dependency["kind"].is_null())
                .map(|dependency| dependency["name"].as_str().unwrap().to_string())
                .filter(|name| names.contains(name))
                .collect();
            (package["name"].as_str().unwrap().to_string(), uses)
        })
        .collect()
}

/// The crate table of `docs/architecture.md`: each row's crate and its "uses" column.
fn architecture_table() -> BTreeMap<String, BTreeSet<String>> {
    let page = std::fs::read_to_string(repo_root().join("docs/architecture.md")).unwrap();
    page.lines()
        .filter(|line| line.starts_with("| `retrace-"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            let name = cells[0].trim().trim_matches('`').to_string();
            let uses = cells
                .last()
                .unwrap()
                .split(',')
                .map(|used| used.trim().trim_matches('`').to_string())
                .filter(|used| !used.is_empty())
                .collect();
            (name, uses)
        })
        .collect()
}

#[test]
fn the_architecture_crate_table_matches_cargo_metadata() {
    let table = architecture_table();
    let actual = workspace_dependencies();
    let documented: BTreeSet<&String> = table.keys().collect();
    let crates: BTreeSet<&String> = actual.keys().collect();
    assert_eq!(
        documented, crates,
        "docs/architecture.md's crate table lists other crates than the workspace has"
    );
    for (name, uses) in &actual {
        assert_eq!(
            &table[name], uses,
            "docs/architecture.md: the `uses` column of {name} differs from Cargo.toml"
        );
    }
}

/// End-to-end tier: needs mdBook installed.
#[cfg(feature = "e2e")]
#[test]
fn the_book_builds_with_mdbook() {
    retrace_test_support::require!(MdBook);
    let mdbook = retrace_test_support::requirements::Need::MdBook
        .find()
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(mdbook)
        .args(["build", "docs", "--dest-dir"])
        .arg(out.path())
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "mdbook build docs failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.path().join("architecture.html").exists());
}
