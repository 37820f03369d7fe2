//! From a [`RemoteToolDefinition`] to the declaration of the tool it
//! becomes; [`DefinitionImport::import`], which finishes it into a handle,
//! lives with the handle in `input::imported`.

use crate::declare::builder::ToolBuilder;
use crate::declare::definition::RemoteOrigin;
use crate::declare::error::DefinitionError;
use crate::declare::{Exposure, Exposures, PermissionContent};
use crate::text::{capped, capped_message};

use super::definition::{RemoteAnnotations, RemoteToolDefinition};
use super::naming::{imported_description, imported_tool_name, server_segment};
use super::posture::{ImportedPosture, check_schema_shape, loading_from_meta};

/// Imports tool definitions of one MCP server, trusted or not: each
/// [`RemoteToolDefinition`] becomes the tool `mcp::McpImport` (feature
/// `mcp`) would make of the same definition listed by a live server, with
/// a handler of the caller's choosing instead of a connection.
///
/// ```
/// use registry_core::ToolOutput;
/// use registry_core::declare::imported::{DefinitionImport, RemoteToolDefinition};
///
/// let definition: RemoteToolDefinition = serde_json::from_str(
///     r#"{ "name": "search", "inputSchema": { "type": "object" },
///          "annotations": { "readOnlyHint": true } }"#,
/// )?;
/// let handler = |_args, _cx| async { Ok(ToolOutput::text("no notes")) };
///
/// // Untrusted (the default): the hint is not believed.
/// let untrusted = DefinitionImport::new("notes").import(&definition, handler)?;
/// assert_eq!(untrusted.name(), "mcp__notes__search");
/// assert!(!untrusted.prepare(serde_json::json!({}))?.is_read_only());
///
/// let trusted = DefinitionImport::new("notes").trusted(true).import(&definition, handler)?;
/// assert!(trusted.prepare(serde_json::json!({}))?.is_read_only());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionImport {
    server: String,
    trusted: bool,
}

impl DefinitionImport {
    /// Imports the tools of the server named `server` (as the importer
    /// names it: the `<server>` of `mcp__<server>__<tool>`, and the
    /// server of each tool's [`RemoteOrigin`]). Not trusted.
    pub fn new(server: impl Into<String>) -> Self {
        DefinitionImport {
            server: server.into(),
            trusted: false,
        }
    }

    /// Believe the server's annotations: `readOnlyHint` and
    /// `destructiveHint` set the posture (`ImportedPosture::from_hints`),
    /// `idempotentHint` and `openWorldHint` are declared. Off by default:
    /// an untrusted server's tools get the strictest posture whatever
    /// they hint.
    pub fn trusted(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// The server's name, as given to [`new`](Self::new).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Whether the server's annotations are believed.
    pub fn is_trusted(&self) -> bool {
        self.trusted
    }

    /// The plugin owner to register the imported tools under: the
    /// server's [`server_segment`], as `mcp::McpImport` uses.
    pub fn owner(&self) -> String {
        server_segment(&self.server)
    }

    /// The declaration `definition` becomes, before a handler finishes it
    /// ([`import`](Self::import) is this followed by
    /// [`ToolBuilder::build`]): for adding what a definition cannot say
    /// (a search hint, a classifier text) before building.
    ///
    /// - name: [`imported_tool_name`] of the server and the tool's name;
    /// - description: `imported_description` (bounded; never empty);
    /// - input schema: refused unless a well-formed object schema
    ///   ([`ImportError::InputSchema`]);
    /// - posture: `ImportedPosture::from_hints`; idempotent and
    ///   open-world hints only from a trusted server;
    /// - output schema: kept when well-formed, dropped otherwise (a schema
    ///   is not a claim about safety);
    /// - `title` (or the annotations' title): the user-facing name;
    /// - loading: deferred unless `_meta` sets
    ///   `ALWAYS_LOAD_META_KEY` to `true`;
    /// - origin: [`RemoteOrigin`] with the server, the tool's own name and
    ///   the trust;
    /// - content rules see the arguments as canonical JSON.
    ///
    /// ```
    /// use registry_core::declare::imported::{DefinitionImport, ImportError, RemoteToolDefinition};
    ///
    /// let listy = RemoteToolDefinition::new("listy", serde_json::json!({ "type": "array" }));
    /// let err = DefinitionImport::new("srv").builder(&listy).unwrap_err();
    /// assert!(matches!(err, ImportError::InputSchema { .. }));
    /// assert!(err.to_string().starts_with("tool `listy` of MCP server `srv`: bad input schema: "), "{err}");
    /// ```
    pub fn builder(&self, definition: &RemoteToolDefinition) -> Result<ToolBuilder, ImportError> {
        let remote = definition.name.as_str();
        let schema = definition.input_schema.clone();
        check_schema_shape(&schema).map_err(|reason| ImportError::InputSchema {
            server: self.server.clone(),
            tool: remote.to_owned(),
            reason,
        })?;
        let annotations = definition.annotations.as_ref();
        let posture = ImportedPosture::from_hints(
            annotations.and_then(|a| a.read_only_hint),
            annotations.and_then(|a| a.destructive_hint),
            self.trusted,
        );
        let description = imported_description(
            &self.server,
            remote,
            definition.description.as_deref().unwrap_or_default(),
        );
        let mut builder = ToolBuilder::new(imported_tool_name(&self.server, remote), description)
            .input_schema(schema)
            .remote_origin(RemoteOrigin::new(self.server.as_str(), remote).with_trust(self.trusted))
            .loading(loading_from_meta(definition.meta.as_ref()))
            // Content rules (`mcp__srv__tool(...)`) see the arguments
            // as canonical JSON: the same text for the same arguments.
            .permission_content(|args| {
                Some(PermissionContent::text(crate::text::to_canonical_string(
                    args,
                )))
            });
        builder = posture.apply(builder);
        // The descriptive hints are believed as the safety ones are: only
        // from a trusted server.
        if self.trusted {
            if let Some(idempotent) = annotations.and_then(|a| a.idempotent_hint) {
                builder = builder.idempotent(idempotent);
            }
            if let Some(open_world) = annotations.and_then(|a| a.open_world_hint) {
                builder = builder.open_world(open_world);
            }
        }
        builder = builder.rule_of_two(imported_exposures(annotations, self.trusted).iter());
        // A schema is not a claim about safety: kept whoever sent it.
        if let Some(schema) = &definition.output_schema
            && check_schema_shape(schema).is_ok()
        {
            builder = builder.output_schema(schema.clone());
        }
        if let Some(title) = definition
            .title
            .as_ref()
            .or(annotations.and_then(|a| a.title.as_ref()))
        {
            builder = builder.user_facing_name(title.clone());
        }
        Ok(builder)
    }
}

/// What an imported tool brings to the Rule of Two, from its hints as
/// believed (only a trusted server's): private data always (no hint rules
/// it out); untrusted input and an external effect when it is open-world
/// (MCP's default: it reaches "external entities", which both answer and
/// receive); an external effect when it is not read-only. A tool without
/// hints, or of an untrusted server, brings all three.
fn imported_exposures(annotations: Option<&RemoteAnnotations>, trusted: bool) -> Exposures {
    let believed = |hint: Option<bool>, default: bool| match hint {
        Some(hint) if trusted => hint,
        _ => default,
    };
    let open_world = believed(annotations.and_then(|a| a.open_world_hint), true);
    let read_only = believed(annotations.and_then(|a| a.read_only_hint), false);
    let mut exposures = Exposures::NONE.with(Exposure::PrivateData);
    if open_world {
        exposures = exposures
            .with(Exposure::UntrustedInput)
            .with(Exposure::ExternalEffect);
    }
    if !read_only {
        exposures = exposures.with(Exposure::ExternalEffect);
    }
    exposures
}

/// Why a [`RemoteToolDefinition`] could not be imported: the tool (by its
/// server's name for it) and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The input schema is not a well-formed object schema (not an
    /// object, no `"type": "object"`, `properties` not an object of
    /// schemas, `required` not a list of names).
    #[error(
        "tool `{}` of MCP server `{}`: bad input schema: {}",
        capped(.tool),
        capped(.server),
        capped_message(.reason)
    )]
    InputSchema {
        /// The server, as the importer names it.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// What is wrong with the schema.
        reason: String,
    },
    /// The tool breaks a rule every definition obeys (a name or
    /// description `#[tool]` would have refused). Imported names and
    /// descriptions are normalised so that this does not happen; it is
    /// reported, not assumed away.
    #[error("tool `{}` of MCP server `{}`: {source}", capped(.tool), capped(.server))]
    Definition {
        /// The server, as the importer names it.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// The rule broken.
        #[source]
        source: DefinitionError,
    },
}

impl ImportError {
    /// The server, as the importer names it.
    pub fn server(&self) -> &str {
        match self {
            ImportError::InputSchema { server, .. } | ImportError::Definition { server, .. } => {
                server
            }
        }
    }

    /// The tool's name on the server.
    pub fn tool(&self) -> &str {
        match self {
            ImportError::InputSchema { tool, .. } | ImportError::Definition { tool, .. } => tool,
        }
    }

    /// The problem alone, without the tool and server the message starts
    /// with (what `mcp::McpImport::refused` reports as the reason).
    ///
    /// ```
    /// use registry_core::declare::imported::{DefinitionImport, RemoteToolDefinition};
    ///
    /// let bad = RemoteToolDefinition::new("t", serde_json::json!({ "type": "object", "required": "x" }));
    /// let err = DefinitionImport::new("srv").builder(&bad).unwrap_err();
    /// assert_eq!(err.tool(), "t");
    /// assert!(err.reason().starts_with("bad input schema: "), "{}", err.reason());
    /// ```
    pub fn reason(&self) -> String {
        match self {
            ImportError::InputSchema { reason, .. } => format!("bad input schema: {reason}"),
            ImportError::Definition { source, .. } => source.to_string(),
        }
    }
}
