//! JSON read into a type, with the path of the first value that does not fit for the error.

use serde::Deserialize;

/// `text` deserialized as `T`; on a mismatch, the error with the JSON path of the value that
/// did not fit. Tracking the path on every value cost 11% of decoding an event list and most
/// of reading a large site's previous build (callgrind), and only a file that does not fit
/// needs it: that file is read again, path tracked, for the error. Text, not bytes: serde_json
/// then need not check each string's UTF-8 (from bytes, a whole build cost 1% more).
pub(super) fn from_str_with_path<'a, T: Deserialize<'a>>(
    text: &'a str,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut reader)?;
    // What `from_str` refused may be a value that fits with more after it (`{...}<html>`),
    // which a Deserializer alone never looks at.
    reader.end().map_err(|error| {
        serde_path_to_error::Error::new(serde_path_to_error::Track::new().path(), error)
    })?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::from_str_with_path;
    use std::collections::BTreeMap;

    #[test]
    fn a_value_that_fits_reads_and_one_that_does_not_is_named_by_its_path() {
        type Shape = BTreeMap<String, Vec<u32>>;
        let read: Shape = from_str_with_path(r#"{"a": [1, 2]}"#).unwrap();
        assert_eq!(read["a"], [1, 2]);
        let error = from_str_with_path::<Shape>(r#"{"a": [1, "two"]}"#).unwrap_err();
        assert_eq!(error.path().to_string(), "a[1]");
    }

    #[test]
    fn a_value_that_fits_with_more_after_it_is_refused() {
        type Shape = BTreeMap<String, Vec<u32>>;
        let read: Shape = from_str_with_path("{\"a\": [1]} \n").unwrap();
        assert_eq!(read["a"], [1]);
        for text in [r#"{"a": [1]}<html>"#, r#"{"a": [1]}{}"#, r#"{"a": [1]} x"#] {
            let error = from_str_with_path::<Shape>(text).unwrap_err();
            assert_eq!(
                error.inner().classify(),
                serde_json::error::Category::Syntax,
                "{text}"
            );
            assert_eq!(error.path().to_string(), ".", "{text}");
        }
    }
}
