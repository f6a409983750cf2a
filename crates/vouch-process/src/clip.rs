//! Text clips: the start or the end of a text, cut on a character boundary and marked with `…`,
//! so that long output fits a message.

/// Returns the first `max` characters of `text` and whether anything was cut.
pub fn head_of(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((cut, _)) => (&text[..cut], true),
        None => (text, false),
    }
}

/// Returns the first `max` characters of `text`, followed by `…` when it was longer.
pub fn head(text: &str, max: usize) -> String {
    match head_of(text, max) {
        (kept, true) => format!("{kept}…"),
        (kept, false) => kept.to_owned(),
    }
}

/// Returns the last `max` characters of `text`, preceded by `…` when it was longer.
pub fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let start = text
        .char_indices()
        .nth(count - max)
        .map_or(text.len(), |(i, _)| i);
    format!("…{}", &text[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_mark_the_cut_on_character_boundaries() {
        assert_eq!(head("héllo", 2), "hé…");
        assert_eq!(head("hé", 2), "hé");
        assert_eq!(tail("héllo", 3), "…llo");
        assert_eq!(tail("élan", 4), "élan");
        assert_eq!(tail("aé", 1), "…é");
        assert_eq!(head_of("abc", 0), ("", true));
    }

    proptest::proptest! {
        #[test]
        fn clips_never_hold_more_than_asked(text in "\\PC{0,40}", max in 0usize..50) {
            let h = head(&text, max);
            let t = tail(&text, max);
            proptest::prop_assert!(h.chars().count() <= max + 1);
            proptest::prop_assert!(t.chars().count() <= max + 1);
            proptest::prop_assert!(text.starts_with(h.trim_end_matches('…')));
            proptest::prop_assert!(text.ends_with(t.trim_start_matches('…')));
        }
    }
}
