//! fuseraft's `Document` plugin: `document_extract_text` — the text of a file of the working
//! directory: plain text, Markdown, CSV, JSON, YAML and XML as they are; HTML with its tags,
//! scripts and styles removed. PDF, Word, PowerPoint and Excel files are refused with a clear
//! answer: vouch reads no binary office format.

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput, text_arg};
use crate::workspace::Access;

/// Answers `document_extract_text(path)`.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let path = match text_arg(args, "path") {
        Ok(p) => p,
        Err(e) => return e,
    };
    let extension = path
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    if matches!(
        extension.as_str(),
        "pdf" | "docx" | "doc" | "pptx" | "ppt" | "xlsx" | "xls" | "odt"
    ) {
        return ToolOutput::error(format!(
            "vouch does not read `.{extension}` documents; convert `{path}` to text first (pdftotext, pandoc) with shell_run"
        ));
    }
    let real = match cx.workspace.resolve(path, Access::Read) {
        Ok(r) => r,
        Err(why) => return ToolOutput::denied(why),
    };
    let bytes = match std::fs::read(&real) {
        Ok(b) => b,
        Err(e) => return ToolOutput::error(format!("cannot read `{path}`: {e}")),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return ToolOutput::error(format!("`{path}` is not text"));
    };
    let text = if matches!(extension.as_str(), "html" | "htm" | "xhtml") {
        html_text(&text)
    } else {
        text
    };
    let kept: String = text.chars().take(cx.result_cap).collect();
    ToolOutput::ok(kept)
}

/// Returns the text of an HTML page: tags, comments, scripts and styles removed, entities of
/// the common five decoded, blank runs collapsed.
fn html_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::new();
    let mut i = 0;
    while i < html.len() {
        if lower[i..].starts_with("<script") || lower[i..].starts_with("<style") {
            let close = if lower[i..].starts_with("<script") {
                "</script>"
            } else {
                "</style>"
            };
            i = lower[i..]
                .find(close)
                .map_or(html.len(), |e| i + e + close.len());
            continue;
        }
        if lower[i..].starts_with("<!--") {
            i = lower[i..].find("-->").map_or(html.len(), |e| i + e + 3);
            continue;
        }
        if html[i..].starts_with('<') {
            let end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
            let tag = &lower[i..end];
            if [
                "<br", "<p", "</p", "<div", "</div", "<li", "<h", "</h", "<tr",
            ]
            .iter()
            .any(|t| tag.starts_with(t))
            {
                out.push('\n');
            }
            i = end;
            continue;
        }
        let next = html[i..].find('<').map_or(html.len(), |e| i + e);
        out.push_str(&html[i..next]);
        i = next;
    }
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    decoded
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_keeps_its_text_only() {
        let page = "<html><head><style>p{}</style><script>var x='<p>';</script></head><body><h1>Title</h1><p>A &amp; B</p><!-- no --></body></html>";
        assert_eq!(html_text(page), "Title\nA & B");
    }
}
