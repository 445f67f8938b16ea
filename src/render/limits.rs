//! What a template may do. Themes are files a webmaster may have copied from anywhere, and
//! they run in CI beside the API key, so Tera's built-ins that reach outside the render or
//! grow without bound are replaced, and recursion that Tera 1 would follow until the stack
//! overflows is refused when the theme loads.
//!
//! Tera 1's built-ins, reviewed:
//! - `get_env` reads any environment variable (the API key, a CI token): replaced by a
//!   function that fails, and refused at load time where a template calls it.
//! - `range` builds its whole list in memory (`range(end=1000000000)` takes gigabytes):
//!   replaced by the same function limited to [`MAX_RANGE`] items.
//! - `now` reads the clock and `get_random` a random number: neither reaches a secret, so
//!   they stay (a theme that uses them gives a build that is not reproducible).
//! - `throw`, the filters and the tests work only on the values they are given.
//! - `include`, `import` and `extends` name other templates of the theme, never files.
//!
//! How much a render may make is not bounded: a template that doubles a string in a loop
//! exhausts the memory of the webmaster's own build, as in Zola or Hugo.

use crate::render::tera_glue::calls::{Calls, calls_of};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use tera::{Template, Tera};

/// The most items `range` makes. The built-in templates use none; a theme's loops over
/// pages or events come from the data, not from `range`.
pub const MAX_RANGE: usize = 10_000;

/// Replaces the built-ins that reach outside the render or have no bound.
pub fn restrict(tera: &mut Tera) {
    tera.register_function("get_env", |_: &HashMap<String, Value>| {
        Err(tera::Error::msg(GET_ENV_REFUSED))
    });
    tera.register_function("range", bounded_range);
}

const GET_ENV_REFUSED: &str = "get_env() is not available to templates: the environment holds \
     the API key and CI secrets; put what the page needs in vatcar-site.toml instead";

fn bounded_range(args: &HashMap<String, Value>) -> tera::Result<Value> {
    let number = |name: &str, default: Option<usize>| -> tera::Result<usize> {
        match args.get(name) {
            Some(value) => value.as_u64().map(|n| n as usize).ok_or_else(|| {
                tera::Error::msg(format!(
                    "range: `{name}` must be a whole number of at least 0, found {value}"
                ))
            }),
            None => default.ok_or_else(|| tera::Error::msg("range: `end` is required")),
        }
    };
    let start = number("start", Some(0))?;
    let end = number("end", None)?;
    let step = number("step_by", Some(1))?;
    if step == 0 {
        return Err(tera::Error::msg("range: `step_by` must be at least 1"));
    }
    if start > end {
        return Err(tera::Error::msg(format!(
            "range: `start` ({start}) must not be greater than `end` ({end})"
        )));
    }
    let count = (end - start).div_ceil(step);
    if count > MAX_RANGE {
        return Err(tera::Error::msg(format!(
            "range: {count} items is more than the {MAX_RANGE} a template may make"
        )));
    }
    Ok(Value::Array(
        (start..end).step_by(step).map(Value::from).collect(),
    ))
}

/// The deepest a theme's template may nest blocks (`if`, `for`, `block`, `macro`, `filter`),
/// parentheses, square brackets (`a[b[0]]`) and the operators of one tag (`1 + 1 + 1`, whose
/// tree Tera builds one level per operator), counted together. Tera's parser and renderer go
/// one call deeper on the thread's stack at each level: a few hundred levels of blocks, or a
/// few thousand operators, overflow it, and the build would abort instead of naming the line. The built-in templates nest at most 8
/// deep.
pub const MAX_NESTING: usize = 64;

/// The line at which `text` first nests deeper than [`MAX_NESTING`], read as Tera reads it:
/// tags between `{{ }}` and `{% %}`, their quoted strings, brackets and operators, and neither
/// comments nor `raw` sections. A comparison counts once, a tag's sibling arguments add up:
/// over-counting a tag is on the side of safety.
pub fn too_deep(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let line = |at: usize| 1 + bytes[..at].iter().filter(|&&byte| byte == b'\n').count();
    let (mut at, mut blocks) = (0, 0usize);
    while let Some(found) = memchr::memchr(b'{', &bytes[at..]) {
        let start = at + found;
        let kind = bytes.get(start + 1).copied().unwrap_or(0);
        let word = text[start + 1..]
            .trim_start_matches(['{', '%', '#', '-'])
            .trim_start();
        let word = &word[..word
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(word.len())];
        let (end, skipped) = match kind {
            b'#' => ("#}", true),
            b'%' if word == "raw" => ("endraw", true),
            b'{' => ("}}", false),
            b'%' => ("%}", false),
            _ => {
                at = start + 1;
                continue;
            }
        };
        // A tag's whitespace control (`{%-`, `-%}`) is no operator.
        let inside = start + 2 + usize::from(bytes.get(start + 2) == Some(&b'-'));
        let (mut parens, mut operators, mut quote, mut inside) = (0usize, 0, None, inside);
        while inside < bytes.len()
            && (quote.is_some() || !bytes[inside..].starts_with(end.as_bytes()))
        {
            match (quote, bytes[inside]) {
                _ if skipped => {}
                (Some(open), byte) if byte == open => quote = None,
                (None, byte @ (b'"' | b'\'' | b'`')) => quote = Some(byte),
                (None, b'(' | b'[') => parens += 1,
                (None, b')' | b']') => parens = parens.saturating_sub(1),
                (None, b'-') if bytes[inside + 1..].starts_with(end.as_bytes()) => {}
                // A lone `=` names an argument or sets a value; `==` counts once.
                (None, b'=') if bytes.get(inside + 1) != Some(&b'=') => {}
                (None, b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!') => {
                    operators += 1
                }
                (None, b'a'..=b'z') if !is_name_byte(bytes[inside - 1]) => {
                    let name = &bytes[inside..];
                    let name = &name[..name
                        .iter()
                        .position(|b| !is_name_byte(*b))
                        .unwrap_or(name.len())];
                    if [&b"and"[..], b"or", b"not", b"in", b"is"].contains(&name) {
                        operators += 1;
                    }
                }
                _ => {}
            }
            if blocks + parens + operators > MAX_NESTING {
                return Some(line(inside));
            }
            inside += 1;
        }
        at = (inside + end.len()).min(bytes.len());
        if kind == b'%' && ["if", "for", "block", "macro", "filter"].contains(&word) {
            blocks += 1;
            if blocks > MAX_NESTING {
                return Some(line(start));
            }
        } else if kind == b'%' && word.starts_with("end") {
            blocks = blocks.saturating_sub(1);
        }
    }
    None
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Something a template or macro renders when it runs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Target {
    Template(String),
    /// A macro: the file it is defined in, and its name.
    Macro(String, String),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Template(name) => write!(f, "{name}"),
            Target::Macro(file, name) => write!(f, "macro {name} of {file}"),
        }
    }
}

/// Refuses a theme in which a template would include itself or a macro call itself, directly
/// or through others, and one that calls `get_env`. Returns the name of the offending
/// template with the error, so that the caller can say which file it came from.
pub fn check(tera: &Tera) -> std::result::Result<(), (String, anyhow::Error)> {
    let mut graph: BTreeMap<Target, BTreeSet<Target>> = BTreeMap::new();
    for (name, template) in &tera.templates {
        // The template's own body, which also renders its parent, then each macro's.
        let macros = (template.macros.iter())
            .map(|(m, definition)| (Target::Macro(name.clone(), m.clone()), &definition.body));
        for (target, body) in
            std::iter::once((Target::Template(name.clone()), &template.ast)).chain(macros)
        {
            let calls = calls_of(body);
            if calls.functions.iter().any(|f| f == "get_env") {
                return Err((name.clone(), anyhow::anyhow!(GET_ENV_REFUSED)));
            }
            let mut targets = edges(tera, template, calls);
            if let (Target::Template(_), Some(parent)) = (&target, &template.parent) {
                targets.insert(Target::Template(parent.clone()));
            }
            graph.insert(target, targets);
        }
    }
    match find_cycle(&graph) {
        Some(cycle) => {
            let file = match &cycle[0] {
                Target::Template(name) | Target::Macro(name, _) => name.clone(),
            };
            let path: Vec<String> = cycle.iter().map(ToString::to_string).collect();
            Err((
                file,
                anyhow::anyhow!(
                    "recursion: {} (a template may not include itself, nor a macro call itself, \
                     directly or through others: Tera 1 has no depth limit and would crash)",
                    path.join(" → ")
                ),
            ))
        }
        None => Ok(()),
    }
}

/// Where the calls of a body in `template` lead. Macro namespaces are looked up in the
/// template's imports and then its parents' (Tera finds them there too).
fn edges(tera: &Tera, template: &Template, calls: Calls) -> BTreeSet<Target> {
    let mut edges: BTreeSet<Target> = calls.includes.into_iter().map(Target::Template).collect();
    for (namespace, name) in calls.macros {
        let defined_in = if namespace == "self" {
            Some(template.name.clone())
        } else {
            std::iter::once(template)
                .chain(
                    template
                        .parents
                        .iter()
                        .filter_map(|p| tera.templates.get(p)),
                )
                .find_map(|t| {
                    t.imported_macro_files
                        .iter()
                        .find(|(_, ns)| *ns == namespace)
                        .map(|(path, _)| path.clone())
                })
        };
        if let Some(defined_in) = defined_in {
            edges.insert(Target::Macro(defined_in, name));
        }
    }
    edges
}

/// The first cycle found, from a target back to itself.
fn find_cycle(graph: &BTreeMap<Target, BTreeSet<Target>>) -> Option<Vec<Target>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Visiting,
        Done,
    }
    fn visit<'g>(
        node: &'g Target,
        graph: &'g BTreeMap<Target, BTreeSet<Target>>,
        marks: &mut HashMap<&'g Target, Mark>,
        path: &mut Vec<&'g Target>,
    ) -> Option<Vec<Target>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Visiting) => {
                let start = path.iter().position(|t| *t == node)?;
                let mut cycle: Vec<Target> = path[start..].iter().map(|t| (*t).clone()).collect();
                cycle.push(node.clone());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node, Mark::Visiting);
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            // An edge to something the theme does not have leads nowhere; Tera reports it.
            let Some((next, _)) = graph.get_key_value(next) else {
                continue;
            };
            if let Some(cycle) = visit(next, graph, marks, path) {
                return Some(cycle);
            }
        }
        path.pop();
        marks.insert(node, Mark::Done);
        None
    }
    let mut marks = HashMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::{Result, bail};

    /// Templates loaded into a restricted Tera and checked, as the theme loader does.
    fn load(templates: &[(&str, &str)]) -> Result<Tera> {
        let mut tera = Tera::default();
        restrict(&mut tera);
        tera.add_raw_templates(templates.iter().copied())?;
        if let Err((name, error)) = check(&tera) {
            bail!("{name}: {error}");
        }
        Ok(tera)
    }

    fn error_of(templates: &[(&str, &str)]) -> String {
        format!("{:#}", load(templates).map(|_| ()).expect_err("refused"))
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_found_at_its_line_and_nothing_else_counts() {
        let ifs = |n: usize| "{% if a %}\n".repeat(n) + &"{%- endif %}".repeat(n);
        assert_eq!(too_deep(&ifs(MAX_NESTING)), None);
        assert_eq!(too_deep(&ifs(MAX_NESTING + 1)), Some(MAX_NESTING + 1));
        let parens = |n: usize| format!("{{{{ {}1{} }}}}", "(".repeat(n), ")".repeat(n));
        let in_a_loop = |n: usize| format!("{{% for a in b %}}\n{}{{% endfor %}}", parens(n));
        assert_eq!(too_deep(&in_a_loop(MAX_NESTING - 1)), None);
        assert_eq!(too_deep(&in_a_loop(MAX_NESTING)), Some(2));
        let indexes = |n: usize| format!("{{{{ {}0{} }}}}", "a[".repeat(n), "]".repeat(n));
        assert_eq!(too_deep(&indexes(MAX_NESTING)), None);
        assert_eq!(too_deep(&indexes(MAX_NESTING + 1)), Some(1));
        // Each operator of a chain is a level of the tree Tera makes; a name that holds an
        // operator's word (`android`, `origin`) is none.
        let sums =
            |n: usize, operator: &str| format!("{{{{ {} }}}}", vec!["a"; n + 1].join(operator));
        assert_eq!(too_deep(&sums(MAX_NESTING, " + ")), None);
        assert_eq!(too_deep(&sums(MAX_NESTING + 1, " + ")), Some(1));
        assert_eq!(too_deep(&sums(MAX_NESTING + 1, " or ")), Some(1));
        assert_eq!(too_deep(&sums(MAX_NESTING + 1, " == ")), Some(1));
        let arguments = format!("{{{{ f({}) }}}}", vec!["a=1"; MAX_NESTING + 1].join(", "));
        assert_eq!(
            too_deep(&arguments),
            None,
            "a named argument's = is no operator"
        );
        assert_eq!(
            too_deep(&sums(MAX_NESTING + 1, " ~ ")),
            None,
            "Tera's ~ is flat"
        );
        assert_eq!(too_deep(&sums(MAX_NESTING + 1, " | android | ")), None);
        // Text, comments, `raw`, strings and blocks that close again are not nesting.
        let deep = "{% if a %}".repeat(MAX_NESTING + 1);
        let flat = [
            "(".repeat(100),
            format!("{{# {deep} #}}{{% raw %}}{deep}{{% endraw %}}"),
            format!("{{{{ \"{}\" ~ '}}}}' }}}}", "(".repeat(100)),
            "{% if a %}{{ (1) }}{% endif %}".repeat(100),
        ]
        .concat();
        assert_eq!(too_deep(&flat), None);
        for (name, text) in crate::render::TEMPLATES {
            assert_eq!(too_deep(text), None, "{name}");
        }
    }

    #[test]
    fn a_template_that_includes_itself_is_refused_at_load() {
        let error = error_of(&[("a.html", "x{% include \"a.html\" %}")]);
        assert!(
            error.starts_with("a.html: recursion: a.html → a.html"),
            "{error}"
        );
        let error = error_of(&[
            ("a.html", "{% if x %}{% include \"b.html\" %}{% endif %}"),
            (
                "b.html",
                "{% for i in y %}{% include \"a.html\" %}{% endfor %}",
            ),
        ]);
        assert!(error.contains("a.html → b.html → a.html"), "{error}");
    }

    #[test]
    fn a_child_included_by_its_parent_is_recursion_too() {
        let error = error_of(&[
            (
                "base.html",
                "{% block c %}{% endblock %}{% include \"child.html\" %}",
            ),
            (
                "child.html",
                "{% extends \"base.html\" %}{% block c %}x{% endblock %}",
            ),
        ]);
        assert!(error.contains("recursion"), "{error}");
    }

    #[test]
    fn recursive_macros_are_refused_directly_or_through_another() {
        let error = error_of(&[(
            "m.html",
            "{% macro a(n) %}{{ self::a(n=n) }}{% endmacro a %}",
        )]);
        assert!(
            error.contains("macro a of m.html → macro a of m.html"),
            "{error}"
        );
        let error = error_of(&[
            (
                "m.html",
                "{% macro a() %}{{ self::b() | upper }}{% endmacro a %}{% macro b() %}{% set x = [self::a()] %}{% endmacro b %}",
            ),
            ("page.html", "{% import \"m.html\" as m %}{{ m::a() }}"),
        ]);
        assert!(error.contains("recursion"), "{error}");
    }

    #[test]
    fn ordinary_includes_and_macros_load() {
        let tera = load(&[
            ("m.html", "{% macro a(n) %}[{{ n }}]{% endmacro a %}{% macro b() %}{{ self::a(n=1) }}{% endmacro b %}"),
            ("part.html", "part"),
            ("base.html", "{% block c %}{% endblock %}{% include \"part.html\" %}"),
            (
                "page.html",
                "{% extends \"base.html\" %}{% import \"m.html\" as m %}{% block c %}{{ m::b() }}{% include \"part.html\" %}{% endblock %}",
            ),
        ])
        .unwrap();
        let html = tera.render("page.html", &tera::Context::new()).unwrap();
        assert_eq!(html, "[1]partpart");
    }

    #[test]
    fn get_env_is_refused_at_load_and_fails_if_reached() {
        for body in [
            "{{ get_env(name=\"VATCAR_API_KEY\") }}",
            "{% if true %}{% set k = get_env(name=\"HOME\", default=\"\") | upper %}{% endif %}",
            "{{ \"x\" ~ get_env(name=\"PATH\") }}",
        ] {
            let error = error_of(&[("page.html", body)]);
            assert!(
                error.contains("get_env() is not available"),
                "{body}: {error}"
            );
        }
        let mut tera = Tera::default();
        restrict(&mut tera);
        tera.add_raw_template("t", "{{ get_env(name=\"HOME\") }}")
            .unwrap();
        let error = tera.render("t", &tera::Context::new()).unwrap_err();
        let chain = format!("{:?}", anyhow::Error::new(error));
        assert!(chain.contains("get_env() is not available"), "{chain}");
    }

    #[test]
    fn range_is_bounded_and_otherwise_unchanged() {
        let tera = load(&[
            (
                "small.html",
                "{% for i in range(start=1, end=10, step_by=3) %}{{ i }},{% endfor %}",
            ),
            (
                "huge.html",
                "{% for i in range(end=1000000000) %}{{ i }}{% endfor %}",
            ),
        ])
        .unwrap();
        let context = tera::Context::new();
        assert_eq!(tera.render("small.html", &context).unwrap(), "1,4,7,");
        let error = format!(
            "{:?}",
            anyhow::Error::new(tera.render("huge.html", &context).unwrap_err())
        );
        assert!(
            error.contains("1000000000 items is more than the 10000"),
            "{error}"
        );
    }
}
