//! The CLI parses and prints (issue 38): `retrace-cli` depends on no workspace crate but
//! runner, report and protocol (by `cargo metadata`), and reaches no other one through them,
//! because runner and report re-export nothing of another workspace crate but protocol (no
//! `pub use retrace_<crate>::...`, no `pub type X = retrace_<crate>::...`), which their own
//! sources say.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use syn::visit::Visit;

/// The workspace crates the CLI may use.
const CLI_USES: [&str; 3] = ["retrace-protocol", "retrace-report", "retrace-runner"];

/// The crates the CLI reaches the rest through, and what they may re-export besides
/// themselves.
const FRONT_CRATES: [&str; 2] = ["runner", "report"];
const SHARED_WITH_THE_CLI: &str = "retrace_protocol";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `package`'s normal dependencies (dev and build dependencies aside) among the workspace's
/// crates, by `cargo metadata` run in `root`.
fn workspace_dependencies_of(root: &Path, package: &str) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<&str> = packages
        .iter()
        .map(|package| package["name"].as_str().unwrap())
        .collect();
    let found = packages
        .iter()
        .find(|candidate| candidate["name"] == package)
        .unwrap_or_else(|| panic!("no package {package} in the workspace"));
    found["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|dependency| dependency["kind"].is_null())
        .map(|dependency| dependency["name"].as_str().unwrap())
        .filter(|name| names.contains(name))
        .map(str::to_owned)
        .collect()
}

/// Finds public re-exports and type aliases of workspace crates other than `own` and
/// protocol.
struct ReExports<'a> {
    own: &'a str,
    file: String,
    found: Vec<String>,
}

impl ReExports<'_> {
    fn foreign(&self, name: &str) -> bool {
        name.starts_with("retrace_") && name != self.own && name != SHARED_WITH_THE_CLI
    }

    /// The first name of each path in `tree` (a group holds several).
    fn roots(tree: &syn::UseTree, into: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(path) => into.push(path.ident.to_string()),
            syn::UseTree::Name(name) => into.push(name.ident.to_string()),
            syn::UseTree::Rename(rename) => into.push(rename.ident.to_string()),
            syn::UseTree::Group(group) => group.items.iter().for_each(|t| Self::roots(t, into)),
            syn::UseTree::Glob(_) => {}
        }
    }
}

/// The first segment of every type path in a type.
struct TypeRoots(Vec<String>);

impl<'ast> Visit<'ast> for TypeRoots {
    fn visit_type_path(&mut self, path: &'ast syn::TypePath) {
        if let Some(first) = path.path.segments.first() {
            self.0.push(first.ident.to_string());
        }
        syn::visit::visit_type_path(self, path);
    }
}

impl<'ast> Visit<'ast> for ReExports<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if matches!(item.vis, syn::Visibility::Public(_)) {
            let mut roots = Vec::new();
            Self::roots(&item.tree, &mut roots);
            roots.retain(|root| self.foreign(root));
            for root in roots {
                self.found
                    .push(format!("{}: pub use {root}::...", self.file));
            }
        }
    }

    fn visit_item_type(&mut self, item: &'ast syn::ItemType) {
        if matches!(item.vis, syn::Visibility::Public(_)) {
            let mut roots = TypeRoots(Vec::new());
            roots.visit_type(&item.ty);
            let mut roots = roots.0;
            roots.retain(|root| self.foreign(root));
            for root in roots {
                self.found.push(format!(
                    "{}: pub type {} = {root}::...",
                    self.file, item.ident
                ));
            }
        }
        syn::visit::visit_item_type(self, item);
    }

    fn visit_item_extern_crate(&mut self, item: &'ast syn::ItemExternCrate) {
        if matches!(item.vis, syn::Visibility::Public(_)) && self.foreign(&item.ident.to_string()) {
            self.found
                .push(format!("{}: pub extern crate {}", self.file, item.ident));
        }
    }
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

/// Every public re-export (or alias) of another workspace crate in the sources of
/// `crates/<name>/src` under `root`.
fn foreign_re_exports(root: &Path, name: &str) -> Vec<String> {
    let own = format!("retrace_{name}");
    let mut files = Vec::new();
    rust_files(&root.join("crates").join(name).join("src"), &mut files);
    files.sort();
    let mut finder = ReExports {
        own: &own,
        file: String::new(),
        found: Vec::new(),
    };
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let syntax = syn::parse_file(&text).unwrap_or_else(|error| panic!("{file:?}: {error}"));
        finder.file = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        finder.visit_file(&syntax);
    }
    finder.found
}

#[test]
fn the_cli_depends_on_runner_report_and_protocol_only() {
    let uses = workspace_dependencies_of(&repo_root(), "retrace-cli");
    let allowed: BTreeSet<String> = CLI_USES.iter().map(ToString::to_string).collect();
    assert_eq!(
        uses, allowed,
        "crates/cli/Cargo.toml: the CLI parses and prints; its work belongs in the runner \
         (or, when it is presentation, in report). Tests may use more as dev-dependencies."
    );
}

#[test]
fn runner_and_report_re_export_no_other_workspace_crate() {
    let root = repo_root();
    let found: Vec<String> = FRONT_CRATES
        .iter()
        .flat_map(|name| foreign_re_exports(&root, name))
        .collect();
    assert!(
        found.is_empty(),
        "the CLI would reach these crates through runner or report; give them types of their \
         own instead:\n{}",
        found.join("\n")
    );
}

/// The scan sees what it looks for: a re-export, a group, a rename and an alias in a copy of
/// a crate's source; protocol and the crate itself are allowed.
#[test]
fn the_scan_finds_every_form_of_re_export() {
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("crates/runner/src/deep");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("mod.rs"),
        "pub use retrace_cache::CacheFile;\n\
         pub use {retrace_vision::Image, std::path::Path};\n\
         pub use retrace_llm as llm;\n\
         pub type Spec = Option<retrace_check::CheckSpec>;\n\
         pub use retrace_protocol::Message;\n\
         pub use retrace_runner::Job;\n\
         pub(crate) use retrace_drive::Backend;\n\
         use retrace_demo::Latency;\n\
         mod inner { pub use retrace_schema::SchemaKind; }\n",
    )
    .unwrap();
    let found = foreign_re_exports(root.path(), "runner");
    let roots: Vec<&str> = found
        .iter()
        .map(|line| {
            line.rsplit(' ')
                .find(|w| w.starts_with("retrace_"))
                .unwrap()
        })
        .collect();
    assert_eq!(
        roots,
        [
            "retrace_cache::...",
            "retrace_vision::...",
            "retrace_llm::...",
            "retrace_check::...",
            "retrace_schema::..."
        ],
        "{found:?}"
    );
}
