//! The argument plan: which of `prepare`'s schema walks a tool's arguments
//! can need, worked out once per tool from its input schema.
//!
//! Two walks guard parsing: [`shape`](super::shape) refuses a non-object
//! where the schema promises an object, and [`nulls`](crate::input::nulls) drops
//! `null` sent for an optional property that does not admit it. Both are
//! guided by the schema alone, so for most tools the schema already proves
//! that a walk can never act on an object argument: `{a: i64, b: i64}` has
//! no property that must be an object and no optional property that
//! refuses `null`. The plan records that proof once, and such a tool pays
//! for neither walk per call. A tool whose schema could need a walk gets
//! the full walk, unchanged.
//!
//! The plan only ever skips a walk the schema proves idle; when it cannot
//! prove it (a recursive schema, nesting as deep as the walks' own limit,
//! a `$ref` chain too long to follow) it walks. It never changes what a
//! walk decides, only whether it is asked.

use std::collections::BTreeMap;

use serde_json::Value;

use super::shape::only_objects_or_null;
use super::{admits_null, ref_target};

/// How many property or item levels the plan follows before it gives up
/// proving and walks: the walks' own depth limit, so a schema nested that
/// deep keeps their "too deep" answer.
const MAX_PROVEN_DEPTH: usize = super::MAX_WALK_DEPTH;

/// How many schemas deep (through `$ref`s, unions, properties and items)
/// the survey recurses before it gives up proving: a long `$ref` chain in
/// an imported schema must not exhaust the stack.
const MAX_SURVEY_DEPTH: usize = 256;

/// What `prepare` has to check of one tool's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArgPlan {
    /// Some object argument could hold a non-object where the schema
    /// promises an object (or nest deeper than the walk follows).
    shape: bool,
    /// Some optional property that refuses `null` is reachable.
    nulls: bool,
}

impl ArgPlan {
    /// Every walk, every call: what `prepare` did before plans existed.
    pub(crate) const WALK_ALL: ArgPlan = ArgPlan {
        shape: true,
        nulls: true,
    };

    /// The plan for a tool whose input schema is `schema`.
    pub(crate) fn new(schema: &Value) -> Self {
        let mut survey = Survey {
            root: schema,
            nodes: BTreeMap::new(),
            depth: 0,
        };
        match survey.visit(schema) {
            Some(facts) => ArgPlan {
                shape: facts.object_child || facts.depth >= MAX_PROVEN_DEPTH,
                nulls: facts.droppable,
            },
            None => ArgPlan::WALK_ALL,
        }
    }

    /// Whether the shape walk must look at `args`. Arguments that are not
    /// an object always need it: the root check refuses them.
    pub(crate) fn needs_shape_walk(&self, args: &Value) -> bool {
        self.shape || !args.is_object()
    }

    /// Whether the null walk could remove something from `args`: only
    /// when the schema has a droppable property and `args` holds a `null`
    /// somewhere (the walk removes nothing else).
    pub(crate) fn needs_null_walk(&self, args: &Value) -> bool {
        self.nulls && may_contain_null(args, MAX_PROVEN_DEPTH)
    }
}

/// `true` when `value` holds a `null` within `depth` levels, or is nested
/// deeper than that (the walk then decides).
pub(crate) fn may_contain_null(value: &Value, depth: usize) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => depth == 0 || items.iter().any(|v| may_contain_null(v, depth - 1)),
        Value::Object(map) => depth == 0 || map.values().any(|v| may_contain_null(v, depth - 1)),
        _ => false,
    }
}

/// What the schemas reachable from one schema can make a walk do.
#[derive(Debug, Clone, Copy, Default)]
struct Facts {
    /// Some property or item schema admits only objects (and `null`): the
    /// shape walk refuses a non-object there.
    object_child: bool,
    /// Some property is optional and refuses `null`: the null walk drops a
    /// `null` sent for it.
    droppable: bool,
    /// The longest chain of property and item levels below.
    depth: usize,
}

impl Facts {
    fn join(&mut self, below: Facts, levels: usize) {
        self.object_child |= below.object_child;
        self.droppable |= below.droppable;
        self.depth = self.depth.max(below.depth + levels);
    }
}

#[derive(Debug, Clone, Copy)]
enum Node {
    InProgress,
    Done(Facts),
}

/// One survey of a schema graph: every schema either walk can reach (a
/// `$ref` target, a union branch, a property, an item; `allOf` too, which
/// only over-approximates), each read once.
struct Survey<'s> {
    root: &'s Value,
    /// By the schema's address: a schema named by many `$ref`s is one node.
    nodes: BTreeMap<*const Value, Node>,
    depth: usize,
}

impl<'s> Survey<'s> {
    /// The facts below `schema`; `None` when they cannot be proven (a
    /// cycle, or a graph too deep to survey), which means "walk".
    fn visit(&mut self, schema: &'s Value) -> Option<Facts> {
        let key = std::ptr::from_ref(schema);
        match self.nodes.get(&key) {
            Some(Node::Done(facts)) => return Some(*facts),
            Some(Node::InProgress) => return None,
            None => {}
        }
        let Value::Object(map) = schema else {
            return Some(Facts::default());
        };
        if self.depth >= MAX_SURVEY_DEPTH {
            return None;
        }
        self.depth += 1;
        self.nodes.insert(key, Node::InProgress);
        let facts = self.facts(map);
        self.depth -= 1;
        self.nodes.insert(key, Node::Done(facts?));
        facts
    }

    fn facts(&mut self, map: &'s serde_json::Map<String, Value>) -> Option<Facts> {
        let mut facts = Facts::default();
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| ref_target(self.root, reference))
        {
            facts.join(self.visit(target)?, 0);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for branch in map.get(key).and_then(Value::as_array).into_iter().flatten() {
                facts.join(self.visit(branch)?, 0);
            }
        }
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            let required = map.get("required").and_then(Value::as_array);
            for (name, property) in properties {
                let is_required =
                    required.is_some_and(|r| r.iter().any(|k| k.as_str() == Some(name)));
                facts.droppable |= !is_required && !admits_null(property, self.root);
                facts.join(self.child(property)?, 1);
            }
        }
        match map.get("items") {
            Some(items @ Value::Object(_)) => facts.join(self.child(items)?, 1),
            Some(Value::Array(items)) => {
                for item in items {
                    facts.join(self.child(item)?, 1);
                }
            }
            _ => {}
        }
        Some(facts)
    }

    /// A property or item schema: the shape walk's question is asked of it
    /// as written, then what lies below it is surveyed.
    fn child(&mut self, schema: &'s Value) -> Option<Facts> {
        let mut facts = self.visit(schema)?;
        facts.object_child |= only_objects_or_null(schema, self.root);
        Some(facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(schema: Value) -> (bool, bool) {
        let plan = ArgPlan::new(&schema);
        (plan.shape, plan.nulls)
    }

    #[test]
    fn flat_schemas_need_no_walk() {
        let flat = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "integer"},
                "note": {"type": ["string", "null"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "free": {}
            },
            "required": ["a", "b", "tags"]
        });
        assert_eq!(plan(flat), (false, false));
        assert_eq!(plan(json!({"type": "object"})), (false, false));
    }

    #[test]
    fn an_optional_property_that_refuses_null_needs_the_null_walk() {
        // `#[serde(default)] limit: usize`, and the same one level down.
        let top = json!({"type": "object", "properties": {"limit": {"type": "integer"}}});
        assert_eq!(plan(top), (false, true));
        let nested = json!({
            "type": "object",
            "properties": {"edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}}},
            "required": ["edits"],
            "$defs": {"Edit": {"type": "object", "properties": {"all": {"type": "boolean"}}}}
        });
        assert_eq!(plan(nested), (true, true));
        // Reached only through a union branch.
        let union = json!({
            "type": "object",
            "properties": {"mode": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "string"}]}},
            "required": ["mode"],
            "$defs": {"M": {"properties": {"level": {"enum": [1, 2]}}}}
        });
        assert_eq!(plan(union), (false, true));
    }

    #[test]
    fn a_property_that_must_be_an_object_needs_the_shape_walk() {
        for property in [
            json!({"type": "object"}),
            json!({"anyOf": [{"$ref": "#/$defs/R"}, {"type": "null"}]}),
            json!({"$ref": "#/$defs/R"}),
            json!({"type": "array", "items": {"$ref": "#/$defs/R"}}),
        ] {
            let schema = json!({
                "type": "object",
                "properties": {"x": property},
                "required": ["x"],
                "$defs": {"R": {"type": "object", "properties": {"start": {"type": "integer"}}, "required": ["start"]}}
            });
            assert_eq!(plan(schema.clone()), (true, false), "{schema}");
        }
    }

    #[test]
    fn what_cannot_be_proven_is_walked() {
        // Recursive, even though no property is an object or droppable.
        let recursive = json!({
            "type": "object",
            "properties": {"expr": {"$ref": "#/$defs/Expr"}},
            "required": ["expr"],
            "$defs": {"Expr": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Expr"}}, {"type": "integer"}]}}
        });
        assert_eq!(ArgPlan::new(&recursive), ArgPlan::WALK_ALL);
        // Nested as deep as the walks follow: their "too deep" answer stays.
        let mut deep = json!({"type": "integer"});
        for _ in 0..MAX_PROVEN_DEPTH {
            deep = json!({"type": "array", "items": deep});
        }
        let schema = json!({"type": "object", "properties": {"x": deep}, "required": ["x"]});
        assert!(ArgPlan::new(&schema).shape);
        // A `$ref` chain longer than the survey follows.
        let mut defs = serde_json::Map::new();
        for i in 0..1_000 {
            defs.insert(
                format!("A{i}"),
                json!({"$ref": format!("#/$defs/A{}", i + 1)}),
            );
        }
        defs.insert("A1000".into(), json!({"type": "integer"}));
        let long = json!({
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/A0"}},
            "required": ["x"],
            "$defs": defs
        });
        assert_eq!(ArgPlan::new(&long), ArgPlan::WALK_ALL);
    }

    #[test]
    fn arguments_that_are_not_an_object_are_always_walked() {
        let plan = ArgPlan::new(&json!({"type": "object"}));
        assert!(!plan.needs_shape_walk(&json!({"a": 1})));
        for args in [json!(["ls"]), json!(null), json!("ls"), json!(3)] {
            assert!(plan.needs_shape_walk(&args), "{args}");
        }
    }

    #[test]
    fn the_null_walk_runs_only_on_arguments_holding_a_null() {
        let plan =
            ArgPlan::new(&json!({"type": "object", "properties": {"limit": {"type": "integer"}}}));
        assert!(!plan.needs_null_walk(&json!({"limit": 3, "xs": [1, {"a": "b"}]})));
        assert!(plan.needs_null_walk(&json!({"limit": null})));
        assert!(plan.needs_null_walk(&json!({"xs": [1, {"a": null}]})));
        let mut deep = json!(1);
        for _ in 0..=MAX_PROVEN_DEPTH {
            deep = json!([deep]);
        }
        assert!(plan.needs_null_walk(&deep), "too deep to tell: walk");
        let flat = ArgPlan::new(
            &json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
        );
        assert!(
            !flat.needs_null_walk(&json!({"a": null})),
            "nothing to drop"
        );
    }

    /// Schemas of every kind the walks handle; the plan must skip a walk
    /// for several of them, or the property below would prove nothing.
    fn schemas() -> Vec<Value> {
        let defs = json!({
            "R": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            "Opt": {"type": "object", "properties": {"a": {"type": "integer"}}},
            "E": {"oneOf": [{"type": "string", "enum": ["x"]}, {"type": "object", "required": ["b"], "properties": {"b": {"$ref": "#/$defs/R"}}}]},
            "N": {"type": ["integer", "null"]},
            "Expr": {"anyOf": [{"$ref": "#/$defs/Expr"}, {"type": "integer"}]}
        });
        let object = |properties: Value, required: Value| json!({"type": "object", "properties": properties, "required": required, "$defs": defs.clone()});
        vec![
            object(
                json!({"a": {"type": "integer"}, "b": {"$ref": "#/$defs/N"}, "x": {}}),
                json!(["a"]),
            ),
            object(
                json!({"a": {"type": "array", "items": {"type": "string"}}, "b": {"type": ["string", "null"]}}),
                json!(["a"]),
            ),
            object(
                json!({"a": {"anyOf": [{"type": "string"}, {"type": "array"}]}}),
                json!([]),
            ),
            object(
                json!({"a": {"type": "integer"}, "b": {"type": "string"}}),
                json!([]),
            ),
            object(
                json!({"a": {"$ref": "#/$defs/R"}, "b": {"$ref": "#/$defs/E"}}),
                json!(["a", "b"]),
            ),
            object(
                json!({"a": {"type": "array", "items": {"$ref": "#/$defs/Opt"}}}),
                json!(["a"]),
            ),
            object(
                json!({"x": {"$ref": "#/$defs/Expr"}, "a": {"$ref": "#/$defs/N"}}),
                json!([]),
            ),
            object(
                json!({"a": {"allOf": [{"$ref": "#/$defs/Opt"}]}, "b": {"not": {"type": "null"}}}),
                json!(["a"]),
            ),
        ]
    }

    #[test]
    fn the_sample_schemas_cover_skipping_and_walking() {
        let plans: Vec<ArgPlan> = schemas().iter().map(ArgPlan::new).collect();
        assert!(plans.iter().any(|p| !p.shape && !p.nulls));
        assert!(plans.iter().any(|p| !p.shape && p.nulls));
        assert!(plans.iter().any(|p| p.shape && !p.nulls));
        assert!(plans.contains(&ArgPlan::WALK_ALL));
    }

    fn arguments() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..3).prop_map(Value::from),
            "[a-z]{0,2}".prop_map(Value::from),
        ];
        let value = leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::btree_map("[abx]", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        proptest::collection::btree_map("[abx]", value, 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
    }

    proptest::proptest! {
        /// A walk the plan skips would have done nothing: the same
        /// arguments pass the shape walk and come out of the null walk
        /// unchanged.
        #[test]
        fn a_skipped_walk_is_a_walk_that_would_do_nothing(args in arguments()) {
            for schema in schemas() {
                let plan = ArgPlan::new(&schema);
                if !plan.needs_shape_walk(&args) {
                    proptest::prop_assert_eq!(
                        crate::input::schema::shape::first_mismatch(&args, &schema), None,
                        "schema {}", schema
                    );
                }
                if !plan.needs_null_walk(&args) {
                    let mut walked = args.clone();
                    crate::input::nulls::drop_null_optionals(&mut walked, &schema);
                    proptest::prop_assert_eq!(&walked, &args, "schema {}", schema);
                }
            }
        }
    }
}
