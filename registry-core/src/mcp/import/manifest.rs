//! A server's tools as last listed, kept so the server need not run for
//! its tools to be offered: [`McpManifest`], its file form (versioned,
//! canonical JSON, with a digest that catches an edited or damaged
//! file), why a file is refused ([`ManifestError`]), and how a later
//! listing differs from it ([`ManifestDrift`]).
//!
//! Also owns what a kept definition is ([`kept`]): the server's own
//! definition with its description cut as an imported tool's is, so
//! neither [`McpImport::definition`](super::McpImport::definition) nor a
//! manifest holds a hostile server's 10 MB description.
//!
//! Never does: talk to a server or register anything (`lazy` and `sync`
//! do, from what this module hands them).

use std::collections::BTreeMap;

use rmcp::model::Tool;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::declare::imported::bounded_description;
use crate::text::{capped, capped_message, to_canonical_pretty, to_canonical_string};

/// The version of the manifest format this crate reads and writes.
const MANIFEST_VERSION: u32 = 1;

/// The prefix of every digest: the algorithm, so a later format can
/// change it without ambiguity.
const DIGEST_PREFIX: &str = "sha256:";

/// One server's tool definitions as it last listed them, for starting
/// its import without starting the server
/// ([`McpImport::lazy`](super::McpImport::lazy)).
///
/// Made from a live import ([`McpImport::manifest`](super::McpImport::manifest)),
/// from a saved file ([`from_json`](Self::from_json)) or from a cached
/// `tools/list` ([`from_definitions`](Self::from_definitions)). It holds
/// every tool the server listed, those the import refused included (so a
/// lazy import refuses them too, and a listing that still offers them is
/// no drift), sorted by the server's name for each, every description
/// cut as an imported tool's is (2,048 characters with a marker).
///
/// Its [`digest`](Self::digest) is SHA-256 over the canonical JSON of the
/// definitions: the same tools give the same digest in every process,
/// so a later listing is checked against it by comparing digests.
///
/// ```
/// use registry_core::mcp::McpManifest;
/// use serde_json::json;
///
/// let manifest = McpManifest::from_definitions("notes", [
///     json!({ "name": "search", "inputSchema": { "type": "object" } }),
/// ])?;
/// let text = manifest.to_json();
/// assert_eq!(McpManifest::from_json(&text)?, manifest);
/// assert!(manifest.digest().starts_with("sha256:"));
/// # Ok::<(), registry_core::mcp::ManifestError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct McpManifest {
    server: String,
    /// Each definition as kept ([`kept`]), sorted by the server's name.
    tools: Vec<Value>,
    digest: String,
}

/// The file as written and read: keys in byte order, as canonical JSON
/// writes them.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    digest: String,
    server: String,
    tools: Vec<Value>,
    version: u32,
}

impl McpManifest {
    /// A manifest of definitions already kept (each the [`kept`] form),
    /// in any order.
    pub(super) fn of_kept(server: impl Into<String>, mut tools: Vec<Value>) -> McpManifest {
        tools.sort_by(|a, b| name_of(a).cmp(name_of(b)));
        let digest = digest_of(&tools);
        McpManifest {
            server: server.into(),
            tools,
            digest,
        }
    }

    /// A manifest of `server`'s definitions as MCP's `tools/list` gives
    /// them (e.g. a cached listing), in any order. Each description is cut
    /// as an import cuts it.
    ///
    /// Fails with [`ManifestError::Invalid`] when a definition is not an
    /// MCP tool definition (no `name`, an `inputSchema` that is not an
    /// object...): `at` is `tools[i]`, `i` its place in `definitions`.
    pub fn from_definitions(
        server: impl Into<String>,
        definitions: impl IntoIterator<Item = Value>,
    ) -> Result<McpManifest, ManifestError> {
        let server = server.into();
        let tools = normalised(&server, definitions)?;
        Ok(McpManifest::of_kept(server, tools))
    }

    /// The server's name, as the import that listed it was configured.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// `sha256:` and 64 hex digits: the digest of the definitions.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The definitions, sorted by the server's name for each tool, each
    /// as [`McpImport::definition`](super::McpImport::definition) keeps it.
    pub fn definitions(&self) -> &[Value] {
        &self.tools
    }

    /// How many tools the server listed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the server listed no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The file form: canonical JSON (keys in byte order at every depth,
    /// two-space indent) ending in a newline, holding `digest`, `server`,
    /// `tools` and `version`. The same manifest always gives the same
    /// bytes, so a committed manifest changes in review only when the
    /// server's tools did.
    pub fn to_json(&self) -> String {
        let file = File {
            digest: self.digest.clone(),
            server: self.server.clone(),
            tools: self.tools.clone(),
            version: MANIFEST_VERSION,
        };
        // Strings, a number and JSON values: serialising cannot fail.
        let mut text = to_canonical_pretty(&serde_json::to_value(file).unwrap_or(Value::Null));
        text.push('\n');
        text
    }

    /// Reads the file form back ([`to_json`](Self::to_json)).
    ///
    /// Fails, saying what is wrong, when the text is not JSON
    /// ([`ManifestError::Syntax`]), is of another format version
    /// ([`ManifestError::UnsupportedVersion`]), misses or mistypes a field
    /// or holds a definition that is not an MCP tool definition
    /// ([`ManifestError::Invalid`], with where), or its digest does not
    /// match its definitions ([`ManifestError::DigestMismatch`]: edited by
    /// hand or damaged).
    pub fn from_json(text: &str) -> Result<McpManifest, ManifestError> {
        let document: Value =
            serde_json::from_str(text).map_err(|source| ManifestError::Syntax { source })?;
        let server = document
            .get("server")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match document.get("version") {
            Some(version) if version.as_u64() == Some(u64::from(MANIFEST_VERSION)) => {}
            Some(version) => {
                return Err(ManifestError::UnsupportedVersion {
                    server,
                    found: to_canonical_string(version),
                    supported: MANIFEST_VERSION,
                });
            }
            None => {
                return Err(ManifestError::Invalid {
                    server,
                    at: "version".to_owned(),
                    message: "missing field `version`".to_owned(),
                });
            }
        }
        let file: File =
            serde_path_to_error::deserialize(&document).map_err(|err| ManifestError::Invalid {
                server: server.clone(),
                at: err.path().to_string(),
                message: err.inner().to_string(),
            })?;
        let tools = normalised(&file.server, file.tools)?;
        let manifest = McpManifest::of_kept(file.server, tools);
        if manifest.digest != file.digest {
            return Err(ManifestError::DigestMismatch {
                server: manifest.server,
                recorded: file.digest,
                computed: manifest.digest,
            });
        }
        Ok(manifest)
    }

    /// The definitions as rmcp tools, for registering.
    pub(super) fn listing(&self) -> Vec<Tool> {
        self.tools
            .iter()
            .filter_map(|value| {
                // Every definition was read as a tool when the manifest
                // was made: this does not fail.
                serde_json::from_value(value.clone())
                    .inspect_err(|err| {
                        tracing::warn!(server = %self.server, %err, "manifest definition unreadable");
                    })
                    .ok()
            })
            .collect()
    }

    /// How `listed` (what the server lists now) differs from this
    /// manifest; `None` when it does not.
    pub(super) fn drift(&self, listed: &McpManifest) -> Option<ManifestDrift> {
        if listed.digest == self.digest {
            return None;
        }
        let by_name = |tools: &[Value]| -> BTreeMap<String, Value> {
            tools
                .iter()
                .map(|tool| (name_of(tool).to_owned(), tool.clone()))
                .collect()
        };
        let ours = by_name(&self.tools);
        let theirs = by_name(&listed.tools);
        let mut drift = ManifestDrift {
            expected: self.digest.clone(),
            listed: listed.digest.clone(),
            added: Vec::new(),
            removed: Vec::new(),
            changed: Vec::new(),
        };
        for (name, definition) in &theirs {
            match ours.get(name) {
                None => drift.added.push(name.clone()),
                Some(old) if old != definition => drift.changed.push(name.clone()),
                Some(_) => {}
            }
        }
        drift.removed = ours
            .keys()
            .filter(|name| !theirs.contains_key(*name))
            .cloned()
            .collect();
        Some(drift)
    }
}

/// How what a server listed when its lazy import started it differs from
/// the manifest the import was made from
/// ([`McpImport::manifest_drift`](super::McpImport::manifest_drift)).
/// Tools are named as the server names them, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManifestDrift {
    /// The manifest's digest.
    pub expected: String,
    /// The digest of what the server listed.
    pub listed: String,
    /// Tools the server lists that the manifest did not hold.
    pub added: Vec<String>,
    /// Tools the manifest held that the server no longer lists.
    pub removed: Vec<String>,
    /// Tools both hold, defined differently.
    pub changed: Vec<String>,
}

impl std::fmt::Display for ManifestDrift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "added {:?}, removed {:?}, changed {:?} (manifest {}, server {})",
            self.added, self.removed, self.changed, self.expected, self.listed
        )
    }
}

/// Why a manifest was refused. Each message names the server when the
/// manifest says which, and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The text is not JSON.
    #[error(
        "MCP manifest is not valid JSON: {source}; list the server again and save its manifest anew"
    )]
    Syntax {
        /// What the JSON parser said, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// The text is JSON but not a manifest: a field is missing or of the
    /// wrong type, or a definition is not an MCP tool definition.
    #[error(
        "MCP manifest{} is malformed at `{}`: {}",
        OfServer(.server),
        capped(.at),
        capped_message(.message)
    )]
    Invalid {
        /// The server, when the manifest names one.
        server: Option<String>,
        /// Where, as a path into the document (`tools[2].inputSchema`).
        at: String,
        /// What is wrong there.
        message: String,
    },
    /// The manifest is of another format version.
    #[error(
        "MCP manifest{} is in format version {}, but this registry-core reads only version {supported}: list the server again and save its manifest anew",
        OfServer(.server),
        capped(.found)
    )]
    UnsupportedVersion {
        /// The server, when the manifest names one.
        server: Option<String>,
        /// The `version` found, as JSON.
        found: String,
        /// The version this crate reads.
        supported: u32,
    },
    /// The recorded digest does not match the recorded definitions: the
    /// file was edited by hand or damaged.
    #[error(
        "MCP manifest of server `{}` records digest {}, but its definitions hash to {computed}: it was edited or damaged; list the server again and save its manifest anew",
        capped(.server),
        capped(.recorded)
    )]
    DigestMismatch {
        /// The server the manifest names.
        server: String,
        /// The digest in the file.
        recorded: String,
        /// The digest of the definitions in the file.
        computed: String,
    },
    /// The manifest is of another server than the one configured.
    #[error(
        "the MCP manifest is of server `{}`, not of the configured server `{}`: give the import the manifest saved for it",
        capped(.manifest),
        capped(.configured)
    )]
    ServerMismatch {
        /// The server the manifest names.
        manifest: String,
        /// The server configured.
        configured: String,
    },
}

/// ` of server `x``, or nothing when the server is not known.
struct OfServer<'a>(&'a Option<String>);

impl std::fmt::Display for OfServer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(server) => write!(f, " of server `{}`", capped(server)),
            None => Ok(()),
        }
    }
}

/// A listed tool as an import keeps it: its description cut to the bound
/// every imported tool's is (idempotent: a kept definition is kept as it
/// is), and its JSON form, which the manifest and
/// [`McpImport::definition`](super::McpImport::definition) hold.
pub(super) fn kept(mut tool: Tool) -> (Tool, Value) {
    if let Some(description) = &tool.description
        && let std::borrow::Cow::Owned(cut) = bounded_description(description)
    {
        tool.description = Some(cut.into());
    }
    // An rmcp tool is strings, maps and JSON values: this cannot fail.
    let value = serde_json::to_value(&tool).unwrap_or(Value::Null);
    (tool, value)
}

/// Each definition read as an MCP tool and kept ([`kept`]).
fn normalised(
    server: &str,
    definitions: impl IntoIterator<Item = Value>,
) -> Result<Vec<Value>, ManifestError> {
    definitions
        .into_iter()
        .enumerate()
        .map(|(index, definition)| {
            serde_json::from_value::<Tool>(definition)
                .map(|tool| kept(tool).1)
                .map_err(|err| ManifestError::Invalid {
                    server: Some(server.to_owned()),
                    at: format!("tools[{index}]"),
                    message: format!("not an MCP tool definition: {err}"),
                })
        })
        .collect()
}

/// A kept definition's name on its server.
fn name_of(definition: &Value) -> &str {
    definition
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `sha256:` and the hex SHA-256 of the definitions' compact canonical
/// JSON (an array, in the manifest's order).
fn digest_of(tools: &[Value]) -> String {
    let text = to_canonical_string(&Value::Array(tools.to_vec()));
    format!("{DIGEST_PREFIX}{:x}", Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search() -> Value {
        json!({ "name": "search", "description": "Find.", "inputSchema": { "type": "object" } })
    }

    #[test]
    fn the_file_form_is_byte_stable_and_order_free() {
        let other = json!({ "name": "add", "inputSchema": { "type": "object" } });
        let a = McpManifest::from_definitions("s", [search(), other.clone()]).unwrap();
        let b = McpManifest::from_definitions("s", [other, search()]).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_json(), b.to_json());
        let again = McpManifest::from_json(&a.to_json()).unwrap();
        assert_eq!(again.to_json(), a.to_json());
        assert_eq!(name_of(&a.definitions()[0]), "add");
    }

    #[test]
    fn a_long_description_is_kept_cut() {
        let long = json!({ "name": "t", "description": "é".repeat(100_000), "inputSchema": { "type": "object" } });
        let manifest = McpManifest::from_definitions("s", [long]).unwrap();
        let kept = manifest.definitions()[0]["description"].as_str().unwrap();
        assert_eq!(kept.chars().count(), 2048);
        assert!(kept.ends_with("of 100000 characters shown]"), "{kept}");
    }

    #[test]
    fn drift_names_what_changed() {
        let before = McpManifest::from_definitions("s", [search()]).unwrap();
        let mut changed = search();
        changed["description"] = json!("Find more.");
        let add = json!({ "name": "add", "inputSchema": { "type": "object" } });
        let after = McpManifest::from_definitions("s", [changed, add]).unwrap();
        let drift = before.drift(&after).expect("drifted");
        assert_eq!(drift.added, ["add"]);
        assert_eq!(drift.changed, ["search"]);
        assert!(drift.removed.is_empty());
        assert!(after.drift(&after.clone()).is_none());
    }
}
