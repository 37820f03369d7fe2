//! The blocks a result is made of: text, images, audio, structured JSON,
//! links to resources and embedded resources (documents), and the one text
//! view of them that text-only readers (logs, metrics, a provider format
//! that cannot hold an image) see.
//!
//! Binary data is held as bytes, never as base64: the provider adapters
//! and the MCP server encode it once, on the way out.

use std::borrow::Cow;

use serde_json::Value;

/// One piece of a tool's result.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Text the model reads as it is.
    Text(String),
    /// An image: its bytes and media type (`image/png`, `image/jpeg`, …).
    Image(Image),
    /// Audio: its bytes and media type (`audio/wav`, …).
    Audio(Audio),
    /// A structured value. Its schema is the tool's declared output schema
    /// ([`IntoToolOutput::output_schema`](crate::declare::IntoToolOutput::output_schema));
    /// text-only readers see it as canonical pretty JSON.
    Json(Value),
    /// A link to a resource the model (or the host) can fetch.
    ResourceLink(ResourceLink),
    /// A resource carried in the result: a document (a PDF, a text file)
    /// or any other named data.
    Resource(EmbeddedResource),
}

/// An image block's data.
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    /// The encoded image (PNG, JPEG, GIF, WebP bytes).
    pub data: Vec<u8>,
    /// Its media type, such as `image/png`.
    pub media_type: String,
}

/// An audio block's data.
#[derive(Clone, PartialEq, Eq)]
pub struct Audio {
    /// The encoded audio.
    pub data: Vec<u8>,
    /// Its media type, such as `audio/wav`.
    pub media_type: String,
}

/// A link to a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceLink {
    /// Where the resource is.
    pub uri: String,
    /// Its name, as a model should refer to it.
    pub name: String,
    /// Its media type, when known.
    pub media_type: Option<String>,
    /// What it is, for the model.
    pub description: Option<String>,
}

/// A resource embedded in a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedResource {
    /// Its URI (for a document made up on the spot, any stable name such
    /// as `file:///report.pdf`).
    pub uri: String,
    /// A file name or title, when it has one.
    pub name: Option<String>,
    /// Its media type (`application/pdf`, `text/plain`, …), when known.
    pub media_type: Option<String>,
    /// The contents.
    pub data: ResourceData,
}

/// The contents of an embedded resource.
#[derive(Clone, PartialEq, Eq)]
pub enum ResourceData {
    /// Text contents.
    Text(String),
    /// Binary contents.
    Bytes(Vec<u8>),
}

impl Image {
    /// An image from its bytes and media type.
    pub fn new(data: impl Into<Vec<u8>>, media_type: impl Into<String>) -> Self {
        Image {
            data: data.into(),
            media_type: media_type.into(),
        }
    }
}

impl Audio {
    /// Audio from its bytes and media type.
    pub fn new(data: impl Into<Vec<u8>>, media_type: impl Into<String>) -> Self {
        Audio {
            data: data.into(),
            media_type: media_type.into(),
        }
    }
}

impl ResourceLink {
    /// A link to `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            media_type: None,
            description: None,
        }
    }

    /// With the resource's media type.
    pub fn media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }

    /// With a description for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

impl EmbeddedResource {
    /// A text resource at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            name: None,
            media_type: None,
            data: ResourceData::Text(text.into()),
        }
    }

    /// A binary resource at `uri`.
    pub fn bytes(
        uri: impl Into<String>,
        data: impl Into<Vec<u8>>,
        media_type: impl Into<String>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            name: None,
            media_type: Some(media_type.into()),
            data: ResourceData::Bytes(data.into()),
        }
    }

    /// A document (a PDF, for instance) named `name`: a binary resource
    /// whose URI is `file:///<name>`.
    pub fn document(
        name: impl Into<String>,
        data: impl Into<Vec<u8>>,
        media_type: impl Into<String>,
    ) -> Self {
        let name = name.into();
        let mut resource = EmbeddedResource::bytes(format!("file:///{name}"), data, media_type);
        resource.name = Some(name);
        resource
    }

    /// With a name (a file name or title).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// With a media type.
    pub fn media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(text.into())
    }

    /// The block as text-only readers see it: text as it is; JSON as
    /// canonical pretty JSON; an image or audio as its type and size; a
    /// link as its name, URI, type and description; a resource as its URI
    /// and text (or type and size).
    pub fn text_view(&self) -> Cow<'_, str> {
        match self {
            ContentBlock::Text(text) => Cow::Borrowed(text),
            ContentBlock::Json(value) => Cow::Owned(crate::text::to_canonical_pretty(value)),
            ContentBlock::Image(image) => Cow::Owned(format!(
                "[image: {}, {} bytes]",
                image.media_type,
                image.data.len()
            )),
            ContentBlock::Audio(audio) => Cow::Owned(format!(
                "[audio: {}, {} bytes]",
                audio.media_type,
                audio.data.len()
            )),
            ContentBlock::ResourceLink(link) => {
                let mut text = format!("[resource link: {} <{}>", link.name, link.uri);
                if let Some(media_type) = &link.media_type {
                    text.push_str(&format!(" ({media_type})"));
                }
                if let Some(description) = &link.description {
                    text.push_str(&format!(": {description}"));
                }
                text.push(']');
                Cow::Owned(text)
            }
            ContentBlock::Resource(resource) => {
                let media = resource
                    .media_type
                    .as_ref()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default();
                let uri = &resource.uri;
                Cow::Owned(match &resource.data {
                    ResourceData::Text(text) => format!("[resource <{uri}>{media}]\n{text}"),
                    ResourceData::Bytes(bytes) => {
                        format!("[resource <{uri}>{media}: {} bytes]", bytes.len())
                    }
                })
            }
        }
    }

    /// Whether the block is text the character cap applies to: text,
    /// JSON, a resource link (its name, URI and description are read as
    /// text) and a text resource. Images, audio and binary resources are
    /// held to the byte limit instead.
    pub fn is_text(&self) -> bool {
        match self {
            ContentBlock::Text(_) | ContentBlock::Json(_) | ContentBlock::ResourceLink(_) => true,
            ContentBlock::Resource(resource) => matches!(resource.data, ResourceData::Text(_)),
            ContentBlock::Image(_) | ContentBlock::Audio(_) => false,
        }
    }

    /// The bytes a block counts against the binary limit: the data of an
    /// image, audio or binary resource; zero for text blocks (the
    /// character cap holds those).
    pub fn binary_len(&self) -> usize {
        self.binary_data().map_or(0, <[u8]>::len)
    }

    /// The media type of a binary block, for spill file names and notices.
    pub(crate) fn media_type(&self) -> Option<&str> {
        match self {
            ContentBlock::Image(image) => Some(&image.media_type),
            ContentBlock::Audio(audio) => Some(&audio.media_type),
            ContentBlock::Resource(resource) => resource.media_type.as_deref(),
            ContentBlock::ResourceLink(link) => link.media_type.as_deref(),
            ContentBlock::Text(_) | ContentBlock::Json(_) => None,
        }
    }

    /// The raw bytes of a binary block; `None` for text blocks.
    pub(crate) fn binary_data(&self) -> Option<&[u8]> {
        match self {
            ContentBlock::Image(image) => Some(&image.data),
            ContentBlock::Audio(audio) => Some(&audio.data),
            ContentBlock::Resource(EmbeddedResource {
                data: ResourceData::Bytes(bytes),
                ..
            }) => Some(bytes),
            _ => None,
        }
    }
}

/// The text view of several blocks: each block's view, one per line.
pub(crate) fn text_view_of(blocks: &[ContentBlock]) -> Cow<'_, str> {
    match blocks {
        [] => Cow::Borrowed(""),
        [one] => one.text_view(),
        many => Cow::Owned(
            many.iter()
                .map(ContentBlock::text_view)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

impl From<Image> for ContentBlock {
    fn from(image: Image) -> Self {
        ContentBlock::Image(image)
    }
}

impl From<Audio> for ContentBlock {
    fn from(audio: Audio) -> Self {
        ContentBlock::Audio(audio)
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(link: ResourceLink) -> Self {
        ContentBlock::ResourceLink(link)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(resource: EmbeddedResource) -> Self {
        ContentBlock::Resource(resource)
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> Self {
        ContentBlock::Text(text)
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> Self {
        ContentBlock::Text(text.to_owned())
    }
}

// Bytes print as their size: a debug log of a screenshot must not be a
// megabyte of numbers.
impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("media_type", &self.media_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl std::fmt::Debug for Audio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Audio")
            .field("media_type", &self.media_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl std::fmt::Debug for ResourceData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResourceData::Text(text) => f.debug_tuple("Text").field(text).finish(),
            ResourceData::Bytes(bytes) => write!(f, "Bytes({} bytes)", bytes.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_views_name_what_a_text_reader_cannot_see() {
        let blocks = [
            ContentBlock::text("hello"),
            Image::new(vec![0u8; 12], "image/png").into(),
            ResourceLink::new("file:///a.txt", "a.txt")
                .media_type("text/plain")
                .description("the notes")
                .into(),
            EmbeddedResource::document("r.pdf", vec![1u8; 3], "application/pdf").into(),
            EmbeddedResource::text("mem://x", "inside").into(),
            ContentBlock::Json(serde_json::json!({"b": 1, "a": 2})),
        ];
        assert_eq!(
            text_view_of(&blocks),
            "hello\n[image: image/png, 12 bytes]\n\
             [resource link: a.txt <file:///a.txt> (text/plain): the notes]\n\
             [resource <file:///r.pdf> (application/pdf): 3 bytes]\n\
             [resource <mem://x>]\ninside\n{\n  \"a\": 2,\n  \"b\": 1\n}"
        );
    }

    #[test]
    fn debug_prints_sizes_not_bytes() {
        let image = Image::new(vec![7u8; 1000], "image/png");
        assert_eq!(
            format!("{image:?}"),
            "Image { media_type: \"image/png\", bytes: 1000 }"
        );
    }
}
