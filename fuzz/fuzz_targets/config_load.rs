//! Config loading on arbitrary bytes: up to three files (split at `\0`), both load modes, and
//! every diagnostic rendered the three ways a user can see it. Nothing may panic.
#![no_main]

use std::path::PathBuf;

use converge::config::{LoadMode, load_texts, render};
use converge::output::Printer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let files: Vec<(PathBuf, String)> = data
        .split(|byte| *byte == 0)
        .take(3)
        .enumerate()
        .map(|(i, part)| {
            (
                PathBuf::from(format!("fuzz-{i}.yaml")),
                String::from_utf8_lossy(part).into_owned(),
            )
        })
        .collect();
    // Some variables set, some not, so both interpolation paths run.
    let env = |name: &str| (name.len() % 2 == 0).then(|| format!("value-of-{name}"));
    let mode = if data.first().is_some_and(|b| b % 2 == 1) {
        LoadMode::Live
    } else {
        LoadMode::Offline
    };
    let loaded = load_texts(&files, mode, &env);
    let printer = Printer::plain();
    for diagnostic in &loaded.diagnostics {
        let _ = render::to_text(diagnostic, &loaded.sources, &printer);
    }
    let _ = render::to_json(&loaded.diagnostics, &loaded.sources);
    let _ = render::github_annotations(&loaded.diagnostics, &loaded.sources);
});
