//! Result blocks as MCP content and back: images and audio as base64
//! `data` with their `mimeType`, structured values as text beside
//! `structuredContent`, resource links and embedded resources as they are.
//!
//! Written as rmcp's own types, so the wire shape is the SDK's and never
//! hand-copied field by field; read back through their JSON form, which
//! is where an unknown block type can still be described.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use rmcp::model::{ContentBlock as McpBlock, ResourceContents};

use crate::declare::{Audio, ContentBlock, EmbeddedResource, Image, ResourceData, ResourceLink};

/// One block as MCP content, built as rmcp's own types (their
/// constructors fill the fields this crate does not set).
pub(crate) fn to_mcp(block: &ContentBlock) -> McpBlock {
    match block {
        ContentBlock::Image(image) => {
            McpBlock::image(STANDARD.encode(&image.data), image.media_type.clone())
        }
        ContentBlock::Audio(audio) => {
            McpBlock::audio(STANDARD.encode(&audio.data), audio.media_type.clone())
        }
        ContentBlock::ResourceLink(link) => {
            let mut resource = rmcp::model::Resource::new(link.uri.clone(), link.name.clone());
            if let Some(media_type) = &link.media_type {
                resource = resource.with_mime_type(media_type.clone());
            }
            if let Some(description) = &link.description {
                resource = resource.with_description(description.clone());
            }
            McpBlock::resource_link(resource)
        }
        ContentBlock::Resource(resource) => {
            let (uri, mime_type) = (resource.uri.clone(), resource.media_type.clone());
            McpBlock::resource(match &resource.data {
                ResourceData::Text(text) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: text.clone(),
                    meta: None,
                },
                ResourceData::Bytes(bytes) => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob: STANDARD.encode(bytes),
                    meta: None,
                },
            })
        }
        // Text, and a structured value's text (its value also goes out
        // as structuredContent).
        other => McpBlock::text(other.text_view().into_owned()),
    }
}

/// One MCP content block as a result block; what cannot be read (bad
/// base64, an unknown type) becomes a text block saying what it was, so
/// nothing is dropped without a word.
pub(crate) fn from_mcp(block: &rmcp::model::ContentBlock) -> ContentBlock {
    if let Some(text) = block.as_text() {
        return ContentBlock::Text(text.text.clone());
    }
    let value = serde_json::to_value(block).unwrap_or(Value::Null);
    let field = |key: &str| value.get(key).and_then(Value::as_str);
    let kind = field("type").unwrap_or("unknown");
    let decoded = |data: Option<&str>| STANDARD.decode(data.unwrap_or_default());
    match kind {
        "image" | "audio" => {
            let media_type = field("mimeType").unwrap_or("application/octet-stream");
            match decoded(field("data")) {
                Ok(data) if kind == "image" => Image::new(data, media_type).into(),
                Ok(data) => Audio::new(data, media_type).into(),
                Err(err) => ContentBlock::Text(format!(
                    "[{kind} ({media_type}) the server sent with invalid base64 data: {err}]"
                )),
            }
        }
        "resource_link" => {
            let mut link = ResourceLink::new(
                field("uri").unwrap_or_default(),
                field("name").unwrap_or("unnamed"),
            );
            link.media_type = field("mimeType").map(str::to_owned);
            link.description = field("description").map(str::to_owned);
            link.into()
        }
        "resource" => {
            let resource = value.get("resource").cloned().unwrap_or(Value::Null);
            let inner = |key: &str| resource.get(key).and_then(Value::as_str);
            let uri = inner("uri").unwrap_or_default().to_owned();
            let data = match (inner("text"), inner("blob")) {
                (Some(text), _) => ResourceData::Text(text.to_owned()),
                (None, blob) => match STANDARD.decode(blob.unwrap_or_default()) {
                    Ok(bytes) => ResourceData::Bytes(bytes),
                    Err(err) => {
                        return ContentBlock::Text(format!(
                            "[resource <{uri}> the server sent with invalid base64 data: {err}]"
                        ));
                    }
                },
            };
            EmbeddedResource {
                uri,
                name: None,
                media_type: inner("mimeType").map(str::to_owned),
                data,
            }
            .into()
        }
        other => ContentBlock::Text(format!(
            "[{other} content: {}]",
            crate::text::to_canonical_string(&value)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_block_survives_a_round_trip() {
        let blocks = [
            ContentBlock::text("hi"),
            Image::new(vec![0u8, 159, 255, 3], "image/png").into(),
            Audio::new(vec![1u8, 2], "audio/wav").into(),
            ResourceLink::new("file:///a", "a")
                .media_type("text/plain")
                .description("notes")
                .into(),
            EmbeddedResource::text("mem://n", "inside")
                .media_type("text/plain")
                .into(),
            EmbeddedResource::bytes("file:///r.pdf", vec![9u8; 5], "application/pdf").into(),
        ];
        for block in blocks {
            assert_eq!(from_mcp(&to_mcp(&block)), block);
        }
    }

    #[test]
    fn invalid_base64_is_said_not_dropped() {
        let block: rmcp::model::ContentBlock = serde_json::from_value(json!({
            "type": "image", "data": "not base64!", "mimeType": "image/png"
        }))
        .unwrap();
        let ContentBlock::Text(text) = from_mcp(&block) else {
            panic!("expected a notice");
        };
        assert!(text.contains("invalid base64"), "{text}");
    }
}
