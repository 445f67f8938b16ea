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
//! they are loaded ([`crate::render::tera_glue::meter`]), to count:
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
pub(in crate::render) const CONCAT: &str = "~";
/// The filter that counts a value and passes it on, and the same for a value Tera would not
/// escape (a filter's `is_safe` decides whether the printed value is escaped).
pub(in crate::render) const CHARGE: &str = "(counted)";
pub(in crate::render) const CHARGE_SAFE: &str = "(counted, safe)";
/// The filter ahead of a body's text, given its length: counts it, prints nothing. A filter
/// on a number rather than a function call, which would build a map of arguments.
pub(in crate::render) const TEXT: &str = "(text)";

/// About the bytes a value takes in memory.
pub(in crate::render) const SLOT: usize = std::mem::size_of::<Value>();

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
pub(in crate::render) fn within_at_most<T>(total: usize, render: impl FnOnce() -> T) -> T {
    struct Restore(Option<Budget>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUDGET.set(self.0);
        }
    }
    let _restore = Restore(BUDGET.replace(Some(Budget { total, left: total })));
    render()
}

/// `template` rendered by `tera` (rewritten by [`crate::render::tera_glue::meter`]) with [`MAX_MADE`] to make: what it
/// writes into the page counted as it is written, the rest by the rewritten templates.
pub fn render(tera: &Tera, template: &str, context: &tera::Context) -> tera::Result<String> {
    render_at_most(MAX_MADE, tera, template, context)
}

pub(in crate::render) fn render_at_most(
    total: usize,
    tera: &Tera,
    template: &str,
    context: &tera::Context,
) -> tera::Result<String> {
    let mut page = CountedText::default();
    within_at_most(total, || tera.render_to(template, context, &mut page))?;
    String::from_utf8(page.text)
        .map_err(|_| tera::Error::msg(format!("{template} wrote no UTF-8 text")))
}

/// The text of a page as Tera writes it, counted as it grows: a few writes of a value or of text for
/// each `{{ }}`, so counted [`CountedText::STEP`] bytes at a time.
#[derive(Default)]
struct CountedText {
    text: Vec<u8>,
    uncounted: usize,
}

impl CountedText {
    const STEP: usize = 64 << 10;
}

impl std::io::Write for CountedText {
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
pub(in crate::render) fn left() -> Option<usize> {
    BUDGET.get().map(|budget| budget.left)
}

/// Counts `bytes` made, failing once the render has made too much.
pub(in crate::render) fn charge(bytes: usize) -> tera::Result<()> {
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
pub(in crate::render) fn fits(bytes: usize) -> tera::Result<()> {
    match BUDGET.get() {
        Some(budget) if bytes > budget.left => Err(too_much(budget.total)),
        _ => Ok(()),
    }
}

/// About the bytes `value` takes, counted until they pass `limit` (a list of many thousand
/// items is not walked to its end to learn that it is too big).
pub(in crate::render) fn size(value: &Value, limit: usize) -> usize {
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

pub(in crate::render) fn charge_value(value: &Value) -> tera::Result<()> {
    charge(size(value, left().unwrap_or(0).saturating_add(1)))
}
