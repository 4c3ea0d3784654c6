//! The code map's rules, checked on the source (docs/internals.md, ARCHITECTURE.md): no
//! file of `src/` over 1,200 lines, `main.rs` only parses arguments (under 400 lines),
//! nothing refers outside the repository, and no import cycle between the files of `src/`.
//!
//! The import graph is read from the text: file A imports file B when A names an item that
//! B defines, through a `use` path or a `crate::`/`super::`/`self::` path in its code, or
//! through a module it imported by name (`use super::ops;` then `ops::binary`). A path is
//! resolved segment by segment through the module tree to the file that defines its item
//! (a re-exported item to the file below that defines it). A module's `pub use` of its own
//! children's items is its face, not an import (its code does not use them). Unit tests
//! (`#[cfg(test)]` blocks) and glob imports are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 1200;
const MAX_MAIN_LINES: usize = 400;

fn sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("src"), &mut out);
    out.sort();
    out
}

#[test]
fn no_source_file_is_over_1200_lines_and_main_only_parses_arguments() {
    let mut long = Vec::new();
    for p in sources() {
        let n = std::fs::read_to_string(&p).unwrap().lines().count();
        let max = if p == Path::new("src/main.rs") {
            MAX_MAIN_LINES
        } else {
            MAX_LINES
        };
        if n > max {
            long.push(format!("{} has {n} lines (at most {max})", p.display()));
        }
    }
    assert!(long.is_empty(), "split by concern:\n{}", long.join("\n"));
}

#[test]
fn nothing_refers_outside_the_repository() {
    let out = std::process::Command::new("git")
        .args(["grep", "-n", "-I", "-e", "\\.\\./shared", "--", "."])
        .output()
        .expect("git runs");
    let hits = String::from_utf8_lossy(&out.stdout);
    assert!(
        hits.trim().is_empty(),
        "references outside the repo:\n{hits}"
    );
}

/// A source file as the graph sees it: its module path and its text without unit tests.
struct File {
    path: String,
    module: Vec<String>,
    text: String,
}

fn load() -> Vec<File> {
    sources()
        .into_iter()
        .map(|p| {
            let rel: Vec<String> = p
                .strip_prefix("src")
                .unwrap()
                .with_extension("")
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            let module = match rel.last().map(String::as_str) {
                Some("lib") | Some("main") if rel.len() == 1 => vec![],
                Some("mod") => rel[..rel.len() - 1].to_vec(),
                _ => rel,
            };
            let text = std::fs::read_to_string(&p).unwrap();
            // A unit-test module (`#[cfg(test)] mod tests`) ends the file's own code.
            let test_mod = text
                .match_indices("#[cfg(test)]")
                .find(|(i, m)| text[i + m.len()..].trim_start().starts_with("mod "));
            let text = match test_mod {
                Some((i, _)) => text[..i].to_string(),
                None => text,
            };
            File {
                path: p.display().to_string(),
                module,
                text: strip_comments(&text),
            }
        })
        .collect()
}

/// The text without comments and string literals (a path in a doc comment or a message
/// is not an import).
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3; // a char literal such as '{'
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The names a file defines at any depth (items of impls too: a method is reached through
/// its type, which is what the path names, so extra names here are harmless).
fn definitions(text: &str) -> BTreeSet<String> {
    const KEYWORDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "const",
        "static",
        "union",
        "macro_rules!",
    ];
    let words: Vec<&str> = text
        .split(|c: char| !(is_ident(c) || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = BTreeSet::new();
    for w in words.windows(2) {
        if KEYWORDS.contains(&w[0]) {
            out.insert(w[1].trim_end_matches('!').to_string());
        }
    }
    out
}

/// Every path of a `use` tree: `a::{b, c::{d, e as f}}` gives `a::b`, `a::c::d`, `a::c::e`,
/// each with the name it is bound to.
fn use_paths(tree: &str, prefix: &str, out: &mut Vec<(String, String)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = format!("{prefix}{}", &tree[..open]);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_paths(&inner[start..i], &head, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_paths(&inner[start..], &head, out);
    } else if !tree.is_empty() {
        let (path, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p.trim(), a.trim()),
            None => (tree, tree.rsplit("::").next().unwrap_or(tree)),
        };
        let full = format!("{prefix}{path}");
        let alias = if alias == "self" {
            full.trim_end_matches("::self")
                .rsplit("::")
                .next()
                .unwrap_or("")
                .to_string()
        } else {
            alias.to_string()
        };
        out.push((full.trim_end_matches("::self").to_string(), alias));
    }
}

struct Graph {
    files: Vec<File>,
    defs: Vec<BTreeSet<String>>,
    by_module: BTreeMap<Vec<String>, usize>,
}

impl Graph {
    fn new() -> Graph {
        let files: Vec<File> = load()
            .into_iter()
            .filter(|f| f.path != "src/main.rs")
            .collect();
        let defs = files.iter().map(|f| definitions(&f.text)).collect();
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        Graph {
            files,
            defs,
            by_module,
        }
    }

    /// The absolute segments of `path` as written in the file of module `here`.
    fn absolute(&self, here: &[String], path: &str) -> Option<Vec<String>> {
        let mut segs: Vec<&str> = path.split("::").map(str::trim).collect();
        let mut base: Vec<String> = match segs.first().copied()? {
            "crate" => vec![],
            "self" | "super" => here.to_vec(),
            // A path relative to this module (`use child::Item`).
            child => {
                let mut m = here.to_vec();
                m.push(child.to_string());
                if !self.by_module.contains_key(&m) {
                    return None;
                }
                segs.insert(0, "self");
                here.to_vec()
            }
        };
        let first = segs.remove(0);
        if first == "super" {
            base.pop();
        }
        while segs.first() == Some(&"super") {
            segs.remove(0);
            base.pop();
        }
        base.extend(segs.iter().map(|s| s.to_string()));
        Some(base)
    }

    /// The file that defines the item `segs` names, or the module file a module path names.
    fn resolve(&self, segs: &[String]) -> Option<usize> {
        let mut module: Vec<String> = vec![];
        for s in segs {
            if s == "*" {
                return None;
            }
            let mut next = module.clone();
            next.push(s.clone());
            if self.by_module.contains_key(&next) {
                module = next;
                continue;
            }
            // An item of `module`: its own file, or the file below that defines it.
            let own = *self.by_module.get(&module)?;
            if self.defs[own].contains(s) {
                return Some(own);
            }
            let below: Vec<usize> = self
                .files
                .iter()
                .enumerate()
                .filter(|(_, f)| f.module.len() > module.len() && f.module.starts_with(&module))
                .filter(|(i, _)| self.defs[*i].contains(s))
                .map(|(i, _)| i)
                .collect();
            return Some(if below.len() == 1 { below[0] } else { own });
        }
        self.by_module.get(&module).copied()
    }

    /// The files each file imports.
    fn edges(&self) -> Vec<BTreeSet<usize>> {
        let mut edges = vec![BTreeSet::new(); self.files.len()];
        for (i, f) in self.files.iter().enumerate() {
            let mut paths: Vec<(String, String)> = Vec::new();
            // `use` trees.
            let mut rest = f.text.as_str();
            let mut public = Vec::new();
            // The code without its `use` statements, scanned for paths below.
            let mut code = String::new();
            while let Some(at) = rest.find("use ") {
                let before = rest[..at].trim_end();
                let is_pub = before.ends_with("pub")
                    || before.ends_with(')')
                        && before[before.rfind("pub(").unwrap_or(0)..].starts_with("pub(");
                let ident_before = rest[..at].chars().last().is_some_and(is_ident);
                code.push_str(&rest[..at]);
                rest = &rest[at + 4..];
                if ident_before {
                    code.push_str("use ");
                    continue;
                }
                let end = rest.find(';').unwrap_or(rest.len());
                let first = paths.len();
                use_paths(
                    &rest[..end].split_whitespace().collect::<Vec<_>>().join(" "),
                    "",
                    &mut paths,
                );
                public.resize(first, false);
                public.resize(paths.len(), is_pub);
                rest = &rest[end..];
            }
            code.push_str(rest);
            let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for ((p, alias), is_pub) in paths.iter().zip(&public) {
                if let Some(abs) = self.absolute(&f.module, p) {
                    if self.by_module.contains_key(&abs) {
                        aliases.insert(alias.clone(), abs.clone());
                    }
                    // A module's re-export of its own children's items is its face, not
                    // an import: its code does not use them.
                    let below = |t: usize| {
                        let m = &self.files[t].module;
                        m.len() > f.module.len() && m.starts_with(&f.module)
                    };
                    if let Some(t) = self.resolve(&abs).filter(|&t| !(*is_pub && below(t))) {
                        edges[i].insert(t);
                    }
                }
            }
            // Paths in the code: `crate::a::B`, `super::c`, and `alias::item` through a
            // module imported by name.
            let chars: Vec<char> = code.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                if !is_ident(chars[j]) || (j > 0 && (is_ident(chars[j - 1]) || chars[j - 1] == ':'))
                {
                    j += 1;
                    continue;
                }
                let mut k = j;
                while k < chars.len()
                    && (is_ident(chars[k]) || (chars[k] == ':' && chars.get(k + 1) == Some(&':')))
                {
                    k += if chars[k] == ':' { 2 } else { 1 };
                }
                let path: String = chars[j..k].iter().collect();
                j = k.max(j + 1);
                let Some((head, tail)) = path.split_once("::") else {
                    continue;
                };
                let abs = match head {
                    "crate" | "super" | "self" => self.absolute(&f.module, &path),
                    _ => aliases.get(head).map(|m| {
                        let mut m = m.clone();
                        m.extend(tail.split("::").map(String::from));
                        m
                    }),
                };
                if let Some(t) = abs.and_then(|a| self.resolve(&a)) {
                    edges[i].insert(t);
                }
            }
            edges[i].remove(&i);
        }
        edges
    }
}

/// Strongly connected components with more than one file (Tarjan's algorithm).
fn cycles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_import_cycle_between_source_files() {
    let g = Graph::new();
    let edges = g.edges();
    let found = cycles(&edges);
    let text: Vec<String> = found
        .iter()
        .map(|c| {
            let names: Vec<&str> = c.iter().map(|&i| g.files[i].path.as_str()).collect();
            let arrows: Vec<String> = c
                .iter()
                .flat_map(|&a| {
                    edges[a]
                        .iter()
                        .filter(|b| c.contains(b))
                        .map(move |&b| (a, b))
                })
                .map(|(a, b)| format!("    {} -> {}", g.files[a].path, g.files[b].path))
                .collect();
            format!("  {}\n{}", names.join(", "), arrows.join("\n"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} import cycles:\n{}",
        found.len(),
        text.join("\n")
    );
}

#[test]
fn the_import_reader_sees_a_cycle_and_resolves_re_exports() {
    let mut out = Vec::new();
    use_paths("crate::a::{b, c::{d, e as f}, self}", "", &mut out);
    assert_eq!(
        out,
        [
            ("crate::a::b".to_string(), "b".to_string()),
            ("crate::a::c::d".into(), "d".into()),
            ("crate::a::c::e".into(), "f".into()),
            ("crate::a".into(), "a".into()),
        ]
    );
    let edges = [
        BTreeSet::from([1]),
        BTreeSet::from([2]),
        BTreeSet::from([0]),
        BTreeSet::new(),
    ];
    assert_eq!(cycles(&edges), [vec![0, 1, 2]]);
    // `crate::term::Terms` is defined below term/mod.rs or in it, never outside term/.
    let g = Graph::new();
    let t = g
        .resolve(&["term".to_string(), "Terms".to_string()])
        .expect("resolves");
    assert!(
        g.files[t].path.starts_with("src/term/"),
        "{}",
        g.files[t].path
    );
    assert!(g.defs[t].contains("Terms"));
}
