//! Reading a saved plan file (`converge apply --plan FILE`) from arbitrary text. Nothing may
//! panic; a plan that reads back renders in every format.
#![no_main]

use converge::output::Printer;
use converge::plan::saved::SavedPlan;
use converge::plan::{markdown, render_json, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(saved) = SavedPlan::from_json(input) {
        let _ = text::render(&saved.plan, &Printer::plain());
        let _ = render_json::render(&saved.plan);
        let _ = markdown::render(&saved.plan);
        let _ = saved.to_json();
    }
});
