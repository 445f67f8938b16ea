//! The templates' syntax trees rewritten, once they are loaded, so that what Tera makes
//! without calling anything of ours is counted against the render's budget ([`crate::render::budget`]): every
//! `~` made a call of [`CONCAT`], every list literal and every printed value inside a text of
//! Tera's own given [`CHARGE`], each literal text's length printed through [`TEXT`], and every
//! filter's and function's result counted.

use crate::render::budget::{
    CHARGE, CHARGE_SAFE, CONCAT, SLOT, TEXT, charge, charge_value, fits, size,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tera::Tera;
use tera::ast::{Expr, ExprVal, FunctionCall, LogicOperator, Node, WS};

/// Makes every filter and function of `tera` count what it returns, registers the ones the
/// rewritten templates call, and rewrites every template ([`meter_templates`]). Once, when the
/// theme has loaded: the filters and functions registered later are not counted.
pub fn meter(tera: &mut Tera) {
    for (name, filter) in tera.filters.iter_mut() {
        *filter = Arc::new(CountedFilter {
            name: name.clone(),
            inner: Arc::clone(filter),
        });
    }
    for function in tera.functions.values_mut() {
        *function = Arc::new(CountedFunction(Arc::clone(function)));
    }
    tera.register_function(CONCAT, concat);
    tera.register_filter(CHARGE, Charge { safe: false });
    tera.register_filter(CHARGE_SAFE, Charge { safe: true });
    tera.register_filter(TEXT, Text);
    let names: Vec<String> = tera.templates.keys().cloned().collect();
    meter_templates(tera, &names);
}

/// Rewrites the templates `names` of `tera` (loaded after [`meter`], or by it) to count what
/// they make; a template is rewritten once.
pub fn meter_templates(tera: &mut Tera, names: &[String]) {
    let safe: HashMap<String, bool> = (tera.functions.iter())
        .map(|(name, function)| (name.clone(), function.is_safe()))
        .collect();
    let buffered = Buffered::of(tera);
    let rewrite = Rewrite {
        safe: &safe,
        blocks: &buffered.blocks,
    };
    for name in names {
        let Some(template) = tera.templates.get_mut(name) else {
            continue;
        };
        let included = buffered.templates.contains(name);
        rewrite.body(&mut template.ast, included);
        for definition in template.macros.values_mut() {
            rewrite.macro_definition(definition);
        }
        for (name, block) in &mut template.blocks {
            let in_buffer = included || buffered.blocks.contains(name);
            rewrite.body(&mut block.body, in_buffer);
        }
    }
    // Tera renders blocks from copies it makes of each template's blocks: made again.
    if let Err(error) = tera.build_inheritance_chains() {
        log::debug!("inheritance chains after counting: {error}");
    }
}

/// What Tera may render into a text of its own rather than into the page, which the page's
/// writer does not see, beside a macro's body and a `{% filter %}`'s: the templates included
/// inside one, and the blocks of a name found inside one (a child template's block renders
/// where its parent's is).
#[derive(Default)]
struct Buffered {
    templates: HashSet<String>,
    blocks: HashSet<String>,
}

impl Buffered {
    fn of(tera: &Tera) -> Self {
        let mut buffered = Self::default();
        // An included template may include another: until nothing more is found.
        loop {
            let before = (buffered.templates.len(), buffered.blocks.len());
            for (name, template) in &tera.templates {
                let inside = buffered.templates.contains(name);
                buffered.find(&template.ast, inside);
                for definition in template.macros.values() {
                    buffered.find(&definition.body, true);
                }
            }
            if (buffered.templates.len(), buffered.blocks.len()) == before {
                return buffered;
            }
        }
    }

    fn find(&mut self, body: &[Node], buffered: bool) {
        for node in body {
            match node {
                Node::Include(_, names, _) if buffered => {
                    self.templates.extend(names.iter().cloned());
                }
                Node::Block(_, block, _) => {
                    let buffered = buffered || self.blocks.contains(&block.name);
                    if buffered {
                        self.blocks.insert(block.name.clone());
                    }
                    self.find(&block.body, buffered);
                }
                Node::FilterSection(_, section, _) => self.find(&section.body, true),
                Node::Forloop(_, forloop, _) => {
                    self.find(&forloop.body, buffered);
                    self.find(forloop.empty_body.as_deref().unwrap_or_default(), buffered);
                }
                Node::If(branches, _) => {
                    for (_, _, body) in &branches.conditions {
                        self.find(body, buffered);
                    }
                    if let Some((_, body)) = &branches.otherwise {
                        self.find(body, buffered);
                    }
                }
                Node::MacroDefinition(_, definition, _) => self.find(&definition.body, true),
                _ => {}
            }
        }
    }
}

/// A filter that counts what it returns, and, for the filters that can multiply a value by
/// another, what it would return before it runs.
struct CountedFilter {
    name: String,
    inner: Arc<dyn tera::Filter>,
}

impl tera::Filter for CountedFilter {
    fn filter(&self, value: &Value, args: &HashMap<String, Value>) -> tera::Result<Value> {
        fits(ahead(&self.name, value, args))?;
        let made = self.inner.filter(value, args)?;
        charge_value(&made)?;
        Ok(made)
    }

    fn is_safe(&self) -> bool {
        self.inner.is_safe()
    }
}

/// At most what Tera's filter `name` returns for `value` and `args`, for the filters that may
/// return far more than they are given: `replace` (each match of `from` made `to`), `join`
/// (`sep` between each two items), `split` (a value for each piece), `indent` (`prefix` on
/// each line); 0 for any other, or for arguments the filter refuses.
fn ahead(name: &str, value: &Value, args: &HashMap<String, Value>) -> usize {
    let text = value.as_str().unwrap_or_default();
    let arg = |name: &str| args.get(name).and_then(Value::as_str);
    let matches = |pattern: &str| match pattern {
        "" => text.chars().count() + 1,
        pattern => text.matches(pattern).count(),
    };
    let longer = |count: usize, each: usize| text.len().saturating_add(count.saturating_mul(each));
    match (name, value) {
        ("replace", Value::String(_)) => match (arg("from"), arg("to")) {
            (Some(from), Some(to)) => longer(matches(from), to.len()),
            _ => 0,
        },
        ("join", Value::Array(items)) => {
            let sep = arg("sep").map_or(0, str::len);
            size(value, usize::MAX).saturating_add(items.len().saturating_mul(sep))
        }
        ("split", Value::String(_)) => {
            arg("pat").map_or(0, |pattern| longer(matches(pattern) + 1, SLOT))
        }
        ("indent", Value::String(_)) => {
            let prefix = arg("prefix").map_or(4, str::len);
            longer(text.matches('\n').count() + 1, prefix)
        }
        _ => 0,
    }
}

/// A function that counts what it returns.
struct CountedFunction(Arc<dyn tera::Function>);

impl tera::Function for CountedFunction {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let made = self.0.call(args)?;
        charge_value(&made)?;
        Ok(made)
    }

    fn is_safe(&self) -> bool {
        self.0.is_safe()
    }
}

/// `a ~ b`, as Tera joins them (a number as JSON writes it), counted before it is built.
fn concat(args: &HashMap<String, Value>) -> tera::Result<Value> {
    let part = |name: &str| -> tera::Result<std::borrow::Cow<'_, str>> {
        match args.get(name) {
            Some(Value::String(text)) => Ok(text.into()),
            Some(Value::Number(number)) => Ok(number.to_string().into()),
            Some(other) => Err(tera::Error::msg(format!(
                "`~` joins strings and numbers, not {other}"
            ))),
            None => Err(tera::Error::msg("`~` needs two values")),
        }
    };
    let (a, b) = (part("a")?, part("b")?);
    charge(SLOT + a.len() + b.len())?;
    Ok(Value::String([a, b].concat()))
}

/// Counts the value it is given, and, where Tera escapes it next, what escaping adds (up to
/// five bytes for each of `&<>"'`); passes it on.
struct Charge {
    safe: bool,
}

impl tera::Filter for Charge {
    fn filter(&self, value: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
        charge_value(value)?;
        if let (false, Value::String(text)) = (self.safe, value) {
            let bytes = text.as_bytes();
            let marks = memchr::memchr3_iter(b'&', b'<', b'>', bytes).count()
                + memchr::memchr2_iter(b'"', b'\'', bytes).count();
            charge(marks.saturating_mul(5))?;
        }
        Ok(value.clone())
    }

    fn is_safe(&self) -> bool {
        self.safe
    }
}

/// Counts the length of a body's text, printing nothing.
struct Text;

impl tera::Filter for Text {
    fn filter(&self, length: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
        let bytes = length.as_u64().unwrap_or(0);
        charge(usize::try_from(bytes).unwrap_or(usize::MAX))?;
        Ok(Value::String(String::new()))
    }

    fn is_safe(&self) -> bool {
        true
    }
}

/// The rewriting of a template's syntax tree; `safe` tells which functions Tera does not
/// escape the result of.
struct Rewrite<'a> {
    safe: &'a HashMap<String, bool>,
    /// The blocks that may be rendered into a text of Tera's own ([`Buffered`]).
    blocks: &'a HashSet<String>,
}

impl Rewrite<'_> {
    /// A body, `buffered` if Tera may render it into a text of its own (a macro's, a
    /// `{% filter %}`'s), which only the rewritten template counts; the page's writer counts
    /// the rest.
    fn body(&self, body: &mut Vec<Node>, buffered: bool) {
        let text: usize = body
            .iter()
            .map(|node| match node {
                Node::Text(text) | Node::Raw(_, text, _) => text.len(),
                _ => 0,
            })
            .sum();
        for node in body.iter_mut() {
            self.node(node, buffered);
        }
        if buffered && text > 0 {
            let length = ExprVal::Int(i64::try_from(text).unwrap_or(i64::MAX));
            let count = FunctionCall {
                name: TEXT.to_owned(),
                args: HashMap::new(),
            };
            body.insert(
                0,
                Node::VariableBlock(WS::default(), Expr::with_filters(length, vec![count])),
            );
        }
    }

    fn node(&self, node: &mut Node, buffered: bool) {
        match node {
            Node::VariableBlock(_, expr) => self.print(expr, buffered),
            Node::Set(_, set) => self.expr(&mut set.value),
            Node::FilterSection(_, section, _) => {
                self.call(&mut section.filter);
                self.body(&mut section.body, true);
            }
            Node::Block(_, block, _) => {
                let buffered = buffered || self.blocks.contains(&block.name);
                self.body(&mut block.body, buffered);
            }
            Node::Forloop(_, forloop, _) => {
                // Tera refuses a `~` to loop over before it joins anything: left for it to.
                if !matches!(forloop.container.val, ExprVal::StringConcat(_)) {
                    self.expr(&mut forloop.container);
                }
                self.body(&mut forloop.body, buffered);
                if let Some(empty) = &mut forloop.empty_body {
                    self.body(empty, buffered);
                }
            }
            Node::If(branches, _) => {
                for (_, condition, body) in &mut branches.conditions {
                    self.condition(condition);
                    self.body(body, buffered);
                }
                if let Some((_, body)) = &mut branches.otherwise {
                    self.body(body, buffered);
                }
            }
            Node::MacroDefinition(_, definition, _) => self.macro_definition(definition),
            Node::Super
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

    fn macro_definition(&self, definition: &mut tera::ast::MacroDefinition) {
        for default in definition.args.values_mut().flatten() {
            self.expr(default);
        }
        self.body(&mut definition.body, true);
    }

    /// A printed value: counted where it goes into a text of Tera's own (`buffered`), and
    /// escaped as Tera would have escaped it. Tera escapes what the last filter it runs
    /// returns unless that filter is safe, so the counting filter, where no other follows, is
    /// the safe one where Tera would not have escaped; it also stands after a `~` made a
    /// function call, which Tera would escape.
    fn print(&self, expr: &mut Expr, buffered: bool) {
        let escaped = self.escaped(&expr.val);
        let joined = matches!(expr.val, ExprVal::StringConcat(_));
        self.expr(expr);
        if !(buffered || joined) || matches!(expr.val, ExprVal::Array(_)) {
            return; // an array is counted by `expr`, and never escaped: not a string
        }
        let at = usize::from(expr.has_default_filter());
        let name = if escaped { CHARGE } else { CHARGE_SAFE };
        expr.filters.insert(
            at,
            FunctionCall {
                name: name.to_owned(),
                args: HashMap::new(),
            },
        );
    }

    /// Whether Tera escapes a printed `value` that no filter follows (its `needs_escape`).
    fn escaped(&self, value: &ExprVal) -> bool {
        let unsafe_function = |name: &str| !self.safe.get(name).copied().unwrap_or(false);
        match value {
            ExprVal::Ident(name) => name != "__tera_context",
            ExprVal::String(_) => true,
            ExprVal::FunctionCall(call) => unsafe_function(&call.name),
            // A `~` is escaped if its last function call is (Tera sets it for each).
            ExprVal::StringConcat(concat) => concat
                .values
                .iter()
                .rev()
                .find_map(|part| match part {
                    ExprVal::FunctionCall(call) => Some(unsafe_function(&call.name)),
                    _ => None,
                })
                .unwrap_or(false),
            _ => false,
        }
    }

    fn expr(&self, expr: &mut Expr) {
        for filter in &mut expr.filters {
            self.call(filter);
        }
        self.value(&mut expr.val);
        if matches!(expr.val, ExprVal::Array(_)) {
            expr.filters.insert(
                0,
                FunctionCall {
                    name: CHARGE.to_owned(),
                    args: HashMap::new(),
                },
            );
        }
    }

    /// An expression Tera tests for truth (an `if`, either side of `and` and `or`). It tests
    /// a `~` there by its own code, which a function call does not pass (a call must return a
    /// boolean): such a `~` is left as it is, made once and thrown away, and only what is
    /// inside it rewritten.
    fn condition(&self, expr: &mut Expr) {
        let ExprVal::StringConcat(concat) = &mut expr.val else {
            return self.expr(expr);
        };
        for part in &mut concat.values {
            self.value(part);
        }
        for filter in &mut expr.filters {
            self.call(filter);
        }
    }

    fn call(&self, call: &mut FunctionCall) {
        for arg in call.args.values_mut() {
            self.expr(arg);
        }
    }

    fn value(&self, value: &mut ExprVal) {
        match value {
            ExprVal::Math(math) => {
                self.expr(&mut math.lhs);
                self.expr(&mut math.rhs);
            }
            ExprVal::Logic(logic) => match logic.operator {
                LogicOperator::And | LogicOperator::Or => {
                    self.condition(&mut logic.lhs);
                    self.condition(&mut logic.rhs);
                }
                _ => {
                    self.expr(&mut logic.lhs);
                    self.expr(&mut logic.rhs);
                }
            },
            ExprVal::In(within) => {
                self.expr(&mut within.lhs);
                self.expr(&mut within.rhs);
            }
            ExprVal::Test(test) => test.args.iter_mut().for_each(|arg| self.expr(arg)),
            ExprVal::MacroCall(call) => call.args.values_mut().for_each(|arg| self.expr(arg)),
            ExprVal::FunctionCall(call) => self.call(call),
            ExprVal::Array(items) => items.iter_mut().for_each(|item| self.expr(item)),
            ExprVal::StringConcat(concat) => {
                let mut parts = std::mem::take(&mut concat.values).into_iter().map(|part| {
                    let mut part = match part {
                        // As Tera writes a number it joins, which JSON does not (`1.0`).
                        ExprVal::Int(number) => ExprVal::String(number.to_string()),
                        ExprVal::Float(number) => ExprVal::String(number.to_string()),
                        part => part,
                    };
                    self.value(&mut part);
                    Expr::new(part)
                });
                let Some(first) = parts.next() else { return };
                let joined = parts.fold(first, |a, b| {
                    Expr::new(ExprVal::FunctionCall(FunctionCall {
                        name: CONCAT.to_owned(),
                        args: HashMap::from([("a".to_owned(), a), ("b".to_owned(), b)]),
                    }))
                });
                *value = joined.val;
            }
            ExprVal::Ident(_)
            | ExprVal::String(_)
            | ExprVal::Int(_)
            | ExprVal::Float(_)
            | ExprVal::Bool(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Buffered, ahead};
    use crate::render::budget::{SLOT, size};
    use serde_json::Value;
    use std::collections::HashMap;
    use tera::Tera;

    #[test]
    fn what_multiplying_filters_make_is_known_before_they_run() {
        let args = |pairs: &[(&str, Value)]| -> HashMap<String, Value> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect()
        };
        let text = Value::from("a-b-c\nd");
        let long = Value::from("x".repeat(1000));
        let replace = args(&[("from", "-".into()), ("to", long.clone())]);
        assert_eq!(ahead("replace", &text, &replace), 7 + 2 * 1000);
        let everywhere = args(&[("from", "".into()), ("to", long.clone())]);
        assert_eq!(ahead("replace", &text, &everywhere), 7 + 8 * 1000);
        let list = serde_json::json!(["a", "b", "c"]);
        let join = args(&[("sep", long.clone())]);
        assert_eq!(
            ahead("join", &list, &join),
            size(&list, usize::MAX) + 3 * 1000
        );
        assert_eq!(
            ahead("split", &text, &args(&[("pat", "-".into())])),
            7 + 3 * SLOT
        );
        assert_eq!(
            ahead("indent", &text, &args(&[("prefix", long)])),
            7 + 2 * 1000
        );
        assert_eq!(ahead("indent", &text, &HashMap::new()), 7 + 2 * 4);
        assert_eq!(ahead("upper", &text, &replace), 0);
        assert_eq!(ahead("replace", &list, &replace), 0);
    }

    /// The page templates parsed only when a page is rendered whole (`Theme::tera_for`) are
    /// rewritten after the others, which were told then what Tera renders into a text of its
    /// own: that holds while no built-in template includes another, or holds a block, inside
    /// a macro or a `{% filter %}`.
    #[test]
    fn no_built_in_template_renders_another_into_a_text_of_its_own() {
        let mut tera = Tera::default();
        tera.add_raw_templates(crate::render::theme::embedded::TEMPLATES.iter().copied())
            .unwrap();
        let buffered = Buffered::of(&tera);
        assert!(
            buffered.templates.is_empty() && buffered.blocks.is_empty(),
            "included {:?} and blocks {:?} inside a macro or a filter: `Theme::tera_for` must rewrite the templates these are in again",
            buffered.templates,
            buffered.blocks
        );
    }
}

/// The rewritten templates rendered: what they print, and where they stop.
#[cfg(test)]
mod rendered {
    use super::meter;
    use crate::render::budget::{MADE_TOO_MUCH, render, render_at_most};
    use serde_json::Value;
    use std::collections::HashMap;
    use tera::Tera;

    /// The templates loaded into one Tera as the theme loads them (autoescaped, with a safe
    /// function beside an unsafe one), and into another rewritten to count.
    fn both(templates: &[(&str, &str)]) -> (Tera, Tera) {
        let mut plain = Tera::default();
        plain.register_function("markup", |_: &HashMap<String, Value>| {
            Ok(Value::from("<b>&</b>"))
        });
        plain.register_function("text", |_: &HashMap<String, Value>| Ok(Value::from("<i>")));
        plain.add_raw_templates(templates.iter().copied()).unwrap();
        plain.autoescape_on(vec![".html"]);
        let mut counted = plain.clone();
        // A safe function: Tera leaves what it returns unescaped.
        struct Markup;
        impl tera::Function for Markup {
            fn call(&self, _: &HashMap<String, Value>) -> tera::Result<Value> {
                Ok(Value::from("<b>&</b>"))
            }
            fn is_safe(&self) -> bool {
                true
            }
        }
        plain.register_function("markup", Markup);
        counted.register_function("markup", Markup);
        meter(&mut counted);
        (plain, counted)
    }

    fn context() -> tera::Context {
        tera::Context::from_value(serde_json::json!({
            "a": "<a & 'b'>",
            "n": 1.5,
            "i": 3,
            "ten": "0123456789",
            "list": ["x", "<y>"],
            "none": null,
            "user": {"name": "Ana \"A\"", "tags": ["one", "two"]},
        }))
        .unwrap()
    }

    /// Counting changes nothing a template prints: the same text, escaped where Tera escapes
    /// it and only there (a `~` of names is not, a function's result unless it is safe).
    #[test]
    fn a_counted_template_renders_as_tera_renders_it() {
        let templates = [
            (
                "print.html",
                "{{ a }}|{{ a | safe }}|{{ a | upper }}|{{ a | upper | safe }}|{{ n }}|{{ i }}|{{ list }}|{{ user.name }}",
            ),
            (
                "concat.html",
                "{{ a ~ a }}|{{ \"<\" ~ i ~ n ~ 1.0 ~ 2 }}|{{ a ~ text() }}|{{ text() ~ markup() }}|{{ markup() ~ a }}|{{ a ~ \"x\" | length }}|{% set l = a ~ \"x\" | length %}{{ l }}",
            ),
            (
                "functions.html",
                "{{ markup() }}|{{ text() }}|{{ markup() | upper }}|{{ text() | safe }}",
            ),
            (
                "defaults.html",
                "{{ missing | default(value=a) }}|{{ none | default(value=\"<d>\") }}|{{ missing | default(value=\"<\") | safe }}|{{ not missing }}",
            ),
            (
                "lists.html",
                "{{ [a, \"<\"] | join(sep=\"&\") }}|{{ [1, list] | length }}|{{ [1, list] }}|{% for x in [a, i] %}[{{ x }}]{% endfor %}|{{ list | join(sep=\", \") }}",
            ),
            (
                "control.html",
                "{% set s = a ~ \"!\" %}{% set_global g = [s] %}{% set ab = \"ab\" %}{% for c in ab %}{{ c }}{% if loop.last %}.{% else %},{% endif %}{% endfor %}{% for x in missing_list | default(value=[]) %}x{% else %}none{% endfor %}{{ s }}{{ g | first }}{% raw %}{{ raw }}{% endraw %}",
            ),
            (
                "filters.html",
                "{% filter upper %}<p>{{ a }}</p>{% endfilter %}|{{ a | replace(from=\"a\", to=\"<\") }}|{{ \"a\\nb\" | indent(prefix=\"> \") }}|{{ \"a,b\" | split(pat=\",\") | join(sep=\"+\") }}|{{ user.tags | concat(with=a) | join(sep=\" \") }}",
            ),
            (
                "macros.html",
                "{% macro m(x, y=\"<y>\") %}<{{ x }}|{{ y }}|{{ x ~ y }}>{% endmacro m %}{{ self::m(x=a) }}|{{ self::m(x=\"1\", y=a ~ \"2\") | safe }}",
            ),
            (
                "base.html",
                "<head>{% block head %}{{ a }}{% endblock head %}</head><body>{% block body %}base{% endblock body %}</body>",
            ),
            (
                "child.html",
                "{% extends \"base.html\" %}{% block body %}child {{ super() }} {{ a ~ \"c\" }}{% endblock body %}",
            ),
            (
                "include.html",
                "{% for x in list %}{% include \"print.html\" %}{% endfor %}",
            ),
            (
                "macro_include.html",
                "{% macro inc() %}{% include \"print.html\" %}{% endmacro inc %}{{ self::inc() }}|{{ self::inc() | upper }}",
            ),
            (
                "filtered_base.html",
                "{% filter upper %}{% block b %}<b>{{ a }}</b>{% endblock b %}{% endfilter %}{% block c %}{{ a ~ a }}{% endblock c %}",
            ),
            (
                "filtered_child.html",
                "{% extends \"filtered_base.html\" %}{% block b %}{{ a ~ a }} {{ a }}{% endblock b %}{% block c %}[{{ super() }}]{% endblock c %}",
            ),
            (
                "conditions.html",
                "{% if a ~ \"\" %}1{% endif %}{% if missing or a ~ \"x\" %}2{% endif %}{{ a ~ \"x\" and true }}{% set t = a ~ \"\" or \"no\" %}{{ t }}{% if \"<\" in a ~ \"b\" %}3{% endif %}{% if i + 1 > 3 and a ~ text() %}4{% endif %}",
            ),
        ];
        let (plain, counted) = both(&templates);
        for (name, _) in templates {
            let expected = plain.render(name, &context()).unwrap();
            let got = render(&counted, name, &context()).unwrap();
            assert_eq!(got, expected, "{name}");
        }
    }

    /// The error of rendering `template` with `total` bytes to make.
    fn error(template: &str, total: usize) -> String {
        error_of(&[("page.html", template)], total)
    }

    /// The error of rendering the first of `templates`.
    fn error_of(templates: &[(&str, &str)], total: usize) -> String {
        let (_, counted) = both(templates);
        let error = render_at_most(total, &counted, templates[0].0, &context()).unwrap_err();
        crate::render::tera_glue::errors::full_text(&error)
    }

    /// Whatever makes the bytes, the render stops at the budget with the error; what would
    /// multiply one value by another is refused before it is made.
    #[test]
    fn a_render_stops_once_it_has_made_too_much() {
        let doubled = |step: &str| {
            format!(
                "{{% set_global s = \"xxxxxxxx\" %}}{{% for i in range(end=60) %}}{{% set_global s = {step} %}}{{% endfor %}}{{{{ s | length }}}}"
            )
        };
        // 64 KiB, made without going over: what a product of it makes is not made.
        let large = "{% set_global s = \"x\" %}{% for i in range(end=16) %}{% set_global s = s ~ s %}{% endfor %}";
        let kib = "{% set_global s = \"x\" %}{% for i in range(end=10) %}{% set_global s = s ~ s %}{% endfor %}";
        for template in [
            doubled("s ~ s"),
            doubled("[s, s]"),
            doubled("s | replace(from=\"x\", to=\"xx\")"),
            doubled("[s, s] | join(sep=\"\")"),
            doubled("s ~ s | upper"),
            format!("{large}{{{{ s | replace(from=\"x\", to=s) | length }}}}"),
            format!("{large}{{{{ s | replace(from=\"\", to=s) | length }}}}"),
            format!(
                "{large}{{{{ [s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s] | join(sep=s) | length }}}}"
            ),
            format!("{large}{{{{ s | split(pat=\"\") | length }}}}"),
            format!(
                "{kib}{{% macro m(s, ten) %}}{{% for i in ten %}}{{% for j in ten %}}{{% for k in ten %}}{{% for l in ten %}}<p>{{{{ s }}}}</p>{{% endfor %}}{{% endfor %}}{{% endfor %}}{{% endfor %}}{{% endmacro m %}}{{{{ self::m(s=s, ten=ten) | length }}}}"
            ),
            format!(
                "{kib}{{% filter upper %}}{{% for i in ten %}}{{% for j in ten %}}{{% for k in ten %}}{{% for l in ten %}}{{{{ s }}}}{{% endfor %}}{{% endfor %}}{{% endfor %}}{{% endfor %}}{{% endfilter %}}"
            ),
            format!(
                "{{% for i in ten %}}{{% for j in ten %}}{{% for k in ten %}}{{% for l in ten %}}{}{{% endfor %}}{{% endfor %}}{{% endfor %}}{{% endfor %}}",
                "<p></p>".repeat(200)
            ),
        ] {
            let error = error(&template, 1 << 20);
            assert!(
                error.contains(&format!("{MADE_TOO_MUCH}1 MiB of text")),
                "{template}: {error}"
            );
        }
        // What Tera renders into a text of its own from another template: an included one,
        // and a block that a `{% filter %}` holds. Counted as the text grows: what the macro
        // and the filter (`length`) return is short.
        let text = "<p></p>".repeat(200);
        let looped = format!(
            "{{% for i in ten %}}{{% for j in ten %}}{{% for k in ten %}}{{% for l in ten %}}{text}{{% endfor %}}{{% endfor %}}{{% endfor %}}{{% endfor %}}"
        );
        for templates in [
            [
                ("page.html", "{% macro m(ten) %}{% include \"part.html\" %}{% endmacro m %}{{ self::m(ten=ten) | length }}".to_owned()),
                ("part.html", looped.clone()),
            ],
            [
                ("page.html", format!("{{% extends \"base.html\" %}}{{% block b %}}{looped}{{% endblock b %}}")),
                ("base.html", "{% filter length %}{% block b %}{% endblock b %}{% endfilter %}".to_owned()),
            ],
        ] {
            let templates: Vec<(&str, &str)> = templates.iter().map(|(n, t)| (*n, t.as_str())).collect();
            let error = error_of(&templates, 1 << 20);
            assert!(error.contains(MADE_TOO_MUCH), "{templates:?}: {error}");
        }
    }

    /// What the filters that may multiply a value would make, known before they run.
    /// Each render has its own budget, and outside one (a test rendering by hand) nothing is
    /// counted.
    #[test]
    fn each_render_has_a_budget_of_its_own() {
        let (_, counted) = both(&[(
            "page.html",
            "{% set_global s = \"x\" %}{% for i in range(end=18) %}{% set_global s = s ~ s %}{% endfor %}{{ s | length }}",
        )]);
        let at_most = |total| render_at_most(total, &counted, "page.html", &context());
        // 2^18 bytes, twice that made along the way.
        for _ in 0..3 {
            assert_eq!(at_most(1 << 20).unwrap(), "262144");
        }
        assert!(at_most(1 << 19).is_err());
        assert!(counted.render("page.html", &context()).is_ok());
    }
}
