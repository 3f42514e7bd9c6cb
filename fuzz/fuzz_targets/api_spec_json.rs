//! A request body through what `POST /api/validate` and `POST /api/render` do with it:
//! the spec's JSON deserialisation, every rule, the findings' JSON, the bundle and its zip.
//! A spec that was accepted must also survive its own JSON form (drafts, share links).
//!
//! Nothing may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::Spec;

fuzz_target!(|data: &[u8]| {
    // The server reads bodies with serde_json from bytes, as axum's `Json` does.
    let Ok(spec) = serde_json::from_slice::<Spec>(data) else {
        return;
    };
    let findings = shared::rules::validate(&spec);
    serde_json::to_vec(&findings).expect("findings serialise to JSON");
    if let Ok(files) = shared::deploy::bundle::bundle_files(&spec, &findings, &[]) {
        shared::deploy::bundle::zip_bundle(&files);
    }
    let again = Spec::from_json(&spec.to_json()).expect("a spec's own JSON reads back");
    assert_eq!(again, spec, "a spec's JSON form holds the same spec");
});
