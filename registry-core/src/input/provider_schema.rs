//! The input schema every provider is sent; why the two keys go is in the
//! [`render`](crate::render) module docs.

use serde_json::Value;

use crate::input::ToolHandle;

/// The tool's input schema as every provider gets it: the cached
/// [`ToolHandle::input_schema`] without the top-level `$schema` (dialect
/// noise) and `title` (the Rust type's name, which must not leak into the
/// rendered bytes). Everything else is kept.
pub(crate) fn provider_input_schema(tool: &ToolHandle) -> Value {
    let mut schema = tool.input_schema().clone();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::provider_input_schema;
    use crate::declare::{ToolBuilder, ToolOutput};

    #[test]
    fn drops_the_dialect_and_the_type_name_and_keeps_the_rest() {
        let tool = ToolBuilder::new("echo", "Echo.")
            .input_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "EchoInput",
                "type": "object",
                "properties": { "text": { "type": "string", "title": "Text" } }
            }))
            .build(|_, _| async { Ok(ToolOutput::text("")) })
            .unwrap();
        assert_eq!(
            provider_input_schema(&tool),
            json!({ "type": "object", "properties": { "text": { "type": "string", "title": "Text" } } })
        );
    }
}
