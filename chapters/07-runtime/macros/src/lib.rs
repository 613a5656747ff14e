//! # `#[rt::main]` and `#[rt::test]`: an async function as a program
//!
//! `main` cannot be `async`: something has to build the runtime that polls
//! the future `main` would return. These two attributes write that
//! something. They take
//!
//! ```text
//! #[rt::main]
//! async fn main() -> Result<(), Error> { body }
//! ```
//!
//! and turn it into an ordinary function that builds a runtime with
//! [`Builder`](../rt/struct.Builder.html) and hands the body, as an `async`
//! block, to `block_on`:
//!
//! ```text
//! fn main() -> Result<(), Error> {
//!     let body = async { body };
//!     return ::rt::Builder::new_multi_thread()
//!         .enable_all()
//!         .build()
//!         .expect("Failed building the Runtime")
//!         .block_on(body);
//! }
//! ```
//!
//! The block keeps the function's return type, so `?` works in the body.
//! `#[rt::test]` is the same with `#[test]` on top and, as in Tokio, the
//! current-thread runtime by default (a test is small; one thread makes it
//! deterministic). The options are Tokio's, with Tokio's rules:
//!
//! | option | values | default |
//! | --- | --- | --- |
//! | `flavor` | `"multi_thread"`, `"current_thread"`, `"local"` (a `LocalRuntime`: `spawn_local` works in the body) | `main`: `multi_thread`; `test`: `current_thread` |
//! | `worker_threads` | an integer above 0, only with `multi_thread` | one per CPU |
//! | `start_paused` | `true` or `false`, not with `multi_thread` | `false` |
//! | `name` | a string: the runtime's [`Handle::name`](../rt/runtime/struct.Handle.html#method.name) | none |
//! | `crate` | a path, as a string: `crate = "my_rt"` | `::rt` |
//!
//! Misuse is a compile error that points at the culprit: a function without
//! `async`, a `main` or test with arguments, an unknown option, an option
//! that does not go with the flavor. Each is pinned down by a compile-fail
//! test in rt's `tests/ui/`.
//!
//! Book: Chapter 8, "Writing programs".

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ItemFn, Lit, Meta, Token};

/// Runs an `async fn main` on an rt runtime (multi-threaded by default).
///
/// ```ignore
/// #[rt::main]
/// async fn main() {
///     rt::spawn(async { println!("hello") }).await.unwrap();
/// }
/// ```
///
/// Options: `flavor = "multi_thread" | "current_thread" | "local"`,
/// `worker_threads = N` (multi_thread only), `start_paused = true` (not
/// with multi_thread),
/// `name = "..."`, `crate = "path"`.
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(Kind::Main, args.into(), item.into()).into()
}

/// Runs an `async fn` test on an rt runtime (current-thread by default).
///
/// ```ignore
/// #[rt::test]
/// async fn adds() {
///     assert_eq!(rt::spawn(async { 1 + 1 }).await.unwrap(), 2);
/// }
/// ```
///
/// Options as for [`macro@main`].
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(Kind::Test, args.into(), item.into()).into()
}

/// Which attribute is being expanded: they differ only in the default
/// flavor, the `#[test]` on top, and their error messages.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Main,
    Test,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Main => "main",
            Kind::Test => "test",
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Flavor {
    MultiThread,
    CurrentThread,
    /// A current-thread runtime that also runs `spawn_local` tasks
    /// (`LocalRuntime`).
    Local,
}

/// The parsed options, each with the span of where it was written (for
/// errors that are found only once every option has been read).
struct Options {
    flavor: Option<(Flavor, Span)>,
    worker_threads: Option<(usize, Span)>,
    start_paused: Option<(bool, Span)>,
    crate_path: Option<syn::Path>,
    name: Option<String>,
}

/// The whole expansion; any error becomes a `compile_error!` at its span.
fn expand(kind: Kind, args: TokenStream2, item: TokenStream2) -> TokenStream2 {
    // The function is parsed first: if it is not a function at all, that is
    // the error worth reporting.
    let function: ItemFn = match syn::parse2(item) {
        Ok(function) => function,
        Err(error) => return error.to_compile_error(),
    };
    match parse_options(kind, args).and_then(|options| rewrite(kind, &options, &function)) {
        Ok(tokens) => tokens,
        Err(error) => stand_in(&function, error),
    }
}

/// On an error, the error and a plain function of the same name with an
/// empty body, so that the compiler reports our error and not a cascade
/// (a missing `main`, an `async fn main`).
fn stand_in(function: &ItemFn, error: syn::Error) -> TokenStream2 {
    let error = error.to_compile_error();
    let name = &function.sig.ident;
    quote! {
        #error
        #[allow(dead_code)]
        fn #name() {}
    }
}

fn parse_options(kind: Kind, args: TokenStream2) -> syn::Result<Options> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    let mut options = Options {
        flavor: None,
        worker_threads: None,
        start_paused: None,
        crate_path: None,
        name: None,
    };
    for meta in metas {
        let name = meta
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let Meta::NameValue(pair) = &meta else {
            return Err(syn::Error::new_spanned(
                &meta,
                format!(
                    "expected `option = value`, e.g. `#[rt::{}(flavor = \"multi_thread\")]`",
                    kind.name()
                ),
            ));
        };
        let span = pair.span();
        let twice = || syn::Error::new(span, format!("the option `{name}` is given twice"));
        match name.as_str() {
            "flavor" => {
                let flavor = match string_literal(&pair.value, "flavor")?.as_str() {
                    "multi_thread" => Flavor::MultiThread,
                    "current_thread" => Flavor::CurrentThread,
                    "local" => Flavor::Local,
                    other => {
                        return Err(syn::Error::new_spanned(
                            &pair.value,
                            format!(
                                "unknown runtime flavor `{other}`; the flavors are \
                                 `multi_thread`, `current_thread` and `local`"
                            ),
                        ));
                    }
                };
                if options.flavor.replace((flavor, span)).is_some() {
                    return Err(twice());
                }
            }
            "worker_threads" => {
                let n = match &pair.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(n), ..
                    }) => n.base10_parse::<usize>()?,
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "`worker_threads` takes an integer, e.g. `worker_threads = 4`",
                        ));
                    }
                };
                if n == 0 {
                    return Err(syn::Error::new_spanned(
                        &pair.value,
                        "`worker_threads` must be at least 1",
                    ));
                }
                if options.worker_threads.replace((n, span)).is_some() {
                    return Err(twice());
                }
            }
            "start_paused" => {
                let paused = match &pair.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => b.value,
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "`start_paused` takes `true` or `false`",
                        ));
                    }
                };
                if options.start_paused.replace((paused, span)).is_some() {
                    return Err(twice());
                }
            }
            "crate" => {
                let text = string_literal(&pair.value, "crate")?;
                let path = syn::parse_str::<syn::Path>(&text).map_err(|_| {
                    syn::Error::new_spanned(
                        &pair.value,
                        format!("`{text}` is not a path; write e.g. `crate = \"my_rt\"`"),
                    )
                })?;
                if options.crate_path.replace(path).is_some() {
                    return Err(twice());
                }
            }
            "name" => {
                let text = string_literal(&pair.value, "name")?;
                if text.trim().is_empty() {
                    return Err(syn::Error::new_spanned(
                        &pair.value,
                        "`name` must not be empty",
                    ));
                }
                if options.name.replace(text).is_some() {
                    return Err(twice());
                }
            }
            _ => {
                let path = meta.path();
                return Err(syn::Error::new_spanned(
                    path,
                    format!(
                        "unknown option `{}`; the options are `flavor`, `worker_threads`, \
                         `start_paused`, `name` and `crate`",
                        quote!(#path).to_string().replace(' ', "")
                    ),
                ));
            }
        }
    }
    // Tokio's rules: each of these options belongs to one flavor.
    let flavor = options.flavor.map(|(flavor, _)| flavor);
    let flavor = flavor.unwrap_or(default_flavor(kind));
    if let (Flavor::CurrentThread | Flavor::Local, Some((_, span))) =
        (flavor, options.worker_threads)
    {
        return Err(syn::Error::new(
            span,
            format!(
                "`worker_threads` needs the `multi_thread` flavor (a current-thread runtime \
                 has no workers); write `#[rt::{}(flavor = \"multi_thread\", worker_threads = N)]`",
                kind.name()
            ),
        ));
    }
    if let (Flavor::MultiThread, Some((_, span))) = (flavor, options.start_paused) {
        return Err(syn::Error::new(
            span,
            format!(
                "`start_paused` needs the `current_thread` flavor (the paused clock needs one \
                 thread to know when the runtime is idle); write \
                 `#[rt::{}(flavor = \"current_thread\", start_paused = true)]`",
                kind.name()
            ),
        ));
    }
    Ok(options)
}

fn default_flavor(kind: Kind) -> Flavor {
    match kind {
        Kind::Main => Flavor::MultiThread,
        Kind::Test => Flavor::CurrentThread,
    }
}

fn string_literal(value: &Expr, option: &str) -> syn::Result<String> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(text.value()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{option}` takes a string, e.g. `{option} = \"...\"`"),
        )),
    }
}

// ANCHOR: rewrite
/// The function, rewritten: the same name, attributes, visibility and return
/// type, no `async`, and a body that builds the runtime and blocks on the
/// original body.
fn rewrite(kind: Kind, options: &Options, function: &ItemFn) -> syn::Result<TokenStream2> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            signature.fn_token,
            "the `async` keyword is missing from the function declaration",
        ));
    }
    if !signature.inputs.is_empty() {
        return Err(syn::Error::new_spanned(
            &signature.inputs,
            format!("the {} function cannot accept arguments", kind.name()),
        ));
    }
    if kind == Kind::Test
        && let Some(test) = function.attrs.iter().find(|a| a.path().is_ident("test"))
    {
        return Err(syn::Error::new_spanned(
            test,
            "a second #[test] attribute: #[rt::test] already adds one; remove this one",
        ));
    }
    let rt = match &options.crate_path {
        Some(path) => quote!(#path),
        None => quote!(::rt),
    };
    let flavor = options.flavor.map_or(default_flavor(kind), |(f, _)| f);
    let mut builder = match flavor {
        Flavor::MultiThread => quote!(#rt::runtime::Builder::new_multi_thread()),
        Flavor::CurrentThread | Flavor::Local => {
            quote!(#rt::runtime::Builder::new_current_thread())
        }
    };
    let build = match flavor {
        Flavor::Local => quote!(build_local(::core::default::Default::default())),
        Flavor::MultiThread | Flavor::CurrentThread => quote!(build()),
    };
    if let Some((n, _)) = options.worker_threads {
        builder = quote!(#builder.worker_threads(#n));
    }
    if let Some((paused, _)) = options.start_paused {
        builder = quote!(#builder.start_paused(#paused));
    }
    if let Some(name) = &options.name {
        builder = quote!(#builder.name(#name));
    }
    let attrs = &function.attrs;
    let vis = &function.vis;
    let mut signature = signature.clone();
    signature.asyncness = None;
    let body = &function.block;
    // The runtime is built at the end of the body, so a type error in the
    // body points into the body, not at the macro.
    let end = body.brace_token.span.close();
    let run = quote_spanned! {end=>
        #[allow(clippy::expect_used, clippy::needless_return)]
        {
            return #builder
                .enable_all()
                .#build
                .expect("Failed building the Runtime")
                .block_on(body);
        }
    };
    let test = match kind {
        Kind::Test => quote!(#[::core::prelude::v1::test]),
        Kind::Main => quote!(),
    };
    Ok(quote! {
        #test
        #(#attrs)*
        #vis #signature {
            let body = async #body;
            #run
        }
    })
}
// ANCHOR_END: rewrite

/// `select!`'s helper (hidden; not for direct use): the branch's pattern with
/// its binding modifiers removed (`mut x` and `ref x` become `x`, `&p`
/// becomes `p`).
///
/// `select!` must test whether a branch's output matches its pattern
/// *without* consuming the output (the handler, which binds it, runs later,
/// outside the poll). It tests `&output`, where Rust 2024 forbids `mut` and
/// `ref` inside the pattern (they would be implicitly borrowing); the
/// test only asks "does it match?", for which the modifiers do not matter.
#[doc(hidden)]
#[proc_macro]
pub fn select_clean_pattern(input: TokenStream) -> TokenStream {
    use syn::visit_mut::VisitMut;
    struct Clean;
    impl VisitMut for Clean {
        fn visit_pat_mut(&mut self, pat: &mut syn::Pat) {
            if let syn::Pat::Reference(reference) = pat {
                *pat = (*reference.pat).clone();
            }
            syn::visit_mut::visit_pat_mut(self, pat);
        }
        fn visit_pat_ident_mut(&mut self, ident: &mut syn::PatIdent) {
            ident.by_ref = None;
            ident.mutability = None;
            syn::visit_mut::visit_pat_ident_mut(self, ident);
        }
    }
    let mut pattern = match syn::Pat::parse_multi_with_leading_vert.parse(input) {
        Ok(pattern) => pattern,
        Err(error) => return error.to_compile_error().into(),
    };
    Clean.visit_pat_mut(&mut pattern);
    quote!(#pattern).into()
}
