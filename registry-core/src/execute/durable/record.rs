//! A suspended turn as bytes: a versioned JSON record, sealed with
//! HMAC-SHA-256 under the runtime's key so a record that comes back
//! changed (a byte of a result, an argument, a pending call swapped) is
//! refused before anything of it is believed.
//!
//! The seal is `<64 hex digits of the MAC> <the record's JSON>`: the MAC
//! covers the exact bytes that follow, so nothing is re-serialised before
//! it is checked. HMAC is written here from SHA-256 (RFC 2104, checked
//! against RFC 4231's vectors below): the crate already carries `sha2`,
//! and the construction is twenty lines.

use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::declare::output::ToolOutput;
use crate::declare::{Audio, ContentBlock, EmbeddedResource, Image, ResourceData, ResourceLink};
use crate::execute::call::{ToolCall, ToolCallResult};
use crate::input::refusal::{PermissionMode, Refusal, RefusedBy};

/// The record format this build writes and reads.
pub(super) const FORMAT: u32 = 1;

/// The whole turn as the record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TurnRecord {
    pub(super) format: u32,
    /// Unique per suspension: what the session names as its pending turn.
    pub(super) id: String,
    /// The turn's calls, in call order, as the model made them.
    pub(super) calls: Vec<RecordedCall>,
    /// Results of the calls that finished (by index into `calls`).
    pub(super) finished: Vec<(usize, RecordedResult)>,
    /// The calls that wait for a person's answer.
    pub(super) pending: Vec<PendingRecord>,
    /// The calls that never started (after a pending one).
    pub(super) not_started: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RecordedCall {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) program: Option<String>,
}

impl RecordedCall {
    pub(super) fn of(call: &ToolCall) -> Self {
        RecordedCall {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone(),
            program: call.program.clone(),
        }
    }

    pub(super) fn to_call(&self) -> ToolCall {
        ToolCall {
            id: self.id.clone(),
            name: self.name.clone(),
            input: self.input.clone(),
            program: self.program.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PendingRecord {
    pub(super) index: usize,
    /// The tool's primary name.
    pub(super) tool: String,
    /// The arguments the pipeline asked about (as before hooks left
    /// them): what an answer is bound to.
    pub(super) input: Value,
    /// What the person must read.
    pub(super) reason: String,
}

/// A finished call's result, every block kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RecordedResult {
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    is_error: bool,
    blocks: Vec<RecordedBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refusal: Option<RecordedRefusal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spilled_to: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    binary_spills: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum RecordedBlock {
    Text {
        text: String,
    },
    Image {
        data: String,
        media_type: String,
    },
    Audio {
        data: String,
        media_type: String,
    },
    Json {
        value: Value,
    },
    ResourceLink {
        uri: String,
        name: String,
        media_type: Option<String>,
        description: Option<String>,
    },
    Resource {
        uri: String,
        name: Option<String>,
        media_type: Option<String>,
        text: Option<String>,
        data: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordedRefusal {
    /// Who refused, as a tag (`deny_rule`, `mode`, ...).
    by: String,
    /// The rule, hook or mode it names, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    of: Option<String>,
    reason: String,
}

impl RecordedResult {
    pub(super) fn of(result: &ToolCallResult) -> Self {
        RecordedResult {
            id: result.id.clone(),
            tool: result.tool.as_deref().map(str::to_owned),
            is_error: result.is_error,
            blocks: result.output.blocks().iter().map(block_of).collect(),
            refusal: result.refusal.as_deref().map(refusal_of),
            spilled_to: result.spilled_to.clone(),
            binary_spills: result.binary_spills.clone(),
        }
    }

    /// The result back; `Err` names what could not be read (a record this
    /// build did not write, though its seal held).
    pub(super) fn to_result(&self) -> Result<ToolCallResult, String> {
        let blocks = self
            .blocks
            .iter()
            .map(block_from)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ToolCallResult {
            id: self.id.clone(),
            output: ToolOutput::new(blocks),
            is_error: self.is_error,
            spilled_to: self.spilled_to.clone(),
            binary_spills: self.binary_spills.clone(),
            tool: self.tool.as_deref().map(Arc::from),
            refusal: self
                .refusal
                .as_ref()
                .map(refusal_from)
                .transpose()?
                .map(Box::new),
        })
    }
}

fn block_of(block: &ContentBlock) -> RecordedBlock {
    match block {
        ContentBlock::Text(text) => RecordedBlock::Text { text: text.clone() },
        ContentBlock::Image(image) => RecordedBlock::Image {
            data: BASE64.encode(&image.data),
            media_type: image.media_type.clone(),
        },
        ContentBlock::Audio(audio) => RecordedBlock::Audio {
            data: BASE64.encode(&audio.data),
            media_type: audio.media_type.clone(),
        },
        ContentBlock::Json(value) => RecordedBlock::Json {
            value: value.clone(),
        },
        ContentBlock::ResourceLink(link) => RecordedBlock::ResourceLink {
            uri: link.uri.clone(),
            name: link.name.clone(),
            media_type: link.media_type.clone(),
            description: link.description.clone(),
        },
        ContentBlock::Resource(resource) => {
            let (text, data) = match &resource.data {
                ResourceData::Text(text) => (Some(text.clone()), None),
                ResourceData::Bytes(bytes) => (None, Some(BASE64.encode(bytes))),
            };
            RecordedBlock::Resource {
                uri: resource.uri.clone(),
                name: resource.name.clone(),
                media_type: resource.media_type.clone(),
                text,
                data,
            }
        }
    }
}

fn block_from(block: &RecordedBlock) -> Result<ContentBlock, String> {
    let bytes = |data: &str| {
        BASE64
            .decode(data)
            .map_err(|err| format!("a block's data is not base64: {err}"))
    };
    Ok(match block {
        RecordedBlock::Text { text } => ContentBlock::Text(text.clone()),
        RecordedBlock::Image { data, media_type } => {
            ContentBlock::Image(Image::new(bytes(data)?, media_type.clone()))
        }
        RecordedBlock::Audio { data, media_type } => {
            ContentBlock::Audio(Audio::new(bytes(data)?, media_type.clone()))
        }
        RecordedBlock::Json { value } => ContentBlock::Json(value.clone()),
        RecordedBlock::ResourceLink {
            uri,
            name,
            media_type,
            description,
        } => ContentBlock::ResourceLink(ResourceLink {
            uri: uri.clone(),
            name: name.clone(),
            media_type: media_type.clone(),
            description: description.clone(),
        }),
        RecordedBlock::Resource {
            uri,
            name,
            media_type,
            text,
            data,
        } => {
            let data = match (text, data) {
                (Some(text), None) => ResourceData::Text(text.clone()),
                (None, Some(data)) => ResourceData::Bytes(bytes(data)?),
                _ => return Err(format!("resource `{uri}` needs either text or data")),
            };
            ContentBlock::Resource(EmbeddedResource {
                uri: uri.clone(),
                name: name.clone(),
                media_type: media_type.clone(),
                data,
            })
        }
    })
}

fn refusal_of(refusal: &Refusal) -> RecordedRefusal {
    let (by, of) = match &refusal.by {
        RefusedBy::DenyRule(rule) => ("deny_rule", Some(rule.clone())),
        RefusedBy::Tool => ("tool", None),
        RefusedBy::Mode(mode) => ("mode", Some(mode.to_string())),
        RefusedBy::Approver => ("approver", None),
        RefusedBy::NoApprover => ("no_approver", None),
        RefusedBy::Unapproved => ("unapproved", None),
        RefusedBy::Classifier => ("classifier", None),
        RefusedBy::Hook(hook) => ("hook", Some(hook.clone())),
        RefusedBy::RuleOfTwo => ("rule_of_two", None),
        RefusedBy::Pending => ("pending", None),
    };
    RecordedRefusal {
        by: by.to_owned(),
        of,
        reason: refusal.reason.clone(),
    }
}

fn refusal_from(recorded: &RecordedRefusal) -> Result<Refusal, String> {
    let of = || {
        recorded
            .of
            .clone()
            .ok_or_else(|| format!("a `{}` refusal names no one", recorded.by))
    };
    let by = match recorded.by.as_str() {
        "deny_rule" => RefusedBy::DenyRule(of()?),
        "tool" => RefusedBy::Tool,
        "mode" => RefusedBy::Mode(
            of()?
                .parse::<PermissionMode>()
                .map_err(|err| err.to_string())?,
        ),
        "approver" => RefusedBy::Approver,
        "no_approver" => RefusedBy::NoApprover,
        "unapproved" => RefusedBy::Unapproved,
        "classifier" => RefusedBy::Classifier,
        "hook" => RefusedBy::Hook(of()?),
        "rule_of_two" => RefusedBy::RuleOfTwo,
        "pending" => RefusedBy::Pending,
        other => return Err(format!("unknown refusal `{other}`")),
    };
    Ok(Refusal::new(by, recorded.reason.clone()))
}

/// The digest a person's answer carries: the tool and its arguments as
/// canonical JSON, so an answer given for other arguments never applies.
pub(super) fn call_digest(tool: &str, input: &Value) -> String {
    let mut hash = Sha256::new();
    hash.update(tool.as_bytes());
    hash.update([0]);
    hash.update(crate::text::to_canonical_string(input).as_bytes());
    hex(&hash.finalize())
}

/// HMAC-SHA-256 (RFC 2104).
pub(super) fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|k| k ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two MACs in time that does not depend on where they differ.
pub(super) fn same_mac(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231, test cases 1, 2 and 6 (a key longer than a block).
    #[test]
    fn hmac_matches_rfc_4231() {
        assert_eq!(
            hex(&hmac(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(&hmac(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
        assert!(same_mac(b"abc", b"abc"));
        assert!(!same_mac(b"abc", b"abd"));
        assert!(!same_mac(b"abc", b"ab"));
    }

    #[test]
    fn every_block_and_refusal_round_trips() {
        let output = ToolOutput::text("t")
            .with(Image::new(vec![1, 2, 3], "image/png"))
            .with(Audio::new(vec![4], "audio/wav"))
            .with(ContentBlock::Json(serde_json::json!({ "a": 1 })))
            .with(EmbeddedResource::document(
                "r.pdf",
                vec![0, 255],
                "application/pdf",
            ));
        let mut result = ToolCallResult::from_output("c1", output, true).for_tool("t");
        result.refusal = Some(Box::new(Refusal::new(
            RefusedBy::Mode(PermissionMode::DontAsk),
            "no",
        )));
        let recorded = RecordedResult::of(&result);
        let json = serde_json::to_string(&recorded).unwrap();
        let back: RecordedResult = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_result().unwrap(), result);
    }
}
