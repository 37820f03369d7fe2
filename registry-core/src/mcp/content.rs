//! Result blocks as MCP content and back: images and audio as base64
//! `data` with their `mimeType`, structured values as text beside
//! `structuredContent`, resource links and embedded resources as they are.
//!
//! Built as JSON and read by rmcp's own types, so the wire shape is the
//! SDK's and never hand-copied field by field.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::declare::{Audio, ContentBlock, Image, Resource, ResourceData, ResourceLink};

/// One block as MCP content.
pub(crate) fn to_mcp(block: &ContentBlock) -> rmcp::model::ContentBlock {
    let value = match block {
        ContentBlock::Image(image) => json!({
            "type": "image",
            "data": STANDARD.encode(&image.data),
            "mimeType": image.media_type,
        }),
        ContentBlock::Audio(audio) => json!({
            "type": "audio",
            "data": STANDARD.encode(&audio.data),
            "mimeType": audio.media_type,
        }),
        ContentBlock::ResourceLink(link) => {
            let mut map = Map::new();
            map.insert("type".into(), "resource_link".into());
            map.insert("uri".into(), link.uri.clone().into());
            map.insert("name".into(), link.name.clone().into());
            if let Some(media_type) = &link.media_type {
                map.insert("mimeType".into(), media_type.clone().into());
            }
            if let Some(description) = &link.description {
                map.insert("description".into(), description.clone().into());
            }
            Value::Object(map)
        }
        ContentBlock::Resource(resource) => {
            let mut inner = Map::new();
            inner.insert("uri".into(), resource.uri.clone().into());
            if let Some(media_type) = &resource.media_type {
                inner.insert("mimeType".into(), media_type.clone().into());
            }
            match &resource.data {
                ResourceData::Text(text) => inner.insert("text".into(), text.clone().into()),
                ResourceData::Bytes(bytes) => {
                    inner.insert("blob".into(), STANDARD.encode(bytes).into())
                }
            };
            json!({ "type": "resource", "resource": inner })
        }
        // Text, and a structured value's text (its value also goes out
        // as structuredContent).
        other => return rmcp::model::ContentBlock::text(other.text_view().into_owned()),
    };
    serde_json::from_value(value).unwrap_or_else(|err| {
        // rmcp's types accept every shape above; if a later version does
        // not, the model still gets the block's description.
        tracing::warn!(%err, "rmcp refused a content block; sending its text view");
        rmcp::model::ContentBlock::text(block.text_view().into_owned())
    })
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
            Resource {
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
            Resource::text("mem://n", "inside")
                .media_type("text/plain")
                .into(),
            Resource::bytes("file:///r.pdf", vec![9u8; 5], "application/pdf").into(),
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
