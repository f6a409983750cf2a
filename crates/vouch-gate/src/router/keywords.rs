//! Keyword detection: a routing keyword counts only when it stands on a line of its own.

use vouch_session::FastMap;

use crate::config::Route;

/// The distinct routing keywords of a configuration, indexed for lookup by line.
#[derive(Debug, Clone, Default)]
pub(crate) struct Keywords {
    /// Each distinct keyword as the first route wrote it.
    list: Vec<String>,
    /// Lowercased keyword to its index in `list`.
    index: FastMap<String, usize>,
    /// The longest keyword, in bytes: longer lines cannot be one.
    longest: usize,
}

impl Keywords {
    /// Indexes the keywords of `routes`.
    pub(crate) fn new(routes: &[Route]) -> Keywords {
        let mut k = Keywords::default();
        // A transition without a signal has no keyword to find.
        for route in routes.iter().filter(|r| !r.keyword.is_empty()) {
            let lower = route.keyword.to_lowercase();
            if !k.index.contains_key(&lower) {
                k.longest = k.longest.max(lower.len());
                k.index.insert(lower, k.list.len());
                k.list.push(route.keyword.clone());
            }
        }
        k
    }

    /// Returns keyword `i` as written in the configuration.
    pub(crate) fn get(&self, i: usize) -> &str {
        self.list.get(i).map_or("", String::as_str)
    }

    /// Returns the index of `keyword` (matched case-insensitively, surrounding whitespace and
    /// emphasis ignored), if it is one.
    pub(crate) fn lookup(&self, keyword: &str) -> Option<usize> {
        let bare = strip_emphasis(keyword);
        if bare.is_empty() || bare.len() > self.longest.saturating_mul(4) {
            return None;
        }
        self.index.get(&bare.to_lowercase()).copied()
    }

    /// Returns the keywords that stand on lines of their own in `text`, each once, in the order
    /// they first appear. Lines inside fenced code blocks (```` ``` ```` or `~~~`) are quoted
    /// text, not requests, and do not count.
    pub(crate) fn find(&self, text: &str) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        let mut fence: Option<&str> = None;
        for line in text.lines() {
            let trimmed = line.trim_start();
            if let Some(open) = fence {
                if trimmed.starts_with(open) {
                    fence = None;
                }
                continue;
            }
            if trimmed.starts_with("```") {
                fence = Some("```");
                continue;
            }
            if trimmed.starts_with("~~~") {
                fence = Some("~~~");
                continue;
            }
            if let Some(i) = self.lookup(line)
                && !found.contains(&i)
            {
                found.push(i);
            }
        }
        found
    }
}

/// Returns `line` without surrounding whitespace and markdown emphasis (`**KEYWORD**`,
/// `_KEYWORD_`).
pub(crate) fn strip_emphasis(line: &str) -> &str {
    line.trim_matches(|c: char| c.is_whitespace() || c == '*' || c == '_')
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn keywords(words: &[&str]) -> Keywords {
        let mut k = Keywords::default();
        for w in words {
            let lower = w.to_lowercase();
            k.longest = k.longest.max(lower.len());
            k.index.insert(lower, k.list.len());
            k.list.push((*w).to_owned());
        }
        k
    }

    #[test]
    fn a_keyword_counts_only_on_its_own_line() {
        let k = keywords(&["HANDOFF TO TESTER", "APPROVED"]);
        assert_eq!(k.find("Done.\nHANDOFF TO TESTER\n"), vec![0]);
        assert_eq!(k.find("  **handoff to tester**  "), vec![0]);
        assert_eq!(k.find("__APPROVED__"), vec![1]);
        assert!(
            k.find("I will write HANDOFF TO TESTER when done.")
                .is_empty()
        );
        assert!(k.find("HANDOFF TO TESTER.").is_empty());
        assert_eq!(k.find("APPROVED\nHANDOFF TO TESTER\nAPPROVED"), vec![1, 0]);
    }

    #[test]
    fn keywords_in_code_fences_are_quotes() {
        let k = keywords(&["APPROVED"]);
        assert!(k.find("```json\n{}\nAPPROVED\n```\nnot yet").is_empty());
        assert_eq!(k.find("~~~\nAPPROVED\n~~~\nAPPROVED"), vec![0]);
        // An unclosed fence runs to the end.
        assert!(k.find("```\nAPPROVED").is_empty());
    }

    proptest! {
        #[test]
        fn a_keyword_is_found_iff_some_line_is_exactly_it(lines in proptest::collection::vec("[A-Z *_]{0,12}", 0..8)) {
            let k = keywords(&["GO ON"]);
            let text = lines.join("\n");
            let expected = lines.iter().any(|l| strip_emphasis(l).eq_ignore_ascii_case("GO ON"));
            prop_assert_eq!(!k.find(&text).is_empty(), expected);
        }
    }
}
