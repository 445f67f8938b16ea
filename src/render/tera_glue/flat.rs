//! A template's dotted reads of the context made plain names, each value put in the context
//! under its plain name before the render ([`FlatReads::add_to`]).
//!
//! Tera 1 looks a dotted name (`event.when.start.iso`) up by copying each of its segments
//! twice (`dotted_pointer`'s `str::replace`), about 2,400 instructions a read; a plain name
//! in the context is one map look-up. An event page's content reads about 35 of them, and
//! they were a fifth of a build. Only the content of a page rendered in two parts
//! ([`crate::render::frame`]) is made flat, by the program: a page whose content fails is
//! rendered whole from the template as written, so an error names what the template says.
//!
//! A read is made flat where its first name is the context's (not a loop's or a `set`'s
//! anywhere in the template), it holds no brackets, and Tera reads it as a value: printed,
//! tested, filtered, passed to a macro or a function, looped over. Tera finds a flat name
//! exactly where it found the dotted one: the value put under it is the one its path leads
//! to, and where the path leads nowhere nothing is put, and Tera says the name is not there,
//! as it did.

use super::calls::calls_of;
use serde_json::Value;
use tera::Template;
use tera::ast::{Expr, ExprVal, FunctionCall, Node};

/// Names Tera gives values of its own: a loop's `loop`, a macro's namespaces.
const MAGIC: [&str; 3] = ["loop", "self", "super"];

/// What joins the segments of a flat name: no name written in a template holds it.
const JOIN: char = '\u{1f}';

/// One dotted read made flat: the plain name, and the path it stands for.
#[derive(Clone, Debug, PartialEq)]
struct FlatRead {
    name: String,
    root: String,
    path: Vec<String>,
}

/// The reads a template's blocks were made to do by plain names, longest first, each with
/// whether its value may be moved out of the context's value rather than copied.
#[derive(Clone, Debug, Default)]
pub struct FlatReads(Vec<(FlatRead, bool)>);

impl FlatReads {
    /// Makes the dotted reads of `template`'s blocks plain names, and returns them. For a
    /// template that extends another and has nothing but blocks (a split page's content):
    /// Tera renders its blocks from `template.blocks`.
    pub fn make(template: &mut Template) -> Self {
        let local = calls_of(&template.ast).local;
        let mut reads = Vec::new();
        // The names something reads whole, or otherwise than flat: their values stay whole.
        let mut whole = std::collections::BTreeSet::new();
        let mut flatten = |name: &mut String| {
            let Some(read) = flat_read(name, &local) else {
                whole.insert(name.split(['.', '[']).next().unwrap_or("").to_owned());
                return;
            };
            *name = read.name.clone();
            if !reads.contains(&read) {
                reads.push(read);
            }
        };
        for block in template.blocks.values_mut() {
            body(&mut block.body, &mut flatten);
        }
        for node in &mut template.ast {
            if let Node::Block(_, block, _) = node {
                body(&mut block.body, &mut flatten);
            }
        }
        let uses = calls_of(&template.ast);
        // An included template, or a test, may read any of them whole.
        let all_whole = !uses.includes.is_empty() || uses.roots.contains("__tera_context");
        reads.sort_by_key(|read: &FlatRead| std::cmp::Reverse(read.path.len()));
        let movable = |read: &FlatRead| {
            !all_whole
                && !whole.contains(&read.root)
                && !(reads.iter()).any(|other| {
                    other != read && other.root == read.root && read.path.starts_with(&other.path)
                })
        };
        Self(
            reads
                .iter()
                .map(|read| (read.clone(), movable(read)))
                .collect(),
        )
    }

    /// Puts in `context` the value of each read, under its plain name, where its path leads
    /// to one: moved out of the value it is in where nothing else reads it there (longest
    /// paths first, so that a shorter one is moved with what a longer one copied), else
    /// copied.
    pub fn add_to(&self, context: &mut serde_json::Map<String, Value>) {
        for (read, movable) in &self.0 {
            let Some((last, within)) = read.path.split_last() else {
                continue;
            };
            let parent = (within.iter()).try_fold(context.get_mut(&read.root), |value, segment| {
                Some(step(value?, segment))
            });
            let Some(Some(parent)) = parent else { continue };
            let value = match (parent, movable) {
                (Value::Object(fields), true) => fields.remove(last),
                (parent, _) => step(parent, last).map(|value| value.clone()),
            };
            if let Some(value) = value {
                context.insert(read.name.clone(), value);
            }
        }
    }

    /// Puts the values [`FlatReads::add_to`] moved out of `root`'s value (`value`) back from
    /// `context`: for a render that must see the value whole again.
    pub fn put_back(&self, root: &str, value: &mut Value, context: &tera::Context) {
        for (read, _) in self
            .0
            .iter()
            .rev()
            .filter(|(read, movable)| *movable && read.root == root)
        {
            let Some((last, within)) = read.path.split_last() else {
                continue;
            };
            let parent = (within.iter()).try_fold(Some(&mut *value), |value, segment| {
                Some(step(value?, segment))
            });
            if let (Some(Some(Value::Object(fields))), Some(moved)) =
                (parent, context.get(&read.name))
            {
                fields.entry(last.clone()).or_insert_with(|| moved.clone());
            }
        }
    }
}

/// `value`'s field or item `segment`, as Tera's dotted names read it.
fn step<'v>(value: &'v mut Value, segment: &str) -> Option<&'v mut Value> {
    match value {
        Value::Object(fields) => fields.get_mut(segment),
        Value::Array(items) => segment.parse().ok().and_then(|i: usize| items.get_mut(i)),
        _ => None,
    }
}

/// The flat read of `name`, if it is one to make flat.
fn flat_read(name: &str, local: &std::collections::BTreeSet<String>) -> Option<FlatRead> {
    let mut segments = name.split('.');
    let root = segments.next()?;
    let path: Vec<String> = segments.map(str::to_owned).collect();
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if path.is_empty()
        || local.contains(root)
        || MAGIC.contains(&root)
        || !plain(root)
        || !path.iter().all(|s| plain(s))
    {
        return None;
    }
    Some(FlatRead {
        name: name.replace('.', &JOIN.to_string()),
        root: root.to_owned(),
        path,
    })
}

fn body(nodes: &mut [Node], flatten: &mut impl FnMut(&mut String)) {
    for node in nodes {
        match node {
            Node::VariableBlock(_, value) => expr(value, flatten),
            Node::Set(_, set) => expr(&mut set.value, flatten),
            Node::FilterSection(_, section, _) => {
                call(&mut section.filter, flatten);
                body(&mut section.body, flatten);
            }
            Node::Block(_, block, _) => body(&mut block.body, flatten),
            Node::Forloop(_, forloop, _) => {
                expr(&mut forloop.container, flatten);
                body(&mut forloop.body, flatten);
                if let Some(empty) = &mut forloop.empty_body {
                    body(empty, flatten);
                }
            }
            Node::If(branches, _) => {
                for (_, condition, nodes) in &mut branches.conditions {
                    expr(condition, flatten);
                    body(nodes, flatten);
                }
                if let Some((_, nodes)) = &mut branches.otherwise {
                    body(nodes, flatten);
                }
            }
            // A macro sees only its arguments, read where it is called.
            Node::MacroDefinition(..)
            | Node::Super
            | Node::Text(_)
            | Node::Raw(..)
            | Node::Extends(..)
            | Node::Include(..)
            | Node::ImportMacro(..)
            | Node::Break(_)
            | Node::Continue(_)
            | Node::Comment(..) => {}
        }
    }
}

fn call(call: &mut FunctionCall, flatten: &mut impl FnMut(&mut String)) {
    for arg in call.args.values_mut() {
        expr(arg, flatten);
    }
}

fn expr(expr: &mut Expr, flatten: &mut impl FnMut(&mut String)) {
    for filter in &mut expr.filters {
        call(filter, flatten);
    }
    value(&mut expr.val, flatten);
}

fn value(value: &mut ExprVal, flatten: &mut impl FnMut(&mut String)) {
    match value {
        ExprVal::Ident(name) => flatten(name),
        ExprVal::Math(math) => {
            expr(&mut math.lhs, flatten);
            expr(&mut math.rhs, flatten);
        }
        ExprVal::Logic(logic) => {
            expr(&mut logic.lhs, flatten);
            expr(&mut logic.rhs, flatten);
        }
        ExprVal::In(within) => {
            expr(&mut within.lhs, flatten);
            expr(&mut within.rhs, flatten);
        }
        // Tera looks a test's variable up as any other (`x is defined`: whether it is found).
        ExprVal::Test(test) => {
            flatten(&mut test.ident);
            test.args.iter_mut().for_each(|arg| expr(arg, flatten));
        }
        ExprVal::MacroCall(macro_call) => {
            macro_call
                .args
                .values_mut()
                .for_each(|arg| expr(arg, flatten));
        }
        ExprVal::FunctionCall(function) => call(function, flatten),
        ExprVal::Array(items) => items.iter_mut().for_each(|item| expr(item, flatten)),
        ExprVal::StringConcat(concat) => concat
            .values
            .iter_mut()
            .for_each(|v| self::value(v, flatten)),
        ExprVal::String(_) | ExprVal::Int(_) | ExprVal::Float(_) | ExprVal::Bool(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template's blocks read flat print what they printed dotted, for every kind of read,
    /// present, null, missing, in a list, looped over, a loop's own, a `set`'s.
    #[test]
    fn a_template_read_flat_prints_what_it_printed() {
        let parent = "{% block content %}{% endblock content %}";
        let child = r#"{% extends "parent.html" %}{% import "macros.html" as m %}{% block content %}
[{{ e.name }}][{{ e.name | upper }}][{% if e.banner %}b{% endif %}][{{ e.banner.href | default(value="-") }}]
{% for p in e.list %}({{ p.label }}{{ loop.index }}){% endfor %}[{{ e.list.1.label }}][{{ m::show(v=e.when) }}]
{% set s = e.name %}[{{ s }}]{% if e.flag and not e.none %}t{% endif %}[{{ e.n + 1 }}]{% if e.name == "x" %}{% endif %}
[{{ e.missing | default(value="d") }}][{% if e.deep.missing %}no{% endif %}][{{ e.name ~ root }}][{{ e["name"] }}]
{% if e.banner is defined %}def{% endif %}{% if e.deep.gone is defined %}gone{% endif %}[{{ e.when.start }}]
{% endblock content %}"#;
        let macros = "{% macro show(v) %}<{{ v.start }}>{% endmacro show %}";
        let context = serde_json::json!({
            "root": "../",
            "e": {"name": "A<b>", "banner": null, "flag": true, "none": false, "n": 2,
                  "list": [{"label": "one"}, {"label": "two"}], "when": {"start": "st"}, "deep": {}},
        });
        let mut tera = tera::Tera::default();
        tera.add_raw_templates([
            ("parent.html", parent),
            ("page.html", child),
            ("macros.html", macros),
        ])
        .unwrap();
        tera.autoescape_on(vec![".html"]);
        let plain = tera.clone();
        let reads = FlatReads::make(tera.templates.get_mut("page.html").unwrap());
        tera.build_inheritance_chains().unwrap();
        assert!(reads.0.len() > 10, "{:?}", reads.0);
        let Value::Object(mut values) = context.clone() else {
            unreachable!()
        };
        reads.add_to(&mut values);
        let flat = tera.render(
            "page.html",
            &tera::Context::from_value(Value::Object(values)).unwrap(),
        );
        let dotted = plain.render("page.html", &tera::Context::from_value(context).unwrap());
        assert_eq!(flat.unwrap(), dotted.unwrap());
    }

    /// A read that leads nowhere is an error, as it was.
    #[test]
    fn a_read_that_leads_nowhere_is_not_found_as_before() {
        let mut tera = tera::Tera::default();
        tera.add_raw_templates([
            ("parent.html", "{% block content %}{% endblock content %}"),
            ("page.html", r#"{% extends "parent.html" %}{% block content %}{{ e.gone }}{% endblock content %}"#),
        ])
        .unwrap();
        let reads = FlatReads::make(tera.templates.get_mut("page.html").unwrap());
        tera.build_inheritance_chains().unwrap();
        let mut values = serde_json::Map::new();
        values.insert("e".into(), serde_json::json!({"here": 1}));
        reads.add_to(&mut values);
        let error = tera
            .render(
                "page.html",
                &tera::Context::from_value(Value::Object(values)).unwrap(),
            )
            .unwrap_err();
        let message = super::super::errors::full_text(&error);
        assert!(message.contains("not found in context"), "{message}");
    }
}
