//! The book's comparison with Tokio, checked against rt's source.
//!
//! `book/src/data/tokio-comparison.toml` lists what Tokio has and rt does
//! not (`[[missing]]`), and where rt differs from Tokio on purpose
//! (`[[differs]]`). The conclusion and the racing page include the Markdown
//! rendered from it (`book/src/generated/tokio-missing.md` and
//! `tokio-differs.md`). This test keeps the three honest:
//!
//! - it walks rt's public exports: it parses `src/lib.rs` with `syn`, follows
//!   every `mod` to its file, and resolves every `pub mod`, `pub use`,
//!   `#[macro_export]` and public method of an exported type or trait;
//! - an item listed as missing must not be exported by rt;
//! - an item listed as differing must be exported by rt;
//! - the generated Markdown must be what the data file renders to.
//!   `UPDATE_BOOK=1 cargo test -p rt --test book_comparison` rewrites it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

// ---------------------------------------------------------------- the data

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Comparison {
    missing: Vec<Missing>,
    differs: Vec<Differs>,
}

/// Something Tokio has and rt does not.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Missing {
    /// Tokio's path, `tokio::...`, as in Tokio 1.54.1.
    tokio: String,
    /// What it is.
    what: String,
}

/// Something rt has, and does differently from Tokio on purpose.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Differs {
    /// Tokio's path.
    tokio: String,
    /// rt's path, `rt::...`: the exported item where the difference lives.
    rt: String,
    /// What Tokio does.
    what: String,
    /// What rt does instead.
    ours: String,
    /// Why.
    why: String,
    /// The page of the book that shows it, if any.
    #[serde(default)]
    page: Option<String>,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load() -> Comparison {
    let path = repo_root().join("book/src/data/tokio-comparison.toml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---------------------------------------------------------- the rendering

const HEADER: &str = "<!-- Generated from book/src/data/tokio-comparison.toml by \
chapters/07-runtime/tests/book_comparison.rs; edit the data file, then run \
`UPDATE_BOOK=1 cargo test -p rt --test book_comparison`. -->\n";

fn render_missing(c: &Comparison) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for m in &c.missing {
        out.push_str(&format!("- **`{}`**: {}\n", m.tokio, m.what.trim()));
    }
    out
}

fn render_differs(c: &Comparison) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    out.push_str("| Tokio | what Tokio does | rt instead | why |\n");
    out.push_str("|---|---|---|---|\n");
    for d in &c.differs {
        let rt = match &d.page {
            Some(page) => format!("[`{}`]({page})", d.rt),
            None => format!("`{}`", d.rt),
        };
        out.push_str(&format!(
            "| `{}` | {} | {}: {} | {} |\n",
            d.tokio,
            cell(&d.what),
            rt,
            cell(&d.ours),
            cell(&d.why)
        ));
    }
    out
}

/// A table cell is one line; a `|` would end it.
fn cell(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!s.contains('|'), "a table cell cannot hold '|': {s}");
    s
}

// ------------------------------------------------- rt's public exports

/// What a name in a module is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Mod,
    /// A struct, enum, union, type alias or trait: it may have methods.
    Type,
    /// A function, constant, static or macro.
    Value,
}

#[derive(Default)]
struct Module {
    /// name -> (kind, declared `pub`)
    items: Vec<(String, Kind, bool)>,
    /// `use` declarations: (declared `pub`, path, name it binds; `None` for a glob).
    uses: Vec<(bool, Vec<String>, Option<String>)>,
    /// Inherent impls: (the self type's path, public method names).
    impls: Vec<(Vec<String>, Vec<String>)>,
    /// Traits declared here: name -> method names (all public with the trait).
    trait_methods: BTreeMap<String, Vec<String>>,
}

/// The crate: module path (`["sync", "mpsc"]`) -> its contents.
#[derive(Default)]
struct Crate {
    modules: BTreeMap<Vec<String>, Module>,
    /// `#[macro_export]` macros, exported at the crate root wherever defined.
    exported_macros: Vec<String>,
    /// Every `macro_rules!` of the crate: name -> its rules.
    macro_bodies: BTreeMap<String, proc_macro2::TokenStream>,
}

/// A token of a macro's input or body, groups flattened (their delimiters
/// kept as punctuation), attributes and doc comments left out.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Tok {
    Ident(String),
    Punct(char),
    Other,
}

fn flatten(tokens: proc_macro2::TokenStream, out: &mut Vec<Tok>) {
    use proc_macro2::{Delimiter, TokenTree};
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                // `#[...]` (a doc comment is one): skip it whole.
                if matches!(trees.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
                {
                    trees.next();
                } else {
                    out.push(Tok::Punct('#'));
                }
            }
            TokenTree::Punct(p) => out.push(Tok::Punct(p.as_char())),
            TokenTree::Ident(i) => out.push(Tok::Ident(i.to_string())),
            TokenTree::Literal(_) => out.push(Tok::Other),
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Brace => ('{', '}'),
                    Delimiter::Bracket => ('[', ']'),
                    Delimiter::None => (' ', ' '),
                };
                out.push(Tok::Punct(open));
                flatten(g.stream(), out);
                out.push(Tok::Punct(close));
            }
        }
    }
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The functions a macro invocation defines, read from tokens, without
/// expanding it. For each rule of the invoked `macro_rules!` whose
/// transcriber has `fn NAME` (with `pub` before it, unless `any`), NAME is
/// taken as is; for `fn $var`, the names are the identifiers of the
/// invocation that stand where `$var:ident` stands in the rule's matcher
/// (after the same token, or before it). Macros the transcriber invokes add
/// their literal `pub fn NAME`s. A rule is not matched against the input,
/// so this may name too many functions, never too few.
fn macro_fns(
    bodies: &BTreeMap<String, proc_macro2::TokenStream>,
    mac: &syn::Macro,
    any: bool,
) -> Vec<String> {
    let mut input = Vec::new();
    flatten(mac.tokens.clone(), &mut input);
    let mut out = Vec::new();
    // `fn name` written in the invocation itself.
    for w in input.windows(2) {
        if ident(Some(&w[0])) == Some("fn")
            && let Some(name) = ident(Some(&w[1]))
        {
            out.push(name.to_string());
        }
    }
    let mut todo = vec![(mac.path.segments.last().unwrap().ident.to_string(), true)];
    let mut seen = BTreeSet::new();
    while let Some((name, with_input)) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(body) = bodies.get(&name) else {
            continue;
        };
        // Rules: (matcher) => {transcriber};
        let groups: Vec<_> = body
            .clone()
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Group(g) => Some(g.stream()),
                _ => None,
            })
            .collect();
        for rule in groups.chunks(2) {
            let (mut matcher, mut body) = (Vec::new(), Vec::new());
            flatten(rule[0].clone(), &mut matcher);
            if let Some(t) = rule.get(1) {
                flatten(t.clone(), &mut body);
            }
            for i in 0..body.len() {
                if let Some(inner) = ident(body.get(i))
                    && body.get(i + 1) == Some(&Tok::Punct('!'))
                {
                    todo.push((inner.to_string(), false));
                }
                if ident(body.get(i)) != Some("fn") {
                    continue;
                }
                let public = body[..i]
                    .iter()
                    .rev()
                    .take_while(|t| {
                        matches!(ident(Some(t)), Some("async" | "const" | "unsafe" | "pub"))
                    })
                    .any(|t| ident(Some(t)) == Some("pub"));
                if !any && !public {
                    continue;
                }
                if let Some(name) = ident(body.get(i + 1)) {
                    out.push(name.to_string());
                } else if with_input
                    && body.get(i + 1) == Some(&Tok::Punct('$'))
                    && let Some(var) = ident(body.get(i + 2))
                {
                    out.extend(bound_to(&matcher, var, &input));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The identifiers of `input` that stand where `$var:ident` stands in
/// `matcher`: after the token that precedes it there, or before the token
/// that follows it.
fn bound_to(matcher: &[Tok], var: &str, input: &[Tok]) -> Vec<String> {
    let literal = |t: Option<&Tok>| match t {
        Some(Tok::Ident(_)) => true,
        // `*`, `+` and `?` after a `$(...)` repeat it: not a token to match.
        Some(Tok::Punct(c)) => !"$()[]{} *+?".contains(*c),
        _ => false,
    };
    let mut out = Vec::new();
    for i in 0..matcher.len() {
        if matcher[i] != Tok::Punct('$') || ident(matcher.get(i + 1)) != Some(var) {
            continue;
        }
        let before = if i > 0 { matcher.get(i - 1) } else { None };
        let after = matcher.get(i + 4);
        for j in 0..input.len() {
            let Some(name) = ident(input.get(j)) else {
                continue;
            };
            let hit = if literal(before) {
                j > 0 && input.get(j - 1) == before
            } else if literal(after) {
                input.get(j + 1) == after
            } else {
                false
            };
            if hit {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Is this item compiled in a plain `cargo build` on Linux (no `cfg(test)`,
/// no `cfg(loom)`, no features)?
fn cfg_on(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().all(|a| {
        if !a.path().is_ident("cfg") {
            return true;
        }
        let meta: syn::Meta = a.parse_args().expect("a cfg predicate");
        eval_cfg(&meta)
    })
}

fn eval_cfg(meta: &syn::Meta) -> bool {
    let list = |m: &syn::MetaList| -> Vec<syn::Meta> {
        m.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )
        .expect("a cfg list")
        .into_iter()
        .collect()
    };
    match meta {
        syn::Meta::Path(p) => !(p.is_ident("test") || p.is_ident("loom") || p.is_ident("windows")),
        syn::Meta::NameValue(nv) => {
            let value = match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => s.value(),
                _ => String::new(),
            };
            if nv.path.is_ident("feature") {
                false
            } else if nv.path.is_ident("target_os") {
                value == "linux"
            } else if nv.path.is_ident("target_family") {
                value == "unix"
            } else {
                true
            }
        }
        syn::Meta::List(m) if m.path.is_ident("not") => !list(m).iter().all(eval_cfg),
        syn::Meta::List(m) if m.path.is_ident("all") => list(m).iter().all(eval_cfg),
        syn::Meta::List(m) if m.path.is_ident("any") => list(m).iter().any(eval_cfg),
        syn::Meta::List(_) => true,
    }
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                let last = prefix.last().cloned();
                out.push((prefix.clone(), last));
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push((path, Some(name)));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push((path, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, out);
            }
        }
    }
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("path"))
        .map(|a| match &a.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                ..
            }) => s.value(),
            _ => panic!("#[path] without a string"),
        })
}

impl Crate {
    fn load(lib_rs: &Path) -> Crate {
        let mut krate = Crate::default();
        let file = parse(lib_rs);
        collect_macros(lib_rs.parent().unwrap(), &mut krate.macro_bodies);
        // Files of `mod x;` in lib.rs live beside it.
        let dir = lib_rs.parent().unwrap().to_path_buf();
        krate.add_items(Vec::new(), &file.items, &dir);
        krate
    }

    /// Adds a module's items; `dir` is where its child modules' files are.
    fn add_items(&mut self, path: Vec<String>, items: &[syn::Item], dir: &Path) {
        let mut module = Module::default();
        let mut children = Vec::new();
        let mut from_macros = Vec::new();
        for item in items {
            let attrs: &[syn::Attribute] = match item {
                syn::Item::Const(i) => &i.attrs,
                syn::Item::Enum(i) => &i.attrs,
                syn::Item::Fn(i) => &i.attrs,
                syn::Item::Impl(i) => &i.attrs,
                syn::Item::Macro(i) => &i.attrs,
                syn::Item::Mod(i) => &i.attrs,
                syn::Item::Static(i) => &i.attrs,
                syn::Item::Struct(i) => &i.attrs,
                syn::Item::Trait(i) => &i.attrs,
                syn::Item::Type(i) => &i.attrs,
                syn::Item::Union(i) => &i.attrs,
                syn::Item::Use(i) => &i.attrs,
                _ => continue,
            };
            if !cfg_on(attrs) {
                continue;
            }
            let mut add = |name: &syn::Ident, kind, vis: &syn::Visibility| {
                module.items.push((name.to_string(), kind, is_pub(vis)));
            };
            match item {
                syn::Item::Const(i) => add(&i.ident, Kind::Value, &i.vis),
                syn::Item::Static(i) => add(&i.ident, Kind::Value, &i.vis),
                syn::Item::Fn(i) => add(&i.sig.ident, Kind::Value, &i.vis),
                syn::Item::Enum(i) => add(&i.ident, Kind::Type, &i.vis),
                syn::Item::Struct(i) => add(&i.ident, Kind::Type, &i.vis),
                syn::Item::Union(i) => add(&i.ident, Kind::Type, &i.vis),
                syn::Item::Type(i) => add(&i.ident, Kind::Type, &i.vis),
                syn::Item::Trait(i) => {
                    add(&i.ident, Kind::Type, &i.vis);
                    let methods = i
                        .items
                        .iter()
                        .flat_map(|t| match t {
                            syn::TraitItem::Fn(f) if cfg_on(&f.attrs) => {
                                vec![f.sig.ident.to_string()]
                            }
                            syn::TraitItem::Macro(m) if cfg_on(&m.attrs) => {
                                macro_fns(&self.macro_bodies, &m.mac, true)
                            }
                            _ => vec![],
                        })
                        .collect();
                    module.trait_methods.insert(i.ident.to_string(), methods);
                }
                syn::Item::Macro(i) => match &i.ident {
                    Some(name) if i.attrs.iter().any(|a| a.path().is_ident("macro_export")) => {
                        self.exported_macros.push(name.to_string());
                    }
                    Some(_) => {}
                    // An invocation: the functions it defines, as public.
                    None => {
                        for f in macro_fns(&self.macro_bodies, &i.mac, false) {
                            from_macros.push((f, Kind::Value, true));
                        }
                    }
                },
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    if let syn::Type::Path(tp) = &*i.self_ty {
                        let name: Vec<String> = tp
                            .path
                            .segments
                            .iter()
                            .map(|s| s.ident.to_string())
                            .collect();
                        let methods = i
                            .items
                            .iter()
                            .flat_map(|t| match t {
                                syn::ImplItem::Fn(f) if is_pub(&f.vis) && cfg_on(&f.attrs) => {
                                    vec![f.sig.ident.to_string()]
                                }
                                syn::ImplItem::Const(c) if is_pub(&c.vis) && cfg_on(&c.attrs) => {
                                    vec![c.ident.to_string()]
                                }
                                syn::ImplItem::Macro(m) if cfg_on(&m.attrs) => {
                                    macro_fns(&self.macro_bodies, &m.mac, false)
                                }
                                _ => vec![],
                            })
                            .collect();
                        module.impls.push((name, methods));
                    }
                }
                syn::Item::Use(u) => {
                    let mut flat = Vec::new();
                    flatten_use(&u.tree, &mut Vec::new(), &mut flat);
                    for (p, name) in flat {
                        module.uses.push((is_pub(&u.vis), p, name));
                    }
                }
                syn::Item::Mod(m) => {
                    add(&m.ident, Kind::Mod, &m.vis);
                    children.push(m.clone());
                }
                _ => {}
            }
        }
        module.items.extend(from_macros);
        self.modules.insert(path.clone(), module);
        for m in children {
            let name = m.ident.to_string();
            let mut child = path.clone();
            child.push(name.clone());
            match &m.content {
                Some((_, items)) => self.add_items(child, items, &dir.join(&name)),
                None => {
                    // A file named by `#[path]` is read like a `mod.rs`:
                    // its children sit in its own folder.
                    let (file, children_dir) = match path_attr(&m.attrs) {
                        Some(p) => {
                            let file = dir.join(p);
                            let parent = file.parent().expect("a file has a folder").to_path_buf();
                            (file, parent)
                        }
                        None if dir.join(format!("{name}.rs")).exists() => {
                            (dir.join(format!("{name}.rs")), dir.join(&name))
                        }
                        None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                    };
                    let parsed = parse(&file);
                    self.add_items(child, &parsed.items, &children_dir);
                }
            }
        }
    }

    /// What `path`, written in module `from`, names: (module, name, kind) of
    /// each definition, or `None` if it leaves the crate (`futures::...`).
    fn resolve(&self, from: &[String], path: &[String], depth: usize) -> Option<Vec<Def>> {
        assert!(depth < 64, "use cycle at {from:?} {path:?}");
        let (mut module, rest): (Vec<String>, &[String]) = match path[0].as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (from.to_vec(), &path[1..]),
            "super" => {
                let mut m = from.to_vec();
                let mut rest = path;
                while rest.first().map(String::as_str) == Some("super") {
                    m.pop();
                    rest = &rest[1..];
                }
                (m, rest)
            }
            _ => (from.to_vec(), path),
        };
        if rest.is_empty() {
            return Some(vec![Def {
                module,
                name: None,
                kind: Kind::Mod,
            }]);
        }
        for (i, seg) in rest.iter().enumerate() {
            let defs = self.lookup(&module, seg, depth)?;
            if i + 1 == rest.len() {
                return Some(defs);
            }
            let next = defs.into_iter().find(|d| d.kind == Kind::Mod)?;
            module = next.module_path();
        }
        unreachable!()
    }

    /// The definitions that `name` means in `module` (its items, then its
    /// uses, then its glob uses). `None` if it leaves the crate.
    fn lookup(&self, module: &[String], name: &str, depth: usize) -> Option<Vec<Def>> {
        let Some(m) = self.modules.get(module) else {
            return Some(Vec::new());
        };
        let own: Vec<Def> = m
            .items
            .iter()
            .filter(|(n, _, _)| n == name)
            .map(|(n, k, _)| Def {
                module: module.to_vec(),
                name: Some(n.clone()),
                kind: *k,
            })
            .collect();
        if !own.is_empty() {
            return Some(own);
        }
        if module.is_empty() && self.exported_macros.iter().any(|n| n == name) {
            return Some(vec![Def {
                module: Vec::new(),
                name: Some(name.to_string()),
                kind: Kind::Value,
            }]);
        }
        for (_, p, bound) in &m.uses {
            if bound.as_deref() == Some(name) {
                return self.resolve(module, p, depth + 1);
            }
        }
        for (_, p, bound) in &m.uses {
            if bound.is_none()
                && let Some(defs) = self.resolve(module, p, depth + 1)
                && let Some(target) = defs.into_iter().find(|d| d.kind == Kind::Mod)
            {
                let found = self.lookup(&target.module_path(), name, depth + 1);
                if found.as_ref().is_some_and(|d| !d.is_empty()) {
                    return found;
                }
            }
        }
        // Not in the crate: an external crate (`futures`, `std`) at the root.
        if module.is_empty() {
            None
        } else {
            Some(Vec::new())
        }
    }

    /// Public methods of the type or trait `def`: inherent impls anywhere in
    /// the crate whose self type resolves to it, and a trait's own methods.
    fn methods(&self, def: &Def) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let name = def.name.as_deref().unwrap();
        if let Some(ms) = self
            .modules
            .get(&def.module)
            .and_then(|m| m.trait_methods.get(name))
        {
            out.extend(ms.iter().cloned());
        }
        for (mpath, m) in &self.modules {
            for (ty, methods) in &m.impls {
                if ty.last().map(String::as_str) != Some(name) {
                    continue;
                }
                let resolved = self.resolve(mpath, ty, 0).unwrap_or_default();
                if resolved.iter().any(|d| d == def) {
                    out.extend(methods.iter().cloned());
                }
            }
        }
        out
    }

    /// Every public path of the crate, `rt::...`.
    fn exports(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut seen = BTreeSet::new();
        self.export_module(&[], "rt", &mut out, &mut seen);
        for m in &self.exported_macros {
            out.insert(format!("rt::{m}"));
        }
        out
    }

    fn export_module(
        &self,
        module: &[String],
        at: &str,
        out: &mut BTreeSet<String>,
        seen: &mut BTreeSet<(Vec<String>, String)>,
    ) {
        if !seen.insert((module.to_vec(), at.to_string())) {
            return;
        }
        let m = &self.modules[module];
        for (name, kind, public) in &m.items {
            if *public {
                let def = Def {
                    module: module.to_vec(),
                    name: Some(name.clone()),
                    kind: *kind,
                };
                self.export_def(&def, &format!("{at}::{name}"), out, seen);
            }
        }
        for (public, path, bound) in &m.uses {
            if !*public {
                continue;
            }
            match bound {
                Some(name) => match self.resolve(module, path, 0) {
                    Some(defs) => {
                        for def in defs {
                            self.export_def(&def, &format!("{at}::{name}"), out, seen);
                        }
                    }
                    None => {
                        out.insert(format!("{at}::{name}"));
                    }
                },
                None => {
                    if let Some(defs) = self.resolve(module, path, 0) {
                        for def in defs.into_iter().filter(|d| d.kind == Kind::Mod) {
                            self.export_module(&def.module_path(), at, out, seen);
                        }
                    }
                }
            }
        }
    }

    fn export_def(
        &self,
        def: &Def,
        at: &str,
        out: &mut BTreeSet<String>,
        seen: &mut BTreeSet<(Vec<String>, String)>,
    ) {
        out.insert(at.to_string());
        match def.kind {
            Kind::Mod => self.export_module(&def.module_path(), at, out, seen),
            Kind::Type => {
                for method in self.methods(def) {
                    out.insert(format!("{at}::{method}"));
                }
            }
            Kind::Value => {}
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct Def {
    /// The module the definition is in.
    module: Vec<String>,
    /// Its name there; `None` for a module named by `self`, `crate` or `super`.
    name: Option<String>,
    kind: Kind,
}

impl Def {
    fn module_path(&self) -> Vec<String> {
        let mut p = self.module.clone();
        if self.kind == Kind::Mod
            && let Some(n) = &self.name
        {
            p.push(n.clone());
        }
        p
    }
}

/// Every `macro_rules!` in the crate's files, by name.
fn collect_macros(dir: &Path, out: &mut BTreeMap<String, proc_macro2::TokenStream>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_macros(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            struct Visit<'a>(&'a mut BTreeMap<String, proc_macro2::TokenStream>);
            impl<'ast> syn::visit::Visit<'ast> for Visit<'_> {
                fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
                    if m.mac.path.is_ident("macro_rules")
                        && let Some(name) = &m.ident
                    {
                        self.0
                            .entry(name.to_string())
                            .or_default()
                            .extend(m.mac.tokens.clone());
                    }
                }
            }
            syn::visit::Visit::visit_file(&mut Visit(out), &parse(&path));
        }
    }
}

fn parse(path: &Path) -> syn::File {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rt_exports() -> BTreeSet<String> {
    Crate::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).exports()
}

/// `tokio::a::b` -> `rt::a::b`.
fn as_rt(tokio: &str) -> String {
    let rest = tokio
        .strip_prefix("tokio::")
        .unwrap_or_else(|| panic!("not a Tokio path: {tokio}"));
    format!("rt::{rest}")
}

/// The exports that would make `missing` present in rt: the same path; and
/// for a module, type, function or macro, the same name in any module (rt
/// may keep it somewhere else than Tokio does). A method is looked for on
/// its type's path only: `broadcast::Sender::strong_count` is not
/// `mpsc::Sender::strong_count`.
fn present_as(missing: &str, exports: &BTreeSet<String>) -> Vec<String> {
    let path = as_rt(missing);
    // `a::Type::method`: the segment before the last is a type's name.
    let in_type = |p: &str| {
        let segs: Vec<&str> = p.split("::").collect();
        segs.len() >= 3 && segs[segs.len() - 2].starts_with(|c: char| c.is_ascii_uppercase())
    };
    let name = path.rsplit("::").next().unwrap();
    exports
        .iter()
        .filter(|e| {
            **e == path || (!in_type(&path) && !in_type(e) && e.rsplit("::").next() == Some(name))
        })
        .cloned()
        .collect()
}

// ---------------------------------------------------------------- the tests

#[test]
fn the_walk_finds_the_runtime_api() {
    // A walk that found nothing would pass the "missing" test vacuously.
    let exports = rt_exports();
    for known in [
        "rt::spawn",
        "rt::runtime::Builder::worker_threads",
        "rt::sync::mpsc::channel",
        "rt::sync::mpsc::Sender::send",
        "rt::task::JoinHandle::abort",
        "rt::select",
        "rt::main",
        "rt::net::TcpStream::connect",
        "rt::io::AsyncReadExt::read_exact",
    ] {
        assert!(
            exports.contains(known),
            "the walk of rt's exports missed {known}"
        );
    }
    if std::env::var_os("PRINT_EXPORTS").is_some() {
        for e in &exports {
            println!("{e}");
        }
    }
}

#[test]
fn what_tokio_adds_is_not_in_rt() {
    let exports = rt_exports();
    let mut wrong = Vec::new();
    for m in load().missing {
        let found = present_as(&m.tokio, &exports);
        if !found.is_empty() {
            wrong.push(format!(
                "{} is listed as missing, but rt exports {}",
                m.tokio,
                found.join(", ")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "tokio-comparison.toml, [[missing]]:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn what_differs_is_in_rt() {
    let exports = rt_exports();
    let mut wrong = Vec::new();
    for d in load().differs {
        assert!(
            d.tokio.starts_with("tokio::"),
            "not a Tokio path: {}",
            d.tokio
        );
        if !exports.contains(&d.rt) {
            wrong.push(format!("{} (for {}) is not exported by rt", d.rt, d.tokio));
        }
    }
    assert!(
        wrong.is_empty(),
        "tokio-comparison.toml, [[differs]]:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_generated_pages_match_the_data() {
    let c = load();
    let dir = repo_root().join("book/src/generated");
    let update = std::env::var_os("UPDATE_BOOK").is_some();
    let mut stale = Vec::new();
    for (file, text) in [
        ("tokio-missing.md", render_missing(&c)),
        ("tokio-differs.md", render_differs(&c)),
    ] {
        let path = dir.join(file);
        if update {
            fs::create_dir_all(&dir).unwrap();
            fs::write(&path, &text).unwrap();
        } else if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "not what book/src/data/tokio-comparison.toml renders to: {}\n\
         run `UPDATE_BOOK=1 cargo test -p rt --test book_comparison`",
        stale.join(", ")
    );
}
