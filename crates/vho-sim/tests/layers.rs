//! The crate's layers: no module imports one above it (`use crate::…` and `crate::…` paths in
//! code, tests and comments left out), so that the models stay below the driver and a change
//! to a model cannot need the world. The order is declared here, bottom first; a module may
//! use those below it and those on its own level.
//!
//! `KNOWN` lists the imports that still run back up, each with what has to move to end it; the
//! test fails on any other, and on a listed one that is gone (so that the list only shrinks).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Bottom first. A level's modules may use each other.
const LAYERS: &[&[&str]] = &[
    &["time", "rng"],
    &["probe"],
    &["tcp", "tfrc", "traffic"],
    &["packet"],
    &["config"],
    &["spec"],
    &["link"],
    &["handover"],
    &["function"],
    &["mip"],
    &["net"],
    &["record"],
    &["agent"],
    &["remedy"],
    &["scenario"],
    &["sched"],
    &["world"],
];

/// Imports that run up a level today: (from, to, what would end it). None since the config
/// layer and the node-function contract moved below the models (issue 34).
const KNOWN: &[(&str, &str, &str)] = &[];

fn level(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level module a source file belongs to.
fn module_of(rel: &Path) -> String {
    let first = rel.components().next().expect("a path").as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

/// Every `crate::NAME` a file's code names (comments and its test modules left out).
fn names(text: &str) -> BTreeSet<String> {
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let line = line.split("//").next().unwrap_or(line);
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("the crate's sources") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_module_imports_one_above_it_beyond_the_known_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut up: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for path in &files {
        let rel = path.strip_prefix(&src).expect("inside src");
        let from = module_of(rel);
        let name = rel.to_string_lossy();
        if from == "lib" || name.contains("tests") {
            continue;
        }
        let Some(lf) = level(&from) else {
            panic!("module {from} has no layer: add it to LAYERS");
        };
        let text = std::fs::read_to_string(path).expect("readable");
        for to in names(&text) {
            let Some(lt) = level(&to) else { continue };
            if lt > lf {
                up.entry((from.clone(), to))
                    .or_default()
                    .push(name.to_string());
            }
        }
    }
    let known: BTreeSet<(String, String)> = KNOWN
        .iter()
        .map(|(a, b, _)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = up.iter().filter(|(k, _)| !known.contains(*k)).collect();
    assert!(
        new.is_empty(),
        "imports that run up the layers (module -> module: files): {new:?}"
    );
    let gone: Vec<_> = known.iter().filter(|k| !up.contains_key(*k)).collect();
    assert!(
        gone.is_empty(),
        "listed in KNOWN but no longer imported, take them off: {gone:?}"
    );
}

#[test]
fn every_module_of_the_crate_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    for line in lib.lines() {
        if let Some(m) = line.strip_prefix("pub mod ") {
            let m = m.trim_end_matches(';');
            assert!(level(m).is_some(), "module {m} has no layer");
        }
    }
}
