//! The folder tree is the architecture: each crate's `src/` is cut into layers, lowest
//! first, each layer one top-level folder or file. A file may use (`crate::…`, `super::…`)
//! its own layer and the layers below it, never one above; and no two files may use each
//! other, directly or around a circle. `cargo xtask layers` prints every crate's edges; the
//! test at the end holds the rules, naming each edge that breaks one.
//!
//! Read as text, as rust-analyzer's tidy tests read the tree: `use` lines and paths in
//! code, without comments and without `#[cfg(test)]` modules (a test may use anything).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One crate's layers, lowest first. The crate root (`lib.rs`, `main.rs`, `bin/`) is above
/// them all.
pub struct CrateLayers {
    /// The crate's folder, from the workspace root.
    pub folder: &'static str,
    /// Top-level entries of `src/` (a folder or a file, without `.rs`), layer by layer.
    pub layers: &'static [&'static [&'static str]],
}

/// Every crate's layers.
pub const CRATES: &[CrateLayers] = &[
    CrateLayers {
        folder: "shared",
        layers: &[
            &["fields"],
            &["yaml"],
            &["catalog"],
            &["upstream"],
            &["model"],
            &["documents"],
            &["templates"],
            &["rules"],
            &["lint"],
            &["deploy"],
            &["changes"],
        ],
    },
    CrateLayers {
        folder: "backend",
        layers: &[
            &["clock", "work"],
            &["aws"],
            &["deploy"],
            &["http"],
            &["cli"],
        ],
    },
    CrateLayers {
        folder: "frontend",
        layers: &[
            &["codec"],
            &["server"],
            &["state"],
            &["widgets"],
            &["steps"],
            &["page"],
        ],
    },
];

/// One `use` from a file to another, with the path as written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    /// The file that uses, from the crate's `src/`.
    pub from: String,
    /// The file used.
    pub to: String,
    /// The path as written (`crate::model::spec::Spec`).
    pub path: String,
}

/// Every `.rs` file under `src`, as paths relative to it.
fn source_files(src: &Path) -> Vec<String> {
    fn walk(directory: &Path, src: &Path, found: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(directory) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, src, found);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                found.push(
                    path.strip_prefix(src)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    let mut found = Vec::new();
    walk(src, src, &mut found);
    found.sort();
    found
}

/// The code of a file without comments and without `#[cfg(test)]` items.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the next item: to the end of its braces, or to its `;`.
            let mut depth = 0usize;
            let mut opened = false;
            for line in lines.by_ref() {
                let without_comment = line.split("//").next().unwrap_or("");
                for char in without_comment.chars() {
                    match char {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                }
                if (opened && depth == 0) || (!opened && without_comment.trim_end().ends_with(';'))
                {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        // A `//` inside a string (a URL) cuts the line short: it holds no path after it
        // in this codebase's style.
        let without_comment = match line.find(" //") {
            Some(at) => &line[..at],
            None => line,
        };
        code.push_str(without_comment);
        code.push('\n');
    }
    code
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand_group(prefix: &str, group: &str, out: &mut Vec<String>) {
    let mut depth = 0;
    let mut start = 0;
    let mut parts = Vec::new();
    for (index, char) in group.char_indices() {
        match char {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[start..]);
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        match part.find("::{") {
            Some(at) if part.ends_with('}') => expand_group(
                &format!("{prefix}{}::", &part[..at]),
                &part[at + 3..part.len() - 1],
                out,
            ),
            _ => {
                let name = part.split(" as ").next().unwrap_or(part).trim();
                out.push(format!("{prefix}{name}"));
            }
        }
    }
}

/// Every path starting at `crate::` or `super::` in `code`, groups expanded.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    for start_word in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(start_word) {
            let at = from + found;
            from = at + start_word.len();
            let before = at.checked_sub(1).map(|index| bytes[index]);
            if before
                .is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b':')
                && !(start_word == "super::" && code[..at].ends_with("super::"))
            {
                continue;
            }
            // Read the path: identifiers and `::`, or a `{…}` group.
            let mut end = at;
            let mut depth = 0;
            for (offset, char) in code[at..].char_indices() {
                let ok = match char {
                    '{' => {
                        depth += 1;
                        true
                    }
                    '}' if depth > 0 => {
                        depth -= 1;
                        true
                    }
                    _ if depth > 0 => true,
                    ':' => true,
                    char => char.is_ascii_alphanumeric() || char == '_',
                };
                if !ok {
                    break;
                }
                end = at + offset + char.len_utf8();
                if depth == 0 && char == '}' {
                    break;
                }
            }
            let path = code[at..end].trim_end_matches(':');
            match path.find("::{") {
                Some(open) if path.ends_with('}') => expand_group(
                    &format!("{}::", &path[..open]),
                    &path[open + 3..path.len() - 1],
                    &mut paths,
                ),
                _ => paths.push(path.to_owned()),
            }
        }
    }
    paths
}

/// The module path (segments) of a file: `model/spec.rs` is `["model", "spec"]`,
/// `model/mod.rs` is `["model"]`, `lib.rs` is `[]`.
fn module_of(file: &str) -> Vec<String> {
    let without = file.trim_end_matches(".rs");
    let mut segments: Vec<String> = without.split('/').map(str::to_owned).collect();
    if matches!(
        segments.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segments.pop();
    }
    segments
}

/// The file a module path (from the crate root) names: the longest prefix that is a file.
fn file_of(files: &BTreeSet<String>, segments: &[String]) -> Option<String> {
    for length in (1..=segments.len()).rev() {
        let joined = segments[..length].join("/");
        for candidate in [format!("{joined}.rs"), format!("{joined}/mod.rs")] {
            if files.contains(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

/// The crate root's `pub use a::b::{c, d}` re-exports: name → full path.
fn root_reexports(root_code: &str) -> BTreeMap<String, Vec<String>> {
    let mut reexports = BTreeMap::new();
    for statement in root_code.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement.strip_prefix("pub use ") else {
            continue;
        };
        let mut paths = Vec::new();
        match rest.find("::{") {
            Some(open) if rest.ends_with('}') => expand_group(
                &format!("{}::", &rest[..open]),
                &rest[open + 3..rest.len() - 1],
                &mut paths,
            ),
            _ => paths.push(rest.to_owned()),
        }
        for path in paths {
            let segments: Vec<String> = path.split("::").map(str::to_owned).collect();
            if let Some(name) = segments.last() {
                reexports.insert(name.clone(), segments);
            }
        }
    }
    reexports
}

/// Every edge between two files of the crate at `crate_dir`.
pub fn edges(crate_dir: &Path) -> Vec<Edge> {
    let src = crate_dir.join("src");
    let files: BTreeSet<String> = source_files(&src).into_iter().collect();
    let read = |file: &str| std::fs::read_to_string(src.join(file)).unwrap_or_default();
    let root_file = if files.contains("lib.rs") {
        "lib.rs"
    } else {
        "main.rs"
    };
    let reexports = root_reexports(&code_of(&read(root_file)));
    let mut edges = BTreeSet::new();
    for file in &files {
        let here = module_of(file);
        for path in paths_in(&code_of(&read(file))) {
            let mut segments: Vec<String> = path.split("::").map(str::to_owned).collect();
            let mut absolute: Vec<String> = match segments.first().map(String::as_str) {
                Some("crate") => Vec::new(),
                Some("super") => {
                    let mut base = here.clone();
                    while segments.first().map(String::as_str) == Some("super") {
                        base.pop();
                        segments.remove(0);
                    }
                    segments.insert(0, String::new());
                    base
                }
                _ => continue,
            };
            absolute.extend(
                segments
                    .into_iter()
                    .skip(1)
                    .filter(|segment| !segment.is_empty()),
            );
            if absolute.first().map(String::as_str) == Some("self") {
                continue;
            }
            let target = match file_of(&files, &absolute) {
                Some(target) => target,
                None => match absolute.first().and_then(|name| reexports.get(name)) {
                    Some(full) => file_of(&files, full).unwrap_or_else(|| root_file.to_owned()),
                    None => root_file.to_owned(),
                },
            };
            // A module may use its parent's items (`super::…` in `rules/cluster.rs`): that
            // is no edge of the tree, the parent holds the child.
            let target_module = module_of(&target);
            let to_ancestor = !target_module.is_empty()
                && target_module.len() < here.len()
                && here.starts_with(&target_module);
            if &target != file && !to_ancestor {
                edges.insert(Edge {
                    from: file.clone(),
                    to: target,
                    path,
                });
            }
        }
    }
    edges.into_iter().collect()
}

/// The layer of a file: its index in `layers`, or `layers.len()` for the crate root.
fn layer_of(layers: &[&[&str]], file: &str) -> usize {
    let top = file
        .split('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".rs");
    layers
        .iter()
        .position(|layer| layer.contains(&top))
        .unwrap_or(layers.len())
}

/// What breaks the rules in one crate: uses of a higher layer, files that belong to no
/// layer, and circles of files.
pub fn problems(crate_dir: &Path, layers: &[&[&str]]) -> Vec<String> {
    let src = crate_dir.join("src");
    let files = source_files(&src);
    let edges = edges(crate_dir);
    let mut problems = Vec::new();
    let is_root = |file: &str| matches!(file, "lib.rs" | "main.rs") || file.starts_with("bin/");
    for file in &files {
        if !is_root(file) && layer_of(layers, file) == layers.len() {
            problems.push(format!(
                "{file} is in no layer: add its folder to xtask/src/layers.rs"
            ));
        }
    }
    let name = |index: usize| -> String {
        layers
            .get(index)
            .map_or("the crate root".to_owned(), |layer| layer.join(", "))
    };
    for edge in &edges {
        let (from, to) = (layer_of(layers, &edge.from), layer_of(layers, &edge.to));
        if to > from {
            problems.push(format!(
                "{} (layer {}) uses {} of {} (layer {}), a higher layer",
                edge.from,
                name(from),
                edge.path,
                edge.to,
                name(to)
            ));
        }
    }
    for circle in circles(&edges) {
        let inside: Vec<String> = edges
            .iter()
            .filter(|edge| circle.contains(&edge.from) && circle.contains(&edge.to))
            .map(|edge| format!("{} -> {} ({})", edge.from, edge.to, edge.path))
            .collect();
        problems.push(format!(
            "import circle of {} files: {}",
            circle.len(),
            inside.join("; ")
        ));
    }
    problems
}

/// Strongly connected sets of more than one file (Tarjan's algorithm).
fn circles(edges: &[Edge]) -> Vec<BTreeSet<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for edge in edges {
        graph.entry(&edge.from).or_default().push(&edge.to);
        graph.entry(&edge.to).or_default();
    }
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(node: &'a str, graph: &BTreeMap<&'a str, Vec<&'a str>>, state: &mut State<'a>) {
        state.index.insert(node, state.next);
        state.low.insert(node, state.next);
        state.next += 1;
        state.stack.push(node);
        state.on_stack.insert(node);
        for &next in &graph[node] {
            if !state.index.contains_key(next) {
                visit(next, graph, state);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = BTreeSet::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.insert(top.to_owned());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    let nodes: Vec<&str> = graph.keys().copied().collect();
    for node in nodes {
        if !state.index.contains_key(node) {
            visit(node, &graph, &mut state);
        }
    }
    state.found
}

/// `cargo xtask layers`: each crate's layers and the edges between its files.
pub fn print(root: &Path) -> Vec<String> {
    let mut all = Vec::new();
    for krate in CRATES {
        let directory: PathBuf = root.join(krate.folder);
        println!(
            "{}: {}",
            krate.folder,
            krate
                .layers
                .iter()
                .map(|layer| layer.join("+"))
                .collect::<Vec<_>>()
                .join(" < ")
        );
        for edge in edges(&directory) {
            println!("  {} -> {}  ({})", edge.from, edge.to, edge.path);
        }
        all.extend(problems(&directory, krate.layers));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_expand_and_super_is_relative() {
        let code = "use crate::{model::spec::{Spec, NodeGroup}, yaml::text};\nfn f() { super::helper(); crate::catalog::find(); }\n";
        let paths = paths_in(code);
        assert_eq!(
            paths,
            [
                "crate::model::spec::Spec",
                "crate::model::spec::NodeGroup",
                "crate::yaml::text",
                "crate::catalog::find",
                "super::helper",
            ]
        );
        assert_eq!(
            code_of(
                "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n// crate::c\n"
            ),
            "use crate::a;\n"
        );
    }

    #[test]
    fn a_circle_and_an_upward_use_are_found() {
        let edge = |from: &str, to: &str| Edge {
            from: from.into(),
            to: to.into(),
            path: String::new(),
        };
        let found = circles(&[
            edge("a.rs", "b.rs"),
            edge("b.rs", "c.rs"),
            edge("c.rs", "a.rs"),
            edge("c.rs", "d.rs"),
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].len(), 3);
        assert_eq!(layer_of(&[&["yaml"], &["model"]], "model/spec.rs"), 1);
        assert_eq!(layer_of(&[&["yaml"], &["model"]], "lib.rs"), 2);
    }

    /// The rule itself: every crate's tree keeps its layers and has no circle.
    #[test]
    fn every_crate_keeps_its_layers_and_has_no_import_circle() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut problems = Vec::new();
        for krate in CRATES {
            problems.extend(
                super::problems(&root.join(krate.folder), krate.layers)
                    .into_iter()
                    .map(|problem| format!("{}: {problem}", krate.folder)),
            );
        }
        assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    }
}
