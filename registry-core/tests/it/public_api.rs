//! The public API stays small: at most [`MAX_PUBLIC_NAMES`] names.
//!
//! A ratchet: the goal is 120 names (issue 33 cut 273 to 149; what is
//! left is posture introspection, the lock report's detail types, content
//! blocks and the permission vocabulary). Lower the limit whenever names
//! go; raising it needs a reason in the commit.
//!
//! Counts what `cargo doc -p registry-core --all-features --no-deps`
//! lists in `all.html`, from the sources alone (no rustdoc at test time):
//! parses `src/` from `lib.rs` down, following `mod` declarations (with
//! their `#[path]`), and walks what a user can reach: `pub mod`s and their
//! `pub` items, and every `pub use`, resolved through `self::`, `super::`,
//! `crate::` and other `use`s to the item it names. Structs, enums,
//! unions, traits, functions, type aliases, constants, statics and macros
//! (`#[macro_export]` ones, and the attribute macro re-exported from
//! `registry_macros`) count; modules, members (methods, fields, variants),
//! anything `#[doc(hidden)]` or under a hidden module (`__private`), whole
//! re-exported crates (`serde`), items behind `pub(crate)` or a private
//! module, and `#[cfg(test)]` code do not. Every `#[cfg(feature = ...)]`
//! is on (the docs are built with all features).
//!
//! An item counts once per page rustdoc gives it, as `all.html` does: at
//! its own path when that is public, else at each `pub use` that inlines
//! it. A re-export through a public path is a link, not a page, so `Tool`
//! counts once (at `declare`, not again at the root); but an item of a
//! private module re-exported by two `pub use`s of private paths gets two
//! pages, and counts twice.
//!
//! A failing run prints every name with its kind: cut from that list.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Item, Meta, Signature, Token, UseTree, Visibility};

/// The most names registry-core's public API may hold: 149 after the
/// house's second pass, plus `declare::Callers` (code mode: who may call a
/// tool, read by the attribute, the renders and the executor) and the five
/// of the executor's hooks (`CallHook`, `HookedCall`, `BeforeCall`,
/// `AfterCall`, `HookFuture`) and their batch verdict (`BatchVerdict`), and the four of the Rule of Two
/// (`declare::Exposure` and `Exposures`, what a tool declares;
/// `permission::RuleOfTwo`, the policy's one setting; `permission::ExposedBy`,
/// the record of which call brought what, kept in a session's record),
/// and the five of durable turns (`execute::TurnOutcome`, `SuspendedTurn`,
/// `PendingApproval`, `Answer`, `DurableError`), and the three of search's
/// explanations (`search::Explanation`, `WordMatch`, and `QueryError`, the
/// error an explanation of a query that does not parse returns), and the
/// three of lazy MCP imports (`mcp::McpManifest`, what a server's tools
/// were when last listed; `ManifestError`, why a manifest cannot be read;
/// `ManifestDrift`, how a started server differs from its manifest), and
/// `session::Lease`, a store's record that a replica is running a call
/// (what lets another replica end a call whose replica died).
const MAX_PUBLIC_NAMES: usize = 172;

/// Where a name is visible from: `pub`, within the crate (`pub(crate)`,
/// `pub(super)`, `pub(in ...)`), or only in its module and below.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Vis {
    Public,
    Crate,
    Private,
}

fn vis_of(vis: &Visibility) -> Vis {
    match vis {
        Visibility::Public(_) => Vis::Public,
        Visibility::Restricted(_) => Vis::Crate,
        Visibility::Inherited => Vis::Private,
    }
}

/// An item definition: its name and rustdoc's kind (the prefix of its page,
/// `struct.Name.html`).
struct Def {
    name: String,
    kind: &'static str,
    vis: Vis,
    hidden: bool,
}

/// One name a `use` binds (`binding` is `None` for a glob), with the full
/// path it names.
struct Use {
    binding: Option<String>,
    path: Vec<String>,
    absolute: bool,
    vis: Vis,
    hidden: bool,
    no_inline: bool,
}

struct Module {
    path: Vec<String>,
    parent: Option<usize>,
    vis: Vis,
    hidden: bool,
    mods: Vec<(String, usize)>,
    defs: Vec<Def>,
    uses: Vec<Use>,
}

/// What a path resolves to.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Target {
    Module(usize),
    Def(usize, usize),
    /// A path into another crate (`registry_macros::tool`, `serde`).
    External(Vec<String>),
    /// Something rustdoc does not list on its own (an enum's variant).
    Member,
}

/// The crate's modules, parsed from its files.
struct Crate<'a> {
    modules: Vec<Module>,
    read: &'a dyn Fn(&Path) -> Option<String>,
}

/// Whether `#[cfg(...)]` predicates hold for a docs build with every
/// feature on, on this host, outside `cfg(test)`.
fn cfg_holds(meta: &Meta) -> bool {
    let nested = |meta: &Meta| -> Vec<Meta> {
        let Meta::List(list) = meta else {
            panic!("cfg: a list expected in {meta:?}")
        };
        list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .expect("cfg predicates")
            .into_iter()
            .collect()
    };
    let name = meta
        .path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    match meta {
        Meta::Path(_) => match name.as_str() {
            "unix" => cfg!(unix),
            "windows" => cfg!(windows),
            "debug_assertions" | "doc" => true,
            _ => false,
        },
        Meta::NameValue(pair) => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(value),
                ..
            }) = &pair.value
            else {
                return false;
            };
            let value = value.value();
            match name.as_str() {
                "feature" => true,
                "target_os" => value == std::env::consts::OS,
                "target_family" => value == std::env::consts::FAMILY,
                _ => false,
            }
        }
        Meta::List(_) => match name.as_str() {
            "not" => !nested(meta).iter().all(cfg_holds),
            "all" => nested(meta).iter().all(cfg_holds),
            "any" => nested(meta).iter().any(cfg_holds),
            _ => false,
        },
    }
}

fn cfg_on(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .all(|attr| cfg_holds(&attr.parse_args::<Meta>().expect("a cfg predicate")))
}

/// Whether a `#[doc(...)]` attribute says `word` (`hidden`, `no_inline`).
fn doc_says(attrs: &[Attribute], word: &str) -> bool {
    attrs.iter().any(|attr| {
        let Meta::List(list) = &attr.meta else {
            return false;
        };
        list.path.is_ident("doc")
            && list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .is_ok_and(|said| said.iter().any(|meta| meta.path().is_ident(word)))
    })
}

fn has_attr(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().any(|attr| attr.path().is_ident(name))
}

/// A file's inner attributes and items, parsed for names only: `impl`
/// blocks, function bodies and `cfg`-off modules (most of the text) are
/// skipped over unparsed, which makes the unoptimised parse several times
/// faster.
struct Skim {
    attrs: Vec<Attribute>,
    items: Vec<Item>,
}

impl Parse for Skim {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        Ok(Skim {
            attrs: input.call(Attribute::parse_inner)?,
            items: skim_items(input)?,
        })
    }
}

/// Skips tokens up to and including the first `{...}` group or `;`.
fn skip_to_body(input: ParseStream) -> syn::Result<()> {
    loop {
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            return Ok(());
        }
        let body = input.peek(syn::token::Brace);
        input.step(|cursor| match cursor.token_tree() {
            Some((_, next)) => Ok(((), next)),
            None => Err(cursor.error("an item without a body")),
        })?;
        if body {
            return Ok(());
        }
    }
}

fn skim_items(input: ParseStream) -> syn::Result<Vec<Item>> {
    let mut items = Vec::new();
    while !input.is_empty() {
        let ahead = input.fork();
        let attrs = ahead.call(Attribute::parse_outer)?;
        let vis: Visibility = ahead.parse()?;
        let unsafe_impl = ahead.peek(Token![unsafe]) && ahead.peek2(Token![impl]);
        let module = ahead.peek(Token![mod]);
        let function = ahead.fork().parse::<Signature>().is_ok();
        if ahead.peek(Token![impl]) || unsafe_impl || (module && !cfg_on(&attrs)) || function {
            input.call(Attribute::parse_outer)?;
            input.parse::<Visibility>()?;
            let sig = if function {
                Some(input.parse::<Signature>()?)
            } else {
                None
            };
            skip_to_body(input)?;
            if let Some(sig) = sig {
                let block = Box::new(syn::Block {
                    brace_token: Default::default(),
                    stmts: Vec::new(),
                });
                items.push(Item::Fn(syn::ItemFn {
                    attrs,
                    vis,
                    sig,
                    block,
                }));
            }
        } else if module && {
            ahead.parse::<Token![mod]>()?;
            ahead.parse::<syn::Ident>()?;
            ahead.peek(syn::token::Brace)
        } {
            input.call(Attribute::parse_outer)?;
            input.parse::<Visibility>()?;
            let mod_token = input.parse()?;
            let ident = input.parse()?;
            let content;
            let brace = syn::braced!(content in input);
            let inner = content.call(Attribute::parse_inner)?;
            items.push(Item::Mod(syn::ItemMod {
                attrs: attrs.into_iter().chain(inner).collect(),
                vis,
                unsafety: None,
                mod_token,
                ident,
                content: Some((brace, skim_items(&content)?)),
                semi: None,
            }));
        } else {
            items.push(input.parse()?);
        }
    }
    Ok(items)
}

/// Every name a `use` tree binds: (binding, full path); a glob binds `None`.
fn flatten(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Option<String>, Vec<String>)>) {
    let named = |prefix: &Vec<String>, ident: &syn::Ident| -> Vec<String> {
        let mut path = prefix.clone();
        if ident != "self" {
            path.push(ident.to_string());
        }
        path
    };
    match tree {
        UseTree::Path(step) => {
            prefix.push(step.ident.to_string());
            flatten(&step.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let path = named(prefix, &name.ident);
            out.push((path.last().cloned(), path));
        }
        UseTree::Rename(rename) => {
            // `use Trait as _` binds no name.
            if rename.rename != "_" {
                out.push((
                    Some(rename.rename.to_string()),
                    named(prefix, &rename.ident),
                ));
            }
        }
        UseTree::Glob(_) => out.push((None, prefix.clone())),
        UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, out);
            }
        }
    }
}

impl<'a> Crate<'a> {
    fn load(root: &Path, read: &'a dyn Fn(&Path) -> Option<String>) -> Self {
        let mut krate = Crate {
            modules: Vec::new(),
            read,
        };
        let lib = root.join("lib.rs");
        let file = krate.parse(&lib);
        krate.modules.push(Module {
            path: Vec::new(),
            parent: None,
            vis: Vis::Public,
            hidden: doc_says(&file.attrs, "hidden"),
            mods: Vec::new(),
            defs: Vec::new(),
            uses: Vec::new(),
        });
        krate.add_items(0, &file.items, root, &lib);
        krate
    }

    fn parse(&self, file: &Path) -> Skim {
        let text = (self.read)(file).unwrap_or_else(|| panic!("{}: cannot read", file.display()));
        syn::parse_str(&text).unwrap_or_else(|err| panic!("{}: {err}", file.display()))
    }

    fn def(
        &mut self,
        module: usize,
        name: String,
        kind: &'static str,
        vis: Vis,
        attrs: &[Attribute],
    ) {
        let hidden = doc_says(attrs, "hidden");
        self.modules[module].defs.push(Def {
            name,
            kind,
            vis,
            hidden,
        });
    }

    /// Adds `items` to `module`; `dir` is where its `mod x;` files live,
    /// `file` the file the items are in.
    fn add_items(&mut self, module: usize, items: &[Item], dir: &Path, file: &Path) {
        for item in items {
            let vis = |v: &Visibility| vis_of(v);
            match item {
                Item::Mod(m) if cfg_on(&m.attrs) => self.add_mod(module, m, dir, file),
                Item::Mod(_) => {}
                Item::Struct(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.ident.to_string(), "struct", vis(&i.vis), &i.attrs)
                }
                Item::Enum(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.ident.to_string(), "enum", vis(&i.vis), &i.attrs)
                }
                Item::Union(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.ident.to_string(), "union", vis(&i.vis), &i.attrs)
                }
                Item::Trait(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.ident.to_string(), "trait", vis(&i.vis), &i.attrs)
                }
                Item::TraitAlias(i) if cfg_on(&i.attrs) => self.def(
                    module,
                    i.ident.to_string(),
                    "traitalias",
                    vis(&i.vis),
                    &i.attrs,
                ),
                Item::Fn(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.sig.ident.to_string(), "fn", vis(&i.vis), &i.attrs)
                }
                Item::Type(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.ident.to_string(), "type", vis(&i.vis), &i.attrs)
                }
                Item::Const(i) if cfg_on(&i.attrs) && i.ident != "_" => self.def(
                    module,
                    i.ident.to_string(),
                    "constant",
                    vis(&i.vis),
                    &i.attrs,
                ),
                Item::Static(i) if cfg_on(&i.attrs) => {
                    self.def(module, i.ident.to_string(), "static", vis(&i.vis), &i.attrs)
                }
                Item::ForeignMod(foreign) if cfg_on(&foreign.attrs) => {
                    for item in &foreign.items {
                        match item {
                            syn::ForeignItem::Fn(i) if cfg_on(&i.attrs) => self.def(
                                module,
                                i.sig.ident.to_string(),
                                "fn",
                                vis(&i.vis),
                                &i.attrs,
                            ),
                            syn::ForeignItem::Static(i) if cfg_on(&i.attrs) => self.def(
                                module,
                                i.ident.to_string(),
                                "static",
                                vis(&i.vis),
                                &i.attrs,
                            ),
                            syn::ForeignItem::Type(i) if cfg_on(&i.attrs) => self.def(
                                module,
                                i.ident.to_string(),
                                "foreigntype",
                                vis(&i.vis),
                                &i.attrs,
                            ),
                            _ => {}
                        }
                    }
                }
                Item::Use(u) if cfg_on(&u.attrs) => {
                    let mut bound = Vec::new();
                    flatten(&u.tree, &mut Vec::new(), &mut bound);
                    for (binding, path) in bound {
                        self.modules[module].uses.push(Use {
                            binding,
                            path,
                            absolute: u.leading_colon.is_some(),
                            vis: vis(&u.vis),
                            hidden: doc_says(&u.attrs, "hidden"),
                            no_inline: doc_says(&u.attrs, "no_inline"),
                        });
                    }
                }
                Item::ExternCrate(e) if cfg_on(&e.attrs) => {
                    let name = e.rename.as_ref().map_or(&e.ident, |(_, rename)| rename);
                    let (path, absolute) = if e.ident == "self" {
                        (vec!["crate".to_string()], false)
                    } else {
                        (vec![e.ident.to_string()], true)
                    };
                    self.modules[module].uses.push(Use {
                        binding: Some(name.to_string()),
                        path,
                        absolute,
                        vis: vis(&e.vis),
                        hidden: doc_says(&e.attrs, "hidden"),
                        no_inline: doc_says(&e.attrs, "no_inline"),
                    });
                }
                Item::Macro(m) if cfg_on(&m.attrs) => self.add_macro(module, m, dir, file),
                _ => {}
            }
        }
    }

    fn add_mod(&mut self, parent: usize, m: &syn::ItemMod, dir: &Path, file: &Path) {
        let name = m.ident.to_string();
        let mut path = self.modules[parent].path.clone();
        path.push(name.clone());
        let id = self.modules.len();
        self.modules.push(Module {
            path,
            parent: Some(parent),
            vis: vis_of(&m.vis),
            hidden: doc_says(&m.attrs, "hidden"),
            mods: Vec::new(),
            defs: Vec::new(),
            uses: Vec::new(),
        });
        self.modules[parent].mods.push((name.clone(), id));
        let explicit = m.attrs.iter().find(|attr| attr.path().is_ident("path"));
        if let Some((_, items)) = &m.content {
            self.add_items(id, items, &dir.join(&name), file);
            return;
        }
        let (child, child_dir) = match explicit {
            Some(attr) => {
                let Meta::NameValue(syn::MetaNameValue {
                    value:
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(value),
                            ..
                        }),
                    ..
                }) = &attr.meta
                else {
                    panic!(
                        "{}: `#[path]` of `mod {name}` is not a string",
                        file.display()
                    )
                };
                let child = file
                    .parent()
                    .expect("a file's directory")
                    .join(value.value());
                let child_dir = child.parent().expect("a file's directory").to_path_buf();
                (child, child_dir)
            }
            None => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let child = if (self.read)(&flat).is_some() {
                    flat
                } else {
                    nested
                };
                (child, dir.join(&name))
            }
        };
        let parsed = self.parse(&child);
        if !cfg_on(&parsed.attrs) {
            return;
        }
        self.modules[id].hidden |= doc_says(&parsed.attrs, "hidden");
        self.add_items(id, &parsed.items, &child_dir, &child);
    }

    fn add_macro(&mut self, module: usize, m: &syn::ItemMacro, dir: &Path, file: &Path) {
        if m.mac.path.is_ident("macro_rules") {
            // `#[macro_export]` puts a macro at the crate root, whatever
            // module defines it.
            if let Some(ident) = &m.ident
                && has_attr(&m.attrs, "macro_export")
            {
                self.def(0, ident.to_string(), "macro", Vis::Public, &m.attrs);
            }
            return;
        }
        let last = m.mac.path.segments.last().map(|s| s.ident.to_string());
        if last.as_deref() == Some("pin_project") {
            let body: Skim = m
                .mac
                .parse_body()
                .unwrap_or_else(|err| panic!("{}: pin_project!: {err}", file.display()));
            self.add_items(module, &body.items, dir, file);
            return;
        }
        // Another macro could declare anything; `pub` in its input is the
        // hint that it declares public items this count would miss.
        let input = m.mac.tokens.to_string();
        let words: Vec<&str> = input.split_whitespace().collect();
        let declares_pub = words
            .windows(2)
            .any(|pair| pair[0] == "pub" && !pair[1].starts_with('('));
        assert!(
            !declares_pub,
            "{}: `{}!` declares a `pub` item this count cannot see; teach it the macro",
            file.display(),
            m.mac
                .path
                .segments
                .last()
                .map_or(String::new(), |s| s.ident.to_string()),
        );
    }

    /// Whether `module` is `ancestor` or inside it.
    fn within(&self, mut module: usize, ancestor: usize) -> bool {
        loop {
            if module == ancestor {
                return true;
            }
            match self.modules[module].parent {
                Some(parent) => module = parent,
                None => return false,
            }
        }
    }

    /// Everything `name` means in `module`, as seen from `from`: in the
    /// type namespace only (`types`, a path's leading segments) or in all.
    /// Each meaning comes with the `use` of `module` it was found through
    /// (its hop), if any. `stack` holds the lookups under way, so a `use`
    /// that names itself (`use capped::capped;`, a module and a function)
    /// ends.
    fn lookup(
        &self,
        module: usize,
        name: &str,
        types: bool,
        from: usize,
        stack: &mut Stack,
    ) -> Vec<(Target, Hop)> {
        let key = (module, name.to_string(), types);
        if stack.contains(&key) {
            return Vec::new();
        }
        stack.push(key);
        let here = &self.modules[module];
        let visible = |vis: Vis| vis != Vis::Private || self.within(from, module);
        let mut found = Vec::new();
        for (child, id) in &here.mods {
            if child == name && visible(self.modules[*id].vis) {
                found.push((Target::Module(*id), None));
            }
        }
        for (index, def) in here.defs.iter().enumerate() {
            if def.name == name && visible(def.vis) {
                found.push((Target::Def(module, index), None));
            }
        }
        for (index, used) in here.uses.iter().enumerate() {
            if !visible(used.vis) {
                continue;
            }
            let hop = Some((module, index));
            match &used.binding {
                Some(binding) if binding == name => {
                    for (target, _) in self.resolve(module, &used.path, used.absolute, types, stack)
                    {
                        found.push((target, hop));
                    }
                }
                Some(_) => {}
                None => {
                    for (target, _) in self.resolve(module, &used.path, used.absolute, true, stack)
                    {
                        if let Target::Module(glob) = target {
                            for (target, _) in self.lookup(glob, name, types, from, stack) {
                                found.push((target, hop));
                            }
                        }
                    }
                }
            }
        }
        stack.pop();
        if types {
            found.retain(|(target, _)| match target {
                Target::Def(m, i) => TYPE_KINDS.contains(&self.modules[*m].defs[*i].kind),
                _ => true,
            });
        }
        found.sort();
        found.dedup();
        found
    }

    /// Whether `module` itself binds `name` (not through a glob, and not
    /// by `use name;`, which names a crate).
    fn binds(&self, module: usize, name: &str) -> bool {
        let here = &self.modules[module];
        here.mods.iter().any(|(child, _)| child == name)
            || here.defs.iter().any(|def| def.name == name)
            || here
                .uses
                .iter()
                .any(|used| used.binding.as_deref() == Some(name) && used.path != [name])
    }

    /// What a `use` path written in `from` names, each meaning with the
    /// `use` its last segment was found through; the last segment in the
    /// type namespace only when `types`.
    fn resolve(
        &self,
        from: usize,
        path: &[String],
        absolute: bool,
        types: bool,
        stack: &mut Stack,
    ) -> Vec<(Target, Hop)> {
        if absolute {
            return vec![(Target::External(path.to_vec()), None)];
        }
        let (first, rest) = path.split_first().expect("a use path is not empty");
        let mut current = match first.as_str() {
            "crate" => vec![(Target::Module(0), None)],
            "self" => vec![(Target::Module(from), None)],
            "super" => vec![(
                Target::Module(self.modules[from].parent.expect("`super` of the root")),
                None,
            )],
            name => {
                let local = self.lookup(from, name, types || !rest.is_empty(), from, stack);
                if !local.is_empty() || self.binds(from, name) {
                    local
                } else if name == "registry_core" {
                    // `extern crate self as registry_core;`
                    vec![(Target::Module(0), None)]
                } else {
                    vec![(Target::External(vec![name.to_string()]), None)]
                }
            }
        };
        for (at, segment) in rest.iter().enumerate() {
            let last = at + 1 == rest.len();
            let mut next = Vec::new();
            for (target, _) in current {
                match target {
                    Target::Module(m) if segment == "super" => next.push((
                        Target::Module(self.modules[m].parent.expect("`super` of the root")),
                        None,
                    )),
                    Target::Module(m) => {
                        next.extend(self.lookup(m, segment, types || !last, from, stack))
                    }
                    Target::Def(m, i) if self.modules[m].defs[i].kind == "enum" => {
                        next.push((Target::Member, None))
                    }
                    Target::External(mut outside) => {
                        outside.push(segment.clone());
                        next.push((Target::External(outside), None));
                    }
                    Target::Def(..) | Target::Member => {}
                }
            }
            next.sort();
            next.dedup();
            current = next;
        }
        current
    }

    /// Whether `module` and every module around it are `pub` (rustc's
    /// "directly public": nameable by its own path).
    fn direct(&self, module: usize) -> bool {
        let mut at = Some(module);
        while let Some(m) = at {
            if self.modules[m].vis != Vis::Public {
                return false;
            }
            at = self.modules[m].parent;
        }
        true
    }

    /// Whether `module` or a module around it is `#[doc(hidden)]`.
    fn hidden_within(&self, module: usize) -> bool {
        let mut at = Some(module);
        while let Some(m) = at {
            if self.modules[m].hidden {
                return true;
            }
            at = self.modules[m].parent;
        }
        false
    }

    /// Whether a `pub use` whose path reaches `target` through `hop` gets
    /// the target its own page (rustdoc inlines it), rather than a link to
    /// where the target is documented: only when the target's own path is
    /// not public (or is hidden), and the `use` it is reached through is
    /// not itself public (the root's `pub use declare::Tool` links to
    /// `declare::Tool`, which `declare`'s `pub use tool::Tool` inlined).
    fn inlines(&self, target: &Target, hop: Hop) -> bool {
        let (direct, hidden) = match *target {
            Target::Module(m) => (self.direct(m), self.hidden_within(m)),
            Target::Def(m, i) => {
                let def = &self.modules[m].defs[i];
                if def.hidden {
                    return false;
                }
                (
                    def.vis == Vis::Public && self.direct(m),
                    self.hidden_within(m),
                )
            }
            Target::External(_) | Target::Member => return false,
        };
        let public_hop = hop.is_some_and(|(m, i)| {
            let used = &self.modules[m].uses[i];
            used.vis == Vis::Public && !used.hidden && self.direct(m) && !self.hidden_within(m)
        });
        (!direct || hidden) && !public_hop
    }
}

/// The `use` (module, index) a name was found through.
type Hop = Option<(usize, usize)>;

/// The lookups under way: module, name, type namespace only.
type Stack = Vec<(usize, String, bool)>;

/// The kinds of item that live in the type namespace.
const TYPE_KINDS: &[&str] = &[
    "struct",
    "enum",
    "union",
    "trait",
    "traitalias",
    "type",
    "foreigntype",
];

/// One listed name: the path of its page and its kind.
struct Name {
    path: Vec<String>,
    kind: String,
}

/// Rustdoc's kind of a macro `registry_macros` exports, from its source.
fn macro_kind(
    read: &dyn Fn(&Path) -> Option<String>,
    lib: &Path,
    name: &str,
) -> Option<&'static str> {
    let file = syn::parse_file(&read(lib)?).ok()?;
    file.items.iter().find_map(|item| {
        let Item::Fn(f) = item else { return None };
        for attr in &f.attrs {
            if attr.path().is_ident("proc_macro_attribute") && f.sig.ident == name {
                return Some("attr");
            }
            if attr.path().is_ident("proc_macro") && f.sig.ident == name {
                return Some("macro");
            }
            if attr.path().is_ident("proc_macro_derive")
                && let Ok(Meta::Path(derived)) = attr.parse_args::<Meta>()
                && derived.is_ident(name)
            {
                return Some("derive");
            }
        }
        None
    })
}

/// The pages rustdoc writes, as `all.html` lists them: an item's page is
/// at its own path when that path is public, and at each `pub use` that
/// inlines it (see [`Crate::inlines`]).
struct Walk<'k, 'a> {
    krate: &'k Crate<'a>,
    pages: Vec<(Vec<String>, Target)>,
    modules: VecDeque<(usize, Vec<String>)>,
    /// Modules whose items are being listed (a glob's module is listed
    /// inside the module holding the glob), so a cycle ends.
    listing: Vec<usize>,
}

impl Walk<'_, '_> {
    /// Lists the pages of the items of `module`, documented at `at`.
    fn list(&mut self, module: usize, at: &[String]) {
        if self.listing.contains(&module) {
            return;
        }
        self.listing.push(module);
        let krate = self.krate;
        let here = &krate.modules[module];
        let path = |name: &str| -> Vec<String> {
            let mut path = at.to_vec();
            path.push(name.to_string());
            path
        };
        for (name, child) in &here.mods {
            if krate.modules[*child].vis == Vis::Public && !krate.modules[*child].hidden {
                self.modules.push_back((*child, path(name)));
            }
        }
        for (index, def) in here.defs.iter().enumerate() {
            if def.vis == Vis::Public && !def.hidden {
                self.pages
                    .push((path(&def.name), Target::Def(module, index)));
            }
        }
        for used in &here.uses {
            // A `#[doc(no_inline)]` re-export is a link; a hidden one is
            // not shown at all.
            if used.vis != Vis::Public || used.hidden || used.no_inline {
                continue;
            }
            let targets = krate.resolve(module, &used.path, used.absolute, false, &mut Vec::new());
            assert!(
                !targets.is_empty(),
                "`pub use {}` in `crate::{}`: cannot resolve it",
                used.path.join("::"),
                here.path.join("::")
            );
            for (target, hop) in targets {
                match (&used.binding, &target) {
                    // An item of another crate is inlined; a whole crate
                    // (`serde`) or a glob of another crate is not.
                    (Some(name), Target::External(outside)) if outside.len() > 1 => {
                        self.pages.push((path(name), target));
                    }
                    (Some(name), Target::Def(..)) if krate.inlines(&target, hop) => {
                        self.pages.push((path(name), target));
                    }
                    (Some(name), Target::Module(m))
                        if krate.inlines(&target, hop) && !krate.modules[*m].hidden =>
                    {
                        self.modules.push_back((*m, path(name)));
                    }
                    // A glob of a module not documented at its own path
                    // lists that module's items here.
                    (None, Target::Module(m)) if krate.inlines(&target, hop) => self.list(*m, at),
                    _ => {}
                }
            }
        }
        self.listing.pop();
    }
}

/// Every page rustdoc writes for the crate rooted at `src/lib.rs`, as its
/// `all.html` lists them, sorted by path; `macros` is the `lib.rs` of
/// `registry_macros`, whose re-exported macros count too.
fn public_names(src: &Path, macros: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Vec<Name> {
    let krate = Crate::load(src, read);
    let mut walk = Walk {
        krate: &krate,
        pages: Vec::new(),
        modules: VecDeque::from([(0, Vec::new())]),
        listing: Vec::new(),
    };
    let mut walked = HashSet::new();
    while let Some((module, at)) = walk.modules.pop_front() {
        // A module re-exported into itself would otherwise go on forever.
        if at.len() < 32 && walked.insert((module, at.clone())) {
            walk.list(module, &at);
        }
    }
    let mut names: Vec<Name> = walk
        .pages
        .into_iter()
        .map(|(path, target)| {
            let kind = match &target {
                Target::Def(m, i) => krate.modules[*m].defs[*i].kind.to_string(),
                Target::External(outside) if outside[0] == "registry_macros" => {
                    macro_kind(read, macros, outside.last().expect("a name"))
                        .unwrap_or("external")
                        .to_string()
                }
                Target::External(outside) => format!("re-export of {}", outside.join("::")),
                Target::Module(_) | Target::Member => unreachable!(),
            };
            Name { path, kind }
        })
        .collect();
    names.sort_by(|a, b| a.path.cmp(&b.path).then(a.kind.cmp(&b.kind)));
    names.dedup_by(|a, b| a.path == b.path && a.kind == b.kind);
    names
}

fn read_disk(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[test]
fn the_public_api_holds_at_most_max_public_names() {
    let krate = Path::new(env!("CARGO_MANIFEST_DIR"));
    let macros = krate.join("../registry-macros/src/lib.rs");
    let names = public_names(&krate.join("src"), &macros, &read_disk);
    let mut per_module: BTreeMap<String, usize> = BTreeMap::new();
    println!("registry-core's public API (as `all.html` lists it):");
    for name in &names {
        println!("  {}: {}", name.path.join("::"), name.kind);
        let module = name.path[..name.path.len() - 1].join("::");
        *per_module
            .entry(if module.is_empty() {
                "(root)".into()
            } else {
                module
            })
            .or_default() += 1;
    }
    println!("per module:");
    for (module, count) in &per_module {
        println!("  {module}: {count}");
    }
    let total = names.len();
    println!("total: {total} public names (at most {MAX_PUBLIC_NAMES})");
    assert!(total > 20, "only {total} names found: is the scan broken?");
    assert!(
        total <= MAX_PUBLIC_NAMES,
        "registry-core's public API has {total} names, over the limit of {MAX_PUBLIC_NAMES}: \
         the list printed above names each (path: kind); make some `pub(crate)` or fold them \
         into fewer types"
    );
}

#[test]
fn the_count_sees_what_rustdoc_lists() {
    let files: BTreeMap<PathBuf, &str> = [
        (
            "src/lib.rs",
            "pub mod a;\n\
             mod b;\n\
             #[path = \"elsewhere.rs\"] pub mod c;\n\
             #[doc(hidden)] pub mod __private { pub struct Hidden; }\n\
             #[cfg(test)] pub mod tests { pub struct Test; }\n\
             #[doc(no_inline)] pub use serde;\n\
             pub use a::{Twice, inner::Deep as Renamed};\n\
             pub use b::{Private, helper};\n\
             pub use registry_macros::tool;\n\
             #[doc(hidden)] pub use b::unreached;\n\
             mod d { pub struct Globbed; pub(crate) struct NotGlobbed; }\n\
             pub use d::*;\n\
             mod e { pub mod g { pub fn inner() {} fn private() {} } }\n\
             pub use self::e::g as f;\n\
             #[doc(hidden)] pub use b::other as hidden_other;\n\
             pub use self::hidden_other as visible;\n\
             pub struct Root;\n\
             pub(crate) struct Crate;\n\
             struct Private2;\n",
        ),
        (
            "src/a.rs",
            "pub mod inner { pub struct Deep; #[doc(hidden)] pub struct Gone; }\n\
             mod twice;\n\
             pub use twice::Twice;\n\
             pub use self::super::b::Private as AlsoPrivate;\n\
             #[cfg(feature = \"x\")] pub const GATED: u8 = 0;\n\
             #[cfg(not(feature = \"x\"))] pub const NOT_GATED: u8 = 0;\n\
             pub enum E { V }\n\
             pub use E::V;\n",
        ),
        ("src/a/twice.rs", "pub trait Twice {}\n"),
        (
            "src/b/mod.rs",
            "pub struct Private;\n\
             pub fn helper() {}\n\
             pub fn unreached() {}\n\
             pub fn other() {}\n\
             #[macro_export] macro_rules! exported { () => {} }\n\
             macro_rules! local { () => {} }\n",
        ),
        (
            "src/elsewhere.rs",
            "pub type Alias = u8;\npub static S: u8 = 0;\n",
        ),
        (
            "registry-macros/src/lib.rs",
            "#[proc_macro_attribute] pub fn tool() {}\n",
        ),
    ]
    .into_iter()
    .map(|(path, text)| (Path::new("/crate/x").join(path), text))
    .collect();
    let read = |path: &Path| files.get(path).map(|text| text.to_string());
    let names = public_names(
        Path::new("/crate/x/src"),
        Path::new("/crate/x/registry-macros/src/lib.rs"),
        &read,
    );
    let listed: Vec<String> = names
        .iter()
        .map(|name| format!("{}: {}", name.path.join("::"), name.kind))
        .collect();
    assert_eq!(
        listed,
        [
            "Globbed: struct",
            "Private: struct",
            "Root: struct",
            "a::AlsoPrivate: struct",
            "a::E: enum",
            "a::GATED: constant",
            "a::Twice: trait",
            "a::inner::Deep: struct",
            "c::Alias: type",
            "c::S: static",
            "exported: macro",
            "f::inner: fn",
            "helper: fn",
            "tool: attr",
            "visible: fn",
        ]
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
    );
}
