//! The `#[tool(...)]` arguments as written, parsed declaratively with
//! darling. Each value type here owns the error for a value of the wrong
//! shape; rules that relate several keys live in `check.rs`.

use darling::util::SpannedValue;
use darling::{Error, FromMeta, Result};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, Meta};

/// Every key `#[tool(...)]` accepts, in the order the docs list them.
pub const KEYS: &[&str] = &[
    "name",
    "aliases",
    "description",
    "concurrency_safe",
    "read_only",
    "destructive",
    "access",
    "search_hint",
    "input_examples",
    "strict",
    "max_result_chars",
    "defer",
    "always_load",
    "flag",
    "enabled",
    "classifier_input",
    "user_facing_name",
    "idempotent",
    "open_world",
    "allowed_callers",
    "rule_of_two",
    "long_running",
    "internal",
    "cfg",
    "crate",
];

/// The arguments of `#[tool(...)]`.
#[derive(Debug, Default, FromMeta)]
pub struct ToolArgs {
    /// `name = "read_file"`: the model-facing name. Required.
    pub name: Option<Str>,
    /// `aliases = ["Read", "cat"]`: old names that keep resolving.
    #[darling(default)]
    pub aliases: Aliases,
    /// `description = "..."`: overrides the doc comment.
    pub description: Option<Str>,
    /// `concurrency_safe = true | false | expr`.
    pub concurrency_safe: Option<PostureArg>,
    /// `read_only = true | false | expr`.
    pub read_only: Option<PostureArg>,
    /// `destructive = true | false | expr`.
    pub destructive: Option<PostureArg>,
    /// `access = expr`: `fn(&Input) -> Access`, what a call reads and
    /// writes; calls whose accesses do not conflict share a batch.
    pub access: Option<FnExpr>,
    /// `search_hint = "words"`: helps tool search find a deferred tool.
    pub search_hint: Option<Str>,
    /// `input_examples = [r#"{"path": "src/lib.rs"}"#]`: example inputs
    /// as JSON objects, checked against the input when the list is built.
    #[darling(default)]
    pub input_examples: InputExamples,
    /// `strict = true`: ask the provider to hold the model to the schema.
    pub strict: Option<Bool>,
    /// `max_result_chars = N | unbounded`.
    pub max_result_chars: Option<ResultCapArg>,
    /// `defer`: send without schema; found through tool search.
    #[darling(default)]
    pub defer: Switch,
    /// `always_load`: never deferred.
    #[darling(default)]
    pub always_load: Switch,
    /// `flag = "NAME"`: runtime flag checked when the list is built.
    pub flag: Option<Str>,
    /// `enabled = path`: a `fn() -> bool` self-check.
    pub enabled: Option<FnExpr>,
    /// `classifier_input = expr`: `Fn(&Input) -> String` for a safety classifier.
    pub classifier_input: Option<FnExpr>,
    /// `user_facing_name = "..."`: a name for people.
    pub user_facing_name: Option<Str>,
    /// `idempotent = true`: a repeated call with the same arguments does
    /// nothing more (MCP's `idempotentHint`).
    pub idempotent: Option<Bool>,
    /// `open_world = false`: calls stay within a closed set of things
    /// (MCP's `openWorldHint`).
    pub open_world: Option<Bool>,
    /// `allowed_callers = ["direct", "program"]`: who may call the tool.
    pub allowed_callers: Option<AllowedCallers>,
    /// `rule_of_two = ["untrusted_input"]`: the Rule of Two properties
    /// calls bring (all of them; `[]` for none).
    pub rule_of_two: Option<RuleOfTwoArg>,
    /// `long_running`: a call may run for long (served over MCP as a task
    /// to clients that negotiate the Tasks extension).
    #[darling(default)]
    pub long_running: Switch,
    /// `internal`: never exposed in the ordinary pool.
    #[darling(default)]
    pub internal: Switch,
    /// `cfg(feature = "web")`: a compile-time gate the catalog remembers
    /// (a `#[cfg]` on the struct would hide the tool from the macro).
    pub cfg: Option<crate::gate::CfgArg>,
    /// `crate = "::path"`: where `registry_core` lives, if renamed.
    #[darling(rename = "crate")]
    pub krate: Option<SpannedValue<CratePath>>,
}

/// What a key looks like written correctly, for messages about a key
/// written wrongly.
fn example(key: &str) -> &'static str {
    match key {
        "name" => "name = \"read_file\"",
        "aliases" => "aliases = [\"Read\", \"cat\"]",
        "description" => "description = \"Read a UTF-8 file.\"",
        "concurrency_safe" => "concurrency_safe = true",
        "read_only" => "read_only = true",
        "destructive" => "destructive = false",
        "access" => "access = |i: &Input| Access::write(AccessKey::path(&i.path))",
        "search_hint" => "search_hint = \"open view file\"",
        "input_examples" => "input_examples = [r#\"{\"path\": \"src/lib.rs\"}\"#]",
        "strict" => "strict = true",
        "max_result_chars" => "max_result_chars = 100_000",
        "flag" => "flag = \"web\"",
        "enabled" => "enabled = path::to::check",
        "classifier_input" => "classifier_input = |i: &Input| i.command.clone()",
        "user_facing_name" => "user_facing_name = \"Read file\"",
        "idempotent" => "idempotent = true",
        "open_world" => "open_world = false",
        "allowed_callers" => "allowed_callers = [\"direct\", \"program\"]",
        "rule_of_two" => "rule_of_two = [\"untrusted_input\", \"external_effect\"]",
        "crate" => "crate = \"::registry_core\"",
        _ => "key = value",
    }
}

/// The type a function-valued key promises; `check.rs` binds the user's
/// expression to the same type.
fn fn_type(key: &str) -> &'static str {
    match key {
        "enabled" => "fn() -> bool",
        "classifier_input" => "fn(&Input) -> String",
        "access" => "fn(&Input) -> Access",
        _ => "fn(&Input) -> bool",
    }
}

/// The value of `key = value`. A key written alone (`flag`) or as a list
/// (`flag("web")`) is an error naming the key and showing the right form,
/// instead of darling's "unexpected meta-item format".
fn value_of(meta: &Meta) -> Result<&Expr> {
    let key = key_of(meta);
    match meta {
        Meta::NameValue(nv) => Ok(ungroup(&nv.value)),
        Meta::Path(path) => Err(Error::custom(format!(
            "`{key}` needs a value, e.g. `{}`",
            example(&key)
        ))
        .with_span(path)),
        Meta::List(list) => Err(Error::custom(format!(
            "write `{key}` as `key = value`, e.g. `{}`",
            example(&key)
        ))
        .with_span(list)),
    }
}

/// The expression inside the invisible group macro_rules! wraps around a
/// `$value:expr` it passes on.
fn ungroup(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => ungroup(&group.expr),
        other => other,
    }
}

/// What a value is, for "expected X, found Y" messages.
fn describe_expr(expr: &Expr) -> &'static str {
    match expr {
        Expr::Lit(lit) => describe_lit(&lit.lit),
        Expr::Path(_) => "a path",
        Expr::Closure(_) => "a closure",
        Expr::Array(_) => "an array",
        Expr::Call(_) | Expr::MethodCall(_) => "a call",
        _ => "an expression",
    }
}

/// The string literal of `key = "..."`.
fn string_value(meta: &Meta) -> Result<LitStr> {
    let key = key_of(meta);
    match value_of(meta)? {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.clone()),
        other => Err(Error::custom(format!(
            "`{key}` expects a string literal, found {}; write `{}`",
            describe_expr(other),
            example(&key)
        ))
        .with_span(other)),
    }
}

/// A string literal value, kept with its span.
#[derive(Debug, Clone)]
pub struct Str(pub LitStr);

impl FromMeta for Str {
    fn from_meta(item: &Meta) -> Result<Self> {
        string_value(item).map(Str)
    }
}

/// `idempotent = true`: a boolean literal, nothing else (a hint is a fact
/// about every call, never computed per input).
#[derive(Debug)]
pub struct Bool(pub bool);

impl FromMeta for Bool {
    fn from_meta(item: &Meta) -> Result<Self> {
        let key = key_of(item);
        match value_of(item)? {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            }) => Ok(Bool(b.value)),
            other => Err(Error::custom(format!(
                "`{key}` expects `true` or `false`, found {}; write `{}`",
                describe_expr(other),
                example(&key)
            ))
            .with_span(other)),
        }
    }
}

/// `aliases = ["a", "b"]`.
#[derive(Debug, Default)]
pub struct Aliases(pub Vec<LitStr>);

impl FromMeta for Aliases {
    fn from_meta(item: &Meta) -> Result<Self> {
        let expr = value_of(item)?;
        let Expr::Array(array) = expr else {
            return Err(Error::custom(format!(
                "`aliases` expects an array of string literals, found {}; write `aliases = [\"Read\", \"cat\"]`",
                describe_expr(expr)
            ))
            .with_span(expr));
        };
        let mut errors = Error::accumulator();
        let aliases = array
            .elems
            .iter()
            .filter_map(|elem| match elem {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.clone()),
                other => {
                    errors.push(
                        Error::custom(format!(
                            "each alias must be a string literal, found {}",
                            describe_expr(other)
                        ))
                        .with_span(other),
                    );
                    None
                }
            })
            .collect();
        errors.finish_with(Aliases(aliases))
    }
}

/// `allowed_callers = ["direct", "program"]`: at least one of the two,
/// each at most once.
#[derive(Debug, Clone, Copy)]
pub struct AllowedCallers {
    pub direct: bool,
    pub program: bool,
}

impl FromMeta for AllowedCallers {
    fn from_meta(item: &Meta) -> Result<Self> {
        let expr = value_of(item)?;
        let written = "write `allowed_callers = [\"direct\"]`, `[\"program\"]` or `[\"direct\", \"program\"]`";
        let Expr::Array(array) = expr else {
            return Err(Error::custom(format!(
                "`allowed_callers` expects an array of string literals, found {}; {written}",
                describe_expr(expr)
            ))
            .with_span(expr));
        };
        if array.elems.is_empty() {
            return Err(Error::custom(format!(
                "`allowed_callers` is empty, so nothing could call the tool; {written}"
            ))
            .with_span(array));
        }
        let mut errors = Error::accumulator();
        let mut callers = AllowedCallers {
            direct: false,
            program: false,
        };
        for elem in &array.elems {
            let Expr::Lit(syn::ExprLit {
                lit: Lit::Str(lit), ..
            }) = elem
            else {
                errors.push(
                    Error::custom(format!(
                        "each caller must be a string literal, found {}; {written}",
                        describe_expr(elem)
                    ))
                    .with_span(elem),
                );
                continue;
            };
            let seen = match lit.value().as_str() {
                "direct" => &mut callers.direct,
                "program" => &mut callers.program,
                other => {
                    // The providers' own names, said in ours.
                    let hint = match other {
                        "programmatic" | "code_execution" | "code" => {
                            "; did you mean `\"program\"`?".to_owned()
                        }
                        _ => String::new(),
                    };
                    errors.push(
                        Error::custom(format!(
                            "unknown caller `{other}`: the callers are `\"direct\"` (the model) and `\"program\"` (code the model wrote){hint}"
                        ))
                        .with_span(lit),
                    );
                    continue;
                }
            };
            if *seen {
                errors.push(
                    Error::custom(format!("caller `{}` is listed twice", lit.value()))
                        .with_span(lit),
                );
            }
            *seen = true;
        }
        errors.finish_with(callers)
    }
}

/// `input_examples = ["{...}", ...]`: each a string literal holding one
/// JSON object.
#[derive(Debug, Default)]
pub struct InputExamples(pub Vec<LitStr>);

impl FromMeta for InputExamples {
    fn from_meta(item: &Meta) -> Result<Self> {
        let expr = value_of(item)?;
        let Expr::Array(array) = expr else {
            return Err(Error::custom(format!(
                "`input_examples` expects an array of string literals holding JSON objects, found {}; write `{}`",
                describe_expr(expr),
                example("input_examples")
            ))
            .with_span(expr));
        };
        let mut errors = Error::accumulator();
        let examples = array
            .elems
            .iter()
            .filter_map(|elem| {
                let Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) = elem
                else {
                    errors.push(
                        Error::custom(format!(
                            "each input example must be a string literal holding a JSON object, found {}",
                            describe_expr(elem)
                        ))
                        .with_span(elem),
                    );
                    return None;
                };
                match serde_json::from_str::<serde_json::Value>(&s.value()) {
                    Ok(serde_json::Value::Object(_)) => Some(s.clone()),
                    Ok(_) => {
                        errors.push(
                            Error::custom("this input example is JSON but not an object; a tool's input is one JSON object")
                                .with_span(s),
                        );
                        None
                    }
                    Err(err) => {
                        errors.push(
                            Error::custom(format!("this input example is not valid JSON: {err}"))
                                .with_span(s),
                        );
                        None
                    }
                }
            })
            .collect();
        errors.finish_with(InputExamples(examples))
    }
}

/// `concurrency_safe`, `read_only`, `destructive`: a fixed answer, or an
/// expression of type `Fn(&Input) -> bool` evaluated per call.
#[derive(Debug, Clone)]
pub enum PostureArg {
    Fixed(syn::LitBool),
    PerInput(Expr),
}

impl FromMeta for PostureArg {
    fn from_meta(item: &Meta) -> Result<Self> {
        let key = key_of(item);
        match value_of(item)? {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            }) => Ok(PostureArg::Fixed(b.clone())),
            Expr::Lit(lit) => Err(Error::custom(format!(
                "`{key}` expects `true`, `false`, or a posture expression of type `{}`, found {}",
                fn_type(&key),
                describe_lit(&lit.lit)
            ))
            .with_span(lit)),
            other => Ok(PostureArg::PerInput(other.clone())),
        }
    }
}

/// `max_result_chars = N | unbounded`.
#[derive(Debug, Clone)]
pub enum ResultCapArg {
    Chars(syn::LitInt),
    Unbounded(Span),
}

impl FromMeta for ResultCapArg {
    fn from_meta(item: &Meta) -> Result<Self> {
        match value_of(item)? {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(int), ..
            }) => match int.base10_parse::<usize>() {
                Ok(0) => Err(Error::custom(
                    "`max_result_chars` must be at least 1; write `max_result_chars = unbounded` to remove the cap",
                )
                .with_span(int)),
                Ok(_) => Ok(ResultCapArg::Chars(int.clone())),
                Err(err) => Err(Error::custom(format!(
                    "`max_result_chars` does not fit in a `usize`: {err}; write `max_result_chars = unbounded` to remove the cap"
                ))
                .with_span(int)),
            },
            Expr::Path(path) if path.path.is_ident("unbounded") => Ok(ResultCapArg::Unbounded(path.span())),
            other => Err(Error::custom(format!(
                "`max_result_chars` expects a positive integer or `unbounded`, found {}; write `max_result_chars = 100_000`",
                describe_expr(other)
            ))
            .with_span(other)),
        }
    }
}

/// A key written alone: `defer`, `always_load`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Switch(pub Option<Span>);

impl FromMeta for Switch {
    fn from_meta(item: &Meta) -> Result<Self> {
        match item {
            Meta::Path(path) => Ok(Switch(Some(path.span()))),
            other => Err(Error::custom(format!(
                "`{}` takes no value; write it alone, e.g. `#[tool(name = \"...\", {})]`",
                key_of(other),
                key_of(other)
            ))
            .with_span(other)),
        }
    }
}

/// `enabled = path`, `classifier_input = expr`, `access = expr`: a
/// function-valued expression.
#[derive(Debug, Clone)]
pub struct FnExpr(pub Expr);

impl FromMeta for FnExpr {
    fn from_meta(item: &Meta) -> Result<Self> {
        let key = key_of(item);
        match value_of(item)? {
            Expr::Lit(lit) => Err(Error::custom(format!(
                "`{key}` expects a function of type `{}` (a path or a closure), found {}; write `{}`",
                fn_type(&key),
                describe_lit(&lit.lit),
                example(&key)
            ))
            .with_span(lit)),
            other => Ok(FnExpr(other.clone())),
        }
    }
}

/// `crate = "::path"`: must be absolute so it means the same in every module.
#[derive(Debug, Clone)]
pub struct CratePath(pub syn::Path);

impl FromMeta for CratePath {
    fn from_meta(item: &Meta) -> Result<Self> {
        let lit = string_value(item)?;
        let value = lit.value();
        let path: syn::Path = syn::parse_str(&value).map_err(|err| {
            Error::custom(format!(
                "`crate` is not a path ({err}); write `crate = \"::registry_core\"`"
            ))
            .with_span(&lit)
        })?;
        let absolute = path.leading_colon.is_some()
            || path.segments.first().is_some_and(|s| s.ident == "crate");
        if !absolute {
            return Err(Error::custom(format!(
                "`crate` must be an absolute path: write `crate = \"::{value}\"` (or a `crate::` path to a re-export)"
            ))
            .with_span(&lit));
        }
        Ok(CratePath(path))
    }
}

fn describe_lit(lit: &Lit) -> &'static str {
    match lit {
        Lit::Str(_) => "a string literal",
        Lit::ByteStr(_) | Lit::CStr(_) => "a byte string literal",
        Lit::Byte(_) | Lit::Char(_) => "a character literal",
        Lit::Int(_) => "an integer literal",
        Lit::Float(_) => "a float literal",
        Lit::Bool(_) => "a boolean literal",
        _ => "a literal",
    }
}

fn key_of(meta: &Meta) -> String {
    meta.path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// `rule_of_two = ["untrusted_input", "private_data", "external_effect"]`:
/// any of the three, each at most once; `[]` says none.
#[derive(Debug, Clone, Default)]
pub struct RuleOfTwoArg {
    /// The properties, as the variant names of `Exposure`.
    pub variants: Vec<&'static str>,
}

impl FromMeta for RuleOfTwoArg {
    fn from_meta(item: &Meta) -> Result<Self> {
        let expr = value_of(item)?;
        let written = "write the properties calls bring, e.g. `rule_of_two = [\"untrusted_input\", \"external_effect\"]`, or `[]` for none";
        let Expr::Array(array) = expr else {
            return Err(Error::custom(format!(
                "`rule_of_two` expects an array of string literals, found {}; {written}",
                describe_expr(expr)
            ))
            .with_span(expr));
        };
        let mut errors = Error::accumulator();
        let mut variants = Vec::new();
        for elem in &array.elems {
            let Expr::Lit(syn::ExprLit {
                lit: Lit::Str(lit), ..
            }) = elem
            else {
                errors.push(
                    Error::custom(format!(
                        "each Rule of Two property must be a string literal, found {}; {written}",
                        describe_expr(elem)
                    ))
                    .with_span(elem),
                );
                continue;
            };
            let variant = match lit.value().as_str() {
                "untrusted_input" => "UntrustedInput",
                "private_data" => "PrivateData",
                "external_effect" => "ExternalEffect",
                other => {
                    errors.push(
                        Error::custom(format!(
                            "unknown Rule of Two property `{other}`: the properties are `\"untrusted_input\"`, `\"private_data\"` and `\"external_effect\"`"
                        ))
                        .with_span(lit),
                    );
                    continue;
                }
            };
            if variants.contains(&variant) {
                errors.push(
                    Error::custom(format!("property `{}` is listed twice", lit.value()))
                        .with_span(lit),
                );
                continue;
            }
            variants.push(variant);
        }
        errors.finish_with(RuleOfTwoArg { variants })
    }
}
