//! The tools the `prepare`, `input_deser` and `tool_search` targets read,
//! beside the example coding-agent tools this crate links: inputs with
//! the shapes a schema walk can get wrong (untagged and tagged unions,
//! `$ref`s to shared definitions, nullable and defaulted fields, nested
//! objects and arrays, maps with number keys, bounded integers).

use std::collections::BTreeMap;

use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// A point, referenced from several places (one `$defs` entry, many
/// `$ref`s).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
}

/// An untagged union: the first variant that parses wins.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Target {
    /// A point.
    Point(Point),
    /// A name.
    Name(String),
    /// An index.
    Index(u8),
}

/// An internally tagged union.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Its centre.
        centre: Point,
        /// Its radius.
        radius: f64,
    },
    /// A polygon.
    Polygon {
        /// Its corners.
        corners: Vec<Point>,
    },
    /// Nothing.
    Empty,
}

/// An externally tagged enum of unit and newtype variants.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Fast.
    Fast,
    /// Slow, with a factor.
    Slow(u16),
}

/// The input with every shape at once.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrawInput {
    /// What to draw.
    pub shape: Shape,
    /// Where.
    pub target: Target,
    /// How, if said.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// A nullable field without a default.
    pub label: Option<String>,
    /// Nested optional objects.
    #[serde(default)]
    pub layers: Vec<Option<Point>>,
    /// A map with number keys.
    #[serde(default)]
    pub weights: BTreeMap<u32, f32>,
    /// A bounded integer.
    #[serde(default)]
    pub opacity: u8,
    /// A nested tuple.
    #[serde(default)]
    pub span: Option<(i64, i64)>,
}

/// Draw a shape (a fuzz target's tool: never called).
#[tool(name = "draw", concurrency_safe = true, read_only = true)]
#[derive(Debug, Default)]
pub struct Draw;

impl Tool for Draw {
    type Input = DrawInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: DrawInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(format!("{input:?}"))
    }
}

/// A recursive input: a tree of nodes (a `$ref` to itself).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct Node {
    /// The node's name.
    pub name: String,
    /// Its children.
    #[serde(default)]
    pub children: Vec<Node>,
}

/// The input of `tree`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct TreeInput {
    /// The root.
    pub root: Node,
    /// How deep to look.
    #[serde(default)]
    pub depth: Option<u32>,
}

/// Walk a tree (a fuzz target's tool: never called).
#[tool(name = "tree", concurrency_safe = true, read_only = true)]
#[derive(Debug, Default)]
pub struct Tree;

impl Tool for Tree {
    type Input = TreeInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: TreeInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.root.name)
    }
}
