//! What a body of Tera's syntax tree calls and reads, found by walking it: every kind of node
//! and expression Tera 1 has is named here, so that a kind a Tera upgrade adds fails to
//! compile here, and one whose shape changes fails the tests below.

use std::collections::BTreeSet;
use tera::ast::{Expr, ExprVal, Node};

/// What one body of nodes calls and reads: for the recursion check (`render::limits`), and for
/// what a split page's content is given (`render::frame`).
#[derive(Default)]
pub struct Calls {
    pub includes: Vec<String>,
    /// (namespace, macro name)
    pub macros: Vec<(String, String)>,
    pub functions: Vec<String>,
    /// The first name of each variable read (`site` of `site.title`), and of each read inside
    /// brackets (`page` of `site[page.section]`).
    pub roots: BTreeSet<String>,
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
            Node::Set(_, set) => expr(&set.value, calls),
            Node::FilterSection(_, section, _) => {
                exprs(section.filter.args.values(), calls);
                nodes(&section.body, calls);
            }
            Node::Block(_, block, _) => nodes(&block.body, calls),
            Node::Forloop(_, forloop, _) => {
                expr(&forloop.container, calls);
                nodes(&forloop.body, calls);
                nodes(forloop.empty_body.as_deref().unwrap_or_default(), calls);
            }
            Node::If(branches, _) => {
                for (_, condition, body) in &branches.conditions {
                    expr(condition, calls);
                    nodes(body, calls);
                }
                let otherwise = branches.otherwise.as_ref().map(|(_, body)| &body[..]);
                nodes(otherwise.unwrap_or_default(), calls);
            }
            // Macro bodies are checked from the template's macro table.
            Node::MacroDefinition(..)
            | Node::Super
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

fn exprs<'e>(list: impl IntoIterator<Item = &'e Expr>, calls: &mut Calls) {
    list.into_iter().for_each(|e| expr(e, calls));
}

fn expr(e: &Expr, calls: &mut Calls) {
    for filter in &e.filters {
        exprs(filter.args.values(), calls);
    }
    value(&e.val, calls);
}

fn value(v: &ExprVal, calls: &mut Calls) {
    match v {
        ExprVal::Math(m) => exprs([&*m.lhs, &*m.rhs], calls),
        ExprVal::Logic(l) => exprs([&*l.lhs, &*l.rhs], calls),
        ExprVal::In(i) => exprs([&*i.lhs, &*i.rhs], calls),
        ExprVal::Test(t) => {
            read(&t.ident, calls);
            exprs(&t.args, calls);
        }
        ExprVal::MacroCall(m) => {
            calls.macros.push((m.namespace.clone(), m.name.clone()));
            exprs(m.args.values(), calls);
        }
        ExprVal::FunctionCall(f) => {
            calls.functions.push(f.name.clone());
            exprs(f.args.values(), calls);
        }
        ExprVal::Array(items) => exprs(items, calls),
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
    /// walked: what the recursion check and the split pages rely on.
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
        // A macro's body is its own, read from the template's macro table.
        let inner = calls_of(&template.macros["inner"].body);
        assert!(inner.roots.contains("hidden"));
        assert!(!calls.roots.contains("hidden"));
    }
}
