//! Tera 1 panics on some templates instead of failing: a render is run so that a panic in it
//! becomes an ordinary error naming the template, and its message is not printed as a crash.
//! The tests below hold the templates known to panic (a theme may hold any of them), so that
//! a Tera that stops panicking, or panics on something new, shows here.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`guarded`], whose panics are turned into errors.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Runs `render`, a render of `template`; a panic inside it is returned as an error that
/// names the template. Other threads' panics are printed as before.
pub fn guarded<T>(template: &str, render: impl FnOnce() -> tera::Result<T>) -> tera::Result<T> {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.get() {
                previous(info);
            }
        }));
    });
    let outer = GUARDED.replace(true);
    let caught = panic::catch_unwind(AssertUnwindSafe(render));
    GUARDED.set(outer);
    caught.unwrap_or_else(|payload| {
        let cause = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(tera::Error::msg(format!(
            "Failed to render '{template}': the template engine (Tera) crashed on it{}: \
             look for an `if` over a list written in the template, a `for` over a text, or \
             math on a macro's result, and write it another way",
            if cause.is_empty() {
                String::new()
            } else {
                format!(" ({})", crate::sanitize::quote::short(&cause))
            }
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, context: &tera::Context) -> tera::Result<String> {
        let mut tera = tera::Tera::default();
        tera.add_raw_template("page.html", text)?;
        guarded("page.html", || tera.render("page.html", context))
    }

    /// What Tera 1 does with each input reported to crash it: a `for` over a text of
    /// combining characters and math on a macro's result panic inside Tera, and are errors
    /// naming the template here; a list tested by `if` is refused when it parses.
    #[test]
    fn a_template_that_crashes_tera_is_an_error_naming_it() {
        let mut context = tera::Context::new();
        context.insert("s", "e\u{301}a\u{308}");
        for template in [
            "{% for c in s %}{{ c }}{% endfor %}",
            "{% macro m() %}1{% endmacro m %}{{ self::m() + 1 }}",
        ] {
            let error = render(template, &context).unwrap_err();
            let message = super::super::errors::full_text(&error);
            assert!(
                message.contains("Failed to render 'page.html'"),
                "{message}"
            );
            assert!(message.contains("crashed"), "{message}");
        }
        let error = render("{% if [1] %}x{% endif %}", &context).unwrap_err();
        let message = super::super::errors::full_text(&error);
        assert!(message.contains("Failed to parse 'page.html'"), "{message}");
        // The thread renders again after a crash, and fails as before.
        assert_eq!(render("{{ s | length }}", &context).unwrap(), "4");
    }
}
