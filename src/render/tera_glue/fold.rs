//! The catalogue's fixed texts put into the templates once they are loaded: every
//! `t(key="...")` whose only argument is a literal key the catalogue has becomes that text, a
//! literal Tera prints as it printed the call's result. A call costs Tera a map of its
//! arguments, the catalogue's look-up and a copy on every page (12 calls an event page, 3 a
//! card of the event lists); the literal costs a copy. Tera escapes both alike when it prints
//! them (a function not marked safe, and a literal text: `needs_escape` in its renderer), and
//! filters and tests see the same text either way.

use tera::Tera;
use tera::ast::{Expr, ExprVal, FunctionCall, LogicOperator, Node};

/// The function the catalogue's texts are called by in templates.
const TEXT_FUNCTION: &str = "t";

/// Folds the fixed texts of the templates `names` of `tera`, each text given by `text` (the
/// text `t(key=...)` returns, unescaped; `None` leaves the call for Tera to make and, for an
/// unknown key, to fail on). Before the templates are metered: the literal's length is then
/// counted as the call's result was.
pub fn fold_texts(tera: &mut Tera, names: &[String], text: &dyn Fn(&str) -> Option<String>) {
    let mut folded = 0;
    for name in names {
        let Some(template) = tera.templates.get_mut(name) else {
            continue;
        };
        folded += body(&mut template.ast, text);
        for definition in template.macros.values_mut() {
            folded += body(&mut definition.body, text);
            for default in definition.args.values_mut().flatten() {
                folded += expr(default, text);
            }
        }
        for block in template.blocks.values_mut() {
            folded += body(&mut block.body, text);
        }
    }
    log::debug!("the catalogue's fixed texts put into the templates: {folded} calls");
}

fn body(nodes: &mut [Node], text: &dyn Fn(&str) -> Option<String>) -> usize {
    nodes.iter_mut().map(|node| self::node(node, text)).sum()
}

fn node(node: &mut Node, text: &dyn Fn(&str) -> Option<String>) -> usize {
    match node {
        Node::VariableBlock(_, value) => expr(value, text),
        Node::Set(_, set) => expr(&mut set.value, text),
        Node::FilterSection(_, section, _) => {
            call(&mut section.filter, text) + body(&mut section.body, text)
        }
        Node::Block(_, block, _) => body(&mut block.body, text),
        Node::Forloop(_, forloop, _) => {
            expr(&mut forloop.container, text)
                + body(&mut forloop.body, text)
                + forloop
                    .empty_body
                    .as_mut()
                    .map_or(0, |empty| body(empty, text))
        }
        Node::If(branches, _) => {
            let conditions: usize = (branches.conditions.iter_mut())
                .map(|(_, tested, nodes)| condition(tested, text) + body(nodes, text))
                .sum();
            conditions
                + branches
                    .otherwise
                    .as_mut()
                    .map_or(0, |(_, nodes)| body(nodes, text))
        }
        Node::MacroDefinition(_, definition, _) => body(&mut definition.body, text),
        Node::Super
        | Node::Text(_)
        | Node::Raw(..)
        | Node::Extends(..)
        | Node::Include(..)
        | Node::ImportMacro(..)
        | Node::Break(_)
        | Node::Continue(_)
        | Node::Comment(..) => 0,
    }
}

fn call(call: &mut FunctionCall, text: &dyn Fn(&str) -> Option<String>) -> usize {
    call.args.values_mut().map(|arg| expr(arg, text)).sum()
}

fn expr(expr: &mut Expr, text: &dyn Fn(&str) -> Option<String>) -> usize {
    expr_at(expr, text, true)
}

/// `expr`, its value folded only with `fold`: Tera reads a function's result as a truth or a
/// number in some places, where it refuses one that is text (`if t(key=...)` is an error,
/// not true), and a literal text there would change what the template does.
fn expr_at(expr: &mut Expr, text: &dyn Fn(&str) -> Option<String>, fold: bool) -> usize {
    let filters: usize = expr.filters.iter_mut().map(|f| call(f, text)).sum();
    filters + value(&mut expr.val, text, fold && !expr.negated)
}

/// An expression Tera tests for truth: an `if`, either side of `and` and `or`.
fn condition(expr: &mut Expr, text: &dyn Fn(&str) -> Option<String>) -> usize {
    match &mut expr.val {
        ExprVal::Logic(logic)
            if matches!(logic.operator, LogicOperator::And | LogicOperator::Or) =>
        {
            let filters: usize = expr.filters.iter_mut().map(|f| call(f, text)).sum();
            filters + condition(&mut logic.lhs, text) + condition(&mut logic.rhs, text)
        }
        _ => expr_at(expr, text, false),
    }
}

fn value(value: &mut ExprVal, text: &dyn Fn(&str) -> Option<String>, fold: bool) -> usize {
    match value {
        ExprVal::FunctionCall(function) => {
            if fold && let Some(fixed) = fixed_text(function, text) {
                *value = ExprVal::String(fixed);
                return 1;
            }
            call(function, text)
        }
        // Numbers, for Tera.
        ExprVal::Math(math) => {
            expr_at(&mut math.lhs, text, false) + expr_at(&mut math.rhs, text, false)
        }
        ExprVal::Logic(logic) => match logic.operator {
            LogicOperator::And | LogicOperator::Or => {
                condition(&mut logic.lhs, text) + condition(&mut logic.rhs, text)
            }
            LogicOperator::Eq | LogicOperator::NotEq => {
                expr(&mut logic.lhs, text) + expr(&mut logic.rhs, text)
            }
            LogicOperator::Gt | LogicOperator::Gte | LogicOperator::Lt | LogicOperator::Lte => {
                expr_at(&mut logic.lhs, text, false) + expr_at(&mut logic.rhs, text, false)
            }
        },
        ExprVal::In(within) => expr(&mut within.lhs, text) + expr(&mut within.rhs, text),
        ExprVal::Test(test) => test.args.iter_mut().map(|arg| expr(arg, text)).sum(),
        ExprVal::MacroCall(macro_call) => macro_call
            .args
            .values_mut()
            .map(|arg| expr(arg, text))
            .sum(),
        ExprVal::Array(items) => items.iter_mut().map(|item| expr(item, text)).sum(),
        // Tera escapes a `~` that holds a function call, and not one of literal texts alone.
        ExprVal::StringConcat(concat) => (concat.values.iter_mut())
            .map(|part| self::value(part, text, false))
            .sum(),
        ExprVal::Ident(_)
        | ExprVal::String(_)
        | ExprVal::Int(_)
        | ExprVal::Float(_)
        | ExprVal::Bool(_) => 0,
    }
}

/// The text of a `t(key="...")` call with no other argument, if the catalogue has it.
fn fixed_text(function: &FunctionCall, text: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if function.name != TEXT_FUNCTION || function.args.len() != 1 {
        return None;
    }
    match function.args.get("key")? {
        Expr {
            val: ExprVal::String(key),
            negated: false,
            filters,
        } if filters.is_empty() => text(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// `t()` as the theme has it: a function Tera escapes the result of.
    fn tera_with(templates: &[(&str, &str)]) -> Tera {
        let mut tera = Tera::default();
        tera.register_function("t", |args: &HashMap<String, tera::Value>| {
            match args.get("key").and_then(tera::Value::as_str) {
                Some("quote") => Ok("Ana & \"Bo\" <b>".into()),
                Some("empty") => Ok("".into()),
                Some("n") => Ok(format!("{} items", args.get("n").unwrap_or(&0.into())).into()),
                _ => Err(tera::Error::msg("unknown text key")),
            }
        });
        tera.add_raw_templates(templates.iter().copied()).unwrap();
        tera.autoescape_on(vec![".html"]);
        tera
    }

    fn catalogue(key: &str) -> Option<String> {
        match key {
            "quote" => Some("Ana & \"Bo\" <b>".into()),
            "empty" => Some(String::new()),
            _ => None,
        }
    }

    /// Every place a call may stand, in a template Tera escapes and in one it does not:
    /// printed, filtered, tested, joined, as an argument, a default, in a macro, a block, a
    /// loop, a `set`, a `{% filter %}`.
    #[test]
    fn a_folded_text_prints_as_the_call_printed() {
        let page = r#"{% import "macros.html" as m %}
[{{ t(key="quote") }}][{{ t(key="quote") | upper }}][{{ t(key="quote") | safe }}]
{% if t(key="empty") == "" %}yes{% else %}no{% endif %}{% if t(key="quote") in "<b>" %}!{% endif %}
[{{ "x" ~ t(key="quote") ~ "y" }}][{{ t(key="quote") | replace(from="&", to=t(key="quote")) }}]
{% set s = t(key="quote") %}[{{ s }}]{% for c in [t(key="quote")] %}({{ c }}){% endfor %}
{% filter upper %}{{ t(key="quote") }}{% endfilter %}[{{ m::show(v=t(key="quote")) }}]
[{{ m::show() }}][{{ t(key="n", n=3) }}]{% block b %}[{{ t(key="quote") }}]{% endblock b %}
{% if s is containing(t(key="quote")) %}T{% endif %}"#;
        let macros = r#"{% macro show(v="d") %}<{{ v }}|{{ t(key="quote") }}>{% endmacro show %}"#;
        for page_name in ["page.html", "page.txt"] {
            let templates = [(page_name, page), ("macros.html", macros)];
            let plain = tera_with(&templates);
            let mut folded = tera_with(&templates);
            let names: Vec<String> = folded.templates.keys().cloned().collect();
            fold_texts(&mut folded, &names, &catalogue);
            folded.build_inheritance_chains().unwrap();
            let context = tera::Context::new();
            let expected = plain.render(page_name, &context).unwrap();
            assert!(
                expected.contains("&amp;") == page_name.ends_with(".html"),
                "{expected}"
            );
            assert_eq!(folded.render(page_name, &context).unwrap(), expected);
        }
    }

    /// Where Tera tests a function's result for truth or reads it as a number, a text is an
    /// error: the call is left there, and the error stays.
    #[test]
    fn a_call_tested_for_truth_or_counted_is_left_as_it_is() {
        for page in [
            r#"{% if t(key="quote") %}yes{% endif %}"#,
            r#"{% if x or not t(key="quote") %}yes{% endif %}"#,
            r#"{{ t(key="quote") + 1 }}"#,
            r#"{% if t(key="quote") > 1 %}yes{% endif %}"#,
        ] {
            let plain = tera_with(&[("page.html", page)]);
            let mut folded = tera_with(&[("page.html", page)]);
            fold_texts(&mut folded, &["page.html".to_owned()], &catalogue);
            let mut context = tera::Context::new();
            context.insert("x", &false);
            let error = |tera: &Tera| {
                let error = tera.render("page.html", &context).unwrap_err();
                super::super::errors::full_text(&error)
            };
            assert_eq!(error(&folded), error(&plain), "{page}");
        }
    }

    /// A key the catalogue does not have, a call with other arguments, or a key that is not a
    /// literal is left for Tera to call.
    #[test]
    fn only_a_literal_key_the_catalogue_has_is_folded() {
        let page = r#"{{ t(key="quote") }}{{ t(key="missing") }}{{ t(key="n", n=2) }}{{ t(key=k) }}{{ t(key="quote" | lower) }}{{ other(key="quote") }}"#;
        let mut tera = Tera::default();
        tera.add_raw_template("page.html", page).unwrap();
        fold_texts(&mut tera, &["page.html".to_owned()], &catalogue);
        let printed: Vec<&ExprVal> = (tera.templates["page.html"].ast.iter())
            .filter_map(|node| match node {
                Node::VariableBlock(_, expr) => Some(&expr.val),
                _ => None,
            })
            .collect();
        assert!(matches!(printed[0], ExprVal::String(text) if text == "Ana & \"Bo\" <b>"));
        for left in &printed[1..] {
            assert!(matches!(left, ExprVal::FunctionCall(_)), "{left:?}");
        }
    }
}
