//! Reading a task document — a JSON array of tasks, a tree of `{task, children}` nodes (or an
//! array of them), JSONL, or `{"tasks": [...]}` — into raw tasks that borrow from the text and
//! remember where they are.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::issue::{Issue, code};

macro_rules! fields {
    ($($name:ident),+ $(,)?) => {
        /// The protocol's fields of one task, each as its raw JSON text when present.
        #[derive(Debug, Default, Clone, Copy)]
        #[allow(missing_docs, reason = "one per protocol field")]
        pub(crate) struct Fields<'a> {
            $(pub(crate) $name: Option<&'a RawValue>,)+
            /// `task` and `children`, for a tree node.
            pub(crate) task: Option<&'a RawValue>,
            pub(crate) children: Option<&'a RawValue>,
            /// `tasks`, for a wrapped document.
            pub(crate) tasks: Option<&'a RawValue>,
        }

        impl<'a> Fields<'a> {
            fn set(&mut self, key: &str, value: &'a RawValue) -> bool {
                match key {
                    $(stringify!($name) => self.$name = Some(value),)+
                    "task" => self.task = Some(value),
                    "children" => self.children = Some(value),
                    "tasks" => self.tasks = Some(value),
                    _ => return false,
                }
                true
            }
        }
    };
}

fields!(
    id,
    parent_id,
    user_id,
    name,
    status,
    priority,
    inputs,
    schemas,
    params,
    result,
    error,
    dependencies,
    progress,
    created_at,
    updated_at,
    started_at,
    completed_at,
    origin_type,
    original_task_id,
    has_references,
    schedule_type,
    schedule_expression,
    schedule_enabled,
    schedule_start_at,
    schedule_end_at,
    next_run_at,
    last_run_at,
    max_runs,
    run_count,
);

impl<'de: 'a, 'a> Deserialize<'de> for Fields<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Fields<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a task object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'a>, A::Error> {
                let mut fields = Fields::default();
                // Unknown keys are skipped by borrowing their raw text, which costs nothing; the
                // last of duplicate keys wins, as JSON parsers commonly do.
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    let _ = fields.set(key.as_str(), value);
                }
                Ok(fields)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A key, borrowed when it has no escapes.
enum Key<'a> {
    Borrowed(&'a str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v.to_owned()))
            }
        }
        d.deserialize_str(V)
    }
}

/// Where a task sits in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// `$[i]`, or `$.tasks[i]`, or the i-th record of JSONL.
    Index(usize),
    /// A JSON path built while walking a tree.
    Path(String),
}

/// One task of a document, unparsed.
#[derive(Debug, Clone)]
pub(crate) struct RawTask<'a> {
    /// The task's whole text.
    pub(crate) raw: &'a RawValue,
    /// Its fields; `None` when the task is not a JSON object.
    pub(crate) fields: Option<Fields<'a>>,
    /// Where it is.
    pub(crate) place: Place,
    /// In a tree, the task of the enclosing node: the task's `parent_id` must be its id.
    pub(crate) enclosing: Option<usize>,
}

/// How the document was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A JSON array of tasks (or of tree nodes).
    Array,
    /// `{"tasks": [...]}`.
    Wrapped,
    /// One `{task, children}` node, or one task.
    Tree,
    /// One task (or node) per line.
    Jsonl,
}

/// A document that is not JSON (or not a task document at all): where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
#[non_exhaustive]
pub struct SyntaxError {
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl SyntaxError {
    fn at(text: &str, offset: usize, message: impl Into<String>) -> SyntaxError {
        let (line, column) = line_column(text, offset);
        SyntaxError {
            line,
            column,
            message: message.into(),
        }
    }

    fn from_json(e: &serde_json::Error) -> SyntaxError {
        let message = e.to_string();
        // serde_json appends " at line L column C"; the fields carry them.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_owned();
        SyntaxError {
            line: e.line(),
            column: e.column(),
            message,
        }
    }
}

/// Returns the 1-based line and column (in characters) of byte `offset` of `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

/// A parsed task document: its tasks, borrowed from the text.
#[derive(Debug)]
pub struct Document<'a> {
    pub(crate) text: &'a str,
    pub(crate) form: Form,
    pub(crate) tasks: Vec<RawTask<'a>>,
    /// Problems of the document's shape (a node without `task`, children that are not a list).
    pub(crate) issues: Vec<Issue>,
}

impl<'a> Document<'a> {
    /// Reads `text`. Anything that is not JSON, or JSON that is not a task document, is a
    /// [`SyntaxError`] with its line and column; everything else is left to validation.
    pub fn parse(text: &'a str) -> Result<Document<'a>, SyntaxError> {
        let start = text.len() - text.trim_start().len();
        let mut doc = Document {
            text,
            form: Form::Array,
            tasks: Vec::new(),
            issues: Vec::new(),
        };
        match text.as_bytes().get(start) {
            None => return Err(SyntaxError::at(text, 0, "the document is empty")),
            Some(b'[') => {
                let items: Vec<&RawValue> =
                    serde_json::from_str(text).map_err(|e| SyntaxError::from_json(&e))?;
                doc.items(&items, "$");
            }
            Some(b'{') => {
                let mut records = Vec::new();
                for record in serde_json::Deserializer::from_str(text).into_iter::<&RawValue>() {
                    records.push(record.map_err(|e| SyntaxError::from_json(&e))?);
                }
                if let [one] = records.as_slice() {
                    let fields = object(one).unwrap_or_default();
                    match fields.tasks {
                        Some(list) if fields.id.is_none() && fields.task.is_none() => {
                            let items: Vec<&RawValue> = serde_json::from_str(list.get())
                                .map_err(|_| {
                                    SyntaxError::at(text, offset(text, list), "`tasks` must be a list of tasks")
                                })?;
                            doc.form = Form::Wrapped;
                            doc.items(&items, "$.tasks");
                        }
                        _ => {
                            doc.form = Form::Tree;
                            doc.item(one, "$".to_owned(), None);
                        }
                    }
                } else {
                    doc.form = Form::Jsonl;
                    doc.items(&records, "$");
                }
            }
            Some(_) => {
                return Err(SyntaxError::at(
                    text,
                    start,
                    "expected a task document: a JSON array of tasks, a {\"task\", \"children\"} tree, or one task per line",
                ));
            }
        }
        Ok(doc)
    }

    /// Returns how the document was written.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Returns how many tasks it holds.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Returns true when it holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Returns the 1-based line and column where task `index` starts.
    pub fn line_column(&self, index: usize) -> Option<(usize, usize)> {
        let task = self.tasks.get(index)?;
        Some(line_column(self.text, offset(self.text, task.raw)))
    }

    /// Returns the JSON path of task `index`.
    pub fn path(&self, index: usize) -> String {
        match self.tasks.get(index).map(|t| &t.place) {
            Some(Place::Index(i)) => match self.form {
                Form::Wrapped => format!("$.tasks[{i}]"),
                _ => format!("$[{i}]"),
            },
            Some(Place::Path(p)) => p.clone(),
            None => "$".to_owned(),
        }
    }

    /// Adds the elements of a list: tasks, or tree nodes.
    fn items(&mut self, items: &[&'a RawValue], base: &str) {
        self.tasks.reserve(items.len());
        for (i, item) in items.iter().enumerate() {
            let fields = object(item);
            if fields.is_some_and(|f| f.task.is_some() && f.id.is_none()) {
                self.item(item, format!("{base}[{i}]"), None);
            } else {
                self.tasks.push(RawTask {
                    raw: item,
                    fields,
                    place: Place::Index(i),
                    enclosing: None,
                });
            }
        }
    }

    /// Adds a tree node and everything below it (or a lone task), without recursion.
    fn item(&mut self, root: &'a RawValue, path: String, enclosing: Option<usize>) {
        let mut stack = vec![(root, path, enclosing)];
        while let Some((node, path, enclosing)) = stack.pop() {
            let Some(fields) = object(node) else {
                self.issues.push(shape(&path, "a tree node must be an object"));
                continue;
            };
            let Some(task) = fields.task.filter(|_| fields.id.is_none()) else {
                // A lone task where a node could be.
                self.tasks.push(RawTask {
                    raw: node,
                    fields: Some(fields),
                    place: Place::Path(path),
                    enclosing,
                });
                continue;
            };
            let index = self.tasks.len();
            self.tasks.push(RawTask {
                raw: task,
                fields: object(task),
                place: Place::Path(format!("{path}.task")),
                enclosing,
            });
            let Some(children) = fields.children.filter(|c| c.get() != "null") else {
                continue;
            };
            match serde_json::from_str::<Vec<&RawValue>>(children.get()) {
                Ok(children) => {
                    // Reversed, so that the stack pops them in document order.
                    for (i, child) in children.iter().enumerate().rev() {
                        stack.push((child, format!("{path}.children[{i}]"), Some(index)));
                    }
                }
                Err(_) => self.issues.push(shape(
                    &format!("{path}.children"),
                    "`children` must be a list of nodes",
                )),
            }
        }
    }
}

fn shape(path: &str, reason: &str) -> Issue {
    let mut issue = Issue::error(code::VALIDATION, None, "", reason);
    issue.path = path.to_owned();
    issue
}

/// Returns the byte offset of `raw` in `text`.
fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// Reads `raw` as an object's fields; `None` when it is not an object.
fn object(raw: &RawValue) -> Option<Fields<'_>> {
    if !raw.get().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Fields<'_>>(raw.get()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_read_with_its_paths() {
        let doc = Document::parse(r#"[{"id": "a"}, 5, {"task": {"id": "b"}, "children": [{"task": {"id": "c"}}]}]"#).unwrap();
        assert_eq!(doc.form(), Form::Array);
        assert_eq!(doc.len(), 4);
        assert_eq!(doc.path(1), "$[1]");
        assert!(doc.tasks[1].fields.is_none());
        assert_eq!(doc.path(2), "$[2].task");
        assert_eq!(doc.path(3), "$[2].children[0].task");
        assert_eq!(doc.tasks[3].enclosing, Some(2));

        let doc = Document::parse("{\"id\": \"a\"}\n{\"id\": \"b\"}\n").unwrap();
        assert_eq!(doc.form(), Form::Jsonl);
        assert_eq!(doc.line_column(1), Some((2, 1)));

        let doc = Document::parse(r#"{"tasks": [{"id": "a"}]}"#).unwrap();
        assert_eq!(doc.form(), Form::Wrapped);
        assert_eq!(doc.path(0), "$.tasks[0]");

        let doc = Document::parse(r#"{"task": {"id": "a"}, "children": 3}"#).unwrap();
        assert_eq!(doc.form(), Form::Tree);
        assert_eq!(doc.issues.len(), 1);
    }

    #[test]
    fn what_is_not_a_document_is_a_syntax_error_with_its_place() {
        let e = Document::parse("[\n  {\"id\": 1,}\n]").unwrap_err();
        assert_eq!((e.line, e.column), (2, 12));
        assert!(Document::parse("   ").is_err());
        assert!(Document::parse("42").is_err());
        assert!(Document::parse("{\"a\": 1}\n{oops}").is_err());
    }
}
