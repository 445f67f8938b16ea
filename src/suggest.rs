//! "Did you mean": the known name nearest to a mistyped one, for config keys, front-matter
//! keys, pages, files and anchors alike.

/// The known name nearest to `unknown`, if it is near enough to be a slip: the same but for
/// case, or a few letters changed, added, dropped or swapped (strsim's optimal string
/// alignment distance, the one clap suggests flags with).
pub fn nearest<'k>(unknown: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let unknown = unknown.to_lowercase();
    let limit = (unknown.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (strsim::osa_distance(&unknown, &k.to_lowercase()), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn only_a_near_name_is_suggested() {
        let known = ["site_url", "base_url", "title", "recent_days"];
        assert_eq!(nearest("site_ulr", known), Some("site_url"));
        assert_eq!(nearest("SITE_URL", known), Some("site_url"));
        assert_eq!(nearest("recentdays", known), Some("recent_days"));
        assert_eq!(nearest("titel", known), Some("title"));
        assert_eq!(nearest("colour", known), None);
        assert_eq!(nearest("url", known), None);
        assert_eq!(
            nearest("guias.md", ["guides.md", "join.md"]),
            Some("guides.md")
        );
    }
}
