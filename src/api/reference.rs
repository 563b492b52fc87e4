//! The public API documents the unit tests check tables against, read from
//! `../shared/reference` beside the checkout.

/// The cloud API's OpenAPI document, or `None` (said on stderr) on a clone without
/// `../shared`; under `.ci/run` (`CONVERGE_REQUIRE_SHARED` set), where it is always there, its
/// absence fails the test instead of letting it pass having checked nothing. Not `CI`: a
/// user's GitHub Actions sets that on a clone that has no `../shared`.
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
            std::env::var_os("CONVERGE_REQUIRE_SHARED").is_none_or(|v| v.is_empty() || v == "0"),
            "the cloud document is not beside the checkout and CONVERGE_REQUIRE_SHARED is set"
        );
        eprintln!("skipped: ../shared/reference/cloud-api.openapi.json is not there");
    }
    document
}
