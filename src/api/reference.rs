//! The public API documents the unit tests check tables against, read from
//! `../shared/reference` beside the checkout.

/// The cloud API's OpenAPI document, or `None` (said on stderr) on a clone without
/// `../shared`; under CI, where it is always there, its absence fails the test instead of
/// letting it pass having checked nothing.
// A test that checked nothing says so on stderr.
#[allow(clippy::print_stderr)]
pub(crate) fn cloud_document() -> Option<serde_json::Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/reference/cloud-api.openapi.json"
    );
    let document = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    if document.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the cloud document is not beside the checkout under CI"
        );
        eprintln!("skipped: ../shared/reference/cloud-api.openapi.json is not there");
    }
    document
}
