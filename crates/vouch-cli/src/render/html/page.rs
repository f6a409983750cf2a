//! The page every report shares: escaping, the inline style and script, and writing the file
//! atomically.

use std::fmt::Write as _;
use std::path::Path;

/// Returns `text` escaped for an attribute value in double quotes (and for text).
pub(super) fn escape(text: &str) -> String {
    escape_with(text, true)
}

/// Returns `text` escaped for the text of an element: quotes stay as they are, which keeps
/// JSON arguments readable in the file and the file small.
pub(super) fn escape_text(text: &str) -> String {
    escape_with(text, false)
}

fn escape_with(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Returns at most `max` bytes of `text` (cut at a character boundary) and whether it was cut.
pub(super) fn clip(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// Returns a whole page: `title`, then `body` (already HTML).
pub(super) fn page(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + STYLE.len() + SCRIPT.len() + 512);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"vouch\">\n<title>{}</title>\n<style>{STYLE}</style>\n\
         </head>\n<body>\n{body}\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        escape(title)
    );
    out
}

/// Writes the report `html` to `path` as [`write_file`] does, and says where on standard error
/// (`the HTML report: PATH`), so that a person finds it; standard output keeps the command's
/// own result.
pub(crate) fn write_report(
    ui: &mut crate::ui::Ui,
    path: &Path,
    html: &str,
) -> Result<(), vouch_evidence::Error> {
    write_file(path, html)?;
    ui.status(format_args!("the HTML report: {}", path.display()));
    Ok(())
}

/// Writes `html` to `path` through a temporary file in the same folder, so that a reader never
/// sees half a report.
pub(crate) fn write_file(path: &Path, html: &str) -> Result<(), vouch_evidence::Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    vouch_evidence::write_atomically(path, dir, html.as_bytes())?;
    // A report is for reading: not the temporary file's owner-only mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).map_err(
            |source| vouch_evidence::Error::Write {
                path: path.to_owned(),
                source,
            },
        )?;
    }
    Ok(())
}

/// The style: plain, printable, marks as well as colours.
const STYLE: &str = r#"
:root { --ok:#1a7f37; --bad:#cf222e; --warn:#9a6700; --muted:#57606a; --line:#d0d7de; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 3rem; color: #1f2328; }
h1 { font-size: 1.3rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
code, pre, .arg { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: var(--bg); border: 1px solid var(--line); padding: .5rem .7rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: .3rem 0; }
.meta { color: var(--muted); margin: 0 0 .2rem; }
.meta span + span::before { content: " · "; }
.filters { position: sticky; top: 0; background: #fff; padding: .5rem 0; border-bottom: 1px solid var(--line); display: flex; gap: .8rem; flex-wrap: wrap; align-items: center; z-index: 1; }
.filters input[type=search] { min-width: 16rem; padding: .25rem .4rem; }
.turn { margin: .6rem 0; }
.turn > h3 { font-size: .85rem; color: var(--muted); margin: .8rem 0 .2rem; text-transform: uppercase; letter-spacing: .04em; }
.msg { margin: .25rem 0; padding: .3rem .6rem; border-left: 3px solid var(--line); white-space: pre-wrap; word-break: break-word; }
.msg.user { border-color: #0969da; }
.msg.assistant { border-color: #8250df; }
.msg.system { color: var(--muted); font-size: .92em; }
.who { font-weight: 600; margin-right: .4rem; }
details.call { margin: .2rem 0; border: 1px solid var(--line); border-left-width: 4px; border-radius: 4px; }
details.call > summary { cursor: pointer; padding: .25rem .5rem; list-style-position: inside; }
details.call > summary:focus-visible { outline: 2px solid #0969da; }
details.call > .body { padding: .2rem .8rem .5rem; }
details.call.ok { border-left-color: var(--ok); }
details.call.failed, details.call.error, details.call.timed_out { border-left-color: var(--bad); }
details.call.denied { border-left-color: var(--warn); }
details.call.none { border-left-color: var(--muted); border-left-style: dashed; }
.mark { display: inline-block; width: 1.2em; font-weight: 700; }
details.ok > summary > .mark { color: var(--ok); }
details.failed > summary > .mark, details.error > summary > .mark, details.timed_out > summary > .mark { color: var(--bad); }
details.denied > summary > .mark { color: var(--warn); }
.tool { font-weight: 600; }
.kind, .dur, .outcome { color: var(--muted); font-size: .9em; margin-left: .4rem; }
.arg { margin-left: .5rem; }
.size { color: var(--muted); font-size: .9em; }
.subagent { margin: .4rem 0 .4rem 1.2rem; padding-left: .8rem; border-left: 2px solid #8250df; }
ul.rows { list-style: none; padding-left: .2rem; margin: .3rem 0; }
li.row { margin: .2rem 0; }
li.row.failed { color: var(--bad); }
li.row.ok .mark { color: var(--ok); } li.row.failed .mark { color: var(--bad); } li.row.none .mark { color: var(--muted); }
li.row.failed .reason { color: #1f2328; }
.reason { margin: .1rem 0 .2rem 1.2rem; white-space: pre-wrap; word-break: break-word; font-size: .93em; }
details.session { margin: .4rem 0; }
details.session > summary { cursor: pointer; color: var(--muted); }
details.test > summary .tool { font-size: 1.02em; }
.ended { font-size: 1.05em; margin: .3rem 0; } .ended.ok .mark { color: var(--ok); } .ended.failed .mark { color: var(--bad); }
table.tokens { border-collapse: collapse; margin: .4rem 0 1rem; font-size: .92em; }
table.tokens caption { text-align: left; color: var(--muted); }
table.tokens th, table.tokens td { border: 1px solid var(--line); padding: .15rem .6rem; text-align: right; }
table.tokens th[scope=row] { text-align: left; }
main.lanes { display: grid; gap: .35rem .8rem; align-items: start; }
h2.lane { margin: 0; text-align: center; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .2rem; position: sticky; top: 0; }
.card { border: 1px solid var(--line); border-radius: 4px; padding: .3rem .5rem; background: #fff; }
.card h3 { font-size: .9rem; margin: .1rem 0 .2rem; }
.card ul.rows { margin: .1rem 0; }
.card li.row.ok .mark { color: var(--ok); }
.handoff { border-top: 2px solid var(--ok); padding: .15rem .4rem; font-size: .9em; text-align: center; }
.handoff.failed { border-top: 2px dashed var(--bad); color: var(--bad); }
.handoff.failed pre { color: #1f2328; text-align: left; }
.handoff.right::after { content: " ▶"; } .handoff.left::before { content: "◀ "; }
.handoff .mark { margin-right: .3rem; }
.hidden { display: none !important; }
@media print {
  .filters { display: none; }
  details.call { break-inside: avoid; }
  details.call > .body { display: block; }
}
"#;

/// The script: filtering, opening what a link names. The page reads fully without it.
const SCRIPT: &str = r#"
(function () {
  "use strict";
  var calls = Array.prototype.slice.call(document.querySelectorAll("details.call"));
  var search = document.getElementById("filter-text");
  var tool = document.getElementById("filter-tool");
  var outcome = document.getElementById("filter-outcome");
  function apply() {
    var q = search ? search.value.toLowerCase() : "";
    var t = tool ? tool.value : "";
    var o = outcome ? outcome.value : "";
    var shown = 0;
    calls.forEach(function (c) {
      var hit = (!t || c.dataset.tool === t) && (!o || c.dataset.outcome === o) &&
        (!q || c.textContent.toLowerCase().indexOf(q) >= 0);
      c.classList.toggle("hidden", !hit);
      if (hit) { shown += 1; }
    });
    var count = document.getElementById("filter-count");
    if (count) { count.textContent = shown + " of " + calls.length + " calls"; }
  }
  [search, tool, outcome].forEach(function (el) {
    if (el) { el.addEventListener("input", apply); el.addEventListener("change", apply); }
  });
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) { return; }
    var el = document.getElementById(id);
    for (var n = el; n; n = n.parentElement) {
      if (n.tagName === "DETAILS") { n.open = true; }
    }
    // A link to a block holding details (a blocked handoff's message) opens them too.
    var inner = el && el.tagName !== "DETAILS" ? el.querySelector(":scope > details") : null;
    if (inner) { inner.open = true; }
    if (el) { el.scrollIntoView(); el.querySelector("summary") && el.querySelector("summary").focus(); }
  }
  window.addEventListener("hashchange", reveal);
  apply();
  reveal();
}());
"#;
