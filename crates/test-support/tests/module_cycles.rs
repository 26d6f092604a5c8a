//! No module cycles, held by a test: inside each crate, the graph "module A uses an item
//! defined in module B" has no cycle. A cycle means two modules are one job split in two, or
//! that a parent module holds items its children need (move them to a module of their own).
//!
//! Modules are the files reached from `lib.rs`/`main.rs` through `mod` declarations that are
//! not `#[cfg(test)]`; inline modules belong to their file. An edge comes from every `use`
//! and every path (`crate::a::B`, `super::B`, `child::B`, also inside macro calls), resolved
//! through the `use` declarations of the module it lands in, so a re-export leads to the
//! module that defines the item.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;

use syn::visit::Visit;

/// A module's path inside its crate (`[]` is the crate root).
type ModulePath = Vec<String>;

/// Cycles left to fold, one line per cycle: the crate, then its modules (none left; the list
/// stays for the day a fold must wait). The test fails on a cycle not listed here, and on a
/// listed one that is gone (take it off the list).
const KNOWN_CYCLES: &[&str] = &[];

struct Module {
    syntax: syn::File,
    /// Names a `use` brings into the module, with the path they name (as written).
    imports: BTreeMap<String, Vec<String>>,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn is_cfg_test(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string().trim() == "test")
    })
}

fn path_attribute(attributes: &[syn::Attribute]) -> Option<String> {
    attributes.iter().find_map(|attribute| {
        let name_value = attribute.meta.require_name_value().ok()?;
        if !attribute.path().is_ident("path") {
            return None;
        }
        match &name_value.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        }
    })
}

/// Reads the module at `file` and, through its `mod` declarations, every module below it.
fn read_tree(
    file: &Path,
    module: ModulePath,
    owns_directory: bool,
    modules: &mut BTreeMap<ModulePath, Module>,
) {
    let text = std::fs::read_to_string(file).unwrap();
    let syntax = syn::parse_file(&text).unwrap_or_else(|error| panic!("{file:?}: {error}"));
    let directory = if owns_directory {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    };
    for item in &syntax.items {
        let syn::Item::Mod(declaration) = item else {
            continue;
        };
        if declaration.content.is_some() || is_cfg_test(&declaration.attrs) {
            continue;
        }
        let name = declaration.ident.to_string();
        let mut child = module.clone();
        child.push(name.clone());
        let (child_file, child_owns) = match path_attribute(&declaration.attrs) {
            Some(path) => (file.parent().unwrap().join(path), true),
            None => {
                let flat = directory.join(format!("{name}.rs"));
                if flat.is_file() {
                    (flat, false)
                } else {
                    (directory.join(&name).join("mod.rs"), true)
                }
            }
        };
        read_tree(&child_file, child, child_owns, modules);
    }
    let mut imports = BTreeMap::new();
    collect_imports(&syntax.items, &mut imports);
    modules.insert(module, Module { syntax, imports });
}

fn collect_imports(items: &[syn::Item], imports: &mut BTreeMap<String, Vec<String>>) {
    for item in items {
        if let syn::Item::Use(declaration) = item
            && !is_cfg_test(&declaration.attrs)
        {
            flatten_use(&declaration.tree, Vec::new(), &mut |alias, path| {
                imports.insert(alias, path);
            });
        }
    }
}

/// Calls `found(alias, path)` for every name a use tree brings in (globs give `*`).
fn flatten_use(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    found: &mut dyn FnMut(String, Vec<String>),
) {
    let extend = |name: &syn::Ident| {
        let mut path = prefix.clone();
        path.push(name.to_string());
        path
    };
    match tree {
        syn::UseTree::Path(step) => flatten_use(&step.tree, extend(&step.ident), found),
        syn::UseTree::Name(name) if name.ident == "self" => {
            if let Some(last) = prefix.last() {
                found(last.clone(), prefix.clone());
            }
        }
        syn::UseTree::Name(name) => found(name.ident.to_string(), extend(&name.ident)),
        syn::UseTree::Rename(rename) => found(rename.rename.to_string(), extend(&rename.ident)),
        syn::UseTree::Glob(_) => found("*".to_owned(), prefix),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten_use(tree, prefix.clone(), found);
            }
        }
    }
}

/// Every path a module writes (as written), with how deep in inline modules it sits.
#[derive(Default)]
struct PathCollector {
    depth: usize,
    paths: Vec<(usize, Vec<String>)>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if is_cfg_test(&module.attrs) {
            return;
        }
        self.depth += 1;
        syn::visit::visit_item_mod(self, module);
        self.depth -= 1;
    }

    fn visit_item_fn(&mut self, function: &'ast syn::ItemFn) {
        if !is_cfg_test(&function.attrs) {
            syn::visit::visit_item_fn(self, function);
        }
    }

    fn visit_item_use(&mut self, declaration: &'ast syn::ItemUse) {
        if is_cfg_test(&declaration.attrs) {
            return;
        }
        let depth = self.depth;
        flatten_use(&declaration.tree, Vec::new(), &mut |_, path| {
            self.paths.push((depth, path));
        });
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.paths.push((self.depth, segments));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, invocation: &'ast syn::Macro) {
        let text = invocation.tokens.to_string().replace(" :: ", "::");
        for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            let segments: Vec<String> = word.split("::").map(str::to_owned).collect();
            if segments.len() > 1 && segments.iter().all(|s| !s.is_empty()) {
                self.paths.push((self.depth, segments));
            }
        }
        syn::visit::visit_macro(self, invocation);
    }
}

/// The crate-absolute path a path written in `module` (at `depth` inline modules) names, or
/// `None` for a path into another crate or a local name.
fn absolute(
    modules: &BTreeMap<ModulePath, Module>,
    module: &[String],
    depth: usize,
    written: &[String],
) -> Option<Vec<String>> {
    let (first, rest) = written.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" if depth == 0 => module.to_vec(),
        "super" if depth == 0 => module[..module.len().checked_sub(1)?].to_vec(),
        "self" | "super" => module.to_vec(), // inside an inline module: still this file
        child => {
            let mut path = module.to_vec();
            path.push(child.to_owned());
            if !modules.contains_key(&path) {
                return None; // another crate's path, or a local name
            }
            path.extend(rest.iter().cloned());
            return Some(path);
        }
    };
    let mut rest = rest.iter().peekable();
    while rest.peek().is_some_and(|segment| *segment == "super") {
        base.pop();
        rest.next();
    }
    base.extend(rest.cloned());
    Some(base)
}

/// The module that defines what `path` names, following `use` re-exports.
fn defining_module(
    modules: &BTreeMap<ModulePath, Module>,
    path: &[String],
    hops: usize,
) -> Option<ModulePath> {
    let split = (0..=path.len())
        .rev()
        .find(|&k| modules.contains_key(&path[..k]))?;
    let (module, rest) = path.split_at(split);
    let imported = rest
        .first()
        .and_then(|name| modules[module].imports.get(name));
    if let Some(imported) = imported
        && hops < 8
        && let Some(target) = absolute(modules, module, 0, imported)
    {
        let full = [target, rest[1..].to_vec()].concat();
        return defining_module(modules, &full, hops + 1);
    }
    Some(module.to_vec())
}

fn edges(modules: &BTreeMap<ModulePath, Module>) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let mut graph: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (module, contents) in modules {
        let mut collector = PathCollector::default();
        collector.visit_file(&contents.syntax);
        let targets = graph.entry(module.clone()).or_default();
        for (depth, written) in &collector.paths {
            let Some(path) = absolute(modules, module, *depth, written) else {
                continue;
            };
            if let Some(target) = defining_module(modules, &path, 0)
                && &target != module
            {
                targets.insert(target);
            }
        }
    }
    graph
}

/// The strongly connected sets of more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<ModulePath>> {
    struct State<'g> {
        graph: &'g BTreeMap<ModulePath, BTreeSet<ModulePath>>,
        index: BTreeMap<&'g ModulePath, usize>,
        low: BTreeMap<&'g ModulePath, usize>,
        stack: Vec<&'g ModulePath>,
        found: Vec<Vec<ModulePath>>,
    }
    fn visit<'g>(state: &mut State<'g>, node: &'g ModulePath) {
        let number = state.index.len();
        state.index.insert(node, number);
        state.low.insert(node, number);
        state.stack.push(node);
        for next in &state.graph[node] {
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[next].min(state.low[node]);
                state.low.insert(node, low);
            } else if state.stack.contains(&next) {
                let low = state.index[next].min(state.low[node]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let at = state
                .stack
                .iter()
                .rposition(|member| *member == node)
                .unwrap();
            let set: Vec<ModulePath> = state.stack.drain(at..).cloned().collect();
            if set.len() > 1 {
                state.found.push(set);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

fn module_name(module: &ModulePath) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

/// One line naming the cycle, then its edges (indented), for the failure message.
fn describe(
    krate: &str,
    mut set: Vec<ModulePath>,
    graph: &BTreeMap<ModulePath, BTreeSet<ModulePath>>,
) -> (String, String) {
    set.sort();
    let names: Vec<String> = set.iter().map(module_name).collect();
    let mut edges = String::new();
    for from in &set {
        for to in graph[from].iter().filter(|to| set.contains(to)) {
            edges += &format!("\n      {} -> {}", module_name(from), module_name(to));
        }
    }
    (format!("{krate}: {}", names.join(" <-> ")), edges)
}

/// The crate's cycles: each named on one line, with its edges.
fn crate_cycles_with_edges(krate: &Path) -> Vec<(String, String)> {
    let name = krate.file_name().unwrap().to_string_lossy().into_owned();
    let mut found = Vec::new();
    for root in ["lib.rs", "main.rs"] {
        let file = krate.join("src").join(root);
        if !file.is_file() {
            continue;
        }
        let mut modules = BTreeMap::new();
        read_tree(&file, Vec::new(), true, &mut modules);
        let graph = edges(&modules);
        found.extend(
            cycles(&graph)
                .into_iter()
                .map(|set| describe(&name, set, &graph)),
        );
    }
    found
}

fn crate_cycles(krate: &Path) -> Vec<String> {
    crate_cycles_with_edges(krate)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn no_crate_has_a_module_cycle() {
    let mut edges_of = BTreeMap::new();
    for krate in std::fs::read_dir(repo_root().join("crates")).unwrap() {
        edges_of.extend(crate_cycles_with_edges(&krate.unwrap().path()));
    }
    let found: BTreeSet<String> = edges_of.keys().cloned().collect();
    let known: BTreeSet<String> = KNOWN_CYCLES.iter().map(|line| (*line).to_owned()).collect();
    let new: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "module cycles (a module uses an item of another that uses it back):\n  {}\n\
         listed in KNOWN_CYCLES but gone (take them off):\n  {}",
        new.iter()
            .map(|name| format!("{name}{}", edges_of[*name]))
            .collect::<Vec<_>>()
            .join("\n  "),
        gone.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
    );
}

/// The scan sees a cycle when there is one: a parent and child module that use each other.
#[test]
fn a_parent_and_child_that_use_each_other_are_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("shapes")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod shapes;\npub use shapes::Square;\n").unwrap();
    std::fs::write(
        src.join("shapes/mod.rs"),
        "mod square;\npub use square::Square;\npub struct Side(pub u32);\n",
    )
    .unwrap();
    std::fs::write(
        src.join("shapes/square.rs"),
        "pub struct Square(pub super::Side);\n",
    )
    .unwrap();
    assert_eq!(
        crate_cycles(dir.path()),
        [format!(
            "{}: shapes <-> shapes::square",
            dir.path().file_name().unwrap().to_string_lossy()
        )]
    );
    // The shared item in a module of its own breaks the cycle.
    std::fs::write(
        src.join("shapes/mod.rs"),
        "mod side;\nmod square;\npub use side::Side;\npub use square::Square;\n",
    )
    .unwrap();
    std::fs::write(src.join("shapes/side.rs"), "pub struct Side(pub u32);\n").unwrap();
    assert_eq!(crate_cycles(dir.path()), Vec::<String>::new());
}
