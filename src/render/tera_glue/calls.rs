//! What a body of Tera's syntax tree calls and reads, found by walking it: every kind of node
//! and expression Tera 1 has is named here, so that a kind a Tera upgrade adds fails to
//! compile here, and one whose shape changes fails the tests below.

use std::collections::BTreeSet;
use tera::ast::{Expr, ExprVal, FunctionCall, Node};

/// What one body of nodes calls and reads: for the recursion check (`render::limits`), and for whether a
/// theme's template leaves a page's frame the same on every page (`render::frame`).
#[derive(Default)]
pub struct Calls {
    pub includes: Vec<String>,
    /// (namespace, macro name)
    pub macros: Vec<(String, String)>,
    pub functions: Vec<String>,
    /// The first name of each variable read (`site` of `site.title`), and of each read inside
    /// brackets (`page` of `site[page.section]`).
    pub roots: BTreeSet<String>,
    /// Names the body binds itself: loop variables, `set`.
    pub local: BTreeSet<String>,
    /// Whether it defines a macro, or holds a filter section.
    pub macro_definitions: bool,
    pub filter_sections: bool,
}

/// What `body` calls and reads.
pub fn calls_of(body: &[Node]) -> Calls {
    let mut calls = Calls::default();
    nodes(body, &mut calls);
    calls
}

fn nodes(body: &[Node], calls: &mut Calls) {
    for node in body {
        match node {
            Node::VariableBlock(_, e) => expr(e, calls),
            Node::Include(_, names, _) => calls.includes.extend(names.iter().cloned()),
            Node::Set(_, set) => {
                calls.local.insert(set.key.clone());
                expr(&set.value, calls);
            }
            Node::FilterSection(_, section, _) => {
                calls.filter_sections = true;
                filter(&section.filter, calls);
                nodes(&section.body, calls);
            }
            Node::Block(_, block, _) => nodes(&block.body, calls),
            Node::Forloop(_, forloop, _) => {
                calls.local.insert(forloop.value.clone());
                calls.local.extend(forloop.key.clone());
                expr(&forloop.container, calls);
                nodes(&forloop.body, calls);
                if let Some(empty) = &forloop.empty_body {
                    nodes(empty, calls);
                }
            }
            Node::If(branches, _) => {
                for (_, condition, body) in &branches.conditions {
                    expr(condition, calls);
                    nodes(body, calls);
                }
                if let Some((_, body)) = &branches.otherwise {
                    nodes(body, calls);
                }
            }
            // Macro bodies are checked from the template's macro table.
            Node::MacroDefinition(..) => calls.macro_definitions = true,
            Node::Super
            | Node::Text(_)
            | Node::Extends(..)
            | Node::ImportMacro(..)
            | Node::Raw(..)
            | Node::Break(_)
            | Node::Continue(_)
            | Node::Comment(..) => {}
        }
    }
}

fn filter(call: &FunctionCall, calls: &mut Calls) {
    for argument in call.args.values() {
        expr(argument, calls);
    }
}

fn expr(e: &Expr, calls: &mut Calls) {
    for f in &e.filters {
        filter(f, calls);
    }
    value(&e.val, calls);
}

fn value(v: &ExprVal, calls: &mut Calls) {
    match v {
        ExprVal::Math(m) => {
            expr(&m.lhs, calls);
            expr(&m.rhs, calls);
        }
        ExprVal::Logic(l) => {
            expr(&l.lhs, calls);
            expr(&l.rhs, calls);
        }
        ExprVal::In(i) => {
            expr(&i.lhs, calls);
            expr(&i.rhs, calls);
        }
        ExprVal::Test(t) => {
            read(&t.ident, calls);
            t.args.iter().for_each(|a| expr(a, calls));
        }
        ExprVal::MacroCall(m) => {
            calls.macros.push((m.namespace.clone(), m.name.clone()));
            m.args.values().for_each(|a| expr(a, calls));
        }
        ExprVal::FunctionCall(f) => {
            calls.functions.push(f.name.clone());
            filter(f, calls);
        }
        ExprVal::Array(items) => items.iter().for_each(|a| expr(a, calls)),
        ExprVal::StringConcat(concat) => concat.values.iter().for_each(|v| value(v, calls)),
        ExprVal::Ident(name) => read(name, calls),
        ExprVal::String(_) | ExprVal::Int(_) | ExprVal::Float(_) | ExprVal::Bool(_) => {}
    }
}

/// The names a variable reads: its first, and the first of each read inside its brackets.
fn read(name: &str, calls: &mut Calls) {
    let first = |name: &str| name.split(['.', '[']).next().unwrap_or(name).to_owned();
    calls.roots.insert(first(name));
    for inner in name.split('[').skip(1) {
        let inner = inner.split(']').next().unwrap_or("");
        if !inner.starts_with(|c: char| c == '"' || c == '\'' || c.is_ascii_digit()) {
            calls.roots.insert(first(inner));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::calls_of;

    /// Every kind of node and expression Tera parses, each holding a call or a read, is
    /// walked: what the recursion check and the shared frames rely on.
    #[test]
    fn every_kind_of_node_and_expression_is_walked() {
        let text = r#"{% extends "base.html" %}{% import "macros.html" as m %}
{% block content %}{{ a.b }}{% include "inc.html" %}{% set s = f1() %}{% set_global g = 1 %}
{% filter upper %}{{ b | replace(from=c, to="x") }}{% endfilter %}
{% for k, v in d %}{{ v ~ e[h.i] }}{% break %}{% continue %}{% else %}{{ j is containing(k2) }}{% endfor %}
{% if l and m::mac(x=n) %}{{ o + 1 }}{% elif p in q %}{{ [r] }}{% else %}{{ not t }}{% endif %}
{% raw %}{{ raw }}{% endraw %}{# comment #}{{ super() }}{% endblock content %}
{% macro inner() %}{{ hidden }}{% endmacro inner %}"#;
        let mut tera = tera::Tera::default();
        tera.add_raw_templates([
            ("base.html", "{% block content %}{% endblock content %}"),
            ("macros.html", "{% macro mac(x) %}{% endmacro mac %}"),
            ("inc.html", ""),
            ("page.html", text),
        ])
        .unwrap();
        let template = tera.get_template("page.html").unwrap();
        let calls = calls_of(&template.ast);
        assert_eq!(calls.includes, ["inc.html"]);
        assert_eq!(calls.macros, [("m".to_owned(), "mac".to_owned())]);
        assert_eq!(calls.functions, ["f1"]);
        let roots: Vec<&str> = calls.roots.iter().map(String::as_str).collect();
        assert_eq!(
            roots,
            [
                "a", "b", "c", "d", "e", "h", "j", "k2", "l", "n", "o", "p", "q", "r", "t", "v"
            ]
        );
        let local: Vec<&str> = calls.local.iter().map(String::as_str).collect();
        assert_eq!(local, ["g", "k", "s", "v"]);
        assert!(calls.filter_sections && calls.macro_definitions);
        // A macro's body is its own, read from the template's macro table.
        let inner = calls_of(&template.macros["inner"].body);
        assert!(inner.roots.contains("hidden"));
        assert!(!calls.roots.contains("hidden"));
    }
}
