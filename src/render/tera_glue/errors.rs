//! What Tera's errors say, read from their text: the one place that parses another library's
//! wording. Tera's errors carry no line, variable or template name as fields, so these are
//! read from its messages and pest's; the tests feed each reader a real error from the real
//! library, so that an upgrade that changes the wording fails a test instead of a message.

/// The whole message: Tera keeps the useful part (file, line, missing variable) in the cause
/// chain, flattened here into one text.
pub fn full_text(error: &tera::Error) -> String {
    let chain = std::iter::successors(Some(error as &dyn std::error::Error), |e| e.source());
    chain
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

/// A render error's undefined variable and the template rendered: from "Variable `x.y` not
/// found in context while rendering 'name'".
pub fn missing_variable(message: &str) -> Option<(&str, &str)> {
    let variable = message.split("Variable `").nth(1)?.split('`').next()?;
    let template = message
        .rsplit("while rendering '")
        .next()?
        .split('\'')
        .next()?;
    Some((variable, template))
}

/// The template a render failed in, and the message that a function called in it returned
/// after it: from "Failed to render 'name': ... : message".
pub fn failed_function<'m>(message: &'m str, function_message: &str) -> Option<(&'m str, &'m str)> {
    let template = message
        .split("Failed to render '")
        .nth(1)?
        .split('\'')
        .next()?;
    let (_, rest) = message.split_once(function_message)?;
    Some((template, rest))
}

/// A template that does not parse: where, and what was expected there.
#[derive(Debug, PartialEq, Eq)]
pub struct Syntax {
    /// From 1.
    pub line: usize,
    /// From 1, in characters.
    pub column: usize,
    /// Pest's "expected ..." text.
    pub expected: String,
}

/// Where a loading error's template does not parse, from pest's layout in the cause (" -->
/// 3:17", then "= expected ..."); `None` for any other error.
pub fn syntax(error: &tera::Error) -> Option<Syntax> {
    let cause = std::error::Error::source(error)?.to_string();
    let (line, column) = cause
        .lines()
        .find_map(|l| l.trim().strip_prefix("--> "))?
        .split_once(':')?;
    let expected = cause.lines().find_map(|l| l.trim().strip_prefix("= "))?;
    Some(Syntax {
        line: line.parse().ok()?,
        column: column.parse().ok()?,
        expected: expected.to_owned(),
    })
}

/// Whether a message names the template `name` (Tera quotes it: `'name'`).
pub fn names_template(message: &str, name: &str) -> bool {
    message.contains(&format!("'{name}'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn load(name: &str, text: &str) -> tera::Error {
        let mut tera = tera::Tera::default();
        tera.add_raw_template(name, text).unwrap_err()
    }

    fn render(name: &str, text: &str, tera: &mut tera::Tera) -> String {
        tera.add_raw_template(name, text).unwrap();
        full_text(
            &tera
                .render(name, &tera::Context::new())
                .expect_err("the render fails"),
        )
    }

    #[test]
    fn a_syntax_error_is_read_with_its_line_and_column() {
        let error = load("page.html", "<p>\n  {{ oops oops }}</p>\n");
        let syntax = syntax(&error).expect("a syntax error");
        assert_eq!((syntax.line, syntax.column), (2, 11));
        assert!(syntax.expected.starts_with("expected "), "{syntax:?}");
        assert!(names_template(&full_text(&error), "page.html"));
        assert!(!names_template(&full_text(&error), "page"));
    }

    #[test]
    fn an_error_that_is_not_a_syntax_error_has_no_place() {
        let error = load("a.html", "{% extends \"missing.html\" %}");
        assert_eq!(syntax(&error), None);
    }

    #[test]
    fn an_undefined_variable_is_read_with_its_template() {
        let mut tera = tera::Tera::default();
        let message = render("roster.html", "<p>{{ crew.captain }}</p>", &mut tera);
        assert_eq!(
            missing_variable(&message),
            Some(("crew.captain", "roster.html"))
        );
    }

    #[test]
    fn a_function_s_error_is_read_with_the_template_that_called_it() {
        let mut tera = tera::Tera::default();
        tera.register_function("t", |_: &HashMap<String, tera::Value>| {
            Err(tera::Error::msg("unknown text key `page.x`"))
        });
        let message = render("404.html", "{{ t(key=\"page.x\") }}", &mut tera);
        assert_eq!(
            failed_function(&message, "unknown text key `"),
            Some(("404.html", "page.x`"))
        );
    }
}
