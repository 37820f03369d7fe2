//! What the formats write alike: JSON objects with their values moved in,
//! data URLs, the PDF fields both OpenAI formats carry, and the marks of a
//! format without an error flag.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::declare::EmbeddedResource;

/// A JSON object of `fields`, each value moved in. The `json!` macro
/// serialises an interpolated `Value` (or `String`) a second time, which
/// copies it whole: arguments and results can be as large as a response.
pub(super) fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

/// A PDF's `file_data` (a data URL) and `filename`, as both OpenAI
/// formats carry a file.
pub(super) fn pdf_file_fields(
    resource: &EmbeddedResource,
    bytes: &[u8],
) -> serde_json::Map<String, Value> {
    let mut file = serde_json::Map::new();
    file.insert(
        "file_data".into(),
        data_url("application/pdf", bytes).into(),
    );
    let name = resource.name.as_deref().unwrap_or("document.pdf");
    file.insert("filename".into(), name.into());
    file
}

/// `data:<media type>;base64,<data>`.
pub(super) fn data_url(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", STANDARD.encode(data))
}

/// Image types OpenAI's vision input takes.
pub(super) const OPENAI_IMAGE_TYPES: [&str; 4] =
    ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// The text a format that has no error flag starts an error result with.
pub(super) const ERROR_PREFIX: &str = "Error: ";
