//! How much one render may make. Tera 1 has no limit on the size of what a template builds:
//! `{% set_global s = s ~ s %}` in a loop of 40 turns asks for a terabyte, and the program
//! aborted when the allocation failed. The number of turns is limited ([`super::limits`]), but
//! doubling needs few, and a template can as well repeat the line forty times; so the bytes
//! are counted instead, against [`MAX_MADE`] for each render (each page, feed, or part of a
//! page rendered on its own), and the render fails with an error once they pass it, which
//! `Theme` words naming the template.
//!
//! What Tera writes into the page is counted as it is written ([`render`]). The rest Tera
//! makes without calling anything of ours, so the templates' syntax trees are rewritten once
//! they are loaded ([`meter`]), to count:
//! - every `~`: made a call of the function [`CONCAT`], which counts the string before
//!   building it (a chain of calls, two values each, so that no step copies more than two);
//! - every list written in a template (`[a, a]`): the filter [`CHARGE`] on it;
//! - what every filter and function returns, and, before they run, what `replace`, `join`,
//!   `split` and `indent` would return, the filters that can multiply one value by another;
//! - what Tera writes into a text of its own instead of the page: a macro's, a
//!   `{% filter %}`'s, and what may be rendered inside one (an included template, a block of
//!   a name found inside one). There, every value printed gets [`CHARGE`] first among its
//!   filters (after `default`, which Tera reads first), and each body's literal text (a
//!   loop's turn, an `if`'s branch...) its length, printed through [`TEXT`] ahead of it.
//!
//! What it does not bound: Tera's own copies of a value it passes (a value named in ten
//! arguments of one call is copied ten times before the call counts anything), and a `~`
//! tested for truth (`{% if a ~ b %}`, left to Tera: made once and thrown away), which the
//! template's length bounds, not this; and time: loops nested three deep that print nothing
//! run for hours (each is limited to [`super::limits::MAX_RANGE`] turns, not their product).
//! Bytes are counted roughly, as memory: a value in a list counts 32 bytes beside its text.

mod rewrite;

pub use rewrite::{meter, meter_templates};
use serde_json::Value;
use std::cell::Cell;
use tera::Tera;

/// The most bytes one render may make: text printed, strings joined, values made by filters,
/// functions and lists, counted as they are made (what is thrown away again counts too). The
/// built-in roster page of the benchmark's 50,000 controllers makes 68 MiB (14 MiB for 3.4 MiB
/// of HTML at 10,000); a value doubled in a loop stops at half of this.
pub const MAX_MADE: usize = 256 << 20;

/// The start of the error, which `Theme` finds in Tera's to name the template.
pub const MADE_TOO_MUCH: &str = "the page made more than ";

fn too_much(total: usize) -> tera::Error {
    tera::Error::msg(format!(
        "{MADE_TOO_MUCH}{} MiB of text and values (a page needs far less: a value that \
         doubles in a loop, or loops that print without end, do this): look for a `set` that \
         grows a value in a loop, or for loops nested too deep",
        total >> 20
    ))
}

/// The function a `~` becomes: `a` and `b` joined, each a string or a number. Not a name a
/// template can write.
const CONCAT: &str = "~";
/// The filter that counts a value and passes it on, and the same for a value Tera would not
/// escape (a filter's `is_safe` decides whether the printed value is escaped).
const CHARGE: &str = "(counted)";
const CHARGE_SAFE: &str = "(counted, safe)";
/// The filter ahead of a body's text, given its length: counts it, prints nothing. A filter
/// on a number rather than a function call, which would build a map of arguments.
const TEXT: &str = "(text)";

/// About the bytes a value takes in memory.
const SLOT: usize = std::mem::size_of::<Value>();

/// What one render may make, and what it may still make.
#[derive(Clone, Copy)]
struct Budget {
    total: usize,
    left: usize,
}

thread_local! {
    /// The budget of the render running on this thread; `None` outside a render.
    static BUDGET: Cell<Option<Budget>> = const { Cell::new(None) };
}

/// Runs `render` (one render, or a part of one in tests) with `total` bytes to make, which
/// the functions and filters it calls count against.
pub(super) fn within_at_most<T>(total: usize, render: impl FnOnce() -> T) -> T {
    struct Restore(Option<Budget>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUDGET.set(self.0);
        }
    }
    let _restore = Restore(BUDGET.replace(Some(Budget { total, left: total })));
    render()
}

/// `template` rendered by `tera` (rewritten by [`meter`]) with [`MAX_MADE`] to make: what it
/// writes into the page counted as it is written, the rest by the rewritten templates.
pub fn render(tera: &Tera, template: &str, context: &tera::Context) -> tera::Result<String> {
    render_at_most(MAX_MADE, tera, template, context)
}

fn render_at_most(
    total: usize,
    tera: &Tera,
    template: &str,
    context: &tera::Context,
) -> tera::Result<String> {
    let mut page = Page::default();
    within_at_most(total, || tera.render_to(template, context, &mut page))?;
    String::from_utf8(page.text)
        .map_err(|_| tera::Error::msg(format!("{template} wrote no UTF-8 text")))
}

/// The page as Tera writes it, counted as it grows: a few writes of a value or of text for
/// each `{{ }}`, so counted [`Page::STEP`] bytes at a time.
#[derive(Default)]
struct Page {
    text: Vec<u8>,
    uncounted: usize,
}

impl Page {
    const STEP: usize = 64 << 10;
}

impl std::io::Write for Page {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.uncounted += bytes.len();
        if self.uncounted >= Self::STEP {
            charge(std::mem::take(&mut self.uncounted))
                .map_err(|error| std::io::Error::other(error.to_string()))?;
        }
        self.text.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What the render may still make, if one runs.
fn left() -> Option<usize> {
    BUDGET.get().map(|budget| budget.left)
}

/// Counts `bytes` made, failing once the render has made too much.
fn charge(bytes: usize) -> tera::Result<()> {
    let Some(budget) = BUDGET.get() else {
        return Ok(());
    };
    let left = budget.left.checked_sub(bytes);
    BUDGET.set(Some(Budget {
        left: left.unwrap_or(0),
        ..budget
    }));
    match left {
        Some(_) => Ok(()),
        None => Err(too_much(budget.total)),
    }
}

/// Fails if making `bytes` more would be too much, counting nothing: for what is checked
/// before it is made, and counted once it is.
pub(super) fn fits(bytes: usize) -> tera::Result<()> {
    match BUDGET.get() {
        Some(budget) if bytes > budget.left => Err(too_much(budget.total)),
        _ => Ok(()),
    }
}

/// About the bytes `value` takes, counted until they pass `limit` (a list of many thousand
/// items is not walked to its end to learn that it is too big).
fn size(value: &Value, limit: usize) -> usize {
    match value {
        Value::String(text) => return SLOT + text.len(),
        Value::Null | Value::Bool(_) | Value::Number(_) => return SLOT,
        Value::Array(_) | Value::Object(_) => {}
    }
    let mut total = 0;
    let mut next = vec![value];
    while let Some(value) = next.pop() {
        total += SLOT;
        match value {
            Value::String(text) => total += text.len(),
            Value::Array(items) => next.extend(items),
            Value::Object(fields) => {
                for (key, value) in fields {
                    total += key.len() + SLOT;
                    next.push(value);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        if total > limit {
            break;
        }
    }
    total
}

fn charge_value(value: &Value) -> tera::Result<()> {
    charge(size(value, left().unwrap_or(0).saturating_add(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

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
        crate::render::tera_errors::full_text(&error)
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
