//! The Reviewer's `{"review": [...]}` block, found in its message: in a ```` ```json ```` fence
//! or as bare JSON in the text.

use serde::Deserialize;

use crate::shapes::null_as_default;

/// A structured per-criterion judgement.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Review {
    /// One entry per criterion.
    #[serde(default, deserialize_with = "null_as_default")]
    pub review: Vec<ReviewEntry>,
}

/// The verdict on one criterion.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ReviewEntry {
    /// The criterion's text.
    #[serde(default, deserialize_with = "null_as_default")]
    pub criterion: String,
    /// `PASS` or `FAIL` (compared case-insensitively).
    #[serde(default, deserialize_with = "null_as_default")]
    pub verdict: String,
    /// What was run or read to decide.
    #[serde(default, deserialize_with = "null_as_default")]
    pub evidence: String,
}

impl ReviewEntry {
    /// Returns true when criterion, verdict and evidence are all non-empty.
    pub fn is_complete(&self) -> bool {
        !self.criterion.trim().is_empty()
            && !self.verdict.trim().is_empty()
            && !self.evidence.trim().is_empty()
    }

    /// Returns true for a `PASS` verdict.
    pub fn passed(&self) -> bool {
        self.verdict.trim().eq_ignore_ascii_case("pass")
    }

    /// Returns true for a `FAIL` verdict.
    pub fn failed(&self) -> bool {
        self.verdict.trim().eq_ignore_ascii_case("fail")
    }
}

impl Review {
    /// Finds the review block in a message: the first fenced code block that parses as an
    /// object with a `review` list, else the first bare JSON object in the text that does.
    pub fn find(text: &str) -> Option<Review> {
        fenced_blocks(text)
            .find_map(parse_review)
            .or_else(|| bare_objects(text).find_map(parse_review))
    }
}

fn parse_review(json: &str) -> Option<Review> {
    #[derive(Deserialize)]
    struct Probe {
        review: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Probe>(json).ok()?.review?;
    serde_json::from_str(json).ok()
}

/// Returns the bodies of the ```` ``` ```` fenced blocks of a markdown text.
fn fenced_blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let open = rest.find("```")?;
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        let close = body.find("```").unwrap_or(body.len());
        rest = &body[(close + 3).min(body.len())..];
        Some(&body[..close])
    })
}

/// Returns each JSON object that starts at a `{` in the text, parsed as far as it goes.
fn bare_objects(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{').filter_map(move |(i, _)| {
        let mut stream =
            serde_json::Deserializer::from_str(&text[i..]).into_iter::<serde::de::IgnoredAny>();
        match stream.next() {
            Some(Ok(_)) => Some(&text[i..i + stream.byte_offset()]),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_fenced_block() {
        let text = "Checked.\n```json\n{\"review\": [{\"criterion\": \"a\", \"verdict\": \"PASS\", \"evidence\": \"ran it\"}]}\n```\nAPPROVED";
        let r = Review::find(text).unwrap();
        assert_eq!(r.review.len(), 1);
        assert!(r.review[0].passed() && r.review[0].is_complete());
    }

    #[test]
    fn finds_a_bare_object_after_other_braces() {
        let text = "Set {x} aside. {\"review\": [{\"criterion\": \"a\", \"verdict\": \"fail\", \"evidence\": \"broken\"}]} APPROVED";
        let r = Review::find(text).unwrap();
        assert!(r.review[0].failed());
    }

    #[test]
    fn no_block_is_none() {
        assert!(Review::find("APPROVED").is_none());
        assert!(Review::find("```json\n{\"other\": 1}\n```").is_none());
    }
}
